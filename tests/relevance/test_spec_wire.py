"""Spec 001's statements over the wire: a real relate-server process, the fake model on loopback,
users whose scope the server binds at LOGON (context checked against the user's record)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import AuthenticationError

from tests.ai.fake_openai import FakeOpenAI
from tests.server.conftest import AUTH, ServerProcess

from . import checks, fixture


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with FakeOpenAI(chat=checks.judge) as fake:
        server = ServerProcess(tmp_path_factory.mktemp("relevance-wire"),
                               env={"RELATE_AI_BASE_URL": fake.base_url, "RELATE_AI_API_KEY": "sk-wire-secret"})
        try:
            admin = relate.connect(server.url, auth=AUTH)
            fixture.load(lambda q, **p: admin.execute(q, p).consume())
            for user, contexts in (("alice", ["acme", "globex"]), ("bob", ["globex"])):
                admin.execute(f"CREATE USER {user} SET PASSWORD '{user}-password' CHANGE NOT REQUIRED").consume()
                admin.execute("CALL dbms.security.setUserContexts($u, $c)", {"u": user, "c": contexts}).consume()
            admin.close()
            yield server, fake
        finally:
            server.stop()


def runner(conn):
    def run(query, **params):
        result = conn.execute(query, params)
        return result.values(), result.summary
    return run


def test_every_spec_statement_over_the_wire(served):
    server, _ = served
    with relate.connect(server.url, auth=("alice", "alice-password"), context="acme") as conn:
        checks.check_spec_statements(runner(conn))
        rows, _ = runner(conn)("MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO]->(d:Document) "
                               "RETURN c, r, d ORDER BY r.rank LIMIT 1")
        concept, rel, doc = rows[0]
        assert rel.id < 0 and concept.id < 0 and rel.start_id == concept.id and rel.end_id == doc.id
        assert rel.properties["mode"] == "fused" and rel.properties["probes"] == ["vector", "keyword"]
    assert "sk-wire-secret" not in server.log()


def test_the_server_binds_scope_from_the_users_record(served):
    server, _ = served
    with relate.connect(server.url, auth=("bob", "bob-password")) as conn:        # his only context
        rows, _ = runner(conn)(fixture.spec_statements()[0])
        assert {r[0] for r in rows} == {"Ada Lovelace biography draft"}
        # a parameter cannot widen the scope
        rows, _ = runner(conn)("MATCH (t:RelevantEmailThread) WHERE t.userId = $u RETURN t.id", u="alice")
        assert rows == []
    with relate.connect(server.url, auth=("alice", "alice-password"), context="globex") as conn:
        rows, _ = runner(conn)(fixture.spec_statements()[0])
        assert {r[0] for r in rows} == {"Ada Lovelace in another context"}
    with pytest.raises(AuthenticationError):
        relate.connect(server.url, auth=("bob", "bob-password"), context="acme")
    with relate.connect(server.url, auth=("alice", "alice-password")) as conn:    # two contexts: none chosen
        rows, _ = runner(conn)(fixture.spec_statements()[0])
        assert rows == []
