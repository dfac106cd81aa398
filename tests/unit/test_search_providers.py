"""The search-provider registry and the placement seam of the IndexManager (docs/architecture.md)."""
from __future__ import annotations

import pytest

from relate.protocol.errors import ArgumentError, CypherSemanticError
from relate.server.index import IndexManager
from relate.server.index.manager import local_placement
from relate.server.index.providers import get_provider, is_search_kind, kinds, register
from relate.server.index.providers.vector import VectorProvider
from relate.server.storage import GraphStore
from tests.helpers import rows, run


def test_the_built_in_kinds_are_providers():
    assert kinds() == ["FULLTEXT", "TRIGRAM", "VECTOR"]
    assert get_provider("vector").index_provider == "vector-2.0" and is_search_kind("Trigram")
    assert get_provider("FULLTEXT").skip_allowed and not get_provider("TRIGRAM").skip_allowed
    with pytest.raises(ArgumentError, match="known kinds: FULLTEXT, TRIGRAM, VECTOR"):
        get_provider("SPATIAL")
    with pytest.raises(ValueError):
        register(VectorProvider())            # a kind registers once


def test_show_procedures_lists_each_kinds_procedures(db):
    names = {r[0] for r in rows(db, "SHOW PROCEDURES YIELD name, description WHERE name STARTS WITH 'db.index' "
                                    "AND description <> '' RETURN name")}
    assert {"db.index.vector.queryNodes", "db.index.fulltext.queryNodes", "db.index.trigram.queryNodes"} <= names


def test_a_placement_builds_every_live_index_and_serves_its_searches():
    """A placement (here: the local one, observed) decides where each live index runs; the manager
    only talks to what it returns, for DDL, commits, searches, SHOW INDEXES and DROP."""
    placed, searches = [], []

    def observed(definition, store, directory, build_threads):
        index = local_placement(definition, store, directory, build_threads)
        placed.append(definition.name)
        search = index.search

        def counted(query, limit, **options):
            searches.append(definition.name)
            return search(query, limit, **options)
        index.search = counted
        return index

    store = GraphStore.open(None)
    manager = IndexManager(store, None, placement=observed)
    try:
        manager.create_index("TRIGRAM", "names", "node", ["P"], ["name"])
        manager.create_index("VECTOR", "emb", "node", ["P"], ["v"],
                             options={"indexConfig": {"vector.dimensions": 2}})
        tx = store.begin_write()
        ada = tx.create_node(["P"], {"name": "Ada Lovelace", "v": [1.0, 0.0]})
        tx.create_node(["P"], {"name": "Alan Turing", "v": [0.0, 1.0]})
        tx.commit()
        assert placed == ["names", "emb"]
        assert manager.search("names", "ada lovelace", 1)[0] == (ada, 1.0)
        assert manager.vector_search("emb", [1.0, 0.1], 1)[0][0] == ada
        assert manager.vector_search_many("emb", [[1.0, 0.0], [0.0, 1.0]], 1)[0][0][0] == ada
        assert searches == ["names", "emb", "emb"]
        assert {r["name"]: r["size"] for r in manager.list()} == {"names": 2, "emb": 2}
        manager.drop("names")
        assert manager.names() == ["emb"]
    finally:
        manager.close()
        store.close()


def test_search_kind_mismatch_is_a_semantic_error(db):
    run(db, "CREATE TRIGRAM INDEX names FOR (n:P) ON (n.name)")
    with pytest.raises(CypherSemanticError, match="is a TRIGRAM index, not a FULLTEXT index"):
        rows(db, "MATCH (n:P) SEARCH n IN (FULLTEXT INDEX names FOR 'x' LIMIT 1) RETURN n")
