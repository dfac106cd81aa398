"""The cross-statement cache of expansion sets (ReadTx.expand_rel_id_set, store.ExpandCache) never
changes a count: writes (relationships, labels, node deletions, rollbacks, batches) interleaved with
anchored 2-hop counts, old snapshots held open across writes, recovery; each compared with a plain walk."""
import random

import pytest

from relate.server.engine import Database
from relate.server.storage import GraphStore
from relate.server.storage import read_tx as read_tx_module
from tests.helpers import run

COUNT = "MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note) RETURN count(*) AS c"
SUM = "MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note) RETURN sum(1) AS c"
# Other far-end tests, each with its plain (sum) twin.
VARIANTS = [
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note|Extra) RETURN {agg} AS c"),
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:!Extra) RETURN {agg} AS c"),
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m) RETURN {agg} AS c"),
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)-[b:ABOUT]-(m:Note) RETURN {agg} AS c"),
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT|OTHER]-(m:Note) RETURN {agg} AS c"),
    ("MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note:Extra) RETURN {agg} AS c"),
]
NOTES = 60
TOPICS = 3


@pytest.fixture(autouse=True)
def cache_everything(monkeypatch):
    """Cache every set, however small, so the tests exercise the cache on every expansion."""
    monkeypatch.setattr(read_tx_module, "_CACHE_MIN", 0)


def build(db):
    session = db.session()
    session.run("CREATE CONSTRAINT note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE").consume()
    session.run("UNWIND range(0, $t - 1) AS i CREATE (:Topic {name: 't' + toString(i)})",
                {"t": TOPICS}).consume()
    session.run("UNWIND range(0, $n - 1) AS i CREATE (:Note {id: i})", {"n": NOTES}).consume()
    session.run("MATCH (n:Note), (t:Topic) WHERE n.id % $t = toInteger(substring(t.name, 1)) "
                "OR n.id % 7 = toInteger(substring(t.name, 1)) CREATE (n)-[:ABOUT]->(t)",
                {"t": TOPICS}).consume()
    session.run("MATCH (n:Note) WHERE n.id % 5 = 0 SET n:Extra").consume()


def walk_count(tx, nid):
    """The anchored 2-hop count by a plain walk of the store (no cache, no fast path)."""
    total = 0
    for a, t in tx.expand(nid, "out", ("ABOUT",)):
        if "Topic" not in tx.node_labels(t):
            continue
        for b, m in tx.expand(t, "in", ("ABOUT",)):
            if b != a and "Note" in tx.node_labels(m):
                total += 1
    return total


def note_ids(db):
    return [r[0] for r in db.session().run("MATCH (n:Note) RETURN n.id ORDER BY n.id").fetch(1 << 20)]


def node_of(tx, note_id):
    found = list(tx.index_seek("node", "Note", "id", note_id))
    return found[0] if found else None


def check_all(db, session=None):
    """count(*) == sum(1) == a plain store walk for every note, twice (the second time from the cache)."""
    session = session or db.session()
    tx = db.store.begin_read()
    try:
        for note_id in note_ids(db):
            nid = node_of(tx, note_id)
            want = walk_count(tx, nid) if nid is not None else 0
            for _ in range(2):
                assert session.run(COUNT, {"id": note_id}).fetch(1) == [(want,)], note_id
            assert session.run(SUM, {"id": note_id}).fetch(1) == [(want,)]
            for variant in VARIANTS:
                plain = session.run(variant.replace("{agg}", "sum(1)"), {"id": note_id}).fetch(1)[0][0]
                for _ in range(2):
                    assert session.run(variant.replace("{agg}", "count(*)"), {"id": note_id}).fetch(1) \
                        == [(plain,)], (variant, note_id)
    finally:
        tx.close()


@pytest.fixture
def db(db):
    build(db)
    return db


def test_counts_match_a_walk_and_fill_the_cache(db):
    check_all(db)
    assert len(db.store._expand_cache) > 0


