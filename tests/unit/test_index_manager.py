"""IndexManager over a real GraphStore: commits, rollbacks, population, persistence, DDL rules."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from relate.errors import ArgumentError, EquivalentSchemaRuleAlreadyExists, IndexNotFound, SchemaError
from relate.server.index import IndexManager
from relate.server.index import managed
from relate.server.storage import GraphStore


@pytest.fixture(params=["whoosh", "tantivy"])
def engine(request):
    return request.param


@pytest.fixture
def store():
    s = GraphStore.open(None)
    yield s
    s.close()


def create_notes(store, rows):
    tx = store.begin_write()
    ids = [tx.create_node(["Note"], props) for props in rows]
    tx.commit()
    return ids


def make_manager(store, engine="tantivy", directory=None, **kwargs):
    im = IndexManager(store, directory, default_fulltext_engine=engine, **kwargs)
    im.create_fulltext_index("note_t", "node", ["Note"], ["text"], if_not_exists=True)
    im.create_vector_index("note_e", "node", "Note", "e", ["session", "ts"],
                           {"indexConfig": {"vector.dimensions": 2, "vector.similarity_function": "euclidean"}})
    return im


def test_committed_writes_are_searchable_by_the_next_statement(store, engine):
    im = make_manager(store, engine)
    for i in range(30):      # one commit per write, each searched straight after its commit
        (nid,) = create_notes(store, [{"text": f"note kafka{i}", "e": [float(i), 0.0], "session": "s", "ts": i}])
        assert [k for k, _ in im.fulltext_search("note_t", f"kafka{i}", 0, 5)] == [nid]
        assert im.vector_search("note_e", [float(i), 0.0], 1)[0][0] == nid
    im.close()


def test_rolled_back_and_failed_writes_never_show(store, engine):
    im = make_manager(store, engine)
    create_notes(store, [{"text": "kept", "e": [0.0, 0.0]}])
    tx = store.begin_write()
    tx.create_node(["Note"], {"text": "ghost", "e": [5.0, 5.0]})
    tx.rollback()
    tx = store.begin_write()
    kept = tx.create_node(["Note"], {"text": "survivor", "e": [1.0, 1.0]})
    mark = tx.savepoint()
    tx.create_node(["Note"], {"text": "ghost statement", "e": [5.0, 5.0]})
    tx.set_node_prop(kept, "text", "ghost too")
    tx.rollback_to(mark)                 # a failed statement inside the transaction
    tx.commit()
    assert im.fulltext_search("note_t", "ghost", 0, 10) == []
    assert [k for k, _ in im.fulltext_search("note_t", "survivor", 0, 10)] == [kept]
    assert len(im.vector_search("note_e", [5.0, 5.0], 10)) == 2
    im.close()


def test_property_label_and_delete_changes(store, engine):
    im = make_manager(store, engine)
    (a, b) = create_notes(store, [{"text": "alpha", "e": [1.0, 0.0], "session": "s1", "ts": 1},
                                  {"text": "beta", "e": [2.0, 0.0], "session": "s1", "ts": 2}])
    tx = store.begin_write()
    tx.set_node_prop(a, "text", "gamma")
    tx.set_node_prop(b, "session", "s2")          # only a WITH value: no new vector row
    other = tx.create_node(["Other"], {"text": "delta", "e": [0.0, 0.0]})
    tx.commit()
    assert im.fulltext_search("note_t", "alpha", 0, 5) == []
    assert [k for k, _ in im.fulltext_search("note_t", "gamma", 0, 5)] == [a]
    assert [k for k, _ in im.vector_search("note_e", [0.0, 0.0], 5, [("session", "=", "s2")])] == [b]
    tx = store.begin_write()
    tx.add_labels(other, ["Note"])
    tx.remove_labels(a, ["Note"])
    tx.commit()
    assert [k for k, _ in im.fulltext_search("note_t", "delta gamma", 0, 5)] == [other]
    tx = store.begin_write()
    tx.delete_node(b)
    tx.set_node_prop(other, "e", None)
    tx.commit()
    assert im.vector_search("note_e", [0.0, 0.0], 5) == []
    assert im.get("note_e").impl._dead == 0 or len(im.get("note_e").impl) == 0
    im.close()


def test_relationship_indexes(store, engine):
    im = IndexManager(store, None, default_fulltext_engine=engine)
    im.create_fulltext_index("dec_t", "relationship", ["DECIDED"], ["text"])
    im.create_vector_index("dec_e", "relationship", "DECIDED", "e", [], None)
    tx = store.begin_write()
    n, t = tx.create_node(["Note"], {}), tx.create_node(["Topic"], {})
    r1 = tx.create_rel("DECIDED", n, t, {"text": "one kafka topic per tenant", "e": [1.0, 0.0]})
    tx.create_rel("ABOUT", n, t, {"text": "kafka", "e": [1.0, 0.0]})
    tx.commit()
    assert [k for k, _ in im.fulltext_search("dec_t", "kafka", 0, 5)] == [r1]
    assert [k for k, _ in im.vector_search("dec_e", [1.0, 0.1], 5)] == [r1]
    tx = store.begin_write()
    tx.set_rel_prop(r1, "text", "shared topics")
    tx.commit()
    assert im.fulltext_search("dec_t", "kafka", 0, 5) == []
    with pytest.raises(ArgumentError, match="relationships"):
        im.fulltext_search("dec_t", "kafka", entity="node")
    im.close()


def test_population_in_the_background_and_show_rows(store, engine, monkeypatch):
    create_notes(store, [{"text": f"t{i} kafka", "e": [float(i), 1.0], "session": "s", "ts": i}
                         for i in range(300)] + [{"text": "short", "e": [1.0, 2.0, 3.0]}])
    monkeypatch.setattr(managed, "POPULATION_CHUNK", 50)
    release = threading.Event()
    original = managed.ManagedIndex._apply

    def slow_apply(self, ops):
        release.wait(10)
        original(self, ops)

    monkeypatch.setattr(managed.ManagedIndex, "_apply", slow_apply)
    im = IndexManager(store, None, default_fulltext_engine=engine, populating_wait_s=0.05)
    im.create_vector_index("note_e", "node", "Note", "e", [], {"indexConfig": {"vector.dimensions": 2}})
    row = im.list()[0]
    assert row["state"] == "POPULATING" and row["type"] == "VECTOR" and row["entityType"] == "NODE"
    during = im.vector_search("note_e", [1.0, 1.0], 3)    # no wait: an exact scan of the store
    assert im.list()[0]["state"] == "POPULATING" and len(during) == 3
    assert im.await_indexes(0.05) is False
    release.set()
    assert im.await_indexes(30) is True
    row = im.list()[0]
    assert (row["state"], row["populationPercent"], row["size"], row["skippedDocuments"]) == ("ONLINE", 100.0, 300, 1)
    assert row["labelsOrTypes"] == ["Note"] and row["properties"] == ["e"]
    assert row["options"]["indexConfig"]["vector.dimensions"] == 2
    assert im.vector_search("note_e", [1.0, 1.0], 3) == during
    im.close()


def test_writes_during_population_are_caught_up(store, engine, monkeypatch):
    ids = create_notes(store, [{"text": f"doc{i}"} for i in range(400)])
    monkeypatch.setattr(managed, "POPULATION_CHUNK", 20)
    im = IndexManager(store, None, default_fulltext_engine=engine)
    im.create_fulltext_index("note_t", "node", ["Note"], ["text"])
    tx = store.begin_write()             # concurrent with the population
    tx.set_node_prop(ids[0], "text", "changed")
    tx.delete_node(ids[1])
    new = tx.create_node(["Note"], {"text": "latecomer"})
    tx.commit()
    assert im.await_indexes(30)
    assert [k for k, _ in im.fulltext_search("note_t", "changed latecomer doc1 doc0", 0, 10)] == sorted([ids[0], new])
    assert len(im.get("note_t").impl) == 400
    im.close()


def test_ddl_rules(store):
    im = IndexManager(store, None)
    assert im.create_fulltext_index("t", "node", ["A", "B"], ["x", "y"]) is True
    assert im.create_fulltext_index("t", "node", ["A"], ["z"], if_not_exists=True) is False
    with pytest.raises(SchemaError, match="already exists"):
        im.create_fulltext_index("t", "node", ["A"], ["z"])
    with pytest.raises(EquivalentSchemaRuleAlreadyExists):
        im.create_fulltext_index("t2", "node", ["B", "A"], ["x", "y"])
    with pytest.raises(ArgumentError, match="fulltext.engine"):
        im.create_fulltext_index("t3", "node", ["A"], ["x"], {"indexConfig": {"fulltext.engine": "lucene"}})
    with pytest.raises(ArgumentError, match="similarity"):
        im.create_vector_index("v", "node", "A", "e", [], {"indexConfig": {"vector.similarity_function": "dot"}})
    with pytest.raises(ArgumentError, match="setting"):
        im.create_vector_index("v", "node", "A", "e", [], {"indexConfig": {"vector.bogus": 1}})
    with pytest.raises(ArgumentError, match="vector index"):
        im.vector_search("t", [1.0], 1)
    assert im.drop("t") is True
    assert im.drop("t", if_exists=True) is False
    with pytest.raises(IndexNotFound):
        im.drop("t")
    with pytest.raises(IndexNotFound):
        im.fulltext_search("t", "x")
    im.close()


def test_ddl_inside_a_transaction_follows_its_outcome(store):
    im = IndexManager(store, None)
    tx = store.begin_write()
    im.create_fulltext_index("t", "node", ["A"], ["x"], tx=tx)
    tx.rollback()
    assert "t" not in im
    tx = store.begin_write()
    im.create_fulltext_index("t", "node", ["A"], ["x"], tx=tx)
    assert im.create_fulltext_index("t", "node", ["A"], ["x"], if_not_exists=True, tx=tx) is False
    tx.commit()
    assert "t" in im
    im.close()


def notes_with_vectors(seed, n):
    rng = np.random.default_rng(seed)
    return [{"text": " ".join(f"w{int(x)}" for x in rng.zipf(1.5, size=12) if x < 500),
             "e": rng.normal(size=2).tolist(), "session": f"s{i % 3}", "ts": i} for i in range(n)]


def results(im, queries):
    return ([im.fulltext_search("note_t", q, 0, 10) for q in queries],
            [im.vector_search("note_e", [0.3, -0.2], 10, [("session", "=", "s1")])])


def test_files_are_reused_after_a_clean_close_and_rebuilt_when_stale(tmp_path, engine):
    db, idx = str(tmp_path / "db"), str(tmp_path / "idx")
    store = GraphStore.open(db)
    create_notes(store, notes_with_vectors(1, 500))
    im = make_manager(store, engine, idx)
    assert im.await_indexes(30)
    queries = ["w1 w2", "w3", '"w1 w2"']
    before = results(im, queries)
    im.close()
    store.close()

    store = GraphStore.open(db)
    im = IndexManager(store, idx, default_fulltext_engine=engine)
    assert all(im.get(n).loaded_from_files for n in ("note_t", "note_e"))
    assert results(im, queries) == before
    im.checkpoint()
    create_notes(store, [{"text": "w1 w1 w1", "e": [0.3, -0.2], "session": "s1", "ts": 0}])
    after = results(im, queries)
    im.close(save=False)          # as after a crash: the files cover an older commit than the store
    store.close()

    store = GraphStore.open(db)
    im = IndexManager(store, idx, default_fulltext_engine=engine)
    assert not im.get("note_t").loaded_from_files
    assert im.await_indexes(30)
    assert results(im, queries) == after
    im.close()
    store.close()


def test_drop_removes_the_files(tmp_path):
    store = GraphStore.open(str(tmp_path / "db"))
    im = make_manager(store, "whoosh", str(tmp_path / "idx"))
    im.checkpoint()
    assert len(list((tmp_path / "idx").iterdir())) == 2
    im.drop("note_t")
    assert len(list((tmp_path / "idx").iterdir())) == 1
    im.close()
    store.close()


def test_concurrent_searches_and_writes(store, engine):
    im = make_manager(store, engine)
    create_notes(store, notes_with_vectors(3, 200))
    errors = []
    stop = time.monotonic() + 1.5

    def searcher():
        try:
            while time.monotonic() < stop:
                im.fulltext_search("note_t", "w1 w2 w3", 0, 5)
                im.vector_search("note_e", [0.0, 1.0], 5, [("ts", ">=", 10)])
        except Exception as exc:   # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=searcher) for _ in range(4)]
    for t in threads:
        t.start()
    while time.monotonic() < stop:
        create_notes(store, notes_with_vectors(int(time.monotonic() * 1000) % 1000, 5))
    for t in threads:
        t.join()
    assert errors == []
    assert im.await_indexes(30)    # both indexes caught up with the last commit, then they hold the same notes
    assert len(im.get("note_t").impl) == len(im.get("note_e").impl)
    im.close()


def test_unreadable_files_are_rebuilt(tmp_path, engine):
    db, idx = str(tmp_path / "db"), tmp_path / "idx"
    store = GraphStore.open(db)
    create_notes(store, notes_with_vectors(2, 200))
    im = make_manager(store, engine, str(idx))
    assert im.await_indexes(30)
    before = results(im, ["w1 w2", "w4"])
    im.close()
    store.close()
    for folder in idx.iterdir():
        for name in ("corpus.msgpack", "rows.pickle"):
            if (folder / name).exists():
                (folder / name).write_bytes(b"\x00garbage")
    store = GraphStore.open(db)
    im = IndexManager(store, str(idx), default_fulltext_engine=engine)
    assert im.await_indexes(30)
    assert not any(im.get(n).loaded_from_files for n in ("note_t", "note_e"))
    assert results(im, ["w1 w2", "w4"]) == before
    im.close()
    store.close()
