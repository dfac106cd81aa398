"""``relate import --schema``: the property constraints (UNIQUE, NOT NULL, KEY, property type) and
range indexes are built by the import itself, checked row by row as the rows are written and stored in
the new snapshot's catalog (the store fills their indexes when it opens, as after any checkpoint), so
no database is opened for them. Other statements (search indexes) run on the opened database after."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from msgpack import ExtType

from relate.protocol.errors import ConstraintValidationFailed, SchemaError
from relate.server.storage import codec
from relate.server.storage.indexes import order_key

if TYPE_CHECKING:
    from relate.server.query.schema.catalog import Constraint, RangeIndex

_PROPERTY_INDEX_KINDS = ("RANGE", "TEXT", "POINT")


class ImportSchema:
    """The schema statements split into what the import builds (``entries``, ``indexes`` for the
    snapshot header) and the ``remaining`` statement texts; ``checks_for`` gives the checks of a row."""

    def __init__(self, statements: list[str] | tuple[str, ...]):
        self.entries: dict[str, dict] = {}
        self.indexes: list[list[str]] = []
        self.remaining: list[str] = []
        self._checks: dict[tuple[str, str], list[_Check]] = {}
        self._memo: dict[tuple[str, tuple[str, ...]], list[Callable[[int, dict[str, Any]], None]]] = {}
        if not statements:
            return
        from relate.server.query import ast           # the parser loads only when there is a schema
        from relate.server.query.parser import parse
        from relate.server.query.schema.catalog import RangeIndex, generated_name
        from relate.server.query.schema.commands import constraint_of
        for text in statements:
            parsed = parse(text)
            statement = parsed.body if parsed.mode is None else None
            if isinstance(statement, ast.CreateConstraint):
                self._add(constraint_of(statement), statement.if_not_exists)
            elif (isinstance(statement, ast.CreateIndex) and statement.kind.upper() in _PROPERTY_INDEX_KINDS
                  and len(statement.labels) == 1 and statement.properties):
                kind, label, props = statement.kind.upper(), statement.labels[0], tuple(statement.properties)
                name = statement.name or generated_name("index", kind, statement.entity, label, props)
                if isinstance(name, str):            # CREATE INDEX $name: the engine resolves it
                    self._add(RangeIndex(name, statement.entity, label, props, kind), statement.if_not_exists)
                    continue
                self.remaining.append(text)
            else:
                self.remaining.append(text)

    def _add(self, item: Constraint | RangeIndex, if_not_exists: bool) -> None:
        entry = item.to_entry()
        same = {k: v for k, v in entry.items() if k != "name"}
        if item.name in self.entries or any({k: v for k, v in e.items() if k != "name"} == same
                                            for e in self.entries.values()):
            if if_not_exists:
                return
            raise SchemaError(f"An equivalent index or constraint, or one called '{item.name}', is already "
                              "in the schema", code="Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists")
        self.entries[item.name] = entry
        is_constraint = entry["kind"] == "constraint"
        if not is_constraint or item.owns_index:                # type: ignore[union-attr]
            ident = [item.entity, item.label, item.properties[0]]
            if ident not in self.indexes:
                self.indexes.append(ident)
        if is_constraint:
            check = _Check(item)                                    # type: ignore[arg-type]
            self._checks.setdefault((item.entity, item.label), []).append(check)

    def checks_for(self, entity: str, labels: list[str]) -> list[Callable[[int, dict[str, Any]], None]]:
        """The row checks of an entity with ``labels`` (or ``[type]``); a file asks once per label set."""
        memo_key = (entity, tuple(labels))
        found = self._memo.get(memo_key)
        if found is None:
            found = [check.run for label in labels for check in self._checks.get((entity, label), ())]
            self._memo[memo_key] = found
        return found

    @property
    def has_checks(self) -> bool:
        return bool(self._checks)


class _Check:
    """One constraint over the imported rows; a failure is the error CREATE CONSTRAINT would raise.
    ``run(eid, props)`` is the check for the constraint's kind (one property unique: one dict step)."""

    def __init__(self, constraint: Constraint):
        from relate.server.query.schema import types
        self.constraint, self.types = constraint, types
        self.seen: dict[Any, int] = {}           # unique keys (order keys) -> the first id
        self.by_type: dict[type, bool] = {}      # TYPE: the verdict per scalar Python type
        self.key = constraint.properties[0]
        self.run: Callable[[int, dict[str, Any]], None] = self._full
        if constraint.type == "UNIQUE" and len(constraint.properties) == 1:
            self.run = self._unique_one
        elif constraint.type == "TYPE":
            self.run = self._type

    def _unique_one(self, eid: int, props: dict[str, Any]) -> None:
        value = props.get(self.key)
        if value is not None:
            key = order_key(value)
            if key is not None and self.seen.setdefault(key, eid) != eid:
                self._duplicate(eid, props)

    def _type(self, eid: int, props: dict[str, Any]) -> None:
        value = props.get(self.key)
        if value is None:
            return
        cls = type(value)
        ok = self.by_type.get(cls)
        if ok is None:
            if cls is ExtType:                      # a packed vector: check its stored value
                value = codec.decode(codec.encode(value))
            ok = self.types.matches(self.constraint.property_type or "", value)
            if cls is not list and cls is not ExtType:      # a scalar's verdict depends on its type only
                self.by_type[cls] = ok
        if not ok:
            self._fail(f"{self._what(eid)} has property `{self.key}` of a type other than "
                       f"{self.constraint.property_type}")

    def _full(self, eid: int, props: dict[str, Any]) -> None:
        c = self.constraint
        if c.type in ("NOT_NULL", "KEY"):
            for key in c.properties:
                if props.get(key) is None:
                    self._fail(f"{self._what(eid)} must have the property `{key}`")
        if c.type in ("UNIQUE", "KEY"):
            keys = tuple(order_key(v) if (v := props.get(k)) is not None else None for k in c.properties)
            if None not in keys and self.seen.setdefault(keys, eid) != eid:
                self._duplicate(eid, props)

    def _duplicate(self, eid: int, props: dict[str, Any]) -> None:
        c = self.constraint
        keys = tuple(order_key(props.get(k)) for k in c.properties)
        other = self.seen[keys[0] if len(keys) == 1 else keys]
        shown = ", ".join(f"{k} = {props.get(k)!r}" for k in c.properties)
        kind = "Node" if c.entity == "node" else "Relationship"
        self._fail(f"{self._what(eid)} and {kind}({other}) both have {shown}, but it must be unique")

    def _what(self, eid: int) -> str:
        c = self.constraint
        return f"Node({eid}) with label `{c.label}`" if c.entity == "node" else \
            f"Relationship({eid}) with type `{c.label}`"

    def _fail(self, reason: str) -> None:
        raise ConstraintValidationFailed(
            f"Unable to create constraint `{self.constraint.name}`: {reason}",
            code="Neo.ClientError.Schema.ConstraintCreationFailed", detail="ConstraintCreationFailed",
            phase="runtime")
