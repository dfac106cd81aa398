"""``CONTAINS`` and ``ENDS WITH`` through a property index (Neo4j's text index serves both): the index's
string keys are searched as one corpus (storage/substrings.py). Rows must equal the plan without the
optimizer rules whatever the strings (the corpus's separator inside a value or a needle, the empty
string, non-ASCII), inside a transaction and on another snapshot, after writes that come once the
corpus is built (and enough of them to rebuild it), in the index's order under ORDER BY ... LIMIT."""
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relate.server.storage import substrings
from relate.server.storage.indexes import PropertyIndex, order_key
from relate.server.storage.substrings import SEPARATOR, SubstringKeys
from tests.helpers import plan_operators, rows, run, with_rules_and_without
from tests.unit.test_top_by_props import ordered

TEXT = st.text(alphabet=st.sampled_from(["a", "b", "é", "😀", SEPARATOR, " "]), max_size=6)
NEEDLES = st.one_of(TEXT, st.sampled_from(["", "a", "ab", "ba", "b" + SEPARATOR, SEPARATOR, "é😀"]))


@settings(max_examples=200, deadline=None)
@given(strings=st.lists(TEXT, max_size=20, unique=True), fresh=st.lists(TEXT, max_size=5), needle=NEEDLES,
       suffix=st.booleans())
def test_the_corpus_finds_every_key_that_matches_in_order(strings, fresh, needle, suffix):
    keys = sorted((4, s) for s in strings)
    found = SubstringKeys(keys, [(4, s) for s in fresh]).matching(needle, suffix)
    want = sorted({k for k in keys + [(4, s) for s in fresh]
                   if (k[1].endswith(needle) if suffix else needle in k[1])})
    # a value holding the separator may come back without matching (the filter above decides)
    assert set(want) <= set(found) and found == sorted(set(found))
    assert all(SEPARATOR in k[1] for k in set(found) - set(want))


FORMS = ["n.v CONTAINS $x", "n.v ENDS WITH $x", "n.v CONTAINS $x AND n.v STARTS WITH 'a'",
         "n.v ENDS WITH $x OR n.v = 'b'"]
PATTERNS = ["MATCH (n:P) WHERE {} RETURN n.i", "MATCH ()-[n:R]->() WHERE {} RETURN n.i",
            "UNWIND [1, 2] AS k MATCH (n:P) WHERE {} RETURN n.i"]
STORED = st.one_of(TEXT, st.none(), st.integers(-2, 2), st.sampled_from([["a"], 0.5, True]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(STORED, min_size=1, max_size=12), xs=st.lists(st.one_of(NEEDLES, st.none(), st.just(1)),
                                                                     min_size=1, max_size=3))
def test_substring_seeks_agree_with_scans(db, stored, xs):
    run(db, "CREATE TEXT INDEX p_v IF NOT EXISTS FOR (n:P) ON (n.v)")
    run(db, "CREATE INDEX r_v IF NOT EXISTS FOR ()-[r:R]-() ON (r.v)")
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "UNWIND range(0, size($vs) - 1) AS i CREATE (:P {i: i, v: $vs[i]})-[:R {i: i, v: $vs[i]}]->(:Q)",
        {"vs": stored})
    tx = db.store.begin_read()
    try:
        for x in xs + [v for v in stored[:2] if isinstance(v, str)]:
            for pattern in PATTERNS:
                for form in FORMS:
                    seeked, plain = with_rules_and_without(db, tx, pattern.format(form), {"x": x})
                    assert seeked == plain, (pattern.format(form), stored, x)
    finally:
        tx.close()


def fill(db, values: list) -> None:
    run(db, "CREATE TEXT INDEX m_t IF NOT EXISTS FOR (m:M) ON (m.t)")
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "UNWIND range(0, size($vs) - 1) AS i CREATE (:M {i: i, t: $vs[i]})", {"vs": values})


def ids(target, text: str, params: dict | None = None) -> list:
    return sorted(r[0] for r in rows(target, text, params))


