"""The server's GIL switch interval follows how many statements run on session threads: short while at
most one does (the event loop gets the GIL back fast beside a CPU-bound statement), longer while several
compete (they do not tax each other with switches)."""
import asyncio
import sys
import threading

import pytest

from relate.server.session.worker import SessionWorker, SwitchIntervalPolicy


def test_the_interval_is_short_up_to_one_busy_worker_and_long_beyond():
    saved = sys.getswitchinterval()
    policy = SwitchIntervalPolicy()
    try:
        policy.enable(0.0001, 0.0005)
        assert sys.getswitchinterval() == pytest.approx(0.0001)
        policy.started()
        assert sys.getswitchinterval() == pytest.approx(0.0001)      # one statement on a session thread
        policy.started()
        assert sys.getswitchinterval() == pytest.approx(0.0005)      # two compete: the longer interval
        policy.started()
        policy.finished()
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        policy.finished()
        assert sys.getswitchinterval() == pytest.approx(0.0001)
        policy.finished()
        assert sys.getswitchinterval() == pytest.approx(0.0001)
    finally:
        sys.setswitchinterval(saved)


def test_a_disabled_policy_leaves_the_interval_alone_and_workers_count_their_calls():
    saved = sys.getswitchinterval()
    from relate.server.session import worker as module
    seen = []

    async def main():
        one, two = SessionWorker("t1"), SessionWorker("t2")
        try:
            busy = lambda: seen.append(module.SWITCH_POLICY._busy) or 1     # noqa: E731
            assert await one.call(busy) == 1
            both = threading.Barrier(2, timeout=10)      # both calls in flight before either counts
            together = lambda: both.wait() is not None and busy()           # noqa: E731
            await asyncio.gather(one.call(together), two.call(together))
        finally:
            one.close()
            two.close()
    asyncio.run(main())
    assert seen[0] == 1 and max(seen) == 2 and module.SWITCH_POLICY._busy == 0
    assert sys.getswitchinterval() == saved
