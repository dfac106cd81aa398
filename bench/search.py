"""Search benchmark: Relate's vector and full-text indexes against raw FAISS / Whoosh / tantivy calls.

    python bench/search.py                 # N = 100,000 notes (the figures in docs/architecture.md)
    python bench/search.py --n 20000       # smaller
    python bench/search.py --sweep         # also: exact vs HNSW efSearch, latency and recall@10

Every median is over the same query set; "ratio" is Relate / raw. Relate is measured through
``IndexManager`` (what the engine calls) and, for the statements, through ``Session.run``. Recall@10
is against numpy brute force inside the same filter. Embeddings (hash-384) are cached under --cache.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time

import faiss
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "hybrid-recall"))

from relate.embedders import DIMS, hash384_batch  # noqa: E402
from relate.server.engine import Database  # noqa: E402
from relate.values import Vector  # noqa: E402

DOMAIN = ("kafka topic tenant consumer lag alert broker retention disk audit stream oauth tokens refresh login "
          "okta auth0 cookies session redis revocation billing invoices usage events ticket intake agent console "
          "monorepo grafana dashboard incident pager engineer deploy release rollback schema migration postgres "
          "index query latency cache eviction queue worker retry backoff timeout webhook callback customer support "
          "escalation sla priority triage bug fix test coverage ci pipeline build docker image").split()
COMMON = ("the a to of and in for on is with we it that this be are as at by from our will now after before "
          "every each per one two three first last new old shared own so once under over into via").split()
SESSIONS = 10
TOPICS = 20


def make_notes(n: int, seed: int) -> list[str]:
    """Note-like sentences: common words, a Zipf-weighted domain vocabulary and rarer made-up terms."""
    rng = random.Random(seed)
    consonants, vowels = "bcdfgklmnprstvz", "aeiou"
    rare = [f"{rng.choice(consonants)}{rng.choice(vowels)}{rng.choice(consonants)}{rng.choice(vowels)}{i}"
            for i in range(4000)]
    vocab = DOMAIN + rare
    cumulative = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(vocab))))
    texts = []
    for _ in range(n):
        words = [rng.choice(COMMON) if rng.random() < 0.35 else rng.choices(vocab, cum_weights=cumulative)[0]
                 for _ in range(rng.randint(6, 28))]
        texts.append(" ".join(words).capitalize() + ".")
    return texts


def embed(texts: list[str], cache: str | None) -> np.ndarray:
    path = None
    if cache:
        os.makedirs(cache, exist_ok=True)
        digest = hashlib.blake2b("\n".join(texts).encode(), digest_size=8).hexdigest()
        key = f"{len(texts)}-{digest}"
        path = os.path.join(cache, f"hash384-{key}.npy")
        if os.path.exists(path):
            return np.load(path)
    chunks = [texts[i:i + 2000] for i in range(0, len(texts), 2000)]
    with multiprocessing.Pool(max(1, os.cpu_count() or 1)) as pool:
        vectors = np.concatenate(pool.map(hash384_batch, chunks))
    if path:
        np.save(path, vectors)
    return vectors


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - start) * 1000


def median_ms(fn, items) -> tuple[float, list]:
    results, times = [], []
    for item in items:
        out, ms = timed(fn, item)
        results.append(out)
        times.append(ms)
    return statistics.median(times), results


def recall(found: list[list[int]], truth: list) -> float:
    """recall@k; ``truth`` holds per query (the k best ids, the ids tied with them within 1e-6)."""
    hits = total = 0
    for f, (best, tied) in zip(found, truth):
        hits += min(len(set(f) & tied), len(best))
        total += len(best)
    return hits / total if total else 1.0


def exact_truth(vectors: np.ndarray, rows: np.ndarray, q: np.ndarray, ids, k: int = 10):
    scores = np.einsum("ij,j->i", vectors[rows], q)
    order = np.argsort(-scores)[:k]
    if not len(order):
        return [], set()
    threshold = scores[order[-1]] - 1e-6
    return [ids[rows[i]] for i in order], {ids[r] for r in rows[scores >= threshold]}


class Report:
    def __init__(self):
        self.rows = []

    def add(self, what, relate_ms, raw_ms=None, rec=None, raw_rec=None):
        self.rows.append((what, relate_ms, raw_ms, rec, raw_rec))
        ratio = f"{relate_ms / raw_ms:6.2f}x" if raw_ms else "      -"
        rec_text = "" if rec is None else f"  recall@10 {rec:.4f}" + ("" if raw_rec is None else f" (raw {raw_rec:.4f})")
        raw_text = f"{raw_ms:10.3f}" if raw_ms is not None else "         -"
        print(f"{what:44s} {relate_ms:10.3f} {raw_text} {ratio}{rec_text}", flush=True)


# ---- data ------------------------------------------------------------------------------------------
def load_database(texts, vectors, seed):
    """An in-memory Database with the cookbook's graph shape: Note, Topic, ABOUT, DECIDED."""
    rng = random.Random(seed)
    db = Database.open(None)
    store = db.store
    n = len(texts)
    tx = store.begin_write()
    topics = [tx.create_node(["Topic"], {"name": f"topic{t}"}) for t in range(TOPICS)]
    note_ids = []
    for i, text in enumerate(texts):
        nid = tx.create_node(["Note"], {"id": f"n{i}", "text": text, "session": f"session-{i % SESSIONS}",
                                        "ts": i, "embedding": Vector(vectors[i])})
        note_ids.append(nid)
        tx.create_rel("ABOUT", nid, topics[rng.randrange(TOPICS)], {})
        if i % 100 == 0:
            tx.create_rel("DECIDED", nid, topics[rng.randrange(TOPICS)], {"text": text[:60], "ts": i})
        if i % 20_000 == 19_999:
            tx.commit()
            tx = store.begin_write()
    tx.commit()
    return db, note_ids, n


