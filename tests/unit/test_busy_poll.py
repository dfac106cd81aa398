"""Adaptive busy polling: the server's event loop keeps polling for a short window after a reply (a
fast client's next request is read without waking a halted CPU), the blocking driver polls for its
reply the same way; both windows halve when they run out and come back when traffic is fast again."""
import asyncio
import socket
import ssl
import subprocess
import sys
import time

import pytest

from relate.driver import transport as transport_module
from relate.driver.transport import Address, Transport, busy_poll_seconds
from relate.server.config import load_config
from relate.server.net.busy_poll import MIN_WINDOW_S, BusyPoll
from relate.server.session.worker import SwitchIntervalPolicy


def run(coro):
    return asyncio.run(coro)


# ---- the server's loop ---------------------------------------------------------------------------

def test_disabled_by_default_nothing_polls():
    poll = BusyPoll(SwitchIntervalPolicy())

    async def main():
        poll.replied()
        assert not poll.polling
        poll.received()
        assert poll.window_s == 0
    run(main())


def test_a_window_that_runs_out_halves_and_a_request_keeps_it():
    poll = BusyPoll(SwitchIntervalPolicy())
    poll.enable(1000)

    async def main():
        poll.replied()
        assert poll.polling
        await asyncio.sleep(0.01)              # no request: the window runs out
        assert not poll.polling and poll.window_s == pytest.approx(0.0005)
        poll.replied()
        await asyncio.sleep(0)
        poll.received()                        # a request while polling: the window stays
        await asyncio.sleep(0.002)
        assert not poll.polling and poll.window_s == pytest.approx(0.0005)
    run(main())


def test_the_loop_keeps_serving_other_callbacks_while_it_polls():
    poll = BusyPoll(SwitchIntervalPolicy())
    poll.enable(20_000)
    ran = []

    async def main():
        poll.replied()
        loop = asyncio.get_running_loop()
        loop.call_later(0.002, ran.append, "timer")
        await asyncio.sleep(0.005)
        assert ran == ["timer"] and poll.polling
        poll.received()
        await asyncio.sleep(0.001)
        assert not poll.polling
    run(main())


def test_a_slow_client_turns_polling_off_and_a_fast_one_turns_it_back_on():
    poll = BusyPoll(SwitchIntervalPolicy())
    poll.enable(200)

    async def main():
        for _ in range(8):                     # every window runs out: 200, 100, 50, 25, 12.5 us ...
            poll.replied()
            await asyncio.sleep(0.002)
        assert poll.window_s < MIN_WINDOW_S
        poll.replied()
        assert not poll.polling                # off
        poll.received()                        # ... but this request came within 200 us of the reply
        assert poll.window_s == pytest.approx(0.0002)
        poll.replied()
        assert poll.polling
        poll.received()
        await asyncio.sleep(0.001)
    run(main())


def test_no_polling_while_a_statement_runs_on_a_session_thread():
    policy = SwitchIntervalPolicy()
    poll = BusyPoll(policy)
    poll.enable(50_000)

    async def main():
        policy.started()
        poll.replied()
        assert not poll.polling                # that thread needs the GIL
        policy.finished()
        poll.replied()
        assert poll.polling
        policy.started()                       # one starts meanwhile: polling stops at once
        await asyncio.sleep(0.001)
        assert not poll.polling
        policy.finished()
    run(main())


def test_the_setting_has_a_flag_an_environment_variable_and_a_default():
    assert load_config([]).busy_poll_us == 500
    assert load_config(["--busy-poll-us", "0"]).busy_poll_us == 0
    assert load_config([], environ={"RELATE_BUSY_POLL_US": "150"}).busy_poll_us == 150


# ---- the blocking driver -------------------------------------------------------------------------

@pytest.fixture
def pair(monkeypatch):
    monkeypatch.setattr(transport_module.threading, "active_count", lambda: 1)
    ours, theirs = socket.socketpair()
    yield ours, theirs
    ours.close()
    theirs.close()


