"""A scripted stand-in for the engine, so the server's session semantics (cancellation, timeouts,
backpressure, transactions) can be tested with exact control. Started as a real server process by
``python -m tests.server.scripted_engine --listen ...`` (all relate-server flags apply).

Statements: ``RETURN 1``; ``ROWS n`` (n rows of i, i*2, 'x', produced lazily); ``SLEEP s`` (one row after s seconds of
fetching, cancellable);
``ECHO`` (the parameters as one row); ``LOOPWAIT`` (one row; raises MustNotWait when run on the event
loop, as a step that may wait does; ``LOOPWAITS`` returns how many times it did); ``FAIL code`` ; ``SET k v`` / ``GET k`` (a shared map, transactional).
"""
from __future__ import annotations

import asyncio
import sys
import threading
import time

from relate.errors import ClientError, Terminated, TransactionError, error_from_code
from relate.server.inline import ON_LOOP, MustNotWait
from relate.summary import Counters, Summary


class _Store:
    def __init__(self):
        self.schema_entries: dict[str, dict] = {}
        self.last_commit_ts = 0

    def begin_write(self):
        return _SchemaTx(self)

    def begin_read(self):
        return _SchemaTx(self)


class _SchemaTx:
    def __init__(self, store):
        self._store = store
        self._entries = dict(store.schema_entries)

    def schema(self):
        return self._entries

    def put_schema(self, name, definition):
        self._entries[name] = definition

    def drop_schema(self, name):
        self._entries.pop(name, None)

    def commit(self):
        self._store.schema_entries = self._entries

    def rollback(self):
        pass

    def close(self):
        pass


class ScriptedDatabase:
    def __init__(self):
        self.store = _Store()
        self.data: dict[str, str] = {}
        self.lock = threading.Lock()
        self.checkpoints = 0
        self.loop_waits = 0           # LOOPWAIT runs refused on the event loop

    def session(self):
        return ScriptedSession(self)

    def checkpoint(self):
        self.checkpoints += 1
        print("checkpointed", file=sys.stderr, flush=True)

    def close(self):
        pass


class ScriptedResult:
    def __init__(self, columns, rows, session, counters=None):
        self.columns = columns
        self._rows = rows
        self._session = session
        self.summary = None
        self._counters = counters or Counters()

    def fetch(self, n):
        out = []
        for row in self._rows:
            self._session.check()
            out.append(row)
            if len(out) >= n:
                return out
        if self.summary is None:
            self.summary = Summary(counters=self._counters, query_type="r")
        return out

    def consume(self):
        for _ in self._rows:
            pass
        self.summary = self.summary or Summary(counters=self._counters)
        return self.summary

    def close(self):
        self._rows = iter(())


class ScriptedSession:
    def __init__(self, db: ScriptedDatabase):
        self._db = db
        self._tx: dict | None = None
        self._cancelled = threading.Event()

    @property
    def in_transaction(self):
        return self._tx is not None

    def check(self):
        if self._cancelled.is_set():
            self._cancelled.clear()
            raise Terminated("The statement was terminated")

    def cancel(self):
        self._cancelled.set()

    def clear_cancel(self):
        self._cancelled.clear()

    def run(self, query, params):
        self._cancelled.clear()
        word, _, rest = query.partition(" ")
        if query == "RETURN 1":
            return ScriptedResult(["1"], iter([(1,)]), self)
        if word == "ROWS":
            n = int(rest)
            return ScriptedResult(["i", "j", "s"], ((i, i * 2, "x") for i in range(1, n + 1)), self)
        if word == "SLEEP":
            return ScriptedResult(["slept"], self._sleep(float(rest)), self)
        if query == "LOOPWAIT":
            if ON_LOOP.get():
                self._db.loop_waits += 1
                raise MustNotWait("scripted: this statement may wait")
            return ScriptedResult(["ok"], iter([(1,)]), self)
        if query == "LOOPWAITS":
            return ScriptedResult(["n"], iter([(self._db.loop_waits,)]), self)
        if word == "ECHO":
            keys = sorted(params)
            return ScriptedResult(keys, iter([tuple(params[k] for k in keys)]), self)
        if word == "FAIL":
            raise error_from_code(rest, f"scripted failure {rest}", detail="Scripted")
        if word == "SET":
            key, value = rest.split(" ", 1)
            (self._tx if self._tx is not None else self._db.data)[key] = value
            counters = Counters(properties_set=1)
            return ScriptedResult([], iter(()), self, counters)
        if word == "GET":
            view = {**self._db.data, **(self._tx or {})}
            return ScriptedResult(["value"], iter([(view.get(rest),)]), self)
        raise ClientError(f"unknown scripted statement {query!r}", code="Neo.ClientError.Statement.SyntaxError")

    def _sleep(self, seconds):
        """One row after ``seconds``, produced during fetch (as a slow streaming query would)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.check()
            except Terminated:
                print("scripted statement Terminated", file=sys.stderr, flush=True)
                raise
            time.sleep(0.005)
        yield (seconds,)

    def begin(self, read_only: bool = False):
        if self._tx is not None:
            raise TransactionError("a transaction is already open")
        self._tx = {}
        self.read_access = read_only

    def commit(self):
        if self._tx is None:
            raise TransactionError("no transaction is open")
        with self._db.lock:
            self._db.data.update(self._tx)
            self._db.store.last_commit_ts += 1
        self._tx = None
        return self._db.store.last_commit_ts

    def rollback(self):
        self._tx = None

    def close(self):
        self._tx = None


def main(argv=None) -> int:
    from relate.server.__main__ import configure_logging
    from relate.server.app import RelateServer
    from relate.server.config import load_config
    from relate.server.__main__ import SWITCH_INTERVAL_S
    config = load_config(argv)
    configure_logging(config)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    server = RelateServer(config, database=ScriptedDatabase())
    if config.loop == "uvloop":
        import uvloop
        uvloop.run(server.run())
    else:
        asyncio.run(server.run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
