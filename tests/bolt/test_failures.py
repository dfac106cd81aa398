"""FAILURE metadata as the official driver hydrates it: each Relate error becomes the driver's own
class (TransientError is retryable), in the GQL form (Bolt 5.7+) and the older code/message form."""
import pytest
from neo4j import exceptions

from relate import errors
from relate.protocol.bolt.handshake import BoltVersion
from relate.server.net.bolt_output import failure_metadata

CASES = [
    (errors.CypherSyntaxError("Invalid input 'x'", line=1, column=8, excerpt="RETURN x x\n         ^"),
     exceptions.CypherSyntaxError, False),
    (errors.ConstraintValidationFailed("Node(1) already exists with label `User`"), exceptions.ConstraintError, False),
    (errors.AuthenticationError("The client is unauthorized due to authentication failure."),
     exceptions.AuthError, False),
    (errors.TransientError("writer busy", code="Neo.TransientError.Transaction.LockAcquisitionTimeout"),
     exceptions.TransientError, True),
    (errors.ServiceUnavailable("closing"), exceptions.TransientError, True),
    (errors.DatabaseError("disk full"), exceptions.DatabaseError, False),
]


@pytest.mark.parametrize("error,driver_class,retryable", CASES, ids=lambda v: type(v).__name__)
def test_driver_classes_from_gql_failures(error, driver_class, retryable):
    meta = failure_metadata(error.to_metadata(), BoltVersion(6, 0))
    hydrated = exceptions.Neo4jError._hydrate_gql(**meta)
    assert isinstance(hydrated, driver_class)
    assert hydrated.code == error.code and hydrated.is_retryable() is retryable
    assert hydrated.gql_status != "50N42" or driver_class is exceptions.DatabaseError
    if error.excerpt:
        assert error.excerpt in hydrated.message          # the caret line travels with the message


@pytest.mark.parametrize("error,driver_class,retryable", CASES, ids=lambda v: type(v).__name__)
def test_driver_classes_from_pre_gql_failures(error, driver_class, retryable):
    meta = failure_metadata(error.to_metadata(), BoltVersion(5, 6))
    assert set(meta) == {"code", "message"}
    hydrated = exceptions.Neo4jError._hydrate_neo4j(**meta)
    assert isinstance(hydrated, driver_class) and hydrated.is_retryable() is retryable
