"""System procedures over the catalog: ``db.schema.visualization()`` (labels, relationship types and how
they connect). ``dbms.components()`` lives in procedures_compat.py: Neo4j tools pick code paths from it."""
from __future__ import annotations

from .catalog_docs import procedure_description


def register(registry) -> None:
    """Add the procedures to ``registry`` (a ProcedureRegistry)."""
    registry.register("db.schema.visualization", [],
                      [("nodes", "LIST? OF MAP?"), ("relationships", "LIST? OF MAP?")], _visualization,
                      description=procedure_description("db.schema.visualization"))


def _visualization(ctx):
    """Neo4j returns virtual nodes; Relate returns maps: ``{name, indexes, constraints}`` per label and
    ``{type, start, end}`` per (start label, type, end label) triple found in the data."""
    tx = ctx.tx
    indexes: dict[str, list[str]] = {}
    constraints: dict[str, list[str]] = {}
    for entry in tx.schema().values():
        if entry.get("entity") != "node":
            continue
        labels = [entry["label"]] if entry.get("label") else list(entry.get("tokens") or ())
        text = ", ".join(entry.get("properties") or ())
        target = constraints if entry.get("kind") == "constraint" else indexes
        for label in labels:
            target.setdefault(label, []).append(f"{entry.get('type', '').lower()} ({text})".strip())
    triples = set()
    for rid in tx.all_rels():
        ctx.check()
        found = tx.rel(rid)
        if found is None:
            continue
        rel_type, start, end, _ = found
        for start_label in tx.node_labels(start) or ("",):
            for end_label in tx.node_labels(end) or ("",):
                triples.add((start_label, rel_type, end_label))
    names = sorted(set(tx.labels()) | {t[0] for t in triples if t[0]} | {t[2] for t in triples if t[2]})
    nodes = [{"name": name, "indexes": sorted(indexes.get(name, [])),
              "constraints": sorted(constraints.get(name, []))} for name in names]
    relationships = [{"type": t, "start": s or None, "end": e or None} for s, t, e in sorted(triples)]
    yield {"nodes": nodes, "relationships": relationships}
