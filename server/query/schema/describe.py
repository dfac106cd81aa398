"""How Neo4j 5 spells schema rules: SHOW INDEXES / CONSTRAINTS' ``createStatement`` and ``options``, the
rule descriptions in schema errors (``Constraint( id=3, name='book_isbn', ... )``) and the ``IF NOT EXISTS``
/ ``IF EXISTS`` notifications (Neo4j 5.17+)."""
from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .catalog import Constraint

PROVIDERS = {"RANGE": "range-1.0", "TEXT": "text-2.0", "POINT": "point-1.0"}

# A point index's default settings, as SHOW INDEXES gives them.
POINT_CONFIG: dict[str, list[float]] = {
    "spatial.cartesian.min": [-1000000.0, -1000000.0],
    "spatial.cartesian.max": [1000000.0, 1000000.0],
    "spatial.cartesian-3d.min": [-1000000.0, -1000000.0, -1000000.0],
    "spatial.cartesian-3d.max": [1000000.0, 1000000.0, 1000000.0],
    "spatial.wgs-84.min": [-180.0, -90.0],
    "spatial.wgs-84.max": [180.0, 90.0],
    "spatial.wgs-84-3d.min": [-180.0, -90.0, -1000000.0],
    "spatial.wgs-84-3d.max": [180.0, 90.0, 1000000.0],
}

_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

ALREADY_EXISTS = "Neo.ClientNotification.Schema.IndexOrConstraintAlreadyExists"
DOES_NOT_EXIST = "Neo.ClientNotification.Schema.IndexOrConstraintDoesNotExist"


def quote(name: str) -> str:
    """Always backticked, as SHOW's createStatement spells every name."""
    return "`" + str(name).replace("`", "``") + "`"


def plain(name: str) -> str:
    """Backticked only where the name needs it, as notifications spell names."""
    return name if _SIMPLE.match(name) else quote(name)


# ---------------------------------------------------------------- index and constraint options
def index_options(type_: str) -> dict[str, Any]:
    config: dict[str, Any] = {k: list(v) for k, v in POINT_CONFIG.items()} if type_ == "POINT" else {}
    return {"indexConfig": config, "indexProvider": PROVIDERS.get(type_, "range-1.0")}


def constraint_options(constraint: Constraint) -> Optional[dict[str, Any]]:
    """Index-backed constraints (uniqueness, key) show their index's options; the others none."""
    return index_options("RANGE") if constraint.owns_index else None


def options_text(options: dict[str, Any]) -> str:
    """``{indexConfig: {...}, indexProvider: 'text-2.0'}``: settings sorted, joined by a bare comma."""
    config = ",".join(f"{quote(k)}: {_literal(v)}" for k, v in sorted(options["indexConfig"].items()))
    return f"{{indexConfig: {{{config}}}, indexProvider: '{options['indexProvider']}'}}"


