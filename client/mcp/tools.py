"""What the MCP tools do, over a ``relate.Connection``: schema, read-only and write Cypher, searches.

Read-only is the engine's verdict, not string matching: the statement runs in a READ transaction (a
statement that writes data, the schema or users is refused with AccessModeError before it runs), which
is then always rolled back.
"""
from __future__ import annotations

import json
import threading
from typing import Any

from relate.errors import ClientError
from relate.protocol.json_values import to_plain

MAX_ROWS = 1000
MAX_BYTES = 4 << 20          # JSON text of one tool result; one row of a 16M-item list would be ~200 MB
INVALID = "Neo.ClientError.Request.Invalid"


class ReadOnlyViolation(ClientError):
    code = "Neo.ClientError.Statement.AccessMode"


class GraphTools:
    def __init__(self, connection, *, allow_writes: bool = False, embed=None, max_rows: int = MAX_ROWS):
        self.connection = connection
        self.allow_writes = allow_writes
        self.embed = embed                 # text -> vector, for searches given a text
        self.max_rows = max_rows
        self._lock = threading.Lock()      # one statement at a time on the shared connection

    def _rows(self, result) -> dict:
        """At most ``max_rows`` rows and ``MAX_BYTES`` of JSON; ``truncated`` says when rows were left out."""
        rows = result.fetchmany(self.max_rows + 1)
        truncated = len(rows) > self.max_rows
        kept, size = [], 0
        for row in rows[:self.max_rows]:
            plain = {k: to_plain(v) for k, v in zip(result.columns, row)}
            size += len(json.dumps(plain, ensure_ascii=False, default=str))
            if size > MAX_BYTES:
                if not kept:
                    raise ClientError(f"The first row of the result is larger than {MAX_BYTES >> 20} MiB of JSON; "
                                      "return less (a slice, a count, some properties)", code=INVALID)
                truncated = True
                break
            kept.append(plain)
        out = {"columns": result.columns, "rows": kept}
        if truncated:
            out["truncated"] = True
        else:       # every row was read: the summary is there, and an agent should see what it spent
            summary = result.consume()
            if any(summary.costs.values()):
                out["costs"] = dict(summary.costs)
        return out

    def schema(self) -> dict:
        with self._lock:
            c = self.connection
            labels = [r[0] for r in c.execute("CALL db.labels() YIELD label RETURN label ORDER BY label")]
            types = [r[0] for r in c.execute("CALL db.relationshipTypes() YIELD relationshipType AS t "
                                             "RETURN t ORDER BY t")]
            keys = [r[0] for r in c.execute("CALL db.propertyKeys() YIELD propertyKey AS k RETURN k ORDER BY k")]
            indexes = [dict(zip(("name", "type", "entityType", "labelsOrTypes", "properties", "state"), r))
                       for r in c.execute("SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, "
                                          "state RETURN name, type, entityType, labelsOrTypes, properties, state "
                                          "ORDER BY name")]
            constraints = [dict(zip(("name", "type", "entityType", "labelsOrTypes", "properties"), r))
                           for r in c.execute("SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, "
                                              "properties RETURN name, type, entityType, labelsOrTypes, properties "
                                              "ORDER BY name")]
        return {"labels": labels, "relationshipTypes": types, "propertyKeys": keys,
                "indexes": to_plain(indexes), "constraints": to_plain(constraints)}

    def read(self, statement: str, parameters: dict | None = None) -> dict:
        _check_call(statement, parameters)
        with self._lock:
            tx = self.connection.begin(read_only=True)     # a statement that writes: AccessModeError
            try:
                return self._rows(tx.execute(statement, parameters or {}))
            finally:
                tx.rollback()          # a read leaves nothing behind, whatever it called

    def write(self, statement: str, parameters: dict | None = None) -> dict:
        if not self.allow_writes:
            raise ReadOnlyViolation("Writes are disabled: start relate-mcp with --allow-writes")
        _check_call(statement, parameters)
        with self._lock:
            result = self.connection.execute(statement, parameters or {})
            out = self._rows(result)
            out["counters"] = {k: v for k, v in result.summary.counters.items() if v}
        return out

    def _vector_for(self, vector: list[float] | None, text: str | None) -> list[float]:
        if vector:
            return vector
        if text and self.embed is not None:
            return self.embed(text)
        raise ClientError("Give a vector, or a text to embed", code="Neo.ClientError.Procedure.ProcedureCallFailed")

    def search_vector(self, index: str, vector: list[float] | None, text: str | None, k: int) -> dict:
        return self.read("CALL db.index.vector.queryNodes($index, $k, $v) YIELD node, score "
                         "RETURN node, score ORDER BY score DESC",
                         {"index": index, "k": k, "v": self._vector_for(vector, text)})

    def search_fulltext(self, index: str, query: str, k: int) -> dict:
        return self.read("CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score "
                         "RETURN node, score ORDER BY score DESC LIMIT $k", {"index": index, "q": query, "k": k})

    def _label(self, index: str) -> str:
        rows = self.connection.execute("SHOW INDEXES YIELD name, labelsOrTypes WHERE name = $name "
                                       "RETURN labelsOrTypes", {"name": index}).fetchall()
        if not rows or not rows[0][0]:
            raise ClientError(f"There is no index called {index!r}", code="Neo.ClientError.Schema.IndexNotFound")
        return rows[0][0][0]

    def search_combined(self, vector_index: str, fulltext_index: str, text: str, k: int,
                        vector: list[float] | None = None) -> dict:
        with self._lock:
            label = self._label(vector_index).replace("`", "``")
        statement = (f"MATCH (n:`{label}`) SEARCH n IN (COMBINE ("
                     f"VECTOR INDEX `{vector_index.replace('`', '``')}` FOR $v LIMIT $k, "
                     f"FULLTEXT INDEX `{fulltext_index.replace('`', '``')}` FOR $q LIMIT $k) "
                     "USING RRF LIMIT $k) SCORE AS score RETURN n AS node, score ORDER BY score DESC")
        return self.read(statement, {"v": self._vector_for(vector, text), "q": text, "k": k})


def _check_call(statement: Any, parameters: Any) -> None:
    """A statement string and a parameter map (or none): what the tools' schemas promise."""
    if not isinstance(statement, str):
        raise ClientError(f"The statement must be a string, not {type(statement).__name__}", code=INVALID)
    if parameters is not None and not isinstance(parameters, dict):
        raise ClientError(f"The parameters must be a map, not {type(parameters).__name__}", code=INVALID)


def error_text(exc: Exception) -> str:
    code = getattr(exc, "code", None)
    return f"{code}: {getattr(exc, 'message', str(exc))}" if code else str(exc)


def jsonable(value: Any) -> Any:
    return to_plain(value)
