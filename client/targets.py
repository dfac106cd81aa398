"""What ``relate.connect(target)`` opens: one table of the URL schemes served, and the checks on an
embedded database path (kept apart so the shell and the asyncio API decide exactly alike)."""
from __future__ import annotations

import os
import re
from typing import Any

from .errors import ConfigurationError

# scheme -> how it is served. A scheme not in this table is refused (never taken for a file name).
SCHEMES = {"relate": "remote", "relate+s": "remote", "relate+ssc": "remote"}
# Served by the server's Bolt listener to Neo4j drivers, not by relate.connect().
_BOLT = frozenset(("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"))
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

EMBEDDED_OPTIONS = ("read_only", "create_parents")


def target_kind(target: Any) -> tuple[str, str]:
    """``(kind, text)``: kind is "remote", "memory" or "embedded"; raises ConfigurationError."""
    if isinstance(target, os.PathLike):
        return "embedded", os.fspath(target)
    if not isinstance(target, str):
        raise ConfigurationError(f"connect() takes a path or a URL, not {type(target).__name__}")
    if target == ":memory:":
        return "memory", target
    match = _URL.match(target)
    if match:
        scheme = match.group(1).lower()
        kind = SCHEMES.get(scheme)
        if kind is None and scheme in _BOLT:
            raise ConfigurationError(
                f"{scheme}:// is Neo4j's Bolt protocol, which relate.connect() does not speak: use the neo4j "
                "driver (GraphDatabase.driver('bolt://host:7687', auth=...)) against the server's Bolt "
                "listener, or relate.connect('relate://host:7688')")
        if kind is None:
            served = ", ".join(f"{name}://" for name in SCHEMES)
            raise ConfigurationError(f"unsupported URL scheme {scheme}:// in {target!r}: Relate serves "
                                     f"{served}, or a database directory path")
        return kind, target
    return "embedded", target


def check_embedded(path: str, *, auth, read_only: bool, create_parents: bool) -> None:
    """Refuse, with a typed error, what an embedded open would otherwise get wrong silently."""
    if auth is not None:
        raise ConfigurationError("auth= applies to relate:// servers; an embedded database has no login "
                                 "(drop auth=, or connect to the server that serves this directory)")
    if not path:
        raise ConfigurationError("an empty database path")
    absolute = os.path.abspath(path)
    if read_only:
        if not os.path.isdir(absolute):
            raise ConfigurationError(f"no database at {path} (read_only=True never creates one)")
        return
    parent = os.path.dirname(absolute)
    if not os.path.isdir(parent):
        if not create_parents:
            raise ConfigurationError(f"the directory {parent} does not exist (create it, or pass "
                                     "create_parents=True)")
        os.makedirs(parent, exist_ok=True)


def open_database(kind: str, path: str, auth, options: dict):
    """The embedded engine's Database for a "memory" or "embedded" target (checks first)."""
    read_only = bool(options.pop("read_only", False))
    create_parents = bool(options.pop("create_parents", False))
    if kind == "memory":
        if auth is not None:
            check_embedded(path, auth=auth, read_only=False, create_parents=False)
        if read_only:
            raise ConfigurationError("read_only=True needs a database directory, not :memory:")
        path = None
    else:
        try:
            check_embedded(path, auth=auth, read_only=read_only, create_parents=create_parents)
        except PermissionError as exc:
            raise ConfigurationError(f"cannot create {exc.filename}: permission denied") from None
    from .embedded import open_database as open_engine   # the one door into the engine (lazy)
    if read_only:
        options["read_only"] = True
    return open_engine(":memory:" if path is None else path, **options)
