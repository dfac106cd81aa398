"""Bolt handshake: legacy four-slot negotiation with ranges, and manifest v1 with varints."""
import pytest

from relate.protocol.bolt import handshake as hs
from relate.protocol.bolt.handshake import BoltVersion

# What neo4j-python-driver 6.x sends: manifest v1, 5.8 down to 5.0, 4.4 down to 4.2, 3.0.
DRIVER_6 = bytes.fromhex("6060B017 000001FF 00080805 00020404 00000003")
DRIVER_5 = bytes.fromhex("6060B017 00080805 00020404 00000104 00000003")


def test_bad_magic_is_refused():
    with pytest.raises(hs.BoltHandshakeError):
        hs.parse_client_handshake(b"RLTW" + bytes(16))
    with pytest.raises(hs.BoltHandshakeError):
        hs.parse_client_handshake(DRIVER_6[:19])


def test_legacy_slots_choose_the_highest_version_of_the_first_matching_range():
    slots = hs.parse_client_handshake(DRIVER_5)
    assert hs.choose_version(slots) == BoltVersion(5, 8)
    assert hs.version_bytes(BoltVersion(5, 8)) == bytes.fromhex("00000805")
    # 5.9 with range 3 covers 5.9..5.6: we pick 5.8; a range over versions we lack gives none.
    assert hs.choose_version([bytes.fromhex("00030905")]) == BoltVersion(5, 8)
    assert hs.choose_version([bytes.fromhex("00020404"), bytes.fromhex("00000003")]) == BoltVersion(4, 4)
    assert hs.choose_version([bytes.fromhex("00010304"), bytes.fromhex("00000003")]) is None     # 4.3, 4.2, 3
    assert hs.version_bytes(None) == bytes(4)
    # The client's order wins over our preference: 5.2 first, then 6.0.
    assert hs.choose_version([bytes.fromhex("00000205"), bytes.fromhex("00000006")]) == BoltVersion(5, 2)


def test_manifest_offer_lists_our_versions_as_ranges():
    slots = hs.parse_client_handshake(DRIVER_6)
    assert hs.wants_manifest(slots)
    offer = hs.manifest_offer()
    # marker, 3 slots (6.0, 5.8 with range 8, 4.4), capabilities 0
    assert offer == bytes.fromhex("000001FF 03 00000006 00080805 00000404 00")


def test_manifest_choice_is_parsed_incrementally_and_checked():
    assert hs.parse_manifest_choice(bytes.fromhex("00000006")) is None
    assert hs.parse_manifest_choice(bytes.fromhex("00000006 00")) == (BoltVersion(6, 0), 0, 5)
    assert hs.parse_manifest_choice(bytes.fromhex("00000805 81")) is None          # varint continues
    assert hs.parse_manifest_choice(bytes.fromhex("00000805 8101")) == (BoltVersion(5, 8), 129, 6)
    assert hs.parse_manifest_choice(bytes.fromhex("00000404 00")) == (BoltVersion(4, 4), 0, 5)
    with pytest.raises(hs.BoltHandshakeError):
        hs.parse_manifest_choice(bytes.fromhex("00000304 00"))                     # never offered
    with pytest.raises(hs.BoltHandshakeError):
        hs.parse_manifest_choice(bytes.fromhex("00000006") + b"\x80" * 11)          # endless varint


@pytest.mark.parametrize("n", [0, 1, 127, 128, 300, 2 ** 35])
def test_varint_round_trip(n):
    encoded = hs.encode_varint(n)
    assert hs.decode_varint(encoded) == (n, len(encoded))
