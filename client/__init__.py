"""Relate: a property-graph database that speaks Cypher, with vector and full-text search built in.

``relate.connect("notes.rl")`` opens a database file in-process; ``relate.connect(":memory:")`` a
throwaway one; ``relate.connect("relate://host:7688", auth=("neo4j", "secret"))`` talks to a server.
"""
from __future__ import annotations

import sys

from relate.protocol import errors, summary, temporal, values
from relate.protocol.errors import *  # noqa: F401,F403 - the error classes are part of the public API
from relate.protocol.summary import Counters, Summary
from relate.protocol.temporal import parse as temporal_parse
from relate.protocol.temporal import zones as temporal_zones
from relate.protocol.values import Duration, Node, Path, Point, Relationship, Row, Vector

# The shared kernel lives in relate.protocol (both the driver and the engine import it from there);
# user code keeps its public names. They are the same module objects, so class identity, private
# names and pickled class paths (relate.temporal.Date, relate.values.Vector) all keep working.
sys.modules.update({"relate.errors": errors, "relate.values": values, "relate.temporal": temporal,
                    "relate.temporal_parse": temporal_parse, "relate.temporal_zones": temporal_zones,
                    "relate.summary": summary})

from .connection import Connection, Result, Transaction  # noqa: E402 - after the aliases it imports

__version__ = "0.1.0"
__all__ = ["connect", "Connection", "Result", "Transaction", "Summary", "Counters", "Node",  # noqa: PLE0604
           "Relationship", "Path", "Vector", "Point", "Duration", "Row", "errors", *errors.__all__]


def connect(target, *, auth: tuple[str, str] | None = None, **options) -> Connection:
    """Open a connection: a directory path (str or pathlib.Path, embedded), ``:memory:``, or a
    ``relate://host:port`` URL. Other URL schemes (``bolt://``, ``http://``) raise ConfigurationError.
    Embedded options: ``read_only=True`` (no writer; writes raise ReadOnlyDatabaseError),
    ``create_parents=True`` (create missing parent directories)."""
    from .targets import open_database, target_kind
    kind, text = target_kind(target)
    if kind == "remote":
        from .driver import connect_remote  # the network driver; imports nothing of the server
        return connect_remote(text, auth=auth, **options)
    scope = options.pop("scope", None)          # {user, context}: what searches, joins and MATCH may read
    ai_budget = options.pop("ai_budget", None)  # {semanticCalls, llmCalls, apiCalls}
    database = open_database(kind, text, auth, options)
    session = database.session()
    session.scope, session.ai_budget = dict(scope or {}), ai_budget
    return Connection(session, owner=database, target=text)
