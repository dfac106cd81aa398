"""Property-index entries: a unique value keeps its one id without a dict; shared values keep them all."""
from __future__ import annotations

from relate.server.storage import GraphStore
from relate.server.storage.indexes import PropertyIndex, order_key


def test_one_id_then_many_then_none():
    index = PropertyIndex("node", "P", "k", 0)
    key = order_key(5)
    index.add(key, 0)                      # id 0: an int that is falsy must still count
    index.add(key, 0)
    assert index.entries[key] == 0 and index.candidates(key) == [0] and index.sorted_keys == [key]
    index.add(key, 9)
    assert index.candidates(key) == [0, 9] and sorted(index.all_candidates()) == [0, 9]
    index.discard(key, 7)
    index.discard(key, 0)
    assert index.entry_pairs() == [(key, 9)] and index.sorted_keys == [key]
    index.discard(key, 9)
    assert index.entries == {} and index.sorted_keys == [] and index.candidates(key) == []
    index.add(order_key("x"), 3)
    index.discard(order_key("x"), 4)       # another id under the key: nothing changes
    assert index.entry_pairs() == [(order_key("x"), 3)]


def test_seeks_and_ranges_find_node_zero_and_shared_values():
    store = GraphStore.open(None)
    tx = store.begin_write()
    tx.create_property_index("node", "P", "v")
    first = tx.create_node(["P"], {"v": 1})
    same = tx.create_node(["P"], {"v": 1})
    other = tx.create_node(["P"], {"v": 2})
    tx.commit()
    assert first == 0
    with store.begin_read() as rd:
        assert sorted(rd.index_seek("node", "P", "v", 1)) == [first, same]
        assert list(rd.index_range("node", "P", "v", 0, True, 5, True)) == [first, same, other]
    tx = store.begin_write()
    tx.set_node_prop(same, "v", 3)
    tx.delete_node(other)
    tx.commit()
    store.begin_write().rollback()         # vacuum drops the stale entries
    with store.begin_read() as rd:
        assert list(rd.index_seek("node", "P", "v", 1)) == [first]
        assert list(rd.index_seek("node", "P", "v", 2)) == []
        assert list(rd.index_range("node", "P", "v", None, True, None, True)) == [first, same]
    index = store._prop_indexes[("node", "P", "v")]
    assert sorted(index.entry_pairs()) == [(order_key(1), first), (order_key(3), same)]
