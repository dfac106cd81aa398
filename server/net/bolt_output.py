"""BoltOutput: the session core's ReplySink for Bolt. It packs replies as PackStream structures in
chunked frames and turns the core's metadata into what Bolt drivers read (HELLO hints, summary stats
with dashed keys, FAILURE with ``neo4j_code`` and a GQL status from Bolt 5.7)."""
from __future__ import annotations

import asyncio

from relate.protocol.errors import DatabaseError
from relate.protocol import frame
from relate.protocol.framing import append_frame
from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.handshake import BoltVersion
from relate.protocol.bolt.packstream import Packer, PackStreamError

from .output import flush_buffer

NEO4J_AGENT = "Neo4j/5.26.0"        # libraries enable their Neo4j 5 paths from the agent/version
DATABASE = "neo4j"
FLUSH_AT = 64 * 1024
GQL_FROM = BoltVersion(5, 7)
_IGNORED = frame(bytes([0xB0, bm.IGNORED]))
_RECORD_HEAD = bytes([0xB1, bm.RECORD])

# GQLSTATUS for the Neo4j status codes whose status Neo4j 5 documents (status-codes manual, "GQLSTATUS
# error codes"); a code not listed takes its prefix's general status below. The driver classifies
# errors by neo4j_code; these are what it shows (Neo4jError.gql_status, gql_status_description).
_GQL_BY_CODE = {
    "Neo.ClientError.Statement.SyntaxError": ("42001", "error: syntax error or access rule violation - invalid syntax"),
    "Neo.ClientError.Statement.ParameterMissing": (
        "42N51", "error: syntax error or access rule violation - invalid parameter"),
    "Neo.ClientError.Procedure.ProcedureNotFound": (
        "42N08", "error: syntax error or access rule violation - no such procedure"),
    "Neo.ClientError.Procedure.ProcedureCallFailed": ("52N37", "error: procedure exception - procedure execution error"),
    "Neo.ClientError.Schema.ConstraintValidationFailed": ("22N81", "error: data exception - constraint violation"),
}
# Neo.ClientError.Statement.ArithmeticError covers several data exceptions: told apart by the message.
_ARITHMETIC = ((("by zero",), "22012", "error: data exception - division by zero"),
               (("overflow", "out of range"), "22003", "error: data exception - numeric value out of range"),
               ((), "22000", "error: data exception"))
# GQLSTATUS per Neo4j status code prefix, for codes without a documented status of their own.
_GQL = (("Neo.ClientError.Security.", "42NFF", "error: syntax error or access rule violation - permission/access denied"),
        ("Neo.ClientError.Statement.", "42N00", "error: syntax error or access rule violation"),
        ("Neo.ClientError.Transaction.", "25N00", "error: invalid transaction state"),
        ("Neo.ClientError.", "22N00", "error: data exception"),
        ("Neo.TransientError.", "50N00", "error: general processing exception - transient"),
        ("", "50N42", "error: general processing exception - unexpected error"))
# The root operator's args that Neo4j tools print beside a plan ("Cypher version, planner, runtime").
_ROOT_PLAN_ARGS = {"planner": "COST", "runtime": "INTERPRETED", "version": "CYPHER 5"}
_CLASSIFICATION = {"ClientError": "CLIENT_ERROR", "TransientError": "TRANSIENT_ERROR",
                   "DatabaseError": "DATABASE_ERROR"}


def failure_metadata(meta: dict, version: BoltVersion) -> dict:
    """The core's error metadata as a Bolt FAILURE: the message with its excerpt, and from 5.7 the
    GQL fields (``neo4j_code``, ``gql_status``, ``description``, ``diagnostic_record``)."""
    code = meta.get("code", "Neo.DatabaseError.General.UnknownError")
    message = meta.get("message", "")
    excerpt = meta.get("excerpt")
    if excerpt and excerpt not in message:
        message = f"{message}\n{excerpt}"
    if version < GQL_FROM:
        return {"code": code, "message": message}
    status, description = gql_status(code, meta.get("message", ""))
    parts = code.split(".")
    record = {"OPERATION": "", "OPERATION_CODE": "0", "CURRENT_SCHEMA": "/",
              "_classification": _CLASSIFICATION.get(parts[1] if len(parts) > 1 else "", "DATABASE_ERROR")}
    position = _position(meta)
    if position is not None:
        record["_position"] = position
    return {"neo4j_code": code, "message": message, "gql_status": status,
            "description": f"{description}. {message}", "diagnostic_record": record}


