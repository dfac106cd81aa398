"""TRIGRAM indexes: fuzzy name lookup by pg_trgm similarity over one string property (``..trigram``).

    CREATE TRIGRAM INDEX entity_names FOR (n:Entity) ON (n.name)
        [OPTIONS {indexConfig: {`trigram.threshold`: 0.3}}]
    MATCH (n:Entity) SEARCH n IN (TRIGRAM INDEX entity_names FOR 'Jon Smyth' LIMIT 5) SCORE AS s
    CALL db.index.trigram.queryNodes('entity_names', 'Jon Smyth', {limit: 5, threshold: 0.2})

Scores are the Jaccard similarity of the trigram sets (0..1); hits below the threshold are left out.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgpack

from relate.protocol.errors import ArgumentError

from ..definitions import IndexDefinition, index_config
from ..trigram import TrigramIndex
from . import register
from .base import SearchProvider, filter_hits, register_queries, visible_rows

if TYPE_CHECKING:
    from typing import AbstractSet, Any, Callable, Sequence

    from relate.server.query.context import ExecContext
    from relate.server.query.procedures import ProcedureRegistry

    from ..managed import ManagedIndex
    from ..rwlock import RWLock
    from .base import Filter, Hits, Ops

DEFAULT_THRESHOLD = 0.3
FILE = "trigram.msgpack"


def _threshold(value: Any) -> float:
    if type(value) not in (int, float) or not 0.0 <= value <= 1.0:
        raise ArgumentError(f"`trigram.threshold` must be a number from 0 to 1, got {value!r}")
    return float(value)


class SavedTrigramIndex(TrigramIndex):
    """A TrigramIndex whose (key, text) entries are saved to, and rebuilt from, one msgpack file."""

    def save(self, directory: str, rw: RWLock) -> None:
        with rw.read():
            entries = [[key, self.text(key)] for key in list(self._row_of)]
        tmp = os.path.join(directory, FILE + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(msgpack.packb(entries))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, os.path.join(directory, FILE))

    def load(self, directory: str) -> None:
        with open(os.path.join(directory, FILE), "rb") as fh:
            entries = msgpack.unpackb(fh.read(), max_bin_len=0, strict_map_key=False)
        self.build((int(key), text) for key, text in entries)


class TrigramProvider(SearchProvider):
    kind = "TRIGRAM"
    index_provider = "trigram-1.0"

    def definition(self, name: str, entity: str, tokens: list[str], properties: list[str],
                   filter_properties: list[str], options: dict[str, Any] | None, defaults: dict[str, Any]
                   ) -> IndexDefinition:
        if len(properties) != 1 or not tokens:
            raise ArgumentError("A trigram index covers one property of one or more labels or types")
        config = {"trigram.threshold": DEFAULT_THRESHOLD}
        for key, value in index_config(options).items():
            if key != "trigram.threshold":
                raise ArgumentError(f"Invalid trigram index setting `{key}`; known settings: trigram.threshold")
            config[key] = _threshold(value)
        return IndexDefinition(name, self.kind, entity, list(dict.fromkeys(tokens)), list(properties),
                               list(filter_properties), config)

    def shown_config(self, definition: IndexDefinition) -> dict[str, Any]:
        return dict(definition.config)

    def open(self, definition: IndexDefinition, directory: str | None, create: bool) -> SavedTrigramIndex:
        return SavedTrigramIndex()

    def apply(self, index: ManagedIndex, ops: Ops) -> None:
        d = index.definition
        prop = d.properties[0]
        index.impl.apply({key: None if st is None or not d.covers(st.scope) else st.props.get(prop)
                          for key, st in ops.items()})

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
               accept: Callable[[int], bool] | None = None, timeout_s: float | None = None,
               threshold: Any = None, **options: Any) -> Hits:
        impl = index.impl
        threshold = index.definition.config.get("trigram.threshold", DEFAULT_THRESHOLD) \
            if threshold is None else _threshold(threshold)
        narrowed = keys is not None or accept is not None
        # the index ranks every row in one pass: narrowing asks for all of them, then filters
        k = len(impl) if narrowed or limit is None else limit + skip
        return filter_hits(impl.search(query, k, threshold), skip, limit, keys, accept)

    def register_procedures(self, registry: ProcedureRegistry) -> None:
        register_queries(registry, "trigram", [("indexName", "STRING?"), ("text", "STRING?"), ("options", "MAP?", {})],
                         _trigram, "{Nodes} whose indexed string is most similar to a text (trigram similarity).")


def _trigram(ctx: ExecContext, entity: str, name: str | None, text: str | None, options: Any
             ) -> list[dict[str, Any]]:
    if name is None or text is None:
        return []
    options = dict(options or {})
    unknown = set(options) - {"skip", "limit", "threshold"}
    if unknown:
        raise ArgumentError(f"Unknown trigram query option(s) {sorted(unknown)}; expected skip, limit and threshold")
    limit, skip = options.get("limit", 10), options.get("skip") or 0
    for key, value in (("limit", limit), ("skip", skip)):
        if type(value) is not int or value < 0:
            raise ArgumentError(f"The trigram query option `{key}` must be a non-negative integer, got {value!r}")
    hits = ctx.db.index_manager.search(name, text, limit, kind="TRIGRAM", entity=entity, skip=skip,
                                       threshold=options.get("threshold"), tx=ctx.tx)
    return visible_rows(ctx, entity, hits)


register(TrigramProvider())
