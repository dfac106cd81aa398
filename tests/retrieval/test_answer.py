"""db.answer against a local fake OpenAI-compatible server: grounding prompt, validated citations, failures."""
import json

import pytest

from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig
from tests.ai.fake_openai import FakeOpenAI
from tests.retrieval.corpus import open_loaded

Q = "How do I write components with React?"
ANSWER = ("CALL db.answer($q, $o) YIELD answer, citations, sources, diagnostics "
          "RETURN answer, citations, sources, diagnostics")


@pytest.fixture(scope="module")
def db():
    db = open_loaded()
    yield db
    db.close()


def ask(db, fake, question=Q, **options):
    db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url, api_key="sk-test", timeout_s=5))
    try:
        row = db.session().run(ANSWER, {"q": question, "o": {"laneK": 3, "k": 3, **options}}).fetch(1)[0]
    finally:
        db.ai_provider = None
    return dict(zip(("answer", "citations", "sources", "diagnostics"), row))


def test_prompt_grounds_in_numbered_sources_and_markers_are_validated(db):
    with FakeOpenAI(chat=lambda body: "React renders components [1], made by Meta [2][9]. Also [0].") as fake:
        out = ask(db, fake)
        # two calls: the entity extraction (its reply holds no list of names: the gazetteer finds them)
        # and the one synthesis call
        assert fake.calls("/v1/chat/completions") == 2
        assert "JSON array" in fake.requests[0][2]["messages"][-1]["content"]
        body = fake.requests[-1][2]
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "only the numbered sources" in system and "do not contain the answer" in system
    assert "[1]" in user and "Graph facts (context only, not citable)" in user
    assert "React was created by Meta" in user
    assert out["answer"] == "React renders components [1], made by Meta [2]. Also."
    assert [c["marker"] for c in out["citations"]] == [1, 2]
    n = len(out["sources"])
    assert n >= 3 and [s["n"] for s in out["sources"]] == list(range(1, n + 1))
    for citation in out["citations"]:
        source = out["sources"][citation["marker"] - 1]
        assert citation["node"] == source["node"] and citation["document"] == source["document"]
    # graph facts are never citable: no source is a relationship, every source is a chunk
    assert all("Chunk" in s["node"].labels for s in out["sources"])
    synthesis = [s for s in out["diagnostics"]["steps"] if s["name"] == "synthesis"][0]
    assert synthesis["tokensIn"] > 0 and synthesis["tokensOut"] > 0 and synthesis["citations"] == 2
    assert synthesis["dropped"] == 2


def test_provider_failure_gives_a_null_answer_and_keeps_the_sources(db):
    with FakeOpenAI(fail_status=500) as fake:
        out = ask(db, fake)
    assert out["answer"] is None and out["citations"] == []
    assert out["sources"] and out["sources"][0]["text"]
    degraded = {d["step"]: d for d in out["diagnostics"]["degraded"]}
    assert degraded["synthesis"]["fallback"] == "null answer, sources intact"
    assert "sk-test" not in json.dumps(out["diagnostics"], default=str)     # secrets never surface


@pytest.mark.parametrize("reply", ["", "   ", "[9]"])
def test_an_empty_reply_is_a_failed_synthesis_not_an_empty_answer(db, reply):
    with FakeOpenAI(chat=lambda body: "[]" if "JSON array" in body["messages"][-1]["content"] else reply) as fake:
        out = ask(db, fake)
    assert out["answer"] is None and out["citations"] == [] and out["sources"]
    assert {d["step"]: d for d in out["diagnostics"]["degraded"]}["synthesis"]["fallback"] == \
        "null answer, sources intact"


def _extracting(names_reply):
    def chat(body):
        content = body["messages"][-1]["content"]
        if "JSON array" in content:
            return names_reply
        return "The sources do not contain the answer."
    return chat


def _step(out, name):
    found = [s for s in out["diagnostics"]["steps"] if s["name"] == name]
    return found[0] if found else None


@pytest.mark.parametrize("option", [{}, {"entities": "llm"}])
def test_entities_are_extracted_by_the_providers_model_when_one_is_configured(db, option):
    # the question names React only as "ReactJS": the model's list names the entity
    with FakeOpenAI(chat=_extracting('Sure:\n```json\n["React"]\n```')) as fake:
        out = ask(db, fake, question="How do I write components with ReactJS?", **option)
        assert fake.calls("/v1/chat/completions") == 2
    assert _step(out, "entities")["source"] == "llm"
    assert _step(out, "entities")["resolved"] == ["React"]
    assert _step(out, "traversal")["facts"] > 0
    assert out["diagnostics"]["degraded"] == []
    assert out["answer"] == "The sources do not contain the answer." and out["citations"] == []


