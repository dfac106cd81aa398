# DO NOT EDIT: generated from client/driver/_async/managed.py by client/driver/unasync.py
"""Managed transactions: run a unit of work in a transaction, retrying it on retryable errors
(TransientError: lost connection, deadlock, ...) with exponential backoff and jitter."""
from __future__ import annotations

import random
import time

from relate.errors import RelateError

from ..transport import sleep

DEFAULT_MAX_RETRY_TIME = 30.0


def run_managed(connection, work, args, kwargs, *, max_retry_time: float = DEFAULT_MAX_RETRY_TIME,
                      read_only: bool = False):
    """``work(tx, *args, **kwargs)`` inside a transaction on ``connection``; committed if it returns.
    ``read_only``: a READ transaction (execute_read), in which a writing statement is refused."""
    deadline = time.monotonic() + max_retry_time
    delay = 0.05
    while True:
        try:
            tx = connection.begin(read_only=read_only)
            try:
                value = work(tx, *args, **kwargs)
            except BaseException:
                _rollback_quietly(tx)
                raise
            tx.commit()
            return value
        except RelateError as error:
            if not error.retryable or time.monotonic() + delay > deadline:
                raise
        sleep(delay * random.uniform(0.8, 1.2))
        delay = min(delay * 2, 2.0)


def _rollback_quietly(tx) -> None:
    try:
        tx.rollback()
    except RelateError:
        pass
