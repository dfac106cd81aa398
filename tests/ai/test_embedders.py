"""Engine embedders: hash-384 identical to the cookbook's, the offline MiniLM model, the
OpenAI-compatible provider (against a local fake server), ai.text.embed and text SEARCH."""
from __future__ import annotations

import numpy as np
import pytest

import relate
from relate.embedders import hash384 as cookbook_hash384
from relate.errors import ArgumentError, RelateError
from relate.server.ai import embedders, providers
from relate.server.ai.hash384 import hash384
from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig, ProviderError

from .fake_openai import FakeOpenAI

TEXTS = ["Customer login goes through Auth0; refresh tokens live in HttpOnly cookies.",
         "Invoice INV-2024-0042 is overdue", "", "a", "Ünïcode and CAPS 42"]


@pytest.fixture
def conn():
    c = relate.connect(":memory:")
    yield c
    c.close()


def test_hash384_is_the_cookbooks():
    for text in TEXTS:
        assert hash384(text) == cookbook_hash384(text)
    assert embedders.get(None).name == "hash-384"
    assert embedders.get("HASH384").embed(["x y"]) == [cookbook_hash384("x y")]


def test_ai_text_embed_defaults_to_hash384(conn):
    rows = conn.execute("RETURN ai.text.embed($t) AS v, genai.vector.encode($t) AS g, "
                        "ai.text.embed(null) AS n", t=TEXTS[0]).values()
    assert rows[0][0] == cookbook_hash384(TEXTS[0]) == rows[0][1]
    assert rows[0][2] is None


def test_unknown_embedder_is_a_typed_error(conn):
    with pytest.raises(ArgumentError, match="Unknown embedder"):
        conn.execute("RETURN ai.text.embed('x', {model: 'nope'})").values()


def test_minilm_runs_offline_and_knows_meaning(conn):
    rows = conn.execute("RETURN ai.text.embed('A man is eating food.', {model: 'all-MiniLM-L6-v2'}) AS a, "
                        "ai.text.embed('A man is eating a piece of bread.', {model: 'minilm'}) AS b, "
                        "ai.text.embed('The girl is carrying a baby.', {model: 'minilm'}) AS c").values()[0]
    a, b, c = (np.asarray(v) for v in rows)
    assert a.shape == (384,) and abs(np.linalg.norm(a) - 1) < 1e-5
    # sentence-transformers' published figure for this pair is 0.7553
    assert abs(float(a @ b) - 0.7553) < 2e-3
    assert float(a @ c) < 0.1


def test_provider_embeddings_and_chat_send_the_key():
    with FakeOpenAI(chat=lambda body: "pong:" + body["messages"][-1]["content"]) as fake:
        p = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url, api_key="sk-secret-123"))
        assert p.embed(["a b", "c"], "m1") == [cookbook_hash384("a b"), cookbook_hash384("c")]
        assert p.chat([{"role": "user", "content": "ping"}]) == "pong:ping"
        headers = fake.requests[0][1]
        assert headers["Authorization"] == "Bearer sk-secret-123"
        assert fake.requests[0][2]["model"] == "m1"
        assert "sk-secret" not in repr(p)


@pytest.mark.parametrize("fail,delay,detail", [(500, 0.0, "HttpError"), (None, 1.0, "Timeout")])
def test_provider_failures_are_typed_and_never_show_the_key(fail, delay, detail):
    with FakeOpenAI(fail_status=fail, delay_s=delay) as fake:
        p = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url, api_key="sk-secret-123",
                                                    timeout_s=0.3))
        with pytest.raises(ProviderError) as info:
            p.embed(["x"])
        assert info.value.detail == detail
        assert info.value.code == "Neo.TransientError.AI.ProviderUnavailable"
        assert "sk-secret" not in str(info.value)


def test_unconfigured_provider_is_a_typed_error():
    with pytest.raises(ProviderError, match="RELATE_AI_BASE_URL"):
        OpenAICompatibleProvider(ProviderConfig()).chat([{"role": "user", "content": "x"}])


def test_same_text_is_embedded_once_per_statement(conn):
    with FakeOpenAI() as fake:
        providers.configure(ProviderConfig(base_url=fake.base_url, api_key="k"))
        try:
            result = conn.execute("UNWIND [1, 2, 3] AS i RETURN ai.text.embed('same', {model: 'openai:e1'}) AS v, "
                                  "ai.text.embed('other', {model: 'openai:e1'}) AS w")
            rows = result.values()
            assert all(r[0] == cookbook_hash384("same") for r in rows)
            assert fake.calls("/v1/embeddings") == 2
            assert result.summary.costs == {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 2}
            conn.execute("RETURN ai.text.embed('same', {model: 'openai:e1'})").values()
            assert fake.calls("/v1/embeddings") == 3          # a new statement embeds again
        finally:
            providers.configure(None)


def test_vector_index_declares_its_embedder_for_text_search(conn):
    conn.execute("CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.embedding) "
                 "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}")
    for text in ["kafka topic retention", "okta login migration", "lunch menu"]:
        conn.execute("CREATE (:Note {text: $t, embedding: ai.text.embed($t)})", t=text)
    rows = conn.execute("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR 'kafka retention' LIMIT 1) "
                        "RETURN n.text").values()
    assert rows == [["kafka topic retention"]]
    shown = conn.execute("SHOW VECTOR INDEXES YIELD options RETURN options").values()[0][0]
    assert shown["indexConfig"]["vector.embedder"] == "hash-384"
    conn.execute("CREATE VECTOR INDEX plain FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: {`vector.dimensions`: 3}}")
    with pytest.raises(RelateError, match="declares no embedder"):
        conn.execute("MATCH (n:Doc) SEARCH n IN (VECTOR INDEX plain FOR 'x' LIMIT 1) RETURN n").values()
    with pytest.raises(ArgumentError, match="Unknown embedder"):
        conn.execute("CREATE VECTOR INDEX bad FOR (n:Doc) ON (n.f) OPTIONS {indexConfig: {`vector.embedder`: 'zz'}}")
