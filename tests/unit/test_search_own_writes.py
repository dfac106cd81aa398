"""Searches inside a writing transaction see its own uncommitted writes (created, changed, deleted
entities), with the scores the indexes give once it commits; a rollback leaves the indexes as they were."""
import pytest

import relate

VECTOR = "CALL db.index.vector.queryNodes('v', 5, $q) YIELD node, score RETURN node.id AS id, score"
FULLTEXT = "CALL db.index.fulltext.queryNodes('f', $q) YIELD node, score RETURN node.id AS id, score"
TRIGRAM = "CALL db.index.trigram.queryNodes('t', $q) YIELD node, score RETURN node.id AS id, score"
SEARCH = "MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR $q LIMIT 2) SCORE AS s RETURN n.id AS id, s"


def rows(conn, query, **params):
    return [tuple(r) for r in conn.execute(query, params)]


@pytest.fixture(params=["tantivy", "whoosh"])
def db(request, tmp_path):
    db = relate.connect(str(tmp_path / "db"))
    db.execute("CREATE VECTOR INDEX v FOR (n:Doc) ON (n.e) WITH [n.year] "
               "OPTIONS {indexConfig: {`vector.dimensions`: 3}}")
    db.execute("CREATE FULLTEXT INDEX f FOR (n:Doc) ON EACH [n.text] "
               "OPTIONS {indexConfig: {`fulltext.engine`: $engine}}", {"engine": request.param})
    db.execute("CREATE TRIGRAM INDEX t FOR (n:Doc) ON (n.name)")
    db.execute("UNWIND range(1, 40) AS i CREATE (:Doc {id: i, e: [1.0, toFloat(i), 0.5], year: 2000 + i % 3, "
               "text: 'filler words ' + i + CASE WHEN i % 4 = 0 THEN ' apple' ELSE '' END, name: 'Name ' + i})")
    db.execute("CREATE (:Doc {id: 100, e: [1.0, 0.0, 0.0], year: 2001, text: 'apple banana', name: 'Onboarding'}),"
               "       (:Doc {id: 101, e: [0.0, 1.0, 0.0], year: 2002, text: 'cherry apple apple', name: 'Churn'})")
    db.execute("CALL db.awaitIndexes(60)")
    yield db
    db.close()


def write_some(tx):
    tx.execute("CREATE (:Doc {id: 200, e: [0.9, 0.1, 0.0], year: 2001, text: 'apple pie apple', name: 'Onboardng'})")
    tx.execute("MATCH (d:Doc {id: 100}) SET d.e = [0.0, 0.0, 1.0], d.text = 'banana only'")
    tx.execute("MATCH (d:Doc {id: 101}) DETACH DELETE d")


@pytest.mark.parametrize("query,q", [(VECTOR, [1.0, 0.0, 0.0]), (FULLTEXT, "apple"), (TRIGRAM, "Onboarding"),
                                     (SEARCH, [1.0, 0.0, 0.0])])
def test_a_transaction_searches_its_own_writes_as_they_will_commit(db, query, q):
    tx = db.begin()
    write_some(tx)
    inside = rows(tx, query, q=q)
    ids = [i for i, _ in inside]
    assert 101 not in ids                                  # deleted in the transaction
    if query is not TRIGRAM:
        assert ids[0] == 200                               # created in it, and the best match
    else:
        assert ids[:2] == [100, 200]
    tx.commit()
    db.execute("CALL db.awaitIndexes(60)")
    after = rows(db, query, q=q)
    assert [i for i, _ in after] == ids
    assert [s for _, s in after] == pytest.approx([s for _, s in inside], rel=1e-9)


def test_a_changed_property_is_scored_with_its_new_value(db):
    with db.begin() as tx:
        write_some(tx)
        vector = dict(rows(tx, VECTOR, q=[0.0, 0.0, 1.0]))
        assert vector[100] == pytest.approx(1.0)           # its new embedding, not the committed one
        assert 100 not in dict(rows(tx, FULLTEXT, q="apple"))      # 'apple' left its text
        tx.rollback()


def test_rollback_leaves_searches_as_before(db):
    before = {query: rows(db, query, q=q) for query, q in ((VECTOR, [1.0, 0.0, 0.0]), (FULLTEXT, "apple"),
                                                           (TRIGRAM, "Onboarding"))}
    tx = db.begin()
    write_some(tx)
    tx.rollback()
    for query, q in ((VECTOR, [1.0, 0.0, 0.0]), (FULLTEXT, "apple"), (TRIGRAM, "Onboarding")):
        assert rows(db, query, q=q) == before[query]


