"""The procedure registry behind ``CALL name(args) YIELD ...``, with the built-in ``db.*`` procedures."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from relate.protocol.errors import ProcedureNotFound

from .refs import NodeRef, PathRef, RelRef

MISSING = object()   # marks an input without a default


@dataclass(frozen=True, slots=True)
class Procedure:
    """One registered procedure: inputs ``[(name, type, default)]``, outputs ``[(name, type)]``."""
    name: str
    inputs: tuple
    outputs: tuple
    fn: Callable[..., Iterable]
    mode: str = "READ"
    description: str = ""           # one line, for SHOW PROCEDURES and the shell's completion
    # Kuzu's calls (CALL show_tables() RETURN *) yield every output inside a query without YIELD
    implicit_yield: bool = False

    @property
    def output_names(self) -> list[str]:
        return [name for name, _ in self.outputs]

    def signature(self) -> str:
        """Neo4j's form: ``name(arg :: TYPE, opt = default :: TYPE) :: (out :: TYPE, ...)``."""
        ins = ", ".join(f"{n} :: {t}" if d is MISSING else f"{n} = {_default_text(d)} :: {t}"
                        for n, t, d in self.inputs)
        outs = ", ".join(f"{n} :: {t}" for n, t in self.outputs)
        return f"{self.name}({ins}) :: ({outs})"


def _default_text(value) -> str:
    """A default argument as Neo4j's signatures print it (strings bare, null, maps and lists as Cypher)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_default_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_default_text(v) for v in value) + "]"
    return str(value)


class ProcedureRegistry:
    """Procedures by case-insensitive name."""

    def __init__(self):
        self._by_name: dict[str, Procedure] = {}

    def register(self, name: str, inputs, outputs, fn, mode: str = "READ", description: str | None = None,
                 implicit_yield: bool = False) -> Procedure:
        """Add a procedure; ``description`` defaults to the first line of ``fn``'s docstring."""
        if description is None:
            doc = (getattr(fn, "__doc__", None) or "").strip()
            description = doc.splitlines()[0] if doc else ""
        proc = Procedure(name, tuple(tuple(i) if len(i) == 3 else (*i, MISSING) for i in inputs),
                         tuple(tuple(o) for o in outputs), fn, mode, description, implicit_yield)
        self._by_name[name.lower()] = proc
        return proc

    def unregister(self, name: str) -> None:
        self._by_name.pop(name.lower(), None)

    def get(self, name: str) -> Procedure:
        proc = self._by_name.get(name.lower())
        if proc is None:
            raise ProcedureNotFound(f"There is no procedure with the name `{name}` registered",
                                    detail="ProcedureNotFound", phase="compile time")
        return proc

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._by_name

    def all(self) -> list[Procedure]:
        return sorted(self._by_name.values(), key=lambda p: p.name)


def type_accepts(type_name: str, value: Any) -> bool:
    """Whether ``value`` fits the Cypher type ``type_name`` (``INTEGER?``, ``LIST? OF FLOAT?``, ...)."""
    text = type_name.strip().upper()
    if value is None:
        return True      # procedure types are nullable in the signatures we accept
    base = text.split(" OF ", 1)[0].rstrip("?").strip()
    if base in ("ANY", ""):
        return True
    check = _TYPE_CHECKS.get(base)
    return True if check is None else check(value)


def coerce(type_name: str, value: Any) -> Any:
    """An INTEGER passed as FLOAT becomes a float, as Neo4j does for procedure inputs."""
    if type(value) is int and type_name.strip().upper().rstrip("?") == "FLOAT":
        return float(value)
    return value