def test_structural_writes_interleaved_with_counts(db):
    check_all(db)
    version = db.store._structure_ts
    run(db, "MATCH (n:Note {id: 1}), (t:Topic {name: 't2'}) CREATE (n)-[:ABOUT]->(t)")
    assert db.store._structure_ts > version
    check_all(db)
    run(db, "MATCH (n:Note {id: 4})-[r:ABOUT]->(t:Topic {name: 't1'}) DELETE r")
    check_all(db)
    run(db, "MATCH (n:Note {id: 7}) REMOVE n:Note")           # a far end loses the end label
    check_all(db)
    run(db, "MATCH (n:Extra {id: 7}) SET n:Note")              # and gets it back
    check_all(db)
    run(db, "MATCH (t:Topic {name: 't0'}) REMOVE t:Topic")     # the middle node loses its label
    check_all(db)
    run(db, "MATCH (t {name: 't0'}) SET t:Topic")
    check_all(db)
    run(db, "MATCH (n:Note {id: 10}) DETACH DELETE n")
    check_all(db)
    run(db, "MATCH (n:Note {id: 11}) REMOVE n:Extra")          # only the variants' label
    check_all(db)
    run(db, "MATCH (a:Note {id: 12}), (b:Note {id: 13}) CREATE (a)-[:OTHER]->(b)")
    check_all(db)
    run(db, "MATCH (t:Topic {name: 't1'}) CREATE (t)<-[:OTHER]-(:Note {id: 1000})")
    check_all(db)


def test_property_writes_keep_the_cache(db):
    check_all(db)
    version, entries = db.store._structure_ts, len(db.store._expand_cache)
    run(db, "MATCH (n:Note) SET n.x = n.id * 2")
    run(db, "MATCH ()-[r:ABOUT]->() SET r.w = 1")
    run(db, "CREATE (:Lonely {id: 5})")
    assert db.store._structure_ts == version
    assert len(db.store._expand_cache) == entries
    check_all(db)


def test_rolled_back_writes_change_nothing(db):
    check_all(db)
    session = db.session()
    session.begin()
    session.run("MATCH (n:Note {id: 2}), (t:Topic) CREATE (n)-[:ABOUT]->(t)").consume()
    session.run("MATCH (n:Note {id: 3})-[r:ABOUT]->() DELETE r").consume()
    session.run("MATCH (n:Note {id: 5}) REMOVE n:Note").consume()
    # Inside the writing transaction the count sees its own writes (never the cache).
    tx = session_tx(session)
    for note_id in (2, 3, 5, 6):
        nid = node_of(tx, note_id)
        want = walk_count(tx, nid) if nid is not None else 0
        assert session.run(COUNT, {"id": note_id}).fetch(1) == [(want,)]
    session.rollback()
    check_all(db)
    # A rolled-back auto-commit statement (it fails after its writes).
    with pytest.raises(Exception):
        db.session().run("MATCH (n:Note {id: 2}), (t:Topic) CREATE (n)-[:ABOUT]->(t) "
                         "WITH n RETURN 1 / 0").consume()
    check_all(db)


def session_tx(session):
    """The storage transaction of a session's open explicit transaction (for the reference walk)."""
    explicit = session._explicit               # engine.Session's open ExplicitTx (explicit_tx.py)
    assert explicit is not None and explicit.writing, "the session holds no writing explicit transaction"
    return explicit.tx


def test_an_old_snapshot_held_across_writes_sees_its_own_counts(db):
    store = db.store
    old = db.session()
    old.begin()                                       # a snapshot taken now, read below
    before = {i: old.run(COUNT, {"id": i}).fetch(1)[0][0] for i in range(0, NOTES, 3)}
    ref = store.begin_read()
    try:
        want_before = {i: walk_count(ref, node_of(ref, i)) for i in before}
    finally:
        ref.close()
    assert before == want_before
    run(db, "MATCH (n:Note), (t:Topic {name: 't0'}) WHERE n.id % 4 = 1 CREATE (n)-[:ABOUT]->(t)")
    run(db, "MATCH (n:Note) WHERE n.id % 9 = 2 REMOVE n:Note")
    check_all(db)                                     # new snapshots see the writes (and cache them)
    for _ in range(2):
        again = {i: old.run(COUNT, {"id": i}).fetch(1)[0][0] for i in before}
        assert again == before                        # the old snapshot still counts what it saw
    old.rollback()
    check_all(db)


