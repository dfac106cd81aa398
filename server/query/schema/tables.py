"""Kuzu's tables (docs/kuzu.md): CREATE NODE TABLE, CREATE REL TABLE, DROP TABLE and COPY ... FROM, for
scripts written for Kuzu. A node table is a label whose primary key is a node key and whose typed
columns are property type constraints; a relationship table is a type (its columns typed likewise)
between the node tables it names. The table itself is a schema entry under ``table:<name>`` that
COPY, ``CALL show_tables()`` and ``CALL table_info(name)`` read. COPY becomes a LOAD CSV statement
(the import directory's rules, line numbers in errors), run as one transaction, as Kuzu's is.
"""
from __future__ import annotations

import re
from typing import Any

from relate.protocol.errors import ClientError, CypherSyntaxError, SchemaError

from .. import ast
from .describe import quote as quoted

TABLE = "table"
PREFIX = "table:"
_INVALID = "Neo.ClientError.Statement.ArgumentError"

# Kuzu's scalar types and the Cypher type each column's type constraint requires (None: no constraint).
_SCALARS = {
    **dict.fromkeys(("INT8", "INT16", "INT32", "INT64", "INT128", "INT", "INTEGER", "UINT8", "UINT16", "UINT32",
                     "UINT64", "SERIAL"), "INTEGER"),
    **dict.fromkeys(("FLOAT", "DOUBLE", "REAL", "DECIMAL"), "FLOAT"),
    **dict.fromkeys(("STRING", "UUID"), "STRING"),
    **dict.fromkeys(("BOOL", "BOOLEAN"), "BOOLEAN"),
    "DATE": "DATE",
    **dict.fromkeys(("TIMESTAMP", "TIMESTAMP_TZ", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_SEC"), "ZONED DATETIME"),
}
# Types taken without a constraint or a conversion (values arrive as they are).
_LOOSE = ("INTERVAL", "BLOB", "MAP", "STRUCT", "UNION", "JSON", "LIST", "ARRAY")
_CONVERT = {"INTEGER": "toInteger({})", "FLOAT": "toFloat({})", "STRING": "{}", "BOOLEAN": "toBoolean({})",
            "DATE": "date({})", "ZONED DATETIME": "datetime(replace({}, ' ', 'T'))"}


def cypher_type(kuzu_type: str) -> str | None:
    """The Cypher type a Kuzu column type stores as (``INT64`` INTEGER, ``FLOAT[384]`` LIST<FLOAT NOT NULL>),
    None for a type Relate keeps as given; an unknown type is a syntax error."""
    match = re.fullmatch(r"([A-Z_0-9]+)(\(.*\))?((\[\d*\])*)", kuzu_type)
    if match is None:
        raise CypherSyntaxError(f"Unknown Kuzu type {kuzu_type}", phase="compile time")
    base, dims = match.group(1), match.group(3)
    if base in _LOOSE:
        return None
    scalar = _SCALARS.get(base)
    if scalar is None:
        raise CypherSyntaxError(f"Unknown Kuzu type {kuzu_type}", phase="compile time")
    if not dims:
        return scalar
    if dims.count("[") > 1 or scalar not in ("INTEGER", "FLOAT", "STRING", "BOOLEAN"):
        return None                      # nested lists, lists of dates: kept as given
    return f"LIST<{scalar} NOT NULL>"


def table_of(tx, name: str) -> dict | None:
    entry = tx.schema().get(PREFIX + name)
    return entry if isinstance(entry, dict) and entry.get("kind") == TABLE else None


def tables(tx) -> list[dict]:
    return sorted((e for k, e in tx.schema().items() if k.startswith(PREFIX) and isinstance(e, dict)
                   and e.get("kind") == TABLE), key=lambda e: e["name"])


def create_table(db, tx, cmd: ast.CreateTable, params, catalog) -> Any:
    from .catalog import Catalog
    from .commands import CommandResult, run_command
    result = CommandResult()
    if table_of(tx, cmd.name) is not None:
        if cmd.if_not_exists:
            return result
        raise SchemaError(f"Table {cmd.name} already exists.",
                          code="Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists", phase="runtime")
    columns = [(c.name, c.type, cypher_type(c.type)) for c in cmd.columns]
    names = [c[0] for c in columns]
    if len(set(names)) != len(names):
        raise ClientError(f"Table {cmd.name} names a column twice.", code=_INVALID)
    key = cmd.primary_key
    inline = [c.name for c in cmd.columns if c.primary]
    if cmd.entity == "node":
        if len(inline) + (key is not None) != 1:
            raise ClientError(f"Node table {cmd.name} needs one primary key: (name STRING PRIMARY KEY, ...) or "
                              "(..., PRIMARY KEY (name)).", code=_INVALID)
        key = key or inline[0]
        if key not in names:
            raise ClientError(f"Primary key {key} is not a column of {cmd.name}.", code=_INVALID)
    elif inline:
        raise ClientError(f"Relationship table {cmd.name} has no primary key.", code=_INVALID)
    if any(kuzu_type == "SERIAL" and name != key for name, kuzu_type, _ in columns):
        raise ClientError(f"Table {cmd.name}: SERIAL is only a node table's primary key.", code=_INVALID)
    for ends in cmd.ends:
        for label in ends:
            if table_of(tx, label) is None:
                raise ClientError(f"Node table {label} does not exist (CREATE NODE TABLE {label} first).",
                                  code=_INVALID)
    pattern = f"(n:{quoted(cmd.name)})" if cmd.entity == "node" else f"()-[n:{quoted(cmd.name)}]-()"
    statements = [(f"{cmd.name}_pk", f"n.{quoted(key)} IS NODE KEY")] if key is not None else []
    statements += [(f"{cmd.name}_{name}_type", f"n.{quoted(name)} IS :: {typed}")
                   for name, _, typed in columns if typed is not None]
    from ..parser import parse
    constraints = []
    for name, requirement in statements:
        command = parse(f"CREATE CONSTRAINT {quoted(name)} FOR {pattern} REQUIRE {requirement}").body
        run_command(db, tx, command, params, Catalog.from_schema(tx.schema()))
        constraints.append(name)
        result.counters.add("constraints_added")
    tx.put_schema(PREFIX + cmd.name, {
        "kind": TABLE, "entity": cmd.entity, "name": cmd.name, "primary_key": key,
        "columns": [[name, kuzu, typed] for name, kuzu, typed in columns],
        "ends": [list(e) for e in cmd.ends], "multiplicity": cmd.multiplicity or ("MANY_MANY" if cmd.ends else None),
        "constraints": constraints})
    result.schema_changed = True
    return result


def drop_table(db, tx, cmd: ast.DropTable, params, catalog) -> Any:
    """The table's schema (its data goes first, in the engine: see ``drop_data``)."""
    from .catalog import Catalog
    from .commands import CommandResult, run_command
    result = CommandResult()
    entry = table_of(tx, cmd.name)
    if entry is None:
        if cmd.if_exists:
            return result
        raise ClientError(f"Table {cmd.name} does not exist.", code=_INVALID)
    from ..parser import parse
    for name in entry["constraints"]:
        if name in Catalog.from_schema(tx.schema()).constraints:
            run_command(db, tx, parse(f"DROP CONSTRAINT {quoted(name)} IF EXISTS").body, params,
                        Catalog.from_schema(tx.schema()))
            result.counters.add("constraints_removed")
    tx.drop_schema(PREFIX + cmd.name)
    result.schema_changed = True
    return result


def drop_data(tx, cmd: ast.DropTable) -> str | None:
    """The statement deleting a table's data before DROP TABLE (None: no such table); refused while a
    relationship table joins a node table, as Kuzu refuses."""
    entry = table_of(tx, cmd.name)
    if entry is None:
        return None
    if entry["entity"] == "node":
        users = [t["name"] for t in tables(tx) if t["entity"] == "relationship"
                 and any(cmd.name in ends for ends in t["ends"])]
        if users:
            raise ClientError(f"Cannot drop node table {cmd.name}: relationship table {users[0]} refers to it "
                              f"(DROP TABLE {users[0]} first).", code=_INVALID)
        return f"MATCH (n:{quoted(cmd.name)}) DETACH DELETE n"
    return f"MATCH ()-[r:{quoted(cmd.name)}]->() DELETE r"


# ---------------------------------------------------------------- COPY
# COPY's options that Relate carries out (``parallel`` only chooses Kuzu's reader threads); others, such as
# ``ignore_errors`` (skip bad rows, where Relate stops), are refused rather than silently not done.
_OPTIONS = {"header", "delim", "delimiter", "from", "to", "skip", "parallel"}


def copy_statement(tx, cmd: ast.CopyFrom, options: dict[str, Any], url: str) -> str:
    """The LOAD CSV statement a COPY runs (its parameter `` copy url``, its own variables ``__copy_*``): the
    file's columns by position (a relationship table's first two: the end nodes' primary keys), converted
    to each column's type (CSV gives strings; Parquet and Arrow files typed values)."""
    entry = table_of(tx, cmd.table)
    if entry is None:
        raise ClientError(f"Table {cmd.table} does not exist.", code=_INVALID)
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ClientError(f"COPY takes no option {unknown[0]} (header, delim, skip, from, to, parallel).", code=_INVALID)
    header, skip_lines = options.get("header", False), options.get("skip", 0)
    if type(header) is not bool or type(skip_lines) is not int or skip_lines < 0 or any(
            not isinstance(options.get(end, ""), str) for end in ("from", "to")):
        raise ClientError("COPY options: header a boolean, skip a whole number of lines, from and to table names.",
                          code=_INVALID)
    typed_file = url.lower().split("?")[0].endswith((".parquet", ".arrow", ".feather", ".ipc"))
    columns = entry["columns"]
    serial = [name for name, kuzu_type, _ in columns if kuzu_type == "SERIAL"] if entry["entity"] == "node" else []
    if typed_file:          # rows are maps in the file's column order
        load = "LOAD CSV WITH HEADERS FROM $` copy url` AS row"
        keys = " WITH row, keys(row) AS __copy_keys" + (", __copy_serial" if serial else "")

        def cell(i: int) -> str:
            return f"row[__copy_keys[{i}]]"

        def convert(expr: str, typed: str | None) -> str:
            return expr
    else:
        delimiter = options.get("delim", options.get("delimiter", ","))
        terminator = f" FIELDTERMINATOR '{_text(delimiter, False)}'" if delimiter != "," else ""
        skip = skip_lines + (1 if header else 0)
        load = f"LOAD CSV FROM $` copy url` AS row{terminator}" + (f" WITH row WHERE linenumber() > {skip}"
                                                                  if skip else "")
        keys = ""

        def cell(i: int) -> str:
            return f"row[{i}]"

        def convert(expr: str, typed: str | None) -> str:
            if typed is None:
                return expr
            if typed.startswith("LIST<"):
                element = _CONVERT[typed[5:-10]].format("x")
                return f"[x IN apoc.convert.fromJsonList({expr}) | {element}]"
            return _CONVERT[typed].format(expr)

    if entry["entity"] == "node":
        filed = [(name, typed) for name, kuzu_type, typed in columns if kuzu_type != "SERIAL"]
        props = [f"{quoted(name)}: {convert(cell(i), typed)}" for i, (name, typed) in enumerate(filed)]
        if serial:          # the file leaves the SERIAL key out: numbered on from the table's greatest
            key = quoted(serial[0])
            load += (f" WITH collect(row) AS __copy_rows OPTIONAL MATCH (__copy_s:{quoted(cmd.table)})"
                     f" WITH __copy_rows, coalesce(max(__copy_s.{key}) + 1, 0) AS __copy_base"
                     " UNWIND range(0, size(__copy_rows) - 1) AS __copy_i"
                     " WITH __copy_rows[__copy_i] AS row, __copy_base + __copy_i AS __copy_serial")
            props.insert(0, f"{key}: __copy_serial")
        return f"{load}{keys} CREATE (:{quoted(cmd.table)} {{{', '.join(props)}}})"
    ends = entry["ends"]
    if len(ends) > 1:
        wanted = [options.get("from"), options.get("to")]
        if wanted not in ends:
            raise ClientError(f"Relationship table {cmd.table} joins several node tables: name the pair, "
                              "COPY ... (from='A', to='B').", code=_INVALID)
        start, end = wanted
    else:
        start, end = ends[0]
    start_key, end_key = (_key_column(tx, label) for label in (start, end))
    props = ", ".join(f"{quoted(name)}: {convert(cell(i + 2), typed)}" for i, (name, _, typed) in enumerate(columns))
    return (f"{load}{keys} OPTIONAL MATCH (a:{quoted(start)} {{{quoted(start_key[0])}: {convert(cell(0), start_key[1])}}}) "
            f"OPTIONAL MATCH (b:{quoted(end)} {{{quoted(end_key[0])}: {convert(cell(1), end_key[1])}}}) "
            f"CALL apoc.util.validate(a IS NULL OR b IS NULL, 'COPY {_text(cmd.table)}: no %s node with primary key "
            f"%s (line %d)', [CASE WHEN a IS NULL THEN '{_text(start)}' ELSE '{_text(end)}' END, "
            f"toString(CASE WHEN a IS NULL THEN {cell(0)} ELSE {cell(1)} END), linenumber()]) "
            f"CREATE (a)-[:{quoted(cmd.table)} {{{props}}}]->(b)")


def _key_column(tx, label: str) -> tuple[str, str | None]:
    entry = table_of(tx, label)
    if entry is None:
        raise ClientError(f"Node table {label} does not exist.", code=_INVALID)
    key = entry["primary_key"]
    return key, next(typed for name, _, typed in entry["columns"] if name == key)


def _text(value: str, formatted: bool = True) -> str:
    """``value`` inside a single-quoted Cypher string (``formatted``: apoc.util.validate's format, % doubled)."""
    value = value.replace("\\", "\\\\").replace("'", "\\'")
    return value.replace("%", "%%") if formatted else value


# Kuzu's extensions whose features Relate builds in (docs/kuzu.md): loading them changes nothing.
BUILT_IN_EXTENSIONS = ("vector", "fts")


def extension(db, tx, cmd: ast.Extension, params, catalog) -> Any:
    from .commands import CommandResult
    if cmd.name.lower() not in BUILT_IN_EXTENSIONS:
        raise ClientError(f"Kuzu's {cmd.name} extension is not available; Relate builds in "
                          f"{' and '.join(BUILT_IN_EXTENSIONS)} (their Kuzu procedures: docs/kuzu.md).", code=_INVALID)
    return CommandResult()


HANDLERS = {ast.CreateTable: create_table, ast.DropTable: drop_table, ast.Extension: extension}


def _show_tables(ctx):
    for i, entry in enumerate(tables(ctx.tx)):
        yield {"id": i, "name": entry["name"], "type": "NODE" if entry["entity"] == "node" else "REL",
               "database name": "neo4j", "comment": ""}


def _table_info(ctx, name):
    entry = table_of(ctx.tx, name) if isinstance(name, str) else None
    if entry is None:
        raise ClientError(f"Table {name} does not exist.", code=_INVALID)
    for i, (column, kuzu, _) in enumerate(entry["columns"]):
        row = {"property id": i, "name": column, "type": kuzu, "default expression": "NULL"}
        if entry["entity"] == "node":
            row["primary key"] = column == entry["primary_key"]
        else:
            row["storage_direction"] = "both"
        yield row


def register_tables(registry) -> None:
    """Kuzu's catalog calls: ``CALL show_tables() RETURN *`` and ``CALL table_info('User') RETURN *``."""
    registry.register("show_tables", [], [("id", "INTEGER?"), ("name", "STRING?"), ("type", "STRING?"),
                                          ("database name", "STRING?"), ("comment", "STRING?")],
                      _show_tables, description="The Kuzu tables (CREATE NODE | REL TABLE) and their kinds (Kuzu).",
                      implicit_yield=True)
    registry.register("table_info", [("tableName", "STRING?")],
                      [("property id", "INTEGER?"), ("name", "STRING?"), ("type", "STRING?"),
                       ("default expression", "STRING?"), ("primary key", "BOOLEAN?"), ("storage_direction", "STRING?")],
                      _table_info, description="A Kuzu table's columns, their types and its primary key (Kuzu).",
                      implicit_yield=True)
