"""The embedded engine: Database (store, catalog, indexes, procedures, plan cache) and Session.

One statement, end to end (``Session.run``):
    prepare: text -> parse -> semantic analysis -> plan (cached by text)   [Database.prepare]
    execute: read-only  -> snapshot (begin_read), rows stream lazily
             updating   -> write transaction (or the explicit one, under a savepoint); rows are
                           computed and materialized eagerly, deletes and constraints checked, commit
             explicit   -> ExplicitTx: a snapshot until the first write, then the writer (explicit_tx.py)
             command    -> schema / administration command (commands.run_command)
"""
from __future__ import annotations

import datetime
import gc
import itertools
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

from relate.protocol.errors import (AccessModeError, CypherTypeError, DatabaseError, ParameterMissing, QueryTimeout,
                                    RelateError, Terminated, TransactionError, TransientError)
from relate.protocol.secrets import redact
from relate.protocol.temporal import DateTime
from relate.protocol.values import Duration
from relate.protocol.summary import Plan as PrintablePlan, Summary

from . import privileges
from .explicit_tx import ExplicitTx
from .query import ast
from .query.context import ExecContext
from .query.exec.results import EngineResult
from .query.limits import (check_statement_size, ensure_recursion_headroom, guarded_parse, set_value_limits,
                           too_complex)
from .query.materialize import materialize_row
from .query.parser import parse
from .query.plan_cache import PlanCache
from .query import notifications
from .query.planner import Plan, plan_query
from .query.planner.explain import describe_plan
from .query.procedures import ProcedureRegistry, register_builtins
from .query.schema import Catalog, check_deletes, check_statement, run_command, tables, terminate_ids
from .query.semantic import analyze
from .index import DEFAULT_FULLTEXT_ENGINE, IndexManager
from .index import procedures as index_procedures
from .storage import GraphStore

_OPEN_OPTIONS = ("sync", "checkpoint_every", "recover_truncate", "read_only")
_TX_IDS = itertools.count(1)


_QUERY_IDS = itertools.count(1)


def _new_tx_id() -> str:
    """A transaction id as Neo4j spells them (SHOW TRANSACTIONS, TERMINATE TRANSACTIONS)."""
    return f"neo4j-transaction-{next(_TX_IDS)}"


@dataclass
class Prepared:
    """A statement ready to run: a query plan, or a command."""
    statement: ast.Statement
    plan: Optional[Plan] = None
    parameters: frozenset = frozenset()
    columns: list[str] = field(default_factory=list)
    privilege: Optional[str] = None        # the least role that may run it (privileges.required_role)
    allowed: Optional[tuple] = None        # (user, user entry) it was last allowed for (privileges.check)
    writes: Optional[bool] = None          # changes data, schema or users (privileges.writes)
    references: Any = None                 # the names it reads, its cartesian products (query.notifications)

    @property
    def is_command(self) -> bool:
        return self.plan is None


def _query_type(plan: Plan) -> str:
    """Neo4j's statement type: ``r`` (reads), ``w`` (writes, returns nothing), ``rw`` (writes and returns)."""
    return ("rw" if plan.columns else "w") if plan.updating else "r"


DEFAULT_MAX_STATEMENT_BYTES = 4 * 2 ** 20     # longer statements are refused before parsing
WRITER_WAIT_SLICE_S = 0.1                     # how often a wait for the writer looks for cancellation


def _check_relevance_budget(plan: Plan, ctx: ExecContext) -> None:
    """Refuse before it spends a statement whose relevance hops inside OPTIONAL MATCH or CALL subqueries
    would exceed the AI budget (relevance/pricing.py); plans without such a hop pay one attribute read."""
    nested = plan.nested_relevance
    if nested is None:
        from .relevance.pricing import nested_hop
        nested = plan.nested_relevance = nested_hop(plan.root)
    if nested:
        from .relevance.pricing import check_budget
        check_budget(plan.root, ctx)


