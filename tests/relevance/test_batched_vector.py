"""The batched vector search a relevance join uses gives exactly what one search per anchor gives."""
from __future__ import annotations

import random

from relate.embedders import hash384
from relate.server.engine import Database


def test_search_many_equals_search_one_by_one():
    db = Database.open(None)
    session = db.session()
    session.run("CREATE VECTOR INDEX e FOR (d:Doc) ON (d.e) OPTIONS {indexConfig: {`vector.dimensions`: 384}}").consume()
    rng = random.Random(3)
    words = "kafka topic okta login invoice renewal coffee lottery engine compiler garden tomato".split()
    texts = [" ".join(rng.choices(words, k=5)) for _ in range(300)]
    session.run("UNWIND $rows AS r CREATE (:Doc {e: r})", {"rows": [hash384(t) for t in texts]}).consume()
    manager = db.index_manager
    queries = [hash384(" ".join(rng.choices(words, k=2))) for _ in range(20)]
    manager.await_indexes(30)
    assert manager.vector_search_many("e", queries, 8) == [manager.vector_search("e", q, 8) for q in queries]
    session.run("MATCH (d:Doc) WITH d LIMIT 10 DETACH DELETE d").consume()      # tombstones: one by one
    assert manager.vector_search_many("e", queries, 8) == [manager.vector_search("e", q, 8) for q in queries]
    db.close()
