"""db.entity.resolve, db.retrieve and db.answer through a real server process and the driver."""
import relate
from tests.ai.fake_openai import FakeOpenAI
from tests.retrieval.corpus import run_statements
from tests.server.conftest import AUTH, ServerProcess


def test_retrieve_and_answer_over_the_wire(tmp_path):
    with FakeOpenAI(chat=lambda body: "React uses JSX [1] and came from Meta [3][42].") as fake:
        server = ServerProcess(tmp_path, env={"RELATE_AI_BASE_URL": fake.base_url, "RELATE_AI_API_KEY": "sk-wire"})
        try:
            with relate.connect(server.url, auth=AUTH) as conn:
                run_statements(lambda q, p=None: conn.execute(q, p or {}).consume())
                conn.execute("CALL db.awaitIndexes(30)").consume()
                rows = conn.execute("CALL db.retrieve($q, {k: 3, laneK: 3}) YIELD node, rank, lanes, diagnostics, "
                                    "answer RETURN node.id AS id, rank, lanes, diagnostics, answer",
                                    {"q": "How do I write components with React?"}).fetchall()
                assert [r[1] for r in rows][:3] == [1, 2, 3]
                assert {s["name"] for s in rows[0][3]["steps"]} >= {"direct", "entities", "traversal", "fusion",
                                                                    "synthesis"}
                assert {r[4] for r in rows} == {"React uses JSX [1] and came from Meta [3]."}   # every search: prose
                result = conn.execute(
                    "CALL db.answer($q, {k: 3, laneK: 3}) YIELD answer, citations, sources "
                    "RETURN answer, citations, sources", {"q": "How do I write components with React?"})
                answer, citations, sources = result.fetchone()
                summary = result.consume()
                # the call log travels with the summary: each model call by purpose, never the question
                assert summary.costs["llmCalls"] == 2
                assert [(c["counter"], c["purpose"], c["ok"]) for c in summary.calls] == [
                    ("llmCalls", "entity extraction", True), ("llmCalls", "answer synthesis", True)]
                assert "React" not in repr(summary.calls)
            assert answer == "React uses JSX [1] and came from Meta [3]."
            assert [c["marker"] for c in citations] == [1, 3]
            assert citations[0]["node"].element_id == sources[0]["node"].element_id
            # per search: one entity extraction (this fake's prose names none: the gazetteer does) and
            # one synthesis
            assert fake.calls("/v1/chat/completions") == 4
            assert "sk-wire" not in server.log()
        finally:
            server.stop()