class Database:
    """An open database: ``Database.open(path | None)``; sessions run statements against it."""

    def __init__(self, store: GraphStore, directory: Optional[str], *, plan_cache_size: int = 1000,
                 query_timeout: Optional[float] = None, fulltext_engine: str = DEFAULT_FULLTEXT_ENGINE,
                 import_dir: Optional[str] = None,
                 max_statement_bytes: Optional[int] = DEFAULT_MAX_STATEMENT_BYTES):
        self.store = store
        self.directory = directory
        self.import_dir = import_dir          # LOAD CSV reads files only below it (None: refused)
        self.query_timeout = query_timeout
        self.max_statement_bytes = max_statement_bytes
        # Set by a server that serves this database (config.Serving: its settings and bound addresses);
        # None embedded. SHOW SETTINGS and dbms.routing.getRoutingTable read it.
        self.serving: Optional[Any] = None
        self.plan_cache = PlanCache(plan_cache_size)
        self.procedures = ProcedureRegistry()
        register_builtins(self.procedures)
        from .query import procedures_backup
        procedures_backup.register(self.procedures)
        from .relevance import scope as relevance_scope
        relevance_scope.register(self.procedures)
        self.ai_budget: Optional[dict] = None      # {semanticCalls, llmCalls, apiCalls}: relevance/costs.py
        self.ai_provider = None                    # a server/ai Provider; None = the process default
        # Read-only: the search indexes are rebuilt in memory, so nothing in the directory is written.
        index_directory = None if store.read_only else directory
        self.index_manager = _open_index_manager(store, index_directory, self.procedures, fulltext_engine)
        from .index.trigram import NameIndexes
        from .retrieval import register as register_retrieval
        self.name_indexes = NameIndexes(store)       # trigram name indexes, built on first use
        register_retrieval(self.procedures)
        from .auth import UserStore
        self.users = UserStore(store)
        self._catalog: Optional[Catalog] = None
        self._sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()
        self._lock = threading.Lock()
        self.closed = False

    @classmethod
    def open(cls, path: Optional[str] = None, **options) -> "Database":
        _quiet_embedded_logs()
        ensure_recursion_headroom()
        if options.pop("tune_gc", True):
            _tune_gc()
        store_options = {k: options.pop(k) for k in _OPEN_OPTIONS if k in options}
        set_value_limits(options.pop("max_string_chars", None), options.pop("max_list_items", None))
        unknown = set(options) - {"plan_cache_size", "query_timeout", "fulltext_engine", "import_dir",
                                  "max_statement_bytes"}
        if unknown:
            raise TypeError(f"unknown option(s) for Database.open: {sorted(unknown)}")
        store = GraphStore.open(path, **store_options)
        try:
            return cls(store, path, **options)
        except BaseException:
            store.close()           # a failed open (indexes, ...) must not leave the directory locked
            raise

    def session(self) -> "Session":
        if self.closed:
            raise TransactionError("the database is closed")
        session = Session(self)
        self._sessions.add(session)
        return session

    def checkpoint(self) -> None:
        self.store.checkpoint()
        if self.index_manager is not None:
            self.index_manager.checkpoint()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for session in list(self._sessions):
            session.close()
        if self.index_manager is not None:
            self.index_manager.close()
        self.name_indexes.close()
        self.store.close()

    # ------------------------------------------------------------ catalog and plans
    def catalog(self) -> Catalog:
        """Constraints and range indexes as committed (reloaded after each schema change)."""
        catalog = self._catalog
        if catalog is None:
            tx = self.store.begin_read()
            try:
                catalog = self._catalog = Catalog.from_schema(tx.schema())
            finally:
                tx.close()
        return catalog

    def schema_changed(self) -> None:
        self._catalog = None
        self.plan_cache.invalidate()

    def prepare(self, text: str, tx=None) -> Prepared:
        """Parse, analyze and plan ``text`` (plans are cached by text until the schema changes)."""
        prepared = self.plan_cache.get(text)
        if prepared is not None:
            return prepared
        return self.prepare_uncached(text, tx)

    def prepare_uncached(self, text: str, tx=None) -> Prepared:
        """``prepare`` after a plan-cache miss: parse, analyze, plan and cache ``text``."""
        generation = self.plan_cache.generation
        try:
            statement = parse(text)
        except RecursionError:
            raise too_complex("compile time") from None
        try:
            columns = analyze(statement, function_known=_function_known, procedures=self.procedures,
                              search_index=self._search_index_info)
            prepared = Prepared(statement, parameters=_parameters(statement), columns=columns or [])
            if isinstance(statement.body, ast.Query):
                prepared.plan = self._plan(statement.body, tx, profile=False)
                prepared.columns = prepared.plan.columns
        except RelateError as exc:
            _add_excerpt(exc, text)
            raise
        except RecursionError:
            raise too_complex("compile time") from None
        if statement.mode != "PROFILE":
            self.plan_cache.put(text, prepared, generation)
        return prepared

    def _plan(self, query: ast.Query, tx, profile: bool) -> Plan:
        own = tx is None
        catalog_tx = self.store.begin_read() if own else tx
        try:
            return plan_query(query, catalog_tx, self.procedures, profile=profile)
        finally:
            if own:
                catalog_tx.close()

    def _search_index_info(self, name: str) -> Optional[dict]:
        if self.index_manager is None:
            return None
        try:
            index = self.index_manager.get(name)
        except (KeyError, RelateError):
            return None
        return None if index is None else _describe_search_index(index)

    def _open_transactions(self, viewer: Optional[str] = None) -> list["Session"]:
        """Sessions running a statement or holding an explicit transaction open: every one for an admin
        (or embedded, ``viewer`` None), else the viewer's own (Neo4j's default SHOW/TERMINATE privileges)."""
        admin = viewer is None or "admin" in privileges.roles_of(self.users.entry_now(viewer))
        return [s for s in list(self._sessions) if (s.running_query is not None or s.in_transaction)
                and (admin or s.principal == viewer)]

    def show_transactions(self, viewer: Optional[str] = None) -> list[dict]:
        rows = []
        now = time.monotonic()
        for session in self._open_transactions(viewer):
            query, since = session.running_query, session.running_since
            elapsed = None
            if query is not None and since is not None:
                elapsed = Duration(nanoseconds=int((now - since) * 1e9))
            started = session.tx_started
            rows.append({"database": "neo4j", "transactionId": session.tx_id,
                         "currentQueryId": session.query_id if query is not None else "",
                         "connectionId": session.connection_id, "clientAddress": session.client_address,
                         "username": session.principal, "currentQuery": redact(query or ""),
                         "startTime": None if started is None else
                         DateTime.from_python(datetime.datetime.fromtimestamp(started, datetime.timezone.utc)),
                         "status": "Running" if query else "Idle", "elapsedTime": elapsed,
                         "metaData": dict(session.tx_metadata), "progress": session.progress()})
        return rows

    def terminate_transactions(self, ids: list[str], principal: Optional[str]) -> list[dict]:
        """TERMINATE TRANSACTIONS: stop each one's running statement and fail its open transaction. A
        logged-in user may end its own transactions, an admin any (others' are not found, as in Neo4j)."""
        open_now = {s.tx_id: s for s in self._open_transactions(principal)}
        rows = []
        for tx_id in ids:
            session = open_now.get(tx_id)
            if session is not None:
                session.terminate()
                rows.append({"transactionId": tx_id, "username": session.principal,
                             "message": "Transaction terminated."})
            else:
                rows.append({"transactionId": tx_id, "username": None, "message": "Transaction not found."})
        return rows


