"""Entities created without properties share one empty dict; writing to one never reaches another."""
from __future__ import annotations

from relate.server.storage import GraphStore
from relate.server.storage.versions import EMPTY_PROPS


def test_a_property_set_on_a_bare_entity_stays_on_it(tmp_path):
    store = GraphStore.open(str(tmp_path / "db"))
    tx = store.begin_write()
    a, b = tx.create_node(["A"], {}), tx.create_node(["A"])
    r, s = tx.create_rel("T", a, b, {}), tx.create_rel("T", b, a, {"gone": None})
    tx.set_node_prop(a, "x", 1)                  # in the transaction that created them
    tx.set_rel_prop(r, "w", 2)
    tx.commit()
    with store.begin_read() as rd:
        assert rd.node_props(a) == {"x": 1} and rd.node_props(b) == {}
        assert rd.rel_props(r) == {"w": 2} and rd.rel_props(s) == {}
    tx = store.begin_write()
    tx.set_node_prop(b, "y", 3)                  # a later transaction, then rolled back
    tx.set_rel_prop(s, "v", 4)
    tx.rollback()
    assert EMPTY_PROPS == {}
    assert store._nodes[b].props is EMPTY_PROPS and store._rels[s].props is EMPTY_PROPS
    store.close()
    store = GraphStore.open(str(tmp_path / "db"))   # reopened from the snapshot
    with store.begin_read() as rd:
        assert rd.node_props(b) == {} and rd.rel_props(s) == {} and rd.rel_props(r) == {"w": 2}
    assert store._nodes[b].props is EMPTY_PROPS and store._rels[s].props is EMPTY_PROPS
    tx = store.begin_write()
    tx.set_rel_prop(s, "v", 5)
    tx.commit()
    with store.begin_read() as rd:
        assert rd.rel_props(s) == {"v": 5} and rd.node_props(b) == {} and EMPTY_PROPS == {}
    store.close()
