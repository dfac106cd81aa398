"""Randomized check against a plain-dict model: writes, savepoints, rollbacks, snapshots, reopen."""
import random

import pytest

from relate.server.storage import GraphStore

LABELS = ("A", "B", "C")
TYPES = ("R", "S")


class Model:
    """The expected graph: nodes {id: (labels, props)}, rels {id: (type, start, end, props)}."""

    def __init__(self):
        self.nodes, self.rels = {}, {}

    def copy(self):
        m = Model()
        m.nodes = {k: (set(l), dict(p)) for k, (l, p) in self.nodes.items()}
        m.rels = {k: (t, s, e, dict(p)) for k, (t, s, e, p) in self.rels.items()}
        return m


def random_op(rng, tx, model):
    kind = rng.random()
    nodes, rels = list(model.nodes), list(model.rels)
    if kind < 0.25 or not nodes:
        labels = set(rng.sample(LABELS, rng.randint(0, 2)))
        props = {"v": rng.randint(0, 20)} if rng.random() < 0.8 else {}
        nid = tx.create_node(labels, props)
        model.nodes[nid] = (labels, props)
    elif kind < 0.4:
        s, e = rng.choice(nodes), rng.choice(nodes)
        t = rng.choice(TYPES)
        props = {"w": rng.randint(0, 20)}
        rid = tx.create_rel(t, s, e, props)
        model.rels[rid] = (t, s, e, props)
    elif kind < 0.6:
        nid = rng.choice(nodes)
        value = rng.choice([None, rng.randint(0, 20), rng.random(), "s%d" % rng.randint(0, 5)])
        tx.set_node_prop(nid, "v", value)
        if value is None:
            model.nodes[nid][1].pop("v", None)
        else:
            model.nodes[nid][1]["v"] = value
    elif kind < 0.7:
        nid, label = rng.choice(nodes), rng.choice(LABELS)
        if rng.random() < 0.5:
            tx.add_labels(nid, [label])
            model.nodes[nid][0].add(label)
        else:
            tx.remove_labels(nid, [label])
            model.nodes[nid][0].discard(label)
    elif kind < 0.8 and rels:
        rid = rng.choice(rels)
        value = rng.choice([None, rng.randint(0, 20)])
        tx.set_rel_prop(rid, "w", value)
        if value is None:
            model.rels[rid][3].pop("w", None)
        else:
            model.rels[rid][3]["w"] = value
    elif kind < 0.9 and rels:
        rid = rng.choice(rels)
        tx.delete_rel(rid)
        del model.rels[rid]
    else:
        nid = rng.choice(nodes)
        for rid in [r for r, (t, s, e, p) in model.rels.items() if nid in (s, e)]:
            tx.delete_rel(rid)
            del model.rels[rid]
        tx.delete_node(nid)
        del model.nodes[nid]


def check(rd, model):
    assert sorted(rd.all_nodes()) == sorted(model.nodes)
    assert sorted(rd.all_rels()) == sorted(model.rels)
    assert rd.count_nodes() == len(model.nodes) and rd.count_rels() == len(model.rels)
    for nid, (labels, props) in model.nodes.items():
        assert rd.node_labels(nid) == labels and rd.node_props(nid) == props
    for label in LABELS:
        expect = sorted(n for n, (l, p) in model.nodes.items() if label in l)
        assert sorted(rd.nodes_by_label(label)) == expect
        assert rd.count_nodes(label) == len(expect)
        for value in range(0, 21, 5):
            assert sorted(rd.index_seek("node", label, "v", value)) == sorted(
                n for n in expect if model.nodes[n][1].get("v") == value and type(model.nodes[n][1]["v"]) is int)
        ranged = list(rd.index_range("node", label, "v", 3, True, 12, False))
        want = {n for n in expect if type(model.nodes[n][1].get("v")) in (int, float)
                and 3 <= model.nodes[n][1]["v"] < 12}
        assert set(ranged) == want and len(ranged) == len(want)
        values = [model.nodes[n][1]["v"] for n in ranged]
        assert values == sorted(values)
    for t in TYPES:
        expect = sorted(r for r, v in model.rels.items() if v[0] == t)
        assert sorted(rd.rels_by_type(t)) == expect and rd.count_rels(t) == len(expect)
        for value in (0, 7, 7.0, 20, True, "7"):     # no index: the scan compares the property in place
            assert sorted(rd.index_seek("relationship", t, "w", value)) == sorted(
                r for r in expect if type(value) is not bool and type(value) is not str
                and model.rels[r][3].get("w") == value)
        assert sorted(rd.index_range("relationship", t, "w", 10, True, None, True)) == sorted(
            r for r in expect if model.rels[r][3].get("w", -1) >= 10)
    for nid in model.nodes:
        out = sorted((r, e) for r, (t, s, e, p) in model.rels.items() if s == nid)
        inc = sorted((r, s) for r, (t, s, e, p) in model.rels.items() if e == nid)
        assert sorted(rd.expand(nid, "out")) == out and sorted(rd.expand(nid, "in")) == inc
        both = sorted(set(out) | set(inc))
        assert sorted(rd.expand(nid, "both")) == both


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_workload_matches_model(tmp_path, seed):
    rng = random.Random(seed)
    store = GraphStore.open(str(tmp_path), sync=False, checkpoint_every=7)
    tx = store.begin_write()
    for label in LABELS:
        tx.create_property_index("node", label, "v")
    for t in TYPES:
        tx.create_property_index("relationship", t, "w")
    tx.commit()
    model = Model()
    snapshots = []
    for round_no in range(40):
        tx = store.begin_write()
        work = model.copy()
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.2:
                mark, saved = tx.savepoint(), work.copy()
                for _ in range(rng.randint(1, 5)):
                    random_op(rng, tx, work)
                if rng.random() < 0.6:
                    tx.rollback_to(mark)
                    work = saved
            else:
                random_op(rng, tx, work)
        check(tx, work)
        if rng.random() < 0.2:
            tx.rollback()
        else:
            tx.commit()
            model = work
        if rng.random() < 0.3:
            snapshots.append((store.begin_read(), model.copy()))
        if snapshots and rng.random() < 0.3:
            rd, expected = snapshots.pop(rng.randrange(len(snapshots)))
            check(rd, expected)
            rd.close()
        if round_no % 13 == 12:
            for rd, _ in snapshots:
                rd.close()
            snapshots.clear()
            if rng.random() < 0.5:
                store.close()
            else:                        # like a crash: no final checkpoint, recovery replays the WAL
                thread = store._checkpoint_thread
                if thread is not None and thread.is_alive():
                    thread.join()
                store._wal.close()
                store._unlock_directory()
            store = GraphStore.open(str(tmp_path), sync=False, checkpoint_every=7)
    for rd, expected in snapshots:
        check(rd, expected)
        rd.close()
    with store.begin_read() as rd:
        check(rd, model)
    store.close()
    store = GraphStore.open(str(tmp_path))
    with store.begin_read() as rd:
        check(rd, model)
    store.close()