class Session:
    """Runs statements; auto-commit unless ``begin()`` opened an explicit transaction."""

    def __init__(self, db: Database):
        self.db = db
        self._explicit: Optional[ExplicitTx] = None
        self._ctx: Optional[ExecContext] = None
        self.running_query: Optional[str] = None
        self.running_since: Optional[float] = None    # time.monotonic() when running_query started
        self.connection_id: Optional[str] = None      # the server's connection (None embedded)
        self.client_address: Optional[str] = None     # the server's peer (None embedded)
        self.query_id: Optional[str] = None           # SHOW TRANSACTIONS' currentQueryId
        self.tx_started: Optional[float] = None       # time.time() when the current transaction began
        self.closed = False
        self._parse_cancelled = False
        # True when the caller clears cancellation itself (clear_cancel, before each request): a
        # cancel() that comes before the statement has set up its context then still stops it.
        self.external_cancel = False
        self.principal: Optional[str] = None   # the logged-in user (server); None = may run anything
        # SHOW TRANSACTIONS / TERMINATE TRANSACTIONS: the current transaction's id (each auto-commit
        # statement and each BEGIN gets a new one) and its metadata (BEGIN's or RUN's, tx.setMetaData).
        self.tx_id: Optional[str] = None
        self.tx_metadata: dict = {}
        # READ access mode: statements that write are refused (AccessModeError). Set by whoever starts the
        # transaction (the server from BEGIN's or an auto-commit RUN's mode, execute_read embedded).
        self.read_access = False
        # Bound by whoever opened the session (embedded connect, the server at LOGON), never by a query.
        self.scope: dict = {}
        self.ai_budget: Optional[dict] = None

    def _running(self, query: str) -> None:
        """``query`` starts: SHOW TRANSACTIONS lists it from now on."""
        self.running_query, self.running_since = query, time.monotonic()
        self.query_id = f"query-{next(_QUERY_IDS)}"

    # ------------------------------------------------------------ transactions
    @property
    def in_transaction(self) -> bool:
        return self._explicit is not None

    def begin(self, read_only: bool = False) -> None:
        """Open an explicit transaction: a snapshot; the writer lock is taken at its first write.
        ``read_only``: a READ transaction, whose writing statements are refused (AccessModeError)."""
        self._check_open()
        if self._explicit is not None:
            raise TransactionError("a transaction is already open in this session")
        self._explicit = ExplicitTx(self.db.store)
        self.read_access = read_only
        self.tx_id, self.tx_metadata = _new_tx_id(), {}
        self.tx_started = time.time()

    def commit(self) -> int:
        if self._explicit is None:
            raise TransactionError("no transaction is open")
        explicit, self._explicit = self._explicit, None
        self.read_access, self.tx_metadata = False, {}
        try:
            return explicit.commit()
        finally:
            if explicit.catalog is not None:
                self.db.schema_changed()

    def rollback(self) -> None:
        if self._explicit is None:
            return
        explicit, self._explicit = self._explicit, None
        self.read_access, self.tx_metadata = False, {}
        explicit.rollback()
        if explicit.catalog is not None:      # plans made inside the transaction may name its indexes
            self.db.schema_changed()

    def close(self) -> None:
        if self.closed:
            return
        self.rollback()
        self.closed = True

    def progress(self) -> Optional[dict]:
        """How far the running statement's long work has got (a LOAD CSV's file), or None; any thread."""
        ctx = self._ctx
        if ctx is None:
            return None
        load, position = ctx.load_progress, ctx.load_position
        return None if load is None else load.snapshot(position[1] if position is not None else None)

    def terminate(self) -> None:
        """TERMINATE TRANSACTIONS (from another session): the running statement stops, and an open
        transaction fails for good (its next statement raises Terminated; only rollback clears it)."""
        explicit = self._explicit
        if explicit is not None and explicit.failure is None:
            explicit.failure = Terminated("The transaction has been terminated (TERMINATE TRANSACTIONS)")
        self.cancel()

    def cancel(self) -> None:
        """Stop the running statement (from another thread): it raises Terminated."""
        self._parse_cancelled = True          # a statement still being parsed stops too
        ctx = self._ctx
        if ctx is not None:
            ctx.cancel()

    def clear_cancel(self) -> None:
        """Forget earlier cancellations: a new request starts (call it from the thread that calls cancel(),
        before handing the request to the session's thread): a cancel aimed at a statement that has
        ended must not stop the session's next one (e.g. one waiting for the writer)."""
        self._parse_cancelled = False

    def _watch(self, ctx: ExecContext) -> None:
        """``ctx`` runs the statement from now on; a cancel() that came before it stops it too."""
        self._ctx = ctx
        if self._parse_cancelled:
            ctx.cancel()

    def _begin_write(self, deadline: Optional[float]):
        """The writer lock, waited for in slices so that a cancellation (the client left, RESET) or the
        deadline ends the wait: a statement queued behind a long transaction must not outlive its client."""
        store = self.db.store
        while True:
            try:
                return store.begin_write(timeout=WRITER_WAIT_SLICE_S)
            except TransientError as exc:
                if exc.code != "Neo.TransientError.Transaction.LockAcquisitionTimeout":
                    raise                           # the database closed, not a busy writer
                if self._parse_cancelled:
                    raise Terminated("the statement was terminated while it waited for the writer",
                                     phase="runtime") from None
                if deadline is not None and time.monotonic() > deadline:
                    raise QueryTimeout("the statement ran past its timeout while it waited for the writer",
                                       phase="runtime") from None

    def _parse_check(self, deadline: Optional[float]):
        def check() -> None:
            if self._parse_cancelled:
                raise Terminated("the statement was terminated while it was parsed", phase="compile time")
            if deadline is not None and time.monotonic() > deadline:
                raise QueryTimeout("the statement ran past its timeout while it was parsed",
                                   phase="compile time")
        return check

    def _check_open(self) -> None:
        if self.closed:
            raise TransactionError("the session is closed")

    # ------------------------------------------------------------ statements
    def run(self, query: str, params: Optional[dict] = None, *, timeout: Optional[float] = None) -> EngineResult:
        self._check_open()
        params = params if params is not None else {}
        started = time.perf_counter()
        db = self.db
        explicit = self._explicit
        if explicit is not None:
            explicit.require_usable()
        else:
            self.tx_id, self.tx_started = _new_tx_id(), time.time()
        if not self.external_cancel:
            self._parse_cancelled = False
        prepared = db.plan_cache.get(query)
        if prepared is None:            # only a statement that must be parsed pays for the guards
            check_statement_size(query, db.max_statement_bytes)
            limit = timeout if timeout is not None else db.query_timeout
            with guarded_parse(self._parse_check(time.monotonic() + limit if limit else None)):
                prepared = db.prepare_uncached(query, explicit.tx if explicit is not None else None)
        if self.principal is not None:
            privileges.check(self.principal, db.users.entry_now(self.principal), prepared)
        if self.read_access and privileges.writes(prepared, db.procedures):
            raise AccessModeError("Writing in read access mode not allowed: this statement writes, and it was "
                                  "sent in a READ transaction (execute_read, access mode READ)")
        missing = [p for p in prepared.parameters if p not in params]
        if missing and prepared.statement.mode != "EXPLAIN":
            raise ParameterMissing(f"Expected parameter(s): {', '.join(sorted(missing))}",
                                   detail="MissingParameter", phase="runtime")
        timeout = timeout if timeout is not None else db.query_timeout
        deadline = time.monotonic() + timeout if timeout else None
        statement = prepared.statement
        if prepared.is_command:
            token = privileges.current_user.set(self.principal)
            self._running(query)     # SHOW TRANSACTIONS lists it
            try:
                return self._run_command(prepared, params, started)
            finally:
                self.running_query = None
                privileges.current_user.reset(token)
        plan = prepared.plan
        if statement.mode == "EXPLAIN":
            summary = Summary(query_type=_query_type(plan),      # the explained statement's, as Neo4j reports it
                              notifications=self._notes(prepared))
            estimates = explicit.tx if explicit is not None else db.store.begin_read()
            try:
                summary.plan = PrintablePlan(describe_plan(plan.root, estimates))
                from .relevance.pricing import price_plan
                price_plan(plan.root, summary.plan, estimates, self, params, statement.body)
            finally:
                if explicit is None:
                    estimates.close()
            return EngineResult(plan.columns, iter(()), summary=summary, started=started, materialized=True)
        if plan.batched and explicit is not None:
            raise DatabaseError("A query with 'CALL { ... } IN TRANSACTIONS' can only be executed in an implicit "
                                "transaction, but tried to execute in an explicit transaction.",
                                code="Neo.DatabaseError.Transaction.TransactionStartFailed")
        if statement.mode == "PROFILE":
            plan = db._plan(statement.body, explicit.tx if explicit is not None else None, profile=True)
        notes = self._notes(prepared)
        if not plan.updating and explicit is None and statement.mode != "PROFILE":
            return self._stream_read(plan, params, deadline, started, query, notes)
        return self._run_eagerly(plan, params, deadline, started, query, notes,
                                 profile=statement.mode == "PROFILE")

    def _notes(self, prepared: Prepared) -> list[dict]:
        """Neo4j's notifications for this run: unknown labels, types and keys read, cartesian products."""
        refs = prepared.references
        if refs is None:
            refs = prepared.references = notifications.references(prepared.statement)
        if not refs.names and not refs.cartesian:
            return []
        explicit = self._explicit
        return notifications.for_run(refs, self.db.store, prepared.statement.text, self._relevance_names,
                                     explicit.tx if explicit is not None else None)

    def _relevance_names(self) -> dict[str, set[str]]:
        """The names relevance joins make real when read (their edges are virtual, anchors may be pinned)."""
        from .relevance import catalog as relevance_catalog
        reader = self.db.store.begin_read()
        try:
            rc = relevance_catalog.of(reader)
            joins = rc.joins.values()
        finally:
            reader.close()
        if not joins:
            return {}
        # a join whose hits are records (a remote store, files) makes its target label real, and the
        # keys its query-time nodes are known to carry
        records = [j for j in joins if j.records]
        keys = set(notifications.RELEVANCE_EDGE_KEYS) | {j.anchor_property for j in joins}
        keys |= {key for j in records for key in (j.record_key, j.target_key)}
        if any(j.kind == "files" for j in records):
            keys |= notifications.FILES_NODE_KEYS
        return {"type": {j.rel_type for j in joins},
                "label": {label for j in joins for label in j.anchor_labels}
                | {label for j in records for label in (j.target_label, *rc.ancestors(j.target_label))},
                "key": keys}

    def _stream_read(self, plan: Plan, params, deadline, started, query, notes: list) -> EngineResult:
        """Auto-commit read: rows stream lazily from a snapshot that closes when they run out."""
        tx = self.db.store.begin_read()
        ctx = ExecContext(tx, params, self.db, deadline=deadline, scope=self.scope, budget=self.ai_budget)
        ctx.notifications.extend(notes)
        ctx.session = self
        ctx.principal = self.principal
        try:
            _check_relevance_budget(plan, ctx)
        except BaseException:
            tx.close()
            raise
        self._watch(ctx)
        self._running(query)
        summary = Summary(counters=ctx.counters, query_type="r", costs=ctx.costs, calls=ctx.costs.log,
                          notifications=ctx.notifications)

        def done():
            tx.close()
            if self._ctx is ctx:
                self._ctx = self.running_query = None
        return EngineResult(plan.columns, plan.root.rows(ctx, {}), tx=tx, summary=summary, started=started,
                            on_done=done)

    def _run_eagerly(self, plan: Plan, params, deadline, started, query, notes: list, profile: bool) -> EngineResult:
        """Writes (and anything inside an explicit transaction): run to the end, check, then stream."""
        explicit = self._explicit
        store = self.db.store
        begin_write = lambda: self._begin_write(deadline)     # noqa: E731
        if explicit is not None:
            tx = explicit.writer(begin_write) if plan.updating else explicit.reader()
            savepoint = tx.savepoint() if explicit.writing else None
        else:
            tx = begin_write() if plan.updating else store.begin_read()
            savepoint = None
        ctx = ExecContext(tx, params, self.db, deadline=deadline, scope=self.scope, budget=self.ai_budget)
        ctx.notifications.extend(notes)
        ctx.session = self
        ctx.principal = self.principal
        if plan.updating and explicit is None:      # CALL { ... } IN TRANSACTIONS, apoc.periodic.*
            ctx.commit_batch = lambda: self._commit_batch(ctx)
            ctx.check_batch = lambda: self._check_batch(ctx)
        self._watch(ctx)
        self._running(query)
        try:
            try:
                _check_relevance_budget(plan, ctx)
                rows = [materialize_row(row, tx) for row in plan.root.rows(ctx, {})]
            except RecursionError:
                raise too_complex("runtime") from None
            self._finish_statement(ctx)
            if explicit is not None:
                pass
            elif plan.updating:
                tx.commit()
            else:
                tx.close()
        except BaseException:
            if explicit is not None:
                if savepoint is not None:
                    tx.rollback_to(savepoint)
            elif plan.updating:
                tx.rollback()
            else:
                tx.close()
            raise
        finally:
            self._ctx, self.running_query = None, None
        summary = Summary(counters=ctx.counters, query_type=_query_type(plan), costs=ctx.costs, calls=ctx.costs.log,
                          notifications=ctx.notifications)
        if profile:
            estimates = self.db.store.begin_read()     # estimates from the counts the statement left
            try:
                summary.plan = PrintablePlan(describe_plan(plan.root, estimates, profiled=True))
            finally:
                estimates.close()
        return EngineResult(plan.columns, iter(rows), summary=summary, started=started, materialized=True)

    def _commit_batch(self, ctx: ExecContext) -> None:
        """CALL { ... } IN TRANSACTIONS: check and commit the batch, then go on in the same writer."""
        self._finish_statement(ctx)
        ctx.tx.commit_and_continue()
        ctx.pending_deletes.clear()
        ctx.touched_nodes.clear()
        ctx.touched_rels.clear()
        ctx.writes = False

    def _check_batch(self, ctx: ExecContext) -> None:
        """A batch's commit checks, without committing (a failure leaves the batch to roll back)."""
        self._finish_statement(ctx)
        ctx.tx.check_detached()

    def _finish_statement(self, ctx: ExecContext) -> None:
        if ctx.pending_deletes:
            check_deletes(ctx)
        if ctx.writes:
            catalog = (self._explicit.catalog if self._explicit is not None else None) or self.db.catalog()
            if catalog.has_constraints:
                check_statement(ctx, catalog)

    def _run_command(self, prepared: Prepared, params, started) -> EngineResult:
        command = prepared.statement.body
        db = self.db
        if isinstance(command, ast.ShowCommand):
            return self._run_show(command, params, started)
        if isinstance(command, ast.CopyFrom):
            return self._copy(command, params)
        if isinstance(command, ast.Extension):      # nothing to write: checked, no transaction taken
            tables.extension(db, None, command, params, None)
            return EngineResult([], iter(()), summary=Summary(query_type="s"), started=started, materialized=True)
        if isinstance(command, ast.DropTable):      # Kuzu drops a table's data with it: the data first
            if self._explicit is None:              # both in one transaction: all of it happens or none
                self.begin()
                try:
                    result = self._run_command(prepared, params, started)
                    self.commit()
                except BaseException:
                    self.rollback()
                    raise
                return result
            deleting = tables.drop_data(self._explicit.reader(), command)
            if deleting is not None:
                self.run(deleting).consume()
        if isinstance(command, ast.TerminateTransactions):
            ids = terminate_ids(command, params)
            rows = db.terminate_transactions(ids, self.principal)
            columns = ["transactionId", "username", "message"]
            return EngineResult(columns, iter([tuple(row[c] for c in columns) for row in rows]),
                                summary=Summary(query_type="s"), started=started, materialized=True)
        explicit = self._explicit
        tx = explicit.writer() if explicit is not None else db.store.begin_write()
        savepoint = tx.savepoint() if explicit is not None else None
        try:
            catalog = Catalog.from_schema(tx.schema())
            result = run_command(db, tx, command, params, catalog)
            if explicit is None:
                tx.commit()
        except BaseException:
            if explicit is not None:
                tx.rollback_to(savepoint)
            else:
                tx.rollback()
            raise
        if result.schema_changed:
            if explicit is not None:
                explicit.catalog = Catalog.from_schema(tx.schema())
            db.schema_changed()
        summary = Summary(counters=result.counters, notifications=result.notifications, query_type="s")
        return EngineResult([], iter(()), summary=summary, started=started, materialized=True)

    def _copy(self, command: ast.CopyFrom, params) -> EngineResult:
        """Kuzu's COPY table FROM 'file': the LOAD CSV statement it amounts to, in one transaction."""
        from .query.schema.commands import _evaluate
        source = _evaluate(command.source, params)
        options = {name: _evaluate(expr, params) for name, expr in command.options.items()}
        delimiter = options.get("delim", options.get("delimiter", ","))
        if not isinstance(source, str) or not isinstance(delimiter, str) or len(delimiter) != 1:
            raise CypherTypeError("COPY takes a file path (a string) and a one-character delim",
                                  detail="InvalidArgumentType", phase="runtime")
        reader = self._explicit.reader() if self._explicit is not None else self.db.store.begin_read()
        try:
            text = tables.copy_statement(reader, command, options, source)
        finally:
            if self._explicit is None:
                reader.close()
        return self.run(text, {" copy url": source})

    def _run_show(self, command: ast.ShowCommand, params, started) -> EngineResult:
        db = self.db
        explicit = self._explicit
        tx = explicit.reader() if explicit is not None else db.store.begin_read()
        try:
            catalog = (explicit.catalog if explicit is not None else None) or Catalog.from_schema(tx.schema())
            result = run_command(db, tx, command, params, catalog)
            plan = plan_query(result.show_query, tx, db.procedures)
            ctx = ExecContext(tx, {**params, " rows": result.rows}, db)
            rows = [materialize_row(row, tx) for row in plan.root.rows(ctx, {})]
        finally:
            if explicit is None:
                tx.close()
        return EngineResult(plan.columns, iter(rows), summary=Summary(query_type="r"), started=started,
                            materialized=True)