def test_storage_level_random_interleaving():
    """Random structural and plain writes, commits and rollbacks, with snapshots held open across
    them: expand_rel_id_set equals a plain expand walk for every snapshot, hub and far-end test."""
    rng = random.Random(1234)
    store = GraphStore.open(None)
    labels = ("A", "B", "C")
    with store.begin_write() as tx:
        nodes = [tx.create_node([rng.choice(labels)], {"i": i}) for i in range(40)]
        hubs = nodes[:4]
        for nid in nodes[4:]:
            for hub in rng.sample(hubs, 2):
                tx.create_rel(rng.choice(("R", "S")), nid, hub, {})
    tests = [(None, None, None), (None, "A", "LabelName(name='A')"),
             (lambda ls: "B" in ls or "C" in ls, None, "B|C"), (lambda ls: "A" not in ls, None, "!A")]
    alive = set(nodes)
    held = []
    try:
        for step in range(400):
            op = rng.random()
            tx = store.begin_write()
            try:
                live = sorted(alive)
                if op < 0.3:
                    tx.create_rel(rng.choice(("R", "S")), rng.choice(live), rng.choice(hubs), {})
                elif op < 0.5:
                    rels = [rid for hub in hubs for rid, _ in tx.expand(hub, "both", None)]
                    if rels:
                        tx.delete_rel(rng.choice(rels))
                elif op < 0.65:
                    tx.add_labels(rng.choice(live), [rng.choice(labels)])
                elif op < 0.8:
                    nid = rng.choice(live)
                    tx.remove_labels(nid, list(tx.node_labels(nid)))
                elif op < 0.85:
                    victims = [n for n in live if n not in hubs]
                    if victims:
                        nid = rng.choice(victims)
                        for rid, _ in list(tx.expand(nid, "both", None)):
                            tx.delete_rel(rid)
                        tx.delete_node(nid)
                        alive.discard(nid)
                elif op < 0.9:
                    nid = tx.create_node([rng.choice(labels)], {})
                    tx.create_rel("R", nid, rng.choice(hubs), {})
                    alive.add(nid)
                else:
                    tx.set_node_prop(rng.choice(live), "p", step)     # not structural
                    rels = [rid for rid, _ in tx.expand(rng.choice(hubs), "in", None)]
                    if rels:
                        tx.set_rel_prop(rng.choice(rels), "q", step)
                # A write transaction never uses (or fills) the cache; it sees its own writes.
                for hub in hubs:
                    for end_test, end_label, key in tests:
                        got = tx.expand_rel_id_set(hub, "in", ("R",), end_test, end_label, key)
                        assert got == reference(tx, hub, "in", ("R",), end_test, end_label)
                if rng.random() < 0.2:
                    tx.rollback()
                else:
                    tx.commit()
            finally:
                if tx.active:
                    tx.rollback()
            with store.begin_read() as now:
                alive = set(now.all_nodes())
            if rng.random() < 0.3:
                held.append(store.begin_read())
            if held and rng.random() < 0.2:
                held.pop(rng.randrange(len(held))).close()
            fresh = store.begin_read()
            try:
                for reader in [fresh] + held:
                    assert reader.ts <= store.last_commit_ts
                    for hub in rng.sample(hubs, 2):
                        for direction, types in (("in", ("R",)), ("in", None), ("both", ("S",)),
                                                 ("in", ("R", "S"))):
                            for end_test, end_label, key in tests:
                                want = reference(reader, hub, direction, types, end_test, end_label)
                                for _ in range(2):
                                    got = reader.expand_rel_id_set(hub, direction, types, end_test,
                                                                   end_label, key)
                                    assert got == want, (step, reader.ts, hub, direction, types, key)
            finally:
                fresh.close()
    finally:
        for reader in held:
            reader.close()
        store.close()


def reference(tx, nid, direction, types, end_test, end_label):
    out = set()
    for rid, other in tx.expand(nid, direction, types):
        labels = tx.node_labels(other)
        if end_label is not None and end_label not in labels:
            continue
        if end_test is not None and not end_test(labels):
            continue
        out.add(rid)
    return out


