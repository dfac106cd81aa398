"""vector.similarity.cosine / euclidean over every row against one query list convert that list once per
statement (kept by identity in the statement's memo) and take norms as np.linalg.norm does: the scores
equal the function's answer computed alone, per row, for random vectors, zero vectors and mixed int/float
lists; a list that is not all numbers is still refused."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relate.errors import RelateError
from relate.server.query.exec.functions.vector import similarity_cosine, similarity_euclidean
from tests.helpers import rows, run

coordinates = st.lists(st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False)), min_size=16, max_size=16)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(coordinates, min_size=1, max_size=6), query=coordinates)
def test_scores_per_row_equal_the_function_alone(db, stored, query):
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "UNWIND range(0, size($e) - 1) AS i CREATE (:D {i: i, e: $e[i]})", {"e": stored})
    got = rows(db, "MATCH (d:D) RETURN d.i, vector.similarity.cosine(d.e, $v), vector.similarity.euclidean($v, d.e) "
                   "ORDER BY d.i", {"v": query})
    for i, cos, euclid in got:
        assert cos == similarity_cosine(None, stored[i], query)
        assert euclid == similarity_euclidean(None, query, stored[i])
        x, y = np.asarray(stored[i], dtype=float), np.asarray(query, dtype=float)
        norms = float(np.linalg.norm(x)) * float(np.linalg.norm(y))
        if norms:
            assert math.isclose(cos, (1 + max(-1.0, min(1.0, float(np.dot(x, y)) / norms))) / 2, rel_tol=0, abs_tol=0)


def test_a_list_of_other_things_is_refused_on_every_row(db):
    run(db, "UNWIND range(1, 3) AS i CREATE (:D {e: [1.0, 2.0] + [x IN range(1, 14) | toFloat(x)]})")
    with pytest.raises(RelateError):
        rows(db, "MATCH (d:D) RETURN vector.similarity.cosine(d.e, $v)", {"v": ["a"] * 16})
    with pytest.raises(RelateError):
        rows(db, "MATCH (d:D) RETURN vector.similarity.cosine(d.e, $v)", {"v": [True] * 16})
