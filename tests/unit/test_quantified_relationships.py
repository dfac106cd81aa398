"""Neo4j 5 pattern syntax: quantified relationships (-[:T]->{1,3}, +, *) and GQL path selectors
(SHORTEST 1, ANY SHORTEST, ALL SHORTEST, SHORTEST 1 GROUPS, ANY), as the variable-length and shortest-path
patterns they mean."""
from __future__ import annotations

import pytest

from relate.errors import CypherSyntaxError
from tests.helpers import rows

CHAIN = ("CREATE (a:P {name: 'a'})-[:K]->(b:P {name: 'b'})-[:K]->(c:P {name: 'c'})-[:K]->(d:P {name: 'd'}), "
         "(a)-[:K]->(d)")


@pytest.fixture
def chain(db):
    rows(db, CHAIN)
    return db


def names(db, text):
    return sorted(r[0] for r in rows(db, text))


@pytest.mark.parametrize("quantified, legacy", [
    ("-[:K]->{1,2}", "-[:K*1..2]->"), ("-[:K]->{2}", "-[:K*2]->"), ("-[:K]->+", "-[:K*1..]->"),
    ("-[:K]->*", "-[:K*0..]->"), ("-[:K]->{,2}", "-[:K*0..2]->"), ("-[:K]->{2,}", "-[:K*2..]->"),
    ("<-[:K]-{1,3}", "<-[:K*1..3]-"), ("-[:K]-{1,2}", "-[:K*1..2]-"), ("-->{1,2}", "-[*1..2]->"),
])
def test_quantified_relationships_match_as_variable_length(chain, quantified, legacy):
    assert names(chain, f"MATCH (:P {{name: 'b'}}){quantified}(z) RETURN z.name") == \
        names(chain, f"MATCH (:P {{name: 'b'}}){legacy}(z) RETURN z.name")
    assert names(chain, f"MATCH (:P {{name: 'a'}}){quantified}(z) RETURN z.name") == \
        names(chain, f"MATCH (:P {{name: 'a'}}){legacy}(z) RETURN z.name")


def test_a_quantified_relationship_variable_is_a_list(chain):
    assert rows(chain, "MATCH (:P {name: 'a'})-[r:K]->{2}(z) RETURN z.name, size(r)") == [("c", 2)]


def test_path_selectors(chain):
    assert rows(chain, "MATCH p = SHORTEST 1 (a:P {name: 'a'})-[:K]->+(z:P {name: 'd'}) RETURN length(p)") == [(1,)]
    assert rows(chain, "MATCH p = ANY SHORTEST (a:P {name: 'a'})-[:K]-+(z:P {name: 'c'}) RETURN length(p)") == [(2,)]
    assert rows(chain, "MATCH p = ALL SHORTEST (a:P {name: 'a'})-[:K]-+(z:P {name: 'c'}) "
                       "RETURN length(p), count(*)") == [(2, 2)]
    assert rows(chain, "MATCH p = SHORTEST 1 GROUPS (a:P {name: 'a'})-[:K]-+(z:P {name: 'c'}) "
                       "RETURN count(*)") == [(2,)]
    assert rows(chain, "MATCH p = ANY (a:P {name: 'a'})-[:K]->+(z:P {name: 'd'}) RETURN count(*)") == [(1,)]


@pytest.mark.parametrize("query, message", [
    ("MATCH (a)-[:K*1..2]->{1,2}(z) RETURN z", "cannot also have a variable length"),
    ("MATCH (a)-[:K]->{3,1}(z) RETURN z", "below its lower bound"),
    ("MATCH p = SHORTEST 0 (a)-[:K]->+(z) RETURN p", "at least 1"),
    ("MATCH p = SHORTEST 0 GROUPS (a)-[:K]->+(z) RETURN p", "at least 1"),
])
def test_unsupported_or_invalid_forms_are_syntax_errors(chain, query, message):
    with pytest.raises(CypherSyntaxError, match=message):
        rows(chain, query)


def test_the_new_words_stay_usable_as_names(db):
    assert rows(db, "WITH 1 AS shortest, 2 AS groups RETURN shortest + groups") == [(3,)]


@pytest.mark.parametrize("query", [
    "MATCH (a)-[*99999999999999999999]->(b) RETURN b",
    "MATCH (a)-[:K*1..99999999999999999999]->(b) RETURN b",
    "MATCH (a)-[:K]->{99999999999999999999}(b) RETURN b",
    "MATCH p = SHORTEST 99999999999999999999999 (a)-[:K]->+(b) RETURN p",
])
def test_counts_past_64_bits_are_syntax_errors_not_unbounded(chain, query):
    with pytest.raises(CypherSyntaxError, match="too large"):
        rows(chain, query)