def create_and_wait(session, im, statement) -> float:
    start = time.perf_counter()
    session.run(statement).consume()
    assert im.await_indexes(3600)
    return time.perf_counter() - start


# ---- raw baselines ---------------------------------------------------------------------------------
def raw_whoosh(texts):
    from whoosh import fields, qparser
    from whoosh.analysis import StandardAnalyzer
    from whoosh.filedb.filestore import RamStorage
    schema = fields.Schema(k=fields.ID(stored=True), text=fields.TEXT(analyzer=StandardAnalyzer(stoplist=None)))
    # a unique name: RAM indexes spill to /tmp/<name>.tmp, shared with every other Whoosh process
    ix = RamStorage().create_index(schema, indexname=f"bench-{os.getpid()}-{time.time_ns()}")
    start = time.perf_counter()
    writer = ix.writer(limitmb=256)
    for i, text in enumerate(texts):
        writer.add_document(k=str(i), text=text)
    writer.commit()
    build = time.perf_counter() - start
    parser = qparser.QueryParser("text", schema, group=qparser.OrGroup)
    searcher = ix.searcher()

    def search(q):
        return [int(hit["k"]) for hit in searcher.search(parser.parse(q), limit=10)]
    return build, search


def raw_tantivy(texts):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("k", stored=True, indexed=True, fast=True)
    builder.add_text_field("text")
    schema = builder.build()
    ix = tantivy.Index(schema)
    start = time.perf_counter()
    writer = ix.writer(heap_size=256_000_000, num_threads=1)
    for i, text in enumerate(texts):
        writer.add_document(tantivy.Document(k=i, text=text))
    writer.commit()
    ix.reload()
    build = time.perf_counter() - start
    searcher = ix.searcher()

    def search(q):
        hits = searcher.search(ix.parse_query(q, ["text"]), 10).hits
        return searcher.fast_field_values("k", [a for _, a in hits])
    return build, search