def test_a_model_named_entity_sharing_few_characters_resolves_by_meaning():
    """Resolution's embedding stage at query time: the entities' vector index declares its embedder, and a
    name the model lists that no trigram lookup finds is matched by cosine (spec 003: "semantically the
    same entity but share no characters")."""
    from relate.server.engine import Database
    from tests.retrieval.corpus import load
    db = Database.open(None)
    try:
        db.session().run("CREATE VECTOR INDEX entity_vectors FOR (e:Entity) ON (e.embedding) "
                         "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}").consume()
        load(db)
        db.session().run("CALL db.entity.resolve([{name: 'Acme Rockets', type: 'Company'}], {workspace: 'w'}) "
                         "YIELD entity MATCH (r:Entity {name: 'React', workspace: 'w'}) "
                         "CREATE (entity)-[:USES {predicate: 'uses', sources: ['d1']}]->(r)").consume()
        db.index_manager.await_indexes(30)
        reply = _extracting('["the rockets company Acme that builds rockets"]')     # trigram 0.37, cosine 0.78
        with FakeOpenAI(chat=reply) as fake:
            found = ask(db, fake, question="What does the rockets company use?", entityEmbeddingThreshold=0.7)
            strict = ask(db, fake, question="What does the rockets company use?")      # default 0.9
        assert _step(found, "entities")["resolved"] == ["Acme Rockets"] and _step(found, "traversal")["facts"] > 0
        assert _step(strict, "entities")["resolved"] == []
    finally:
        db.close()


def test_the_gazetteer_can_be_chosen_with_a_provider_configured(db):
    with FakeOpenAI(chat=_extracting('["Nothing"]')) as fake:
        out = ask(db, fake, entities="gazetteer")
        assert fake.calls("/v1/chat/completions") == 1          # the synthesis call only
    assert _step(out, "entities")["source"] == "gazetteer" and "React" in _step(out, "entities")["resolved"]


def test_a_model_that_names_nothing_leaves_the_direct_lane(db):
    with FakeOpenAI(chat=_extracting("[]")) as fake:
        out = ask(db, fake)
    assert _step(out, "entities")["resolved"] == [] and _step(out, "traversal") is None
    assert out["sources"] and out["diagnostics"]["degraded"] == []


@pytest.mark.parametrize("reply", ["I cannot tell.", "[1, 2]", '["React"', "{\"names\": 3}"])
def test_a_failed_extraction_falls_back_to_the_gazetteer(db, reply):
    with FakeOpenAI(chat=_extracting(reply)) as fake:
        out = ask(db, fake)
    entities = _step(out, "entities")
    assert entities["source"] == "gazetteer" and "React" in entities["resolved"]
    assert [d["step"] for d in out["diagnostics"]["degraded"]] == ["entities"]
    assert out["diagnostics"]["degraded"][0]["fallback"] == "gazetteer"
    assert out["sources"] and _step(out, "traversal")["facts"] > 0


def test_an_unreachable_provider_still_answers_from_the_graph_lanes(db):
    with FakeOpenAI(fail_status=500) as fake:
        out = ask(db, fake)
    assert [d["step"] for d in out["diagnostics"]["degraded"]] == ["entities", "synthesis"]
    assert _step(out, "entities")["source"] == "gazetteer" and _step(out, "traversal")["facts"] > 0
    assert out["answer"] is None and out["sources"]


def test_grouped_markers_are_validated_number_by_number(db):
    with FakeOpenAI(chat=lambda body: "React uses JSX [1, 7] and Meta made it [2,3]. Unsupported [8; 9].") as fake:
        out = ask(db, fake)
    assert out["answer"] == "React uses JSX [1] and Meta made it [2,3]. Unsupported."
    assert [c["marker"] for c in out["citations"]] == [1, 2, 3]
    synthesis = [s for s in out["diagnostics"]["steps"] if s["name"] == "synthesis"][0]
    assert synthesis["dropped"] == 3 and synthesis["citations"] == 3


def test_every_marker_form_is_checked_and_invented_numbers_dropped(db):
    reply = "A [12345] B [1-9] C [2\u20133] D [1 and 9] E [3]."
    with FakeOpenAI(chat=lambda body: reply) as fake:
        out = ask(db, fake)
    assert len(out["sources"]) == 6
    assert out["answer"] == "A B [1, 2, 3, 4, 5, 6] C [2, 3] D [1] E [3]."
    synthesis = [s for s in out["diagnostics"]["steps"] if s["name"] == "synthesis"][0]
    assert synthesis["dropped"] == 1 + 3 + 0 + 1          # 12345; 7..9; none; 9


def test_every_search_returns_prose_with_a_provider(db, monkeypatch):
    for name in ("RELATE_AI_BASE_URL", "OPENAI_BASE_URL", "RELATE_AI_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    call = ("CALL db.retrieve($q, $o) YIELD node, answer, citations, diagnostics "
            "RETURN node.id, answer, citations, diagnostics")
    with FakeOpenAI(chat=lambda body: "React uses JSX [1].") as fake:
        db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url, api_key="sk-test"))
        try:
            rows = db.session().run(call, {"q": Q, "o": {"k": 3, "laneK": 3}}).fetch(100)
            skipped = db.session().run(call, {"q": Q, "o": {"k": 3, "laneK": 3, "answer": False}}).fetch(100)
        finally:
            db.ai_provider = None
        # an extraction call per search, and one synthesis call where the answer is wanted
        assert fake.calls("/v1/chat/completions") == 3
    assert {r[1] for r in rows} == {"React uses JSX [1]."} and rows[0][2][0]["marker"] == 1
    assert "synthesis" in {s["name"] for s in rows[0][3]["steps"]}
    assert {r[1] for r in skipped} == {None} and "synthesis" not in {s["name"] for s in skipped[0][3]["steps"]}
    plain = db.session().run(call, {"q": Q, "o": {"k": 3, "laneK": 3}}).fetch(100)     # no provider configured
    assert plain and {r[1] for r in plain} == {None} and plain[0][3]["degraded"] == []
