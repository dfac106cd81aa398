"""The schema catalog: range indexes and constraints, as durable ``put_schema`` entries.

Entries (keyed by name in the store's schema):
  ``{"kind": "index", "type": "RANGE", "name", "entity", "label", "properties"}``
  ``{"kind": "constraint", "type": "UNIQUE"|"NOT_NULL"|"KEY"|"TYPE", "name", "entity", "label",
     "properties", "property_type"}``  (UNIQUE and KEY own a property index on their first property)
Vector and full-text index entries belong to the IndexManager; users live under ``user:``.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

INDEX, CONSTRAINT = "index", "constraint"


@dataclass(frozen=True)
class Constraint:
    name: str
    type: str                       # UNIQUE | NOT_NULL | KEY | TYPE
    entity: str                     # node | relationship
    label: str
    properties: tuple[str, ...]
    property_type: str | None = None

    @property
    def owns_index(self) -> bool:
        return self.type in ("UNIQUE", "KEY")

    def schema(self) -> tuple:
        """What makes two constraints equivalent regardless of their names."""
        return (self.type, self.entity, self.label, self.properties, self.property_type)

    def to_entry(self) -> dict:
        return {"kind": CONSTRAINT, "type": self.type, "name": self.name, "entity": self.entity,
                "label": self.label, "properties": list(self.properties), "property_type": self.property_type}


@dataclass(frozen=True)
class RangeIndex:
    name: str
    entity: str
    label: str
    properties: tuple[str, ...]
    type: str = "RANGE"

    def schema(self) -> tuple:
        return (self.type, self.entity, self.label, self.properties)

    def to_entry(self) -> dict:
        return {"kind": INDEX, "type": self.type, "name": self.name, "entity": self.entity, "label": self.label,
                "properties": list(self.properties)}


@dataclass
class Catalog:
    """Constraints and range indexes of one schema version, grouped for fast statement-end checks."""
    constraints: dict[str, Constraint] = field(default_factory=dict)
    indexes: dict[str, RangeIndex] = field(default_factory=dict)
    by_label: dict[tuple[str, str], list[Constraint]] = field(default_factory=dict)

    @classmethod
    def from_schema(cls, entries: dict) -> "Catalog":
        catalog = cls()
        for name, entry in entries.items():
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if kind == CONSTRAINT:
                c = Constraint(name, entry["type"], entry["entity"], entry["label"], tuple(entry["properties"]),
                               entry.get("property_type"))
                catalog.constraints[name] = c
                catalog.by_label.setdefault((c.entity, c.label), []).append(c)
            elif kind == INDEX and entry.get("type") in ("RANGE", "TEXT", "POINT"):
                catalog.indexes[name] = RangeIndex(name, entry["entity"], entry["label"],
                                                   tuple(entry["properties"]), entry.get("type", "RANGE"))
        return catalog

    @property
    def has_constraints(self) -> bool:
        return bool(self.constraints)

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
