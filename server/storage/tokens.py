"""Tokens made known without data: ``db.createLabel``, ``db.createRelationshipType``, ``db.createProperty``.

Neo4j keeps a token once created, whether or not any entity uses it; a statement that reads it then gets
no UnknownLabelWarning / UnknownRelationshipTypeWarning / UnknownPropertyKeyWarning. Relate records each
such token as one schema catalog entry (``token:<kind>:<name>``), so it is durable exactly like an index
or constraint: written to the WAL by ``WriteTx.put_schema``, kept in every snapshot, rolled back with its
transaction. Kinds are the notifications' own: ``label``, ``type`` (relationship type) and ``key``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import GraphStore

PREFIX = "token:"
KIND = "token"                 # the entry's ``kind``: no catalog reader (indexes, constraints, joins) takes it
KINDS = ("label", "type", "key")


def entry_name(kind: str, name: str) -> str:
    """The schema entry's name for token ``name`` of ``kind``."""
    return f"{PREFIX}{kind}:{name}"


def create(tx: Any, kind: str, name: str) -> bool:
    """Record ``name`` as a known ``kind`` token through write transaction ``tx``; False if it already was."""
    if kind not in KINDS:
        raise ValueError(f"unknown token kind {kind!r}")
    key = entry_name(kind, name)
    if key in tx.schema():
        return False
    tx.put_schema(key, {"kind": KIND, "token": kind, "name": name})
    return True


def known(store: GraphStore, kind: str, name: str) -> bool:
    """Whether ``name`` was created as a ``kind`` token (in the last published schema)."""
    return entry_name(kind, name) in store._schema.entries


def names(entries: dict[str, Any], kind: str) -> list[str]:
    """The created tokens of ``kind`` in schema ``entries`` (a transaction's ``schema()``), sorted."""
    prefix = entry_name(kind, "")
    return sorted(entry["name"] for key, entry in entries.items()
                  if key.startswith(prefix) and isinstance(entry, dict) and entry.get("kind") == KIND)
