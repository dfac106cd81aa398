"""Tokens: the label, relationship type and property key names a database knows, in creation order.

Neo4j gives each name a token id the first time it is used, keeps it for ever (deleting every node
with a label leaves the label token) and lists tokens in id order (``db.labels()``,
``db.relationshipTypes()``, ``db.propertyKeys()``). Relate's tokens are the store's interned names
(``GraphStore._label_names``, ``_type_names``, ``_key_names``: insertion-ordered dicts, so their order
is creation order). They cost the write path nothing: a name is interned the first time data uses it,
which the store does anyway to share one string object, and they are durable without records of their
own. A checkpoint writes the three lists in order (the snapshot header's ``labels``, ``types``,
``keys``) and loads them before any entity, and WAL replay interns names in commit order as it
re-applies the data that used them. So a name whose data was deleted since is still known after a
restart, in its place. (As in Neo4j, a name stays a token when the transaction that first used it rolls
back; such a name is written by the next checkpoint, which closing makes, and is lost only to a crash
before it: the WAL holds committed data alone.)

Names made known without data, ``db.createLabel``, ``db.createRelationshipType``, ``db.createProperty``,
are one schema catalog entry each (``token:<kind>:<name>``), durable like an index or constraint:
written to the WAL by ``WriteTx.put_schema``, kept in every snapshot, rolled back with their
transaction. Kinds are the notifications' own: ``label``, ``type`` (relationship type) and ``key``.
When a commit changes the catalog, ``adopt`` interns the names its entries use (created tokens, and the
labels, types and keys indexes and constraints name, as Neo4j creates tokens for them), so they take
their place in the order too; replay and snapshot loading adopt the entries the same way.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    from .store import GraphStore

PREFIX = "token:"
KIND = "token"                 # the entry's ``kind``: no catalog reader (indexes, constraints, joins) takes it
KINDS = ("label", "type", "key")
_ENTITY_KIND = {"node": "label", "relationship": "type"}


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


def entry_tokens(entry: Any) -> Iterator[tuple[str, str]]:
    """The (kind, name) tokens one catalog entry uses: a created token's own, or the label or type and
    the property keys of an index or constraint (search indexes name several labels or types)."""
    if not isinstance(entry, dict):
        return
    if entry.get("kind") == KIND:
        kind, name = entry.get("token"), entry.get("name")
        if kind in KINDS and isinstance(name, str):
            yield kind, name
        return
    entity = entry.get("entity")
    kind = _ENTITY_KIND.get(entity) if isinstance(entity, str) else None
    if kind is None:
        return                                       # users, relevance joins, ...: no tokens
    label = entry.get("label")
    if isinstance(label, str):
        yield kind, label
    for name in entry.get("tokens") or ():
        if isinstance(name, str):
            yield kind, name
    for field in ("properties", "filter_properties"):
        for name in entry.get(field) or ():
            if isinstance(name, str):
                yield "key", name


def schema_names(entries: dict[str, Any], kind: str) -> set[str]:
    """The labels (``kind`` 'label') or relationship types ('type') that indexes and constraints in
    ``entries`` name: Neo4j counts them as in use for ``db.labels()`` / ``db.relationshipTypes()``
    (created tokens do not count)."""
    return {name for entry in entries.values()
            if isinstance(entry, dict) and entry.get("kind") != KIND
            for token_kind, name in entry_tokens(entry) if token_kind == kind}


def adopt(store: GraphStore, entries: Iterable[Any]) -> None:
    """Intern every token the catalog ``entries`` use that the store does not know yet, in order."""
    interns = {"label": (store._label_names, store._intern_label), "type": (store._type_names, store._intern_type),
               "key": (store._key_names, store._intern_key)}
    for entry in entries:
        for kind, name in entry_tokens(entry):
            known_names, intern = interns[kind]
            if name not in known_names:
                intern(name)
