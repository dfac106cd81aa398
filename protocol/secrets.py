"""Statements that carry passwords (``CREATE USER ... SET PASSWORD '...'``, ``ALTER CURRENT USER SET
PASSWORD FROM '...' TO '...'``) must never reach a log, a history file or SHOW TRANSACTIONS as typed:
``redact`` masks every string literal of such a statement."""
from __future__ import annotations

import re

_MENTIONS_PASSWORD = re.compile(r"\bpassword\b", re.IGNORECASE)
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?", re.DOTALL)
MASK = "'******'"


def carries_password(text: str) -> bool:
    """True when ``text`` may hold a password (it mentions PASSWORD)."""
    return bool(_MENTIONS_PASSWORD.search(text))


def redact(text: str) -> str:
    """``text`` with every string literal masked when it may hold a password; else unchanged."""
    if not carries_password(text):
        return text
    return _STRING.sub(MASK, text)