def gql_status(code: str, message: str = "") -> tuple[str, str]:
    """The GQLSTATUS and its status description Neo4j 5 gives an error with status ``code``."""
    if code == "Neo.ClientError.Statement.ArithmeticError":
        lowered = message.lower()
        return next((s, d) for words, s, d in _ARITHMETIC if not words or any(w in lowered for w in words))
    known = _GQL_BY_CODE.get(code)
    if known is not None:
        return known
    return next((s, d) for prefix, s, d in _GQL if code.startswith(prefix))


def _position(meta: dict) -> dict | None:
    """The diagnostic record's ``_position`` (1-based line and column, 0-based character offset), for
    an error that has a position. The offset is the error's own; on line 1 it is column - 1; on a
    later line, unknown here (the statement text is not at hand), it is left out."""
    line = meta.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        return None
    column = meta.get("column")
    column = column if isinstance(column, int) and not isinstance(column, bool) and column >= 1 else 1
    position = {"line": line, "column": column}
    offset = meta.get("offset")
    if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0:
        position["offset"] = offset
    elif line == 1:
        position["offset"] = column - 1
    return position


_SEVERITY_RANK = {"INFORMATION": 0, "WARNING": 1}


class NotificationFilter:
    """What notifications a driver asked for (Bolt 5.2+): a minimum severity (``OFF`` for none) and
    categories to leave out, given in HELLO for the connection and in BEGIN or RUN for a transaction."""

    __slots__ = ("minimum", "disabled")

    def __init__(self, minimum: int, disabled: frozenset[str]):
        self.minimum = minimum            # a _SEVERITY_RANK; above WARNING: none at all
        self.disabled = disabled

    @classmethod
    def of(cls, extra: dict | None, default: "NotificationFilter | None" = None) -> "NotificationFilter | None":
        """The filter ``extra`` sets (its missing parts from ``default``), or ``default`` when it sets none."""
        extra = extra if isinstance(extra, dict) else {}
        severity = extra.get("notifications_minimum_severity")
        disabled = extra.get("notifications_disabled_classifications", extra.get("notifications_disabled_categories"))
        if severity is None and disabled is None:
            return default
        if isinstance(severity, str):
            minimum = _SEVERITY_RANK.get(severity.upper(), len(_SEVERITY_RANK))   # OFF (or unknown): none
        else:
            minimum = default.minimum if default is not None else 0
        if isinstance(disabled, (list, tuple)):
            names = frozenset(str(name).upper() for name in disabled)
        else:
            names = default.disabled if default is not None else frozenset()
        return cls(minimum, names)

    def keeps(self, notification: dict) -> bool:
        rank = _SEVERITY_RANK.get(str(notification.get("severity", "")).upper(), 0)
        return rank >= self.minimum and str(notification.get("category", "")).upper() not in self.disabled


def summary_metadata(meta: dict, bookmark: str | None, notify: NotificationFilter | None = None) -> dict:
    """A finished statement's summary: stats keys dashed (``nodes-created``), the database named, the
    notifications the driver asked for."""
    out = {"type": meta.get("type", "r"), "t_last": int(meta.get("t_last", 0)), "db": DATABASE}
    stats = {key.replace("_", "-"): value for key, value in meta.get("stats", {}).items()}
    if stats:
        out["stats"] = stats
    notifications = [n for n in meta.get("notifications", []) if isinstance(n, dict) and "code" in n
                     and (notify is None or notify.keeps(n))]
    if notifications:
        out["notifications"] = notifications
    plan = meta.get("plan")
    if isinstance(plan, dict):
        described = _plan(plan)
        described["args"] = {**_ROOT_PLAN_ARGS, **described["args"]}
        out["profile" if "rows" in plan else "plan"] = described
    if meta.get("bookmark") or bookmark:
        out["bookmark"] = meta.get("bookmark") or bookmark
    return out


