"""Adjacency: the compact form of low-degree nodes behaves like the nested form (order, upgrade, removal)."""
from __future__ import annotations

import pytest

from relate.server.storage import GraphStore
from relate.server.storage.adjacency import SMALL, add, as_dict, pairs, remove, typed_pairs


def nested_reference(triples):
    """What ``{type: {rid: other}}`` lists for ``types=None``: types in first-seen order, then rids."""
    grouped: dict = {}
    for rel_type, rid, other in triples:
        grouped.setdefault(rel_type, {})[rid] = other
    return [(rid, other) for group in grouped.values() for rid, other in group.items()]


@pytest.mark.parametrize("count", [1, 2, SMALL, SMALL + 1, 3 * SMALL])
def test_both_forms_list_the_same_pairs_in_the_same_order(count):
    adjacency: dict = {}
    triples = [("AB"[i % 3 == 0], i, 100 + i) for i in range(count)]
    for rel_type, rid, other in triples:
        add(adjacency, 7, rel_type, rid, other)
    entry = adjacency[7]
    assert isinstance(entry, tuple) == (count <= SMALL)
    assert pairs(entry, None) == nested_reference(triples)
    assert typed_pairs(entry, "A") == [(r, o) for t, r, o in triples if t == "A"]
    assert pairs(entry, ("B", "A", "B")) == typed_pairs(entry, "B") + typed_pairs(entry, "A")
    assert typed_pairs(entry, "C") == [] and pairs(None, None) == []
    assert as_dict(entry) == {t: dict(typed_pairs(entry, t)) for t in ("A", "B") if typed_pairs(entry, t)}
    for rel_type, rid, _ in triples:
        remove(adjacency, 7, rel_type, rid)
        remove(adjacency, 7, rel_type, rid)           # twice: a no-op
    assert 7 not in adjacency


def test_a_hub_past_the_small_form_expands_and_vacuums_through_the_store():
    store = GraphStore.open(None)
    tx = store.begin_write()
    hub = tx.create_node(["H"], {})
    leaves = [tx.create_node(["L"], {}) for _ in range(SMALL + 3)]
    rels = [tx.create_rel("T" if i % 2 else "U", hub, leaf, {}) for i, leaf in enumerate(leaves)]
    tx.commit()
    with store.begin_read() as rd:
        assert sorted(rd.expand(hub, "out")) == sorted(zip(rels, leaves))
        assert [other for _, other in rd.expand(leaves[0], "in", ("U",))] == [hub]
        assert len(rd.expand_rel_ids(hub, "out", ("T",), end_label="L")) == (SMALL + 3) // 2
    tx = store.begin_write()
    for rid in rels[1:]:
        tx.delete_rel(rid)
    tx.commit()
    store.begin_write().rollback()                    # vacuum runs at begin_write
    with store.begin_read() as rd:
        assert list(rd.expand(hub, "both")) == [(rels[0], leaves[0])]
    assert all(leaf not in store._in for leaf in leaves[1:])


@pytest.mark.parametrize("count", [3, SMALL + 2])
def test_adding_a_known_rid_again_replaces_its_other_end_in_place(count):
    adjacency: dict = {}
    for rid in range(count):
        add(adjacency, 1, "T", rid, 100 + rid)
    add(adjacency, 1, "T", 1, 999)
    assert pairs(adjacency[1], None) == [(0, 100), (1, 999)] + [(r, 100 + r) for r in range(2, count)]
