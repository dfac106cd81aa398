"""The native msgpack decoder (server side, strict) and the Bolt PackStream decoder refuse the same
hostile shapes in a RUN's parameters, each with a typed protocol violation; too deep is fatal in both."""
import msgpack
import pytest

from relate.protocol import ProtocolViolation, frame
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from relate.protocol.bolt.connection import BoltServerConnection
from relate.protocol.bolt.handshake import BoltVersion
from relate.protocol.bolt.packstream import Packer, Unpacker
from relate.protocol.connection import ServerConnection
from relate.server.net.bolt_values import dehydrator, hydrator

BOLT = BoltVersion(5, 4)

# (native msgpack bytes, Bolt PackStream bytes) of one parameter map
HOSTILE = {
    "too deep": (b"\x81\xa1p" + b"\x91" * 300 + b"\x90", b"\xA1\x81p" + b"\x91" * 300 + b"\x90"),
    "list longer than the message": (b"\x81\xa1p\xdd\x7f\xff\xff\xff", b"\xA1\x81p\xD6\x7f\xff\xff\xff"),
    "string longer than the message": (b"\x81\xa1p\xdb\x7f\xff\xff\xff", b"\xA1\x81p\xD2\x7f\xff\xff\xff"),
    "map key not a string": (b"\x81\xa1p\x81\x01\x01", b"\xA1\x81p\xA1\x01\x01"),
    "unknown structure": (b"\x81\xa1p" + msgpack.packb(msgpack.ExtType(77, msgpack.packb([1]))),
                          b"\xA1\x81p\xB1\x77\x01"),
    "invalid UTF-8": (b"\x81\xa1p\xa2\xff\xfe", b"\xA1\x81p\x82\xff\xfe"),
    "truncated": (b"\x81\xa1p\x92\x01", b"\xA1\x81p\x92\x01"),
}


def native_events(params: bytes) -> list:
    connection = ServerConnection()
    connection.receive_data(hs.client_handshake())
    payload = b"\x94" + msgpack.packb(m.RUN) + msgpack.packb("RETURN $p") + params + b"\x80"
    return connection.receive_data(frame(payload))


def bolt_events(params: bytes) -> list:
    connection = BoltServerConnection(Packer(dehydrator(BOLT)), Unpacker(hydrator(BOLT)))
    return connection.receive_data(frame(b"\xB3\x10\x89RETURN $p" + params + b"\xA0"))


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_both_decoders_refuse_the_same_shapes(shape):
    native, bolt = HOSTILE[shape]
    (a,), (b,) = native_events(native), bolt_events(bolt)
    assert isinstance(a, ProtocolViolation) and isinstance(b, ProtocolViolation), (a, b)
    assert a.code.startswith("Neo.ClientError.") and b.code.startswith("Neo.ClientError.")
    assert a.fatal == b.fatal == (shape == "too deep")


def test_nesting_just_within_the_limit_is_accepted_by_both():
    (a,), (b,) = native_events(b"\x81\xa1p" + b"\x91" * 250 + b"\x90"), \
        bolt_events(b"\xA1\x81p" + b"\x91" * 250 + b"\x90")
    assert isinstance(a, m.Run) and isinstance(b, m.Run)


def test_a_repeated_map_key_keeps_its_last_value_in_both():
    (a,), (b,) = native_events(b"\x82\xa1p\x01\xa1p\x02"), bolt_events(b"\xA2\x81p\x01\x81p\x02")
    assert a.params == b.params == {"p": 2}
