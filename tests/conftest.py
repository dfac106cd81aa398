"""Fixtures shared by every test folder: an in-memory engine, one session on it, an embedded connection.

A file that needs data seeds it by overriding ``db`` on top of this one (``def db(db): ...``).
Row helpers live in ``tests/helpers.py``.
"""
from __future__ import annotations

import pytest

import relate
from relate.server.engine import Database


@pytest.fixture
def db():
    """An empty in-memory engine ``Database``, closed after the test."""
    database = Database.open(None)
    yield database
    database.close()


@pytest.fixture
def session(db):
    """One engine session on ``db``."""
    return db.session()


@pytest.fixture
def conn():
    """An embedded in-memory connection through the public API (``relate.connect(":memory:")``)."""
    with relate.connect(":memory:") as connection:
        yield connection
