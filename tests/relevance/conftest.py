"""An embedded database holding the acceptance fixture, loaded once per module, and a local fake
OpenAI-compatible server acting as the model."""
from __future__ import annotations

import pytest

import relate
from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig
from relate.server.engine import Database

from tests.ai.fake_openai import FakeOpenAI

from . import checks, fixture


class Embedded:
    """Sessions on one embedded database, each bound to a scope as connect(..., scope=) binds it."""

    def __init__(self):
        self.db = Database.open(None)
        self.admin = self.connect({})
        fixture.load(lambda q, **p: self.admin.execute(q, p).consume())

    def connect(self, scope, budget=None) -> relate.Connection:
        session = self.db.session()
        session.scope, session.ai_budget = dict(scope), budget
        return relate.Connection(session)

    def runner(self, scope=fixture.ALICE, budget=None):
        conn = self.connect(scope, budget)

        def run(query, **params):
            result = conn.execute(query, params)
            rows = result.values()
            return rows, result.summary
        return run


@pytest.fixture(scope="module")
def model():
    with FakeOpenAI(chat=checks.judge) as fake:
        yield fake


@pytest.fixture(scope="module")
def graph(model):
    g = Embedded()
    g.db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=model.base_url, api_key="sk-test"))
    yield g
    g.db.close()