# ---------------------------------------------------------------- helpers
def _tune_gc() -> None:
    """Collect cycles less often: the graph lives in millions of Python objects, and CPython's default
    thresholds make the collector walk them all again and again while a large result or load grows
    (measured: a 200k-relationship load 15.9 s -> 8.2 s, returning 400k rows 11.1 s -> 5.9 s).
    Thresholds someone already changed are left alone."""
    if gc.get_threshold() == (700, 10, 10):
        gc.set_threshold(50_000, 20, 100)


def _function_known(name: str) -> bool:
    from .query.exec import functions
    from .query.exec.functions.aggregates import is_aggregate
    return functions.lookup(name) is not None or is_aggregate(name)


def _parameters(statement: ast.Statement) -> frozenset:
    """Every $name the statement mentions (checked before it runs, as Neo4j does)."""
    import dataclasses
    names: set[str] = set()

    def visit(node):
        if isinstance(node, ast.Parameter):
            names.add(node.name)
            return
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            for f in dataclasses.fields(node):
                visit(getattr(node, f.name))
        elif isinstance(node, (list, tuple)):
            for item in node:
                visit(item)
    visit(statement.body)
    return frozenset(names)


def _add_excerpt(exc: RelateError, text: str) -> None:
    """Give a compile-time error the offending line and a caret under its column."""
    if exc.excerpt or not exc.line:
        return
    lines = text.splitlines()
    if 0 < exc.line <= len(lines):
        column = max(exc.column or 1, 1)
        exc.excerpt = f"{lines[exc.line - 1]}\n{' ' * (column - 1)}^"


def _open_index_manager(store, directory, procedures, fulltext_engine: str) -> IndexManager:
    """The vector and full-text index manager, with the search procedures registered."""
    manager = IndexManager(store, os.path.join(directory, "search") if directory else None,
                           default_fulltext_engine=fulltext_engine)
    index_procedures.register(procedures)
    return manager


def _describe_search_index(index) -> dict:
    """What semantic analysis needs of a search index: kind, entity and filterable properties."""
    definition = index.definition
    return {"kind": definition.type.upper(), "entity": definition.entity,
            "filter_properties": list(definition.filter_properties)}


def _quiet_embedded_logs() -> None:
    """Embedded in an application, the engine logs only warnings, to stderr, unless structlog was
    configured already (the server configures it before opening the database)."""
    import logging
    import sys

    import structlog
    if not structlog.is_configured():
        structlog.configure(
            processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                        structlog.dev.ConsoleRenderer(colors=False)],
            wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
            logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        )
