"""EngineResult: the rows of one statement, streamed lazily or from a buffer, with the summary at the end."""
from __future__ import annotations

import time
from typing import Callable, Iterator, Optional

from relate.protocol.summary import Summary

from ..limits import too_complex
from ..materialize import materialize_row


class EngineResult:
    """``columns``, ``fetch(n)`` (user values; [] when exhausted), ``consume()``, ``summary``, ``close()``.

    ``rows`` yields engine tuples, materialized through ``tx`` as they are fetched; ``on_done``
    releases what the statement holds (a read snapshot) once the rows are exhausted or closed.
    """

    def __init__(self, columns: list[str], rows: Iterator[tuple], *, tx=None, summary: Summary,
                 started: float, on_done: Optional[Callable[[], None]] = None, materialized: bool = False,
                 on_error: Optional[Callable[[BaseException], None]] = None):
        self.columns = columns
        self._rows = rows
        self._tx = tx
        self._pending_summary = summary
        self._started = started
        self._on_done = on_done
        self._on_error = on_error
        self._materialized = materialized
        self._first = True
        self.summary: Optional[Summary] = None

    def fetch(self, n: int) -> list[tuple]:
        if self._rows is None:
            return []
        out = []
        rows, tx = self._rows, self._tx
        try:
            if self._materialized:
                for row in rows:
                    out.append(row)
                    if len(out) >= n:
                        break
            else:
                for row in rows:
                    out.append(materialize_row(row, tx))
                    if len(out) >= n:
                        break
        except RecursionError:
            error = too_complex("runtime")
            self._finish(error=error)
            raise error from None
        except BaseException as exc:
            self._finish(error=exc)
            raise
        if self._first and out:
            self._first = False
            self._pending_summary.t_first_ms = (time.perf_counter() - self._started) * 1000
        if len(out) < n:
            self._finish()
        return out

    def consume(self) -> Summary:
        while self._rows is not None:
            self.fetch(1000)
        return self.summary

    def close(self) -> None:
        if self._rows is not None:
            close = getattr(self._rows, "close", None)
            if close is not None:
                close()
            self._finish()

    def _finish(self, error: BaseException | None = None) -> None:
        if self._rows is None:
            return
        self._rows = None
        summary = self._pending_summary
        now = (time.perf_counter() - self._started) * 1000
        if self._first:
            summary.t_first_ms = now
        summary.t_last_ms = now
        if error is None:
            self.summary = summary
        try:
            if error is not None and self._on_error is not None:
                self._on_error(error)
        finally:
            if self._on_done is not None:
                self._on_done()
                self._on_done = None