def _literal(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


# ---------------------------------------------------------------- statements
def _target(entity: str, label: Optional[str], var: str, q: Callable[[str], str]) -> str:
    if entity == "node":
        return f"({var})" if label is None else f"({var}:{q(label)})"
    return f"()-[{var}]-()" if label is None else f"()-[{var}:{q(label)}]-()"


def _properties(var: str, properties, q: Callable[[str], str]) -> str:
    return "(" + ", ".join(f"{var}.{q(p)}" for p in properties) + ")"


def index_statement(name: str, type_: str, entity: str, label: str, properties) -> str:
    """SHOW INDEXES' createStatement of a range, text or point index (the last two with their OPTIONS)."""
    var = "n" if entity == "node" else "r"
    text = (f"CREATE {type_} INDEX {quote(name)} FOR {_target(entity, label, var, quote)} "
            f"ON {_properties(var, properties, quote)}")
    if type_ != "RANGE":
        text += " OPTIONS " + options_text(index_options(type_))
    return text


def _requirement(kind: str, entity: str, var: str, properties, property_type: Optional[str],
                 q: Callable[[str], str]) -> str:
    what = {"UNIQUE": "IS UNIQUE", "NOT_NULL": "IS NOT NULL",
            "KEY": "IS NODE KEY" if entity == "node" else "IS RELATIONSHIP KEY"}.get(kind, f"IS :: {property_type}")
    return f"REQUIRE {_properties(var, properties, q)} {what}"


def constraint_statement(c: Constraint) -> str:
    """SHOW CONSTRAINTS' createStatement."""
    var = "n" if c.entity == "node" else "r"
    return (f"CREATE CONSTRAINT {quote(c.name)} FOR {_target(c.entity, c.label, var, quote)} "
            f"{_requirement(c.type, c.entity, var, c.properties, c.property_type, quote)}")


# ---------------------------------------------------------------- descriptions in errors
def schema_text(entity: str, label: str, properties) -> str:
    """``(:Book {isbn})`` / ``()-[:KNOWS {since, how}]-()``."""
    inner = f":{label} {{{', '.join(properties)}}}"
    return f"({inner})" if entity == "node" else f"()-[{inner}]-()"


def constraint_type_words(c: Constraint) -> str:
    """UNIQUENESS, RELATIONSHIP UNIQUENESS, NODE KEY, NODE PROPERTY EXISTENCE, RELATIONSHIP PROPERTY TYPE, ..."""
    entity = "NODE" if c.entity == "node" else "RELATIONSHIP"
    if c.type == "UNIQUE":
        return "UNIQUENESS" if c.entity == "node" else "RELATIONSHIP UNIQUENESS"
    if c.type == "KEY":
        return f"{entity} KEY"
    return f"{entity} PROPERTY {'EXISTENCE' if c.type == 'NOT_NULL' else 'TYPE'}"


def describe_constraint(c: Constraint, id_: Optional[int], owned_index_id: Optional[int]) -> str:
    text = (f"Constraint( id={id_}, name='{c.name}', type='{constraint_type_words(c)}', "
            f"schema={schema_text(c.entity, c.label, c.properties)}")
    if c.owns_index:
        text += f", ownedIndex={owned_index_id}"
    if c.property_type is not None:
        text += f", propertyType={c.property_type}"
    return text + " )"


def describe_index(name: str, type_: str, entity: str, label: str, properties, id_: Optional[int],
                   owner_id: Optional[int] = None) -> str:
    text = (f"Index( id={id_}, name='{name}', type='{type_}', schema={schema_text(entity, label, properties)}, "
            f"indexProvider='{PROVIDERS.get(type_, 'range-1.0')}'")
    if owner_id is not None:
        text += f", owningConstraint={owner_id}"
    return text + " )"


# ---------------------------------------------------------------- notifications
def _note(code: str, title: str, description: str) -> dict:
    return {"code": code, "title": title, "description": description, "severity": "INFORMATION",
            "category": "SCHEMA"}


def index_words(name: Optional[str], type_: str, entity: str, label: Optional[str], properties,
                if_not_exists: bool = False) -> str:
    """``RANGE INDEX name [IF NOT EXISTS] FOR (e:Person) ON (e.surname)`` (notification form)."""
    named = f" {plain(name)}" if name else ""
    guard = " IF NOT EXISTS" if if_not_exists else ""
    if type_ == "LOOKUP":
        on = "ON EACH labels(e)" if entity == "node" else "ON EACH type(e)"
    elif type_ == "FULLTEXT":
        on = "ON EACH [" + ", ".join(f"e.{plain(p)}" for p in properties) + "]"
    else:
        on = "ON " + _properties("e", properties, plain)
    return f"{type_} INDEX{named}{guard} FOR {_target(entity, label, 'e', plain)} {on}"


def constraint_words(name: Optional[str], kind: str, entity: str, label: str, properties,
                     property_type: Optional[str], if_not_exists: bool = False) -> str:
    """``CONSTRAINT name [IF NOT EXISTS] FOR (e:Book) REQUIRE (e.isbn) IS UNIQUE`` (notification form)."""
    named = f" {plain(name)}" if name else ""
    guard = " IF NOT EXISTS" if if_not_exists else ""
    return (f"CONSTRAINT{named}{guard} FOR {_target(entity, label, 'e', plain)} "
            f"{_requirement(kind, entity, 'e', properties, property_type, plain)}")


def already_exists(command_words: str, existing_words: str) -> dict:
    """``CREATE ... IF NOT EXISTS`` that does nothing: what it asked and what blocks it."""
    return _note(ALREADY_EXISTS, f"`CREATE {command_words}` has no effect.", f"`{existing_words}` already exists.")


def does_not_exist(what: str, name: str) -> dict:
    """``DROP INDEX | CONSTRAINT name IF EXISTS`` that does nothing."""
    return _note(DOES_NOT_EXIST, f"`DROP {what} {plain(name)} IF EXISTS` has no effect.",
                 f"`{name}` does not exist.")
