"""Bolt's opening handshake, sans I/O.

The client sends ``MAGIC`` and four 4-byte slots ``[0, range, minor, major]``: a slot accepts
``major.minor`` down to ``major.(minor - range)``. The server answers the chosen version as
``[0, 0, minor, major]`` (four zeros: none, and closes). A slot ``00 00 01 FF`` asks for manifest v1:
the server answers ``00 00 01 FF``, a varint count, its offered slots and a varint of capabilities;
the client then sends its pick ``[0, 0, minor, major]`` and a varint of the capabilities it wants.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

MAGIC = b"\x60\x60\xB0\x17"
CLIENT_HANDSHAKE_SIZE = 20
MANIFEST_V1 = b"\x00\x00\x01\xFF"
NO_VERSION = b"\x00\x00\x00\x00"
MAX_VARINT_BYTES = 10


class BoltVersion(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


# Versions this server speaks, newest first: Bolt 6.0 (vectors) and 5.0-5.8.
SUPPORTED = (BoltVersion(6, 0), *(BoltVersion(5, minor) for minor in range(8, -1, -1)), BoltVersion(4, 4))


class BoltHandshakeError(Exception):
    """Not a Bolt client, no common version, or a malformed manifest answer."""


class Slot(NamedTuple):
    major: int
    minor: int
    range: int

    def versions(self) -> list[BoltVersion]:
        return [BoltVersion(self.major, minor) for minor in range(self.minor, max(self.minor - self.range, 0) - 1, -1)]


def parse_client_handshake(data: bytes) -> list[bytes]:
    """The four proposal slots (raw 4-byte values) after checking the magic bytes."""
    if len(data) != CLIENT_HANDSHAKE_SIZE or data[:4] != MAGIC:
        raise BoltHandshakeError("not a Bolt client: bad magic bytes")
    return [bytes(data[i:i + 4]) for i in range(4, 20, 4)]


def _slot(raw: bytes) -> Slot:
    return Slot(major=raw[3], minor=raw[2], range=raw[1])


def wants_manifest(slots: list[bytes]) -> bool:
    return MANIFEST_V1 in slots


def choose_version(slots: list[bytes], supported: Iterable[BoltVersion] = SUPPORTED) -> BoltVersion | None:
    """Legacy negotiation: the first slot (in the client's order) naming a version we speak, at the
    highest version of its range that we speak."""
    ours = set(supported)
    for raw in slots:
        if raw == MANIFEST_V1 or raw == NO_VERSION:
            continue
        for version in _slot(raw).versions():
            if version in ours:
                return version
    return None


def version_bytes(version: BoltVersion | None) -> bytes:
    return NO_VERSION if version is None else bytes((0, 0, version.minor, version.major))


def encode_varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def decode_varint(data: bytes, pos: int = 0) -> tuple[int, int] | None:
    """(value, next position), or None when more bytes are needed; error past 10 bytes."""
    value = shift = 0
    for i in range(pos, len(data)):
        if i - pos >= MAX_VARINT_BYTES:
            raise BoltHandshakeError("varint longer than 10 bytes")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i + 1
    if len(data) - pos >= MAX_VARINT_BYTES:
        raise BoltHandshakeError("varint longer than 10 bytes")
    return None


def _offer_slots(supported: Iterable[BoltVersion]) -> list[Slot]:
    """Our versions as few slots as possible (runs of consecutive minors of one major)."""
    slots: list[Slot] = []
    for version in sorted(supported, reverse=True):
        last = slots[-1] if slots else None
        if last and last.major == version.major and last.minor - last.range - 1 == version.minor:
            slots[-1] = Slot(last.major, last.minor, last.range + 1)
        else:
            slots.append(Slot(version.major, version.minor, 0))
    return slots


def manifest_offer(supported: Iterable[BoltVersion] = SUPPORTED, capabilities: int = 0) -> bytes:
    """The server's manifest-v1 answer: marker, count, slots, capabilities."""
    slots = _offer_slots(supported)
    return (MANIFEST_V1 + encode_varint(len(slots))
            + b"".join(bytes((0, s.range, s.minor, s.major)) for s in slots) + encode_varint(capabilities))


def parse_manifest_choice(data: bytes, supported: Iterable[BoltVersion] = SUPPORTED) -> tuple[BoltVersion, int, int] | None:
    """The client's pick after a manifest offer: (version, capabilities, bytes used), None when
    incomplete. A version we did not offer raises BoltHandshakeError."""
    if len(data) < 5:
        return None
    decoded = decode_varint(data, 4)
    if decoded is None:
        return None
    capabilities, used = decoded
    version = BoltVersion(data[3], data[2])
    if data[:2] != b"\x00\x00" or version not in set(supported):
        raise BoltHandshakeError(f"the client chose version {version}, which was not offered")
    return version, capabilities, used


def client_handshake(slots: list[bytes]) -> bytes:
    """A client's opening bytes (used by tests and the benchmark)."""
    slots = list(slots)[:4] + [NO_VERSION] * (4 - len(slots))
    return MAGIC + b"".join(slots)