# ---- the benchmark ---------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "relate-bench-cache"))
    parser.add_argument("--sweep", action="store_true", help="exact vs HNSW efSearch: latency and recall")
    args = parser.parse_args(argv)
    faiss.omp_set_num_threads(1)

    print(f"# Relate search bench: N = {args.n:,} notes, {args.queries} queries, "
          f"{os.cpu_count()} CPUs", flush=True)
    texts = make_notes(args.n, args.seed)
    started = time.perf_counter()
    vectors = embed(texts, args.cache)
    print(f"embeddings ready in {time.perf_counter() - started:.1f} s", flush=True)
    question_texts = make_notes(args.queries, args.seed + 1)
    questions = embed(question_texts, None)
    word_rng = random.Random(args.seed + 2)
    ft_queries = [" ".join(word_rng.choice(t.rstrip(".").lower().split()) for _ in range(word_rng.randint(2, 4)))
                  for t in word_rng.sample(texts, args.queries)]

    db, note_ids, n = load_database(texts, vectors, args.seed)
    im = db.index_manager
    session = db.session()
    report = Report()
    print(f"\n{'operation':44s} {'relate ms':>10s} {'raw ms':>10s} {'ratio':>7s}", flush=True)

    # -- builds
    vec_build = create_and_wait(session, im, "CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.embedding) "
                                "WITH [n.session, n.ts] OPTIONS {indexConfig: {`vector.dimensions`: 384, "
                                "`vector.similarity_function`: 'cosine'}}")
    impl = im.get("note_e").impl
    cfg = impl.config
    start = time.perf_counter()
    faiss.omp_set_num_threads(im.build_threads)
    normalized = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    normalized32 = normalized.astype(np.float32)
    if impl.hnsw:
        raw_index = faiss.IndexHNSWFlat(DIMS, cfg.m, faiss.METRIC_INNER_PRODUCT)
        raw_index.hnsw.efConstruction = cfg.ef_construction
    else:
        raw_index = faiss.IndexFlatIP(DIMS)
    raw_index.add(normalized.astype(np.float32))
    raw_build = time.perf_counter() - start
    faiss.omp_set_num_threads(1)
    kind = "HNSW" if impl.hnsw else "exact"
    report.add(f"build vector index ({kind}), s", vec_build, raw_build)
    build_ft = {}
    for engine in ("tantivy", "whoosh"):
        name = f"note_t_{engine}" if engine == "whoosh" else "note_t"     # the RECALL statement's name
        build_ft[engine] = create_and_wait(
            session, im, f"CREATE FULLTEXT INDEX {name} FOR (n:Note) ON EACH [n.text] "
                         f"OPTIONS {{indexConfig: {{`fulltext.engine`: '{engine}'}}}}")
    raw_t_build, raw_t_search = raw_tantivy(texts)
    raw_w_build, raw_w_search = raw_whoosh(texts)
    report.add("build full-text index (tantivy), s", build_ft["tantivy"], raw_t_build)
    report.add("build full-text index (whoosh), s", build_ft["whoosh"], raw_w_build)

    # -- vector top-10
    flat = faiss.IndexFlatIP(DIMS)
    flat.add(normalized.astype(np.float32))
    qnorm = (questions / np.linalg.norm(questions, axis=1, keepdims=True)).astype(np.float32)
    sessions = np.array([i % SESSIONS for i in range(n)])
    filters = {
        "no filter": ([], np.ones(n, bool)),
        "30% filter": ([("session", "IN", ["session-0", "session-1", "session-2"])], sessions < 3),
        "1% filter": ([("ts", ">=", n // 2), ("ts", "<", n // 2 + n // 100)],
                      (np.arange(n) >= n // 2) & (np.arange(n) < n // 2 + n // 100)),
    }
    for label, (flt, mask) in filters.items():
        rows = np.flatnonzero(mask)
        truth = [exact_truth(normalized32, rows, q, note_ids) for q in qnorm]
        ms, found = median_ms(lambda q: [k for k, _ in im.vector_search("note_e", q.tolist(), 10, flt)], qnorm)
        params = faiss.SearchParametersHNSW() if impl.hnsw else faiss.SearchParameters()
        bits = None
        if impl.hnsw:
            params.efSearch = cfg.ef_search
        if flt:
            bits = np.packbits(mask, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(n, faiss.swig_ptr(bits))
        raw_ms, raw_found = median_ms(lambda q: raw_index.search(q[None], 10, params=params)[1][0], qnorm)
        raw_keys = [[note_ids[i] for i in r if i >= 0] for r in raw_found]
        report.add(f"vector top-10, {label}", ms, raw_ms, recall(found, truth), recall(raw_keys, truth))

    # -- full-text top-10
    for engine, raw_search in (("tantivy", raw_t_search), ("whoosh", raw_w_search)):
        name = f"note_t_{engine}" if engine == "whoosh" else "note_t"
        ms, _ = median_ms(lambda q: im.fulltext_search(name, q, 0, 10), ft_queries)
        raw_ms, _ = median_ms(raw_search, ft_queries)
        report.add(f"full-text top-10 ({engine})", ms, raw_ms)

    # -- statements through the engine
    session.run("CREATE FULLTEXT INDEX dec_t FOR ()-[r:DECIDED]-() ON EACH [r.text]").consume()
    assert im.await_indexes(3600)
    vector_stmt = ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v LIMIT 10) SCORE AS s "
                   "RETURN n.id AS id, s")
    text_stmt = ("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT 10) SCORE AS s "
                 "RETURN n.id AS id, s")
    ms, _ = median_ms(lambda q: session.run(vector_stmt, {"v": q.tolist()}).fetch(100), qnorm[:50])
    report.add("SEARCH vector statement, top-10", ms)
    ms, _ = median_ms(lambda q: session.run(text_stmt, {"q": q}).fetch(100), ft_queries[:50])
    report.add("SEARCH full-text statement, top-10", ms)
    from statements import RECALL
    recall_params = [{"q": t, "v": v.tolist(), "k": 5, "since": "1970-01-01T00:00:00.010Z"}
                     for t, v in zip(question_texts[:30], questions[:30])]
    ms, rows = median_ms(lambda p: session.run(RECALL, p).fetch(1000), recall_params)
    assert all(rows), "the RECALL statement returned nothing"
    report.add("cookbook RECALL statement (k 5)", ms)

    if args.sweep:
        sweep(normalized32, qnorm, cfg, raw_index if impl.hnsw else None)
    session.close()
    db.close()


def sweep(vectors: np.ndarray, queries: np.ndarray, cfg, hnsw=None) -> None:
    """Exact search vs HNSW at several efSearch values: the numbers behind the thresholds."""
    print("\n# exact vs HNSW (no filter)", flush=True)
    flat = faiss.IndexFlatIP(DIMS)
    flat.add(vectors)
    ms, _ = median_ms(lambda q: flat.search(q[None], 10)[1][0].tolist(), queries)
    print(f"exact (IndexFlatIP, 1 thread)          {ms:8.3f} ms  recall 1.0000", flush=True)
    everything = np.arange(len(vectors))
    truth = [exact_truth(vectors, everything, q, everything.tolist()) for q in queries]
    if hnsw is None:
        hnsw = faiss.IndexHNSWFlat(DIMS, cfg.m, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = cfg.ef_construction
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        hnsw.add(vectors)
        faiss.omp_set_num_threads(1)
    for ef in (32, 64, 128, 256, 512, 1024):
        params = faiss.SearchParametersHNSW()
        params.efSearch = ef
        ms, found = median_ms(lambda q: hnsw.search(q[None], 10, params=params)[1][0].tolist(), queries)
        print(f"HNSW M{cfg.m} efC{cfg.ef_construction} ef {ef:<5d}               {ms:8.3f} ms  "
              f"recall {recall(found, truth):.4f}", flush=True)
    print("\n# a filter keeping `scope` rows: exact (FAISS flat + IDSelectorBitmap) vs HNSW + selector", flush=True)
    for scope in (1_000, 5_000, 10_000, 20_000, 40_000):
        if scope > len(vectors):
            break
        mask = np.zeros(len(vectors), bool)
        mask[np.random.default_rng(0).choice(len(vectors), scope, replace=False)] = True
        bits = np.packbits(mask, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(vectors), faiss.swig_ptr(bits))
        rows = np.flatnonzero(mask)
        truth = [exact_truth(vectors, rows, q, everything.tolist()) for q in queries]
        exact_ms, _ = median_ms(lambda q: flat.search(q[None], 10, params=faiss.SearchParameters(sel=selector)), queries)
        line = f"scope {scope:>6,}: exact {exact_ms:7.3f} ms"
        for ef in (cfg.ef_search, 2 * cfg.ef_search):
            params = faiss.SearchParametersHNSW()
            params.efSearch = int(min(4096, ef * min(32.0, (len(vectors) / scope) ** 0.5)))
            params.sel = selector
            ms, found = median_ms(lambda q: hnsw.search(q[None], 10, params=params)[1][0].tolist(), queries)
            line += f" | HNSW ef {params.efSearch:<5d} {ms:7.3f} ms recall {recall(found, truth):.4f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