def test_a_reply_that_is_there_comes_back_and_keeps_the_window(pair):
    ours, theirs = pair
    transport = Transport(ours, 0.002)
    theirs.sendall(b"reply")
    assert transport.recv() == b"reply"
    assert transport._poll == pytest.approx(0.002)


def test_a_late_reply_is_waited_for_in_the_kernel_and_halves_the_window(monkeypatch, pair):
    ours, theirs = pair
    transport = Transport(ours, 0.002)
    # every polling microsecond counted as this thread's CPU: a busy test machine is not contention here
    monkeypatch.setattr(time, "thread_time", time.perf_counter)
    writer = subprocess.Popen([sys.executable, "-c", "import os, socket, sys, time; time.sleep(0.05); "
                               "socket.socket(fileno=int(sys.argv[1])).sendall(b'late')", str(theirs.fileno())],
                              pass_fds=[theirs.fileno()])
    try:
        started = time.perf_counter()
        assert transport.recv() == b"late"
        assert time.perf_counter() - started >= 0.04
        assert transport._poll == pytest.approx(0.001)
    finally:
        writer.wait(10)


def test_a_fast_reply_after_polling_stopped_turns_it_back_on(pair):
    ours, theirs = pair
    transport = Transport(ours, 0.002)
    transport._poll = MIN_WINDOW_S / 2         # halved to nothing by slow replies
    theirs.sendall(b"fast")
    assert transport.recv() == b"fast"
    assert transport._poll == pytest.approx(0.002)


def test_no_polling_beside_another_thread(monkeypatch, pair):
    ours, theirs = pair
    monkeypatch.setattr(transport_module.threading, "active_count", lambda: 2)
    transport = Transport(ours, 0.002)
    monkeypatch.setattr(transport, "_sock", _NoFlags(ours))
    theirs.sendall(b"x")
    assert transport.recv() == b"x"


class _NoFlags:
    """A socket that refuses non-blocking reads (the polling path)."""

    def __init__(self, sock):
        self._sock = sock

    def recv_into(self, buffer, nbytes=0, flags=0):
        if flags:
            raise AssertionError("polled with another thread alive")
        return self._sock.recv_into(buffer)


def test_tls_sockets_never_poll():
    context = ssl.create_default_context()
    ours, theirs = socket.socketpair()
    try:
        wrapped = context.wrap_socket(ours, do_handshake_on_connect=False, server_hostname="x")
        assert Transport(wrapped, 0.002)._poll_max == 0
    finally:
        ours.close()
        theirs.close()


def test_the_window_comes_from_the_url_the_environment_or_the_default(monkeypatch):
    monkeypatch.delenv("RELATE_DRIVER_BUSY_POLL_US", raising=False)
    assert busy_poll_seconds(Address("relate://h:1")) == pytest.approx(0.002)
    assert busy_poll_seconds(Address("relate://h:1?busy_poll_us=0")) == 0
    monkeypatch.setenv("RELATE_DRIVER_BUSY_POLL_US", "300")
    assert busy_poll_seconds(Address("relate://h:1")) == pytest.approx(0.0003)
    assert busy_poll_seconds(Address("relate://h:1?busy_poll_us=50")) == pytest.approx(0.00005)
    with pytest.raises(ValueError, match="busy_poll_us"):
        busy_poll_seconds(Address("relate://h:1?busy_poll_us=soon"))


def test_the_driver_stops_polling_for_a_while_when_others_want_its_cpu(monkeypatch, pair):
    ours, theirs = pair
    transport = Transport(ours, 0.05)
    monkeypatch.setattr(time, "thread_time", lambda: 0.0)
    writer = subprocess.Popen([sys.executable, "-c", "import socket, sys, time; time.sleep(0.2); "
                               "socket.socket(fileno=int(sys.argv[1])).sendall(b'late')", str(theirs.fileno())],
                              pass_fds=[theirs.fileno()])
    try:
        assert transport.recv() == b"late"
        assert transport._poll == 0 and transport._resume_at > 0     # backed off, not halved
    finally:
        writer.wait(10)
