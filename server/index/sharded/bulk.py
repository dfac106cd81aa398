"""Bulk embedding through Ray: a corpus embedded by the configured embedder across the cluster's workers.

    python -m relate.server.index.sharded.bulk --data ./db --label Note --text text --vector embedding \\
        [--embedder hash-384] [--ray-address HEAD:6379]

`embed_texts` splits the texts into batches, embeds each batch in a Ray task (any worker of the
cluster) and returns the vectors in order; `embed_property` does that for every node of a label and
writes the vectors back in one transaction per window, so the vector indexes (sharded or not) follow
through the ordinary commit path. Remote (API) embedders are refused: a provider's rate limit, not
CPUs, bounds them.
"""
from __future__ import annotations

import argparse

from relate.protocol.errors import ArgumentError

from .cluster import configure, ray_module

BATCH = 256          # texts per task
WINDOW = 16          # tasks in flight (bounds the object store and the rows held here)


def _embed_batch(name: str, texts: list[str]) -> list[list[float]]:
    from relate.server.ai import embedders
    return embedders.get(name).embed(texts)


def embed_texts(texts: list[str], embedder: str | None = None, batch: int = BATCH) -> list[list[float]]:
    """The embeddings of ``texts`` (in order), computed by Ray tasks across the cluster."""
    from relate.server.ai import embedders
    chosen = embedders.get(embedder)
    if chosen.remote:
        raise ArgumentError(f"Embedder `{chosen.name}` calls an API; bulk embedding through Ray runs local "
                            f"embedders only")
    ray = ray_module()
    task = ray.remote(num_cpus=1)(_embed_batch)
    out: list[list[float]] = []
    starts = list(range(0, len(texts), batch))
    for w in range(0, len(starts), WINDOW):
        refs = [task.remote(chosen.name, texts[s:s + batch]) for s in starts[w:w + WINDOW]]
        for part in ray.get(refs):
            out.extend(part)
    return out


def embed_property(store, label: str, text_prop: str, vector_prop: str, embedder: str | None = None,
                   window: int = BATCH * WINDOW) -> int:
    """Embed ``text_prop`` of every ``label`` node into ``vector_prop`` (nodes without a string are left
    alone); one write transaction per window of nodes. Returns how many nodes were written."""
    tx = store.begin_read()
    try:
        todo = [(nid, tx.node_prop(nid, text_prop)) for nid in tx.nodes_by_label(label)]
    finally:
        tx.close()
    todo = [(nid, text) for nid, text in todo if isinstance(text, str)]
    written = 0
    for start in range(0, len(todo), window):
        part = todo[start:start + window]
        vectors = embed_texts([text for _, text in part], embedder)
        wtx = store.begin_write()
        try:
            for (nid, _), vector in zip(part, vectors):
                if wtx.node_exists(nid):       # deleted meanwhile: nothing to embed
                    wtx.set_node_prop(nid, vector_prop, vector)
                    written += 1
            wtx.commit()
        except BaseException:
            wtx.rollback()
            raise
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="database directory (the server must not hold it)")
    parser.add_argument("--label", required=True)
    parser.add_argument("--text", required=True, help="the text property")
    parser.add_argument("--vector", required=True, help="the property that receives the embedding")
    parser.add_argument("--embedder", help="embedder name (default hash-384)")
    parser.add_argument("--ray-address")
    args = parser.parse_args(argv)
    configure(args.ray_address)
    from relate.server.engine import Database
    db = Database.open(args.data)
    try:
        count = embed_property(db.store, args.label, args.text, args.vector, args.embedder)
    finally:
        db.close()
    print(f"embedded {count} :{args.label} nodes into `{args.vector}`")


if __name__ == "__main__":
    main()
