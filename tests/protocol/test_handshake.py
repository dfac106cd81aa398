"""Handshake: magic bytes and version negotiation."""
import pytest

from relate.protocol import handshake as hs
from relate.protocol.handshake import Version


def test_client_handshake_layout():
    data = hs.client_handshake([Version(1, 0), Version(2, 5)])
    assert len(data) == hs.CLIENT_HANDSHAKE_SIZE and data[:4] == b"RLTW"
    assert hs.parse_client_handshake(data) == [Version(1, 0), Version(2, 5)]


def test_bad_magic_is_refused():
    with pytest.raises(hs.HandshakeError):
        hs.parse_client_handshake(b"GET / HTTP/1.1\r\n\r\n\r\n")
    with pytest.raises(hs.HandshakeError):
        hs.parse_client_handshake(b"\x60\x60\xb0\x17" + bytes(16))     # Bolt's preamble


@pytest.mark.parametrize("proposed, chosen", [
    ([Version(1, 0)], Version(1, 0)),
    ([Version(1, 1)], Version(1, 1)),
    ([Version(1, 9)], Version(1, 1)),                 # any minor up to the proposal: ours is 1
    ([Version(7, 0), Version(1, 3)], Version(1, 1)),  # first proposal we speak
    ([Version(7, 0)], None),
    ([], None),
])
def test_version_choice(proposed, chosen):
    assert hs.choose_version(proposed) == chosen
    assert hs.parse_server_response(hs.server_response(chosen)) == chosen