def test_the_same_statement_finds_what_it_created(db):
    found = rows(db, "CREATE (d:Doc {id: 300, e: [0.0, 0.0, 1.0], year: 2000, text: 'kiwi', name: 'Kiwi'}) "
                     "WITH d CALL db.index.fulltext.queryNodes('f', 'kiwi') YIELD node RETURN node.id AS id")
    assert found == [(300,)]


def test_filters_apply_to_written_entities(db):
    with db.begin() as tx:
        tx.execute("CREATE (:Doc {id: 400, e: [1.0, 0.0, 0.0], year: 1999, text: 'x', name: 'x'})")
        tx.execute("CREATE (:Doc {id: 401, e: [1.0, 0.0, 0.0], year: 2001, text: 'x', name: 'x'})")
        hits = rows(tx, "MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR $q WHERE n.year = 2001 LIMIT 3) "
                        "SCORE AS s RETURN n.id AS id", q=[1.0, 0.0, 0.0])
        assert [i for (i,) in hits][:2] == [100, 401]       # equal scores: by id
        assert all(i != 400 for (i,) in hits)              # its year is outside the filter
        tx.rollback()


def test_relationship_indexes_see_written_relationships(tmp_path):
    db = relate.connect(str(tmp_path / "rels"))
    db.execute("CREATE FULLTEXT INDEX said FOR ()-[r:SAID]-() ON EACH [r.text]")
    db.execute("CREATE (:P {n: 1})-[:SAID {text: 'hello world'}]->(:P {n: 2})")
    db.execute("CALL db.awaitIndexes(60)")
    with db.begin() as tx:
        tx.execute("MATCH (a:P {n: 1}), (b:P {n: 2}) CREATE (a)-[:SAID {text: 'world peace world'}]->(b)")
        texts = [t for (t,) in tx.execute("CALL db.index.fulltext.queryRelationships('said', 'world') "
                                          "YIELD relationship RETURN relationship.text")]
        assert texts == ["world peace world", "hello world"]
        tx.rollback()
    db.close()


def test_entity_resolution_across_statements_of_one_transaction(tmp_path):
    db = relate.connect(str(tmp_path / "er"))
    db.execute("CREATE TRIGRAM INDEX names FOR (e:Entity) ON (e.normalized)")
    resolve = ("CALL db.entity.resolve($m, {workspace: 'w'}) YIELD entity, created, stage "
               "RETURN entity.name AS name, created, stage")
    with db.begin() as tx:
        assert rows(tx, resolve, m=["Onboarding"]) == [("Onboarding", True, "created")]
        # a later statement of the same transaction: the uncommitted entity is found by similarity
        assert rows(tx, resolve, m=["Onboardng"]) == [("Onboarding", False, "trigram")]
    assert rows(db, "MATCH (e:Entity) RETURN count(e) AS n") == [(1,)]
    db.close()


def test_searches_follow_the_transaction_statement_by_statement(db):
    """Each search reads what the transaction wrote since the previous one; a failed statement's writes
    (undone in the transaction) leave the searches too, even when that statement searched after writing."""
    omega = "CALL db.index.fulltext.queryNodes('f', 'omega') YIELD node RETURN node.id AS id"
    ids = lambda conn: [i for (i,) in conn.execute(omega)]          # noqa: E731
    tx = db.begin()
    assert ids(tx) == []
    tx.execute("CREATE (:Doc {id: 500, text: 'omega'})")
    assert ids(tx) == [500]
    with pytest.raises(relate.errors.CypherArithmeticError):
        tx.execute("CREATE (:Doc {id: 501, text: 'omega omega omega'}) WITH 1 AS one "
                   "CALL db.index.fulltext.queryNodes('f', 'omega') YIELD node RETURN 1 / 0")
    assert ids(tx) == [500]                                  # 501 was undone with its statement
    tx.execute("CREATE (:Doc {id: 502, text: 'omega omega'})")
    assert ids(tx) == [502, 500]
    tx.execute("MATCH (d:Doc {id: 502}) SET d.text = 'no longer'")
    tx.execute("MATCH (d:Doc {id: 1}) SET d.text = 'omega at last'")
    assert sorted(ids(tx)) == [1, 500]
    tx.commit()
    db.execute("CALL db.awaitIndexes(60)")
    assert sorted(ids(db)) == [1, 500]


def test_a_finished_transaction_leaves_no_overlay_behind(db):
    import gc
    tx = db.begin()
    write_some(tx)
    rows(tx, VECTOR, q=[1.0, 0.0, 0.0])
    index = db._owner.index_manager.get("v")         # the embedded Database behind the connection
    assert index._tx_overlay is not None
    tx.rollback()
    del tx
    gc.collect()
    assert index._tx_overlay is None