_TYPE_CHECKS = {
    "STRING": lambda v: isinstance(v, str),
    "INTEGER": lambda v: type(v) is int,
    "FLOAT": lambda v: type(v) in (int, float),
    "NUMBER": lambda v: type(v) in (int, float),
    "BOOLEAN": lambda v: type(v) is bool,
    "MAP": lambda v: isinstance(v, dict),
    "LIST": lambda v: isinstance(v, list) or hasattr(v, "to_numpy"),
    "NODE": lambda v: type(v) is NodeRef,
    "RELATIONSHIP": lambda v: type(v) is RelRef,
    "PATH": lambda v: type(v) is PathRef,
}


def _property_keys(tx) -> list[str]:
    """Every key ever written or named by the schema, and those made known by db.createProperty (Neo4j
    lists all its property key tokens), in creation order: token order, as Neo4j's (storage/tokens.py)."""
    from relate.server.storage import tokens
    keys = tx.property_keys()
    known = set(keys)
    # created earlier in this transaction: a token only once its transaction commits
    return keys + [name for name in tokens.names(tx.schema(), "key") if name not in known]


def _in_use(tx, kind: str) -> list[str]:
    """Neo4j's labels (``kind`` 'label') or relationship types ('type') in use: carried by data or named
    by an index or constraint, in token order (the order they were first created, not by name)."""
    from relate.server.storage import tokens
    used = tx.labels() if kind == "label" else tx.rel_types()
    schema = tokens.schema_names(tx.schema(), kind)
    if not schema:
        return used
    wanted = set(used) | schema
    names = [name for name in tx.token_names(kind) if name in wanted]
    # a name only an index or constraint of this uncommitted transaction uses has no token yet
    return names + sorted(schema - set(names))


def register_builtins(registry: ProcedureRegistry) -> None:
    """The db.* procedures every database has."""
    registry.register("db.labels", [], [("label", "STRING?")],
                      lambda ctx: ({"label": name} for name in _in_use(ctx.tx, "label")),
                      description="The node labels in use (by nodes, indexes or constraints), in creation order.")
    registry.register("db.relationshipTypes", [], [("relationshipType", "STRING?")],
                      lambda ctx: ({"relationshipType": name} for name in _in_use(ctx.tx, "type")),
                      description="The relationship types in use (by relationships, indexes or constraints), "
                                  "in creation order.")
    registry.register("db.propertyKeys", [], [("propertyKey", "STRING?")],
                      lambda ctx: ({"propertyKey": name} for name in _property_keys(ctx.tx)),
                      description="Every property key ever created, in creation order.")
    registry.register("dbms.procedures", [], [("name", "STRING?"), ("signature", "STRING?"), ("mode", "STRING?")],
                      lambda ctx: ({"name": p.name, "signature": p.signature(), "mode": p.mode}
                                   for p in ctx.db.procedures.all()),
                      description="The registered procedures and their signatures.")
    from .procedures_compat import register_compat   # Neo4j tools' procedures (dbms.components, apoc.meta.*)
    register_compat(registry)
    from .procedures_neo4j import register_neo4j     # db.ping, tx.setMetaData, db.clearQueryCaches, ...
    register_neo4j(registry)
    from .procedures_refactor import register_refactor   # apoc.refactor.mergeNodes, apoc.create.*
    register_refactor(registry)
    from .procedures_apoc import register_apoc   # apoc.periodic.*, apoc.cypher.*, apoc.meta.schema, apoc.help, ...
    register_apoc(registry)
    from .procedures_paths import register_paths   # apoc.path.expand/expandConfig/subgraph*/spanningTree
    register_paths(registry)
    from .procedures_info import register_info     # db.schema.*TypeProperties, apoc.meta.stats, db.info, ...
    register_info(registry)
    from .procedures_falkordb import register_falkordb   # db.idx.vector.* / db.idx.fulltext.* (FalkorDB)
    register_falkordb(registry)
    from .schema.tables import register_tables           # show_tables(), table_info(name) (Kuzu)
    register_tables(registry)
    from .procedures_kuzu import register_kuzu           # CREATE_VECTOR_INDEX, QUERY_FTS_INDEX, ... (Kuzu)
    register_kuzu(registry)
