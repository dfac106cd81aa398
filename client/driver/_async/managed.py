"""Managed transactions: run a unit of work in a transaction, retrying it on retryable errors
(TransientError: lost connection, deadlock, ...) with exponential backoff and jitter."""
from __future__ import annotations

import random
import time

from relate.errors import RelateError

from ..transport import async_sleep

DEFAULT_MAX_RETRY_TIME = 30.0


async def run_managed(connection, work, args, kwargs, *, max_retry_time: float = DEFAULT_MAX_RETRY_TIME,
                      read_only: bool = False):
    """``work(tx, *args, **kwargs)`` inside a transaction on ``connection``; committed if it returns.
    ``read_only``: a READ transaction (execute_read), in which a writing statement is refused."""
    deadline = time.monotonic() + max_retry_time
    delay = 0.05
    while True:
        try:
            tx = await connection.begin(read_only=read_only)
            try:
                value = await work(tx, *args, **kwargs)
            except BaseException:
                await _rollback_quietly(tx)
                raise
            await tx.commit()
            return value
        except RelateError as error:
            if not error.retryable or time.monotonic() + delay > deadline:
                raise
        await async_sleep(delay * random.uniform(0.8, 1.2))
        delay = min(delay * 2, 2.0)


async def _rollback_quietly(tx) -> None:
    try:
        await tx.rollback()
    except RelateError:
        pass