def test_the_plans_name_neo4js_scans(db):
    fill(db, ["alpha", "beta"])
    run(db, "CREATE INDEX r_t FOR ()-[r:R]-() ON (r.t)")
    assert "NodeIndexContainsScan" in plan_operators(db, "MATCH (m:M) WHERE m.t CONTAINS 'ph' RETURN m")
    assert "NodeIndexEndsWithScan" in plan_operators(db, "MATCH (m:M) WHERE m.t ENDS WITH $s RETURN m")
    assert "DirectedRelationshipIndexContainsScan" in plan_operators(
        db, "MATCH ()-[r:R]->() WHERE r.t CONTAINS 'x' RETURN r")
    assert ids(db, "MATCH (m:M) WHERE m.t CONTAINS 'ph' RETURN m.i") == [0]
    assert ids(db, "MATCH (m:M) WHERE m.t ENDS WITH 'ta' RETURN m.i") == [1]


def test_writes_after_the_first_search_are_found_by_their_own_transaction_only(db):
    fill(db, ["red fox", "blue fox", "red hen"])
    contains = "MATCH (m:M) WHERE m.t CONTAINS $s RETURN m.i"
    assert ids(db, contains, {"s": "fox"}) == [0, 1]          # builds the corpus
    session = db.session()
    session.begin()
    try:
        session.run("CREATE (:M {i: 7, t: 'grey fox'})").consume()
        session.run("MATCH (m:M {i: 0}) SET m.t = 'red wolf'").consume()
        session.run("MATCH (m:M {i: 1}) DELETE m").consume()
        assert sorted(r[0] for r in session.run(contains, {"s": "fox"}).fetch(10)) == [7]
        assert sorted(r[0] for r in session.run(contains, {"s": "wolf"}).fetch(10)) == [0]
        assert ids(db, contains, {"s": "fox"}) == [0, 1]      # another snapshot keeps its values
        assert ids(db, contains, {"s": "wolf"}) == []
    finally:
        session.commit()
    assert ids(db, contains, {"s": "fox"}) == [7]
    assert ids(db, "MATCH (m:M) WHERE m.t ENDS WITH 'wolf' RETURN m.i") == [0]


def test_many_writes_rebuild_the_corpus_and_lose_nothing(db, monkeypatch):
    monkeypatch.setattr(substrings, "FRESH_MIN", 4)
    fill(db, [f"note {i}" for i in range(20)])
    assert len(ids(db, "MATCH (m:M) WHERE m.t CONTAINS 'note' RETURN m.i")) == 20
    for i in range(20, 60):
        run(db, "CREATE (:M {i: $i, t: $t})", {"i": i, "t": f"note {i}"})
        if i % 7 == 0:                                # searches between writes: some with a fresh list
            assert ids(db, "MATCH (m:M) WHERE m.t ENDS WITH $s RETURN m.i", {"s": f" {i}"}) == [i]
    assert ids(db, "MATCH (m:M) WHERE m.t CONTAINS 'note' RETURN m.i") == list(range(60))
    assert ids(db, "MATCH (m:M) WHERE m.t CONTAINS '5' RETURN m.i") == [5, 15, 25, 35, 45, 50, 51, 52, 53, 54,
                                                                          55, 56, 57, 58, 59]


STATEMENTS = ["MATCH (m:M) WHERE m.t CONTAINS $s RETURN m.i AS i ORDER BY m.t LIMIT $n",
              "MATCH (m:M) WHERE m.t ENDS WITH $s RETURN m.i AS i, m.t AS t ORDER BY m.t DESC SKIP 1 LIMIT $n"]


@pytest.mark.parametrize("statement", STATEMENTS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.one_of(TEXT, st.none(), st.just(3)), max_size=14), s=NEEDLES, n=st.integers(0, 6))
def test_ordered_substring_seeks_equal_the_sorted_label(db, statement, values, s, n):
    fill(db, values)
    tx = db.store.begin_read()
    try:
        assert ordered(db, tx, statement, {"s": s, "n": n}, True) == ordered(db, tx, statement, {"s": s, "n": n}, False)
    finally:
        tx.close()


def test_a_writer_beside_searches_never_hides_a_committed_key():
    """Keys inserted while searches build and rebuild the corpus (the fresh list handed over first)."""
    index = PropertyIndex("node", "M", "t", 0)
    done = threading.Event()
    added: list[str] = []

    def write():
        for i in range(3000):
            value = f"k{i}x"
            index.add(order_key(value), i)
            added.append(value)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    while not done.is_set():
        before = list(added)
        found = {k[1] for k in index.substring_keys("x", True)}
        assert set(before) <= found
        if len(found) % 3 == 0:                       # now and then a rebuild
            index.rebuild_sorted()
    writer.join()
    assert {k[1] for k in index.substring_keys("x", True)} == set(added)
