"""Hostile bytes on the wire against a real server: the connection is refused or closed with a typed
FAILURE, the server stays up and keeps serving other clients."""
import msgpack

import relate
from relate.protocol import frame
from relate.protocol import messages as m
from tests.security.conftest import AUTH
from tests.security.test_bounded_decoding import nested_ext, nested_list
from tests.server.raw_client import RawClient


def assert_serving(server):
    assert server.alive(), server.log()
    with relate.connect(server.url, auth=AUTH) as conn:
        assert conn.execute("RETURN 1 AS x").fetchall()[0][0] == 1


def test_deeply_nested_ext_hello_is_refused_and_the_server_survives(server):
    client = RawClient(server.port)
    assert client.handshake() is not None
    hello = msgpack.packb([m.HELLO, {"user_agent": msgpack.ExtType(99, nested_ext(200))}])
    assert len(hello) < 2000
    client.send_bytes(frame(hello))
    reply = client.recv()
    assert isinstance(reply, m.Failure)
    assert reply.metadata["code"] == "Neo.ClientError.Request.Invalid"
    assert client.recv() is None           # closed cleanly
    assert_serving(server)


def test_deep_lists_in_parameters_after_login_close_the_connection(server):
    client = RawClient(server.port)
    hello, logon = client.login(*AUTH)
    assert isinstance(logon, m.Success)
    run = msgpack.packb([m.RUN, "RETURN $p", {"p": msgpack.unpackb(nested_list(500))}, {}])
    client.send_bytes(frame(run))
    reply = client.recv()
    assert isinstance(reply, m.Failure) and "nested" in reply.metadata["message"]
    assert client.recv() is None
    assert_serving(server)