def _plan(node: dict) -> dict:
    """An EXPLAIN/PROFILE tree in Neo4j's shape (operatorType, args with Details and EstimatedRows,
    identifiers, children; with rows and time for PROFILE)."""
    args = {"Details": node.get("details") or ""}
    if isinstance(node.get("estimated_rows"), (int, float)):
        args["EstimatedRows"] = float(node["estimated_rows"])
    out = {"operatorType": node.get("operator", ""), "args": args,
           "identifiers": [], "children": [_plan(child) for child in node.get("children", [])]}
    if "rows" in node:
        out.update(rows=node["rows"], dbHits=0, time=int(node.get("time_ms", 0) * 1_000_000))
    return out


class BoltOutput:
    """Replies gathered and written when no request is queued, or once 64 KiB of records wait."""

    def __init__(self, writer: asyncio.StreamWriter, packer: Packer, version: BoltVersion, *,
                 connection_id: str, bookmark=lambda: None):
        self._writer = writer
        self._packer = packer
        self._version = version
        self._connection_id = connection_id
        self._bookmark = bookmark         # the last commit's bookmark, for auto-commit summaries
        self._buffer = bytearray()
        self._request = None
        self.hold_hello = False                  # Bolt 5.0: HELLO's SUCCESS waits for its LOGON
        self.patched_utc = False                 # Bolt 4.4: HELLO's SUCCESS confirms the utc patch
        self.held_success: dict | None = None
        self._notify_connection: NotificationFilter | None = None   # from HELLO
        self._notify_tx: NotificationFilter | None = None           # from BEGIN, until the transaction ends
        self._notify: NotificationFilter | None = None              # for the statement being answered

    def answering(self, request) -> None:
        """The request the next replies answer (its metadata is shaped for it)."""
        self._request = request
        kind = type(request)
        if kind is m.Run:
            self._notify = NotificationFilter.of(request.extra, self._notify_tx or self._notify_connection)
        elif kind is m.Begin:
            self._notify = self._notify_tx = NotificationFilter.of(request.extra, self._notify_connection)
        elif kind is m.Commit or kind is m.Rollback or kind is m.Reset:
            self._notify_tx = None
        elif kind is m.Hello:
            self._notify_connection = NotificationFilter.of(request.extra)

    def _message(self, structure) -> None:
        try:
            self._buffer += frame(self._packer.pack(structure))
        except PackStreamError as exc:
            raise DatabaseError(f"a reply cannot be sent over Bolt: {exc.message}") from None

    async def success(self, metadata: dict) -> None:
        request = self._request
        if isinstance(request, m.Hello):
            metadata = {"server": NEO4J_AGENT, "connection_id": self._connection_id,
                        "hints": {"telemetry.enabled": False}}
            if self.patched_utc:
                metadata["patch_bolt"] = ["utc"]
            if self.hold_hello:
                self.held_success = metadata
                return
        elif isinstance(request, m.Logon) and self.held_success is not None:
            metadata, self.held_success = self.held_success, None
        elif isinstance(request, (m.Pull, m.Discard)):
            if not metadata.get("has_more"):
                metadata = summary_metadata(metadata, self._bookmark(), self._notify)
        elif isinstance(request, m.Run):
            metadata = {k: v for k, v in metadata.items() if k in ("fields", "t_first", "qid")}
            metadata["t_first"] = int(metadata.get("t_first", 0))
        elif isinstance(request, m.Begin):
            metadata = {}
        self._message(bm.success(metadata))

    async def failure(self, metadata: dict) -> None:
        self.held_success = None
        self._message(bm.failure(failure_metadata(metadata, self._version)))

    async def ignored(self) -> None:
        self._buffer += _IGNORED

    async def records(self, rows: list) -> None:
        buffer, pack_row = self._buffer, self._packer.pack_row
        body = bytearray()
        try:
            for row in rows:
                body.clear()
                body += _RECORD_HEAD
                pack_row(row, body)
                append_frame(buffer, body)
        except PackStreamError as exc:
            raise DatabaseError(f"a result value cannot be sent over Bolt: {exc.message}") from None
        if len(buffer) >= FLUSH_AT:
            await self.flush()

    async def flush(self) -> None:
        await flush_buffer(self._writer, self._buffer)
