"""A search-index kind is one module in server/index/providers: the package imports every module in it,
so a new file there is a working kind (DDL, SEARCH, SHOW INDEXES, its procedures) with no other edit.
Shown with a small PREFIX kind written to a temporary folder on the package's path."""
from __future__ import annotations

import sys
import textwrap

import pytest

from relate.server.engine import Database
from relate.server.index import providers
from tests.helpers import rows, run

PREFIX_KIND = '''
"""PREFIX indexes: names starting with a text (a kind written for the discovery test)."""
from relate.server.index.definitions import NODE, IndexDefinition
from relate.server.index.providers import register
from relate.server.index.providers.base import SearchProvider, filter_hits, visible_rows


class PrefixIndex:
    def __init__(self):
        self.names = {}

    def __len__(self):
        return len(self.names)

    def save(self, directory, rw):
        pass

    def load(self, directory):
        pass


class PrefixProvider(SearchProvider):
    kind = "PREFIX"
    index_provider = "prefix-1.0"

    def definition(self, name, entity, tokens, properties, filter_properties, options, defaults):
        return IndexDefinition(name, self.kind, entity, list(tokens), list(properties), [], {})

    def open(self, definition, directory, create):
        return PrefixIndex()

    def apply(self, index, ops):
        prop = index.definition.properties[0]
        for key, state in ops.items():
            value = None if state is None or not index.definition.covers(state.scope) else state.props.get(prop)
            if isinstance(value, str):
                index.impl.names[key] = value
            else:
                index.impl.names.pop(key, None)

    def search(self, index, query, limit, *, skip=0, filters=(), keys=None, accept=None, timeout_s=None,
               **options):
        found = sorted((key, 1.0 / len(text)) for key, text in index.impl.names.items() if text.startswith(query))
        found.sort(key=lambda hit: (-hit[1], hit[0]))
        return filter_hits(found, skip, limit, keys, accept)

    def register_procedures(self, registry):
        registry.register("db.index.prefix.queryNodes", [("indexName", "STRING?"), ("text", "STRING?")],
                          [("node", "NODE?"), ("score", "FLOAT?")],
                          lambda ctx, name, text: visible_rows(
                              ctx, NODE, ctx.db.index_manager.search(name, text, 10, kind="PREFIX", entity=NODE)),
                          description="Nodes whose indexed name starts with a text.")


register(PrefixProvider())
'''


@pytest.fixture
def prefix_kind(tmp_path, monkeypatch):
    (tmp_path / "prefix_kind.py").write_text(textwrap.dedent(PREFIX_KIND))
    monkeypatch.setattr(providers, "__path__", [*providers.__path__, str(tmp_path)])
    assert "prefix_kind" in providers.discover()
    yield
    providers._PROVIDERS.pop("PREFIX", None)
    sys.modules.pop(f"{providers.__name__}.prefix_kind", None)


def test_a_new_module_in_the_providers_package_is_a_working_kind(prefix_kind):
    assert "PREFIX" in providers.kinds()
    db = Database.open(None)
    try:
        run(db, "CREATE PREFIX INDEX names FOR (n:Entity) ON (n.name)")
        run(db, "UNWIND ['Jon Smith', 'Jonathan Smyth', 'Joan', 'Bob'] AS name CREATE (:Entity {name: name})")
        run(db, "CALL db.awaitIndexes(30)")
        assert rows(db, "MATCH (n:Entity) SEARCH n IN (PREFIX INDEX names FOR 'Jon' LIMIT 5) SCORE AS s "
                        "RETURN n.name ORDER BY s DESC") == [("Jon Smith",), ("Jonathan Smyth",)]
        assert rows(db, "CALL db.index.prefix.queryNodes('names', 'Jo') YIELD node RETURN node.name ORDER BY "
                        "node.name") == [("Joan",), ("Jon Smith",), ("Jonathan Smyth",)]
        assert rows(db, "SHOW INDEXES YIELD name, type, indexProvider WHERE type = 'PREFIX' "
                        "RETURN name, indexProvider") == [("names", "prefix-1.0")]
    finally:
        db.close()
