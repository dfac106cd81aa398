"""The schema catalog: range indexes and constraints, as durable ``put_schema`` entries.

Entries (keyed by name in the store's schema):
  ``{"kind": "index", "type": "RANGE", "name", "entity", "label", "properties"}``
  ``{"kind": "constraint", "type": "UNIQUE"|"NOT_NULL"|"KEY"|"TYPE", "name", "entity", "label",
     "properties", "property_type"}``  (UNIQUE and KEY own a property index on their first property)
  ``{"kind": "lookup", "entity", "name"}`` under ``lookup:<entity>``: the token lookup index of that
     entity was renamed (created again under a name) or dropped (name None); without an entry it exists
     under Neo4j's default name (every database starts with both, as in Neo4j)
Vector and full-text index entries belong to the IndexManager; users live under ``user:``.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

INDEX, CONSTRAINT, LOOKUP = "index", "constraint", "lookup"
# Neo4j's names for the two token lookup indexes every new database has (ids 1 and 2 there too)
LOOKUP_DEFAULTS = {"node": "index_343aff4e", "relationship": "index_f7700477"}
LOOKUP_IDS = {"node": 1, "relationship": 2}


def lookup_key(entity: str) -> str:
    """The schema key of a token lookup index's entry."""
    return f"{LOOKUP}:{entity}"


@dataclass(frozen=True)
class Constraint:
    name: str
    type: str                       # UNIQUE | NOT_NULL | KEY | TYPE
    entity: str                     # node | relationship
    label: str
    properties: tuple[str, ...]
    property_type: str | None = None
    # SHOW's ids (Neo4j's schema rule ids: given once, in creation order, never reused by a listing):
    # the constraint's own and its owned index's
    id: int | None = field(default=None, compare=False)
    index_id: int | None = field(default=None, compare=False)

    @property
    def owns_index(self) -> bool:
        return self.type in ("UNIQUE", "KEY")

    def schema(self) -> tuple:
        """What makes two constraints equivalent regardless of their names."""
        return (self.type, self.entity, self.label, self.properties, self.property_type)

    def to_entry(self) -> dict:
        return {"kind": CONSTRAINT, "type": self.type, "name": self.name, "entity": self.entity,
                "label": self.label, "properties": list(self.properties), "property_type": self.property_type,
                **_ids(self.id, self.index_id)}


@dataclass(frozen=True)
class RangeIndex:
    name: str
    entity: str
    label: str
    properties: tuple[str, ...]
    type: str = "RANGE"
    id: int | None = field(default=None, compare=False)      # SHOW's id, as a constraint's

    def schema(self) -> tuple:
        return (self.type, self.entity, self.label, self.properties)

    def to_entry(self) -> dict:
        return {"kind": INDEX, "type": self.type, "name": self.name, "entity": self.entity, "label": self.label,
                "properties": list(self.properties), **_ids(self.id)}


def _ids(id_: int | None, index_id: int | None = None) -> dict:
    out = {} if id_ is None else {"id": id_}
    if index_id is not None:
        out["index_id"] = index_id
    return out


@dataclass
class Catalog:
    """Constraints and range indexes of one schema version, grouped for fast statement-end checks."""
    constraints: dict[str, Constraint] = field(default_factory=dict)
    indexes: dict[str, RangeIndex] = field(default_factory=dict)
    by_label: dict[tuple[str, str], list[Constraint]] = field(default_factory=dict)
    # entity -> the name of its token lookup index, None once dropped (the storage scans labels and
    # types all the same: the entry is what SHOW INDEXES and DROP/CREATE LOOKUP INDEX see)
    lookups: dict[str, str | None] = field(default_factory=lambda: dict(LOOKUP_DEFAULTS))
    lookup_ids: dict[str, int] = field(default_factory=lambda: dict(LOOKUP_IDS))

    @classmethod
    def from_schema(cls, entries: dict) -> "Catalog":
        catalog = cls()
        for name, entry in entries.items():
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if kind == CONSTRAINT:
                c = Constraint(name, entry["type"], entry["entity"], entry["label"], tuple(entry["properties"]),
                               entry.get("property_type"), entry.get("id"), entry.get("index_id"))
                catalog.constraints[name] = c
            elif kind == LOOKUP and entry.get("entity") in LOOKUP_DEFAULTS:
                catalog.lookups[entry["entity"]] = entry.get("name")
                catalog.lookup_ids[entry["entity"]] = entry.get("id") or LOOKUP_IDS[entry["entity"]]
            elif kind == INDEX and entry.get("type") in ("RANGE", "TEXT", "POINT"):
                catalog.indexes[name] = RangeIndex(name, entry["entity"], entry["label"],
                                                   tuple(entry["properties"]), entry.get("type", "RANGE"),
                                                   entry.get("id"))
        catalog._number_unnumbered()
        for c in catalog.constraints.values():
            catalog.by_label.setdefault((c.entity, c.label), []).append(c)
        return catalog

    def _number_unnumbered(self) -> None:
        """Ids for entries written before schema rules had them (or by ``relate import``): in name order
        after the lookup indexes, indexes and then constraints, as a new database would number them."""
        taken = set(self.ids())
        next_id = max(LOOKUP_IDS.values()) + 1

        def fresh() -> int:
            nonlocal next_id
            while next_id in taken:
                next_id += 1
            taken.add(next_id)
            return next_id
        for name in sorted(n for n, i in self.indexes.items() if i.id is None):
            self.indexes[name] = replace(self.indexes[name], id=fresh())
        for name in sorted(n for n, c in self.constraints.items() if c.id is None or
                           (c.owns_index and c.index_id is None)):
            c = self.constraints[name]
            index_id = (c.index_id or fresh()) if c.owns_index else None
            self.constraints[name] = replace(c, id=c.id or fresh(), index_id=index_id)

    def ids(self) -> list[int]:
        """Every schema rule id in use (lookup, property indexes, constraints and their owned indexes)."""
        out = [self.lookup_ids[e] for e, name in self.lookups.items() if name is not None]
        out += [i.id for i in self.indexes.values() if i.id is not None]
        out += [n for c in self.constraints.values() for n in (c.id, c.index_id) if n is not None]
        return out

    def new_ids(self, count: int) -> list[int]:
        """``count`` ids for rules about to be created: after every id in use (never one a dropped rule
        had, while a higher one lives: Neo4j's ids only grow too)."""
        start = max([max(LOOKUP_IDS.values()), *self.ids()]) + 1
        return list(range(start, start + count))

    @property
    def has_constraints(self) -> bool:
        return bool(self.constraints)

    def lookup_named(self, name: str) -> str | None:
        """The entity whose token lookup index is called ``name`` (None: no such lookup index)."""
        return next((entity for entity, known in self.lookups.items() if known == name), None)

    def index_users(self, entity: str, label: str, key: str) -> int:
        """How many catalog objects rely on the storage property index (entity, label, key)."""
        n = sum(1 for i in self.indexes.values() if (i.entity, i.label, i.properties[0]) == (entity, label, key))
        n += sum(1 for c in self.constraints.values()
                 if c.owns_index and (c.entity, c.label, c.properties[0]) == (entity, label, key))
        return n


def generated_name(prefix: str, *parts) -> str:
    """A stable name for an unnamed index or constraint, like Neo4j's ``constraint_1a2b3c4d``."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=4).hexdigest()
    return f"{prefix}_{digest}"
