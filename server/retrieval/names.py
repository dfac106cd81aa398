"""Trigram name lookup for the retrieval lanes: a declared TRIGRAM index when one covers the property,
else the engine's implicit per-(label, property) trigram index (built on first use)."""
from __future__ import annotations

from relate.protocol.errors import IndexNotFound
from relate.server.index.definitions import NODE


def trigram_lookup(db, label: str, prop: str):
    """``search(text, k, threshold) -> [(node id, similarity)]`` over ``label``'s ``prop`` values.

    A declared ``CREATE TRIGRAM INDEX ... FOR (n:label) ON (n.prop)`` is used through the search-provider
    registry (durable, saved with checkpoints); without one, ``db.name_indexes`` builds one in memory."""
    manager = getattr(db, "index_manager", None)
    if manager is not None:
        for name in manager.names():
            try:
                d = manager.get(name).definition
            except IndexNotFound:           # dropped since names() listed it
                continue
            if d.type == "TRIGRAM" and d.entity == NODE and d.tokens == [label] and d.properties == [prop]:
                return _Declared(manager, name)
    return db.name_indexes.get(label, prop)


class _Declared:
    __slots__ = ("manager", "name")

    def __init__(self, manager, name: str):
        self.manager, self.name = manager, name

    def search(self, text: str, k: int = 10, threshold: float = 0.3) -> list[tuple[int, float]]:
        return self.manager.search(self.name, text, k, kind="TRIGRAM", threshold=threshold)


def search_in_scope(index, text: str, k: int, threshold: float, in_scope, widest: int = 20_000
                    ) -> list[tuple[int, float]]:
    """Up to ``k`` (node id, similarity) hits of ``index`` that pass ``in_scope(id)``, best first.

    The index spans every workspace and type, so the first k hits may all belong to other tenants that
    use the same names; the search widens (x10) until a hit in scope shows (hits come best first, so the
    best in scope is among them) or the index has no more."""
    want = k
    while True:
        hits = index.search(text, want, threshold)
        found = [(nid, sim) for nid, sim in hits if in_scope(nid)]
        if found or len(hits) < want or want >= widest:
            return found[:k]
        want *= 10
