"""The evaluation harness at a small size: the generator's promises, and all lanes beating direct-only."""
import statistics

from bench.retrieval.corpus import generate, words
from bench.retrieval.run import evaluate, load, main
from relate.server.engine import Database


def test_generated_questions_never_use_their_answer_documents_words():
    corpus = generate(300, 40)
    docs = {d["id"]: d["text"] for d in corpus.documents}
    two_hop = [q for q in corpus.questions if q["hops"] == 2]
    assert two_hop and len(corpus.questions) == 40
    for q in two_hop:
        for doc in q["relevant"]:
            assert not words(q["text"]) & words(docs[doc])
    wordings = {docs[d] for f in corpus.facts for d in f["sources"] if len(f["sources"]) == 3}
    assert len(wordings) >= 3                      # facts restated in different words


def test_all_lanes_beat_direct_on_multi_hop_and_do_not_lose_on_one_hop():
    corpus = generate(400, 80, seed=3)
    db = Database.open(None)
    try:
        load(db, corpus)
        direct = evaluate(db, corpus, {"lanes": ["direct"]})
        lanes = evaluate(db, corpus, {})
    finally:
        db.close()

    def mean(result, hops, key):
        return statistics.mean(result[hops][key])
    assert mean(lanes, 2, "recall") > mean(direct, 2, "recall") + 0.3
    assert mean(lanes, 1, "recall") >= mean(direct, 1, "recall")
    assert mean(lanes, 1, "ndcg") >= mean(direct, 1, "ndcg") - 0.02


def test_make_eval_prints_the_table(capsys, tmp_path):
    out = tmp_path / "eval.md"
    assert main(["--sizes", "200", "--questions", "20", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| 2-hop (" in printed and "all lanes" in printed and "direct only" in printed
    assert out.read_text().startswith("N = ")
