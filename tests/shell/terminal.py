"""A scripted terminal for driving the shell like a person: a pty (pexpect) whose output is rendered
by a VT100 emulator (pyte), so tests read the screen a person would see rather than escape codes."""
from __future__ import annotations

import re
import time

import pexpect
import pyte


class _AnsweringScreen(pyte.Screen):
    """A screen that answers the terminal's cursor-position requests, as a real terminal does."""

    def __init__(self, columns: int, lines: int, reply):
        super().__init__(columns, lines)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        self._reply(data)


class Terminal:
    """``Terminal(argv)`` starts the program; ``type()`` sends keys; ``wait_for()`` reads the screen."""

    def __init__(self, argv: list[str], *, env: dict[str, str], columns: int = 100, lines: int = 300,
                 cwd: str | None = None, answer_cpr: bool = True, preexec_fn=None):
        """``answer_cpr=False``: a terminal that never answers cursor-position requests;
        ``preexec_fn`` runs in the child before the program starts (e.g. to ignore SIGINT)."""
        self.child = pexpect.spawn(argv[0], argv[1:], env={"TERM": "xterm-256color", **env}, cwd=cwd,
                                   encoding="utf-8", codec_errors="replace", dimensions=(lines, columns),
                                   preexec_fn=preexec_fn)
        self.screen = _AnsweringScreen(columns, lines, self.child.send if answer_cpr else lambda data: None)
        self.stream = pyte.Stream(self.screen)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip()

    def count(self, needle: str) -> int:
        return self.text.count(needle)

    def _pump(self, timeout: float) -> bool:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.stream.feed(data)
        return True

    def wait_for(self, pattern: str, *, count: int = 1, timeout: float = 30.0) -> str:
        """Wait until ``pattern`` (a regex) shows ``count`` times on the screen; returns the screen."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            if len(regex.findall(self.text)) >= count:
                return self.text
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} x{count} not on screen after {timeout}s:\n{self.text}")
            if not self._pump(0.1) and len(regex.findall(self.text)) < count:
                raise AssertionError(f"program ended before {pattern!r} x{count} showed:\n{self.text}")

    def type(self, keys: str) -> None:
        self.child.send(keys)

    def wait_exit(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while self._pump(0.1):
            if time.monotonic() > deadline:
                raise AssertionError(f"program did not exit:\n{self.text}")
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
