"""Generate the blocking driver (``_sync/``) from the asyncio source (``_async/``).

``python -m relate.driver.unasync`` rewrites ``_sync/``; ``--check`` exits 1 when it is stale, which
a test runs so the two cannot drift. The rewrite is token-level: drop ``async``/``await``, rename
``Async*`` names and ``async_*`` helpers, and map the async dunders to their sync twins.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE, TARGET = HERE / "_async", HERE / "_sync"
HEADER = "# DO NOT EDIT: generated from client/driver/_async/{name} by client/driver/unasync.py\n"

SYNC_PACKAGE_DOC = '"""The blocking driver, generated from ``../_async`` by ``../unasync.py``."""\n'

_RULES = [
    (re.compile(r"\basync def\b"), "def"),
    (re.compile(r"\basync (for|with)\b"), r"\1"),
    (re.compile(r"\bawait "), ""),
    (re.compile(r"\b__aenter__\b"), "__enter__"),
    (re.compile(r"\b__aexit__\b"), "__exit__"),
    (re.compile(r"\b__aiter__\b"), "__iter__"),
    (re.compile(r"\b__anext__\b"), "__next__"),
    (re.compile(r"\bStopAsyncIteration\b"), "StopIteration"),
    (re.compile(r"\bAsync([A-Z]\w*)"), r"\1"),
    (re.compile(r"\basync_(\w+)"), r"\1"),
    (re.compile(r"the asyncio source"), "the blocking source"),
]


def convert(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def generated() -> dict[str, str]:
    """File name -> the text ``_sync/`` should hold."""
    out = {}
    for path in sorted(SOURCE.glob("*.py")):
        body = SYNC_PACKAGE_DOC if path.name == "__init__.py" else convert(path.read_text())
        out[path.name] = HEADER.format(name=path.name) + body
    return out


def stale() -> list[str]:
    """Names of ``_sync/`` files that differ from what the ``_async/`` source generates."""
    expected = generated()
    actual = {p.name: p.read_text() for p in TARGET.glob("*.py")} if TARGET.exists() else {}
    return sorted(name for name in set(expected) | set(actual) if expected.get(name) != actual.get(name))


def main(argv: list[str]) -> int:
    if "--check" in argv:
        names = stale()
        if names:
            print("stale generated driver files (run python -m relate.driver.unasync):", ", ".join(names))
            return 1
        return 0
    TARGET.mkdir(exist_ok=True)
    for old in TARGET.glob("*.py"):
        old.unlink()
    for name, text in generated().items():
        (TARGET / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