def test_batched_commits_move_the_version():
    store = GraphStore.open(None)
    with store.begin_write() as tx:
        hub = tx.create_node(["H"], {})
        spokes = [tx.create_node(["A"], {}) for _ in range(5)]
        for s in spokes:
            tx.create_rel("R", s, hub, {})
    key = (None, "A", "A")
    with store.begin_read() as r:
        assert len(r.expand_rel_id_set(hub, "in", ("R",), *key)) == 5
    tx = store.begin_write()
    tx.create_rel("R", spokes[0], hub, {})
    tx.commit_and_continue()                          # a batch of CALL { } IN TRANSACTIONS
    with store.begin_read() as r:
        assert len(r.expand_rel_id_set(hub, "in", ("R",), *key)) == 6
    tx.create_rel("R", spokes[1], hub, {})
    tx.rollback()                                     # undoes only the second batch
    with store.begin_read() as r:
        assert len(r.expand_rel_id_set(hub, "in", ("R",), *key)) == 6
        assert r.expand_rel_id_set(hub, "in", ("R",), *key) == reference(r, hub, "in", ("R",), None, "A")
    store.close()


def test_a_snapshot_older_than_the_structure_neither_uses_nor_fills_the_cache():
    store = GraphStore.open(None)
    with store.begin_write() as tx:
        hub = tx.create_node(["H"], {})
        spokes = [tx.create_node(["A"], {}) for _ in range(5)]
        rels = [tx.create_rel("R", s, hub, {}) for s in spokes]
    old = store.begin_read()
    assert old.expand_rel_id_set(hub, "in", ("R",)) == set(rels)
    with store.begin_write() as tx:
        tx.delete_rel(rels[0])
    assert old.ts < store._structure_ts
    store._expand_cache.clear()
    assert old.expand_rel_id_set(hub, "in", ("R",)) == set(rels)
    assert len(store._expand_cache) == 0
    with store.begin_read() as new:
        assert new.expand_rel_id_set(hub, "in", ("R",)) == set(rels[1:])
        assert new.expand_rel_id_set(hub, "in", ("R",)) == set(rels[1:])
    assert len(store._expand_cache) == 1
    assert old.expand_rel_id_set(hub, "in", ("R",)) == set(rels)
    old.close()
    store.close()


def test_the_cache_is_bounded_by_ids_held():
    from relate.server.storage.store import ExpandCache
    cache = ExpandCache(limit=100)
    for i in range(50):
        cache.put(i, frozenset(range(i, i + 9)), 1)
    assert cache._held <= 100
    assert cache.get(49, 1) is not None and cache.get(0, 1) is None
    cache.put("big", frozenset(range(60)), 1)          # over a quarter of the limit: not kept
    assert cache.get("big", 1) is None
    assert cache.get(49, 2) is None                    # another structure version: a miss
    cache.put(0, frozenset((1,)), 0)                   # computed for an older version: ignored
    assert cache.get(0, 0) is None and cache.get(49, 1) is not None
    cache.put(1, frozenset((1,)), 2)                   # a newer version drops the rest
    assert len(cache) == 1 and cache.get(49, 2) is None


def test_recovery_sets_the_structure_version(tmp_path):
    path = str(tmp_path / "db")
    database = Database.open(path)
    build(database)
    check_all(database)
    counts = {i: database.session().run(COUNT, {"id": i}).fetch(1)[0][0] for i in range(NOTES)}
    database.close()
    database = Database.open(path)
    try:
        store = database.store
        assert store._structure_ts == store.last_commit_ts
        assert len(store._expand_cache) == 0
        assert {i: database.session().run(COUNT, {"id": i}).fetch(1)[0][0] for i in range(NOTES)} == counts
        run(database, "MATCH (n:Note {id: 0}), (t:Topic) CREATE (n)-[:ABOUT]->(t)")
        check_all(database)
    finally:
        database.close()
    # Replay from the WAL alone (no checkpoint at close): the same counts.
    store = GraphStore.open(str(tmp_path / "raw"), checkpoint_every=1 << 30)
    with store.begin_write() as tx:
        hub = tx.create_node(["H"], {})
        for _ in range(20):
            tx.create_rel("R", tx.create_node(["A"], {}), hub, {})
    store._wal.close()
    store._unlock_directory()
    store._closed = True
    store = GraphStore.open(str(tmp_path / "raw"))
    try:
        assert store._structure_ts == store.last_commit_ts
        with store.begin_read() as r:
            assert r.expand_rel_id_set(hub, "in", ("R",), None, "A", "A") \
                == reference(r, hub, "in", ("R",), None, "A")
    finally:
        store.close()
