"""The opening handshake: magic bytes plus up to four proposed versions; the server picks one.

Client sends 20 bytes: ``MAGIC`` then four (major, minor) pairs as big-endian uint16s, in order of
preference, unused slots zero. A proposal (major, minor) accepts any minor up to ``minor``. The server
answers 4 bytes, the agreed (major, minor), or four zero bytes (no common version) and closes.
"""
from __future__ import annotations

import struct
from typing import Iterable, NamedTuple

MAGIC = b"RLTW"                 # "Relate wire"; Bolt's 0x6060B017 differs, so one port could sniff both
CLIENT_HANDSHAKE_SIZE = 20
SERVER_RESPONSE_SIZE = 4
_PAIR = struct.Struct(">HH")


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


VERSION = Version(1, 1)          # the newest this side speaks (a proposal of 1.0 is answered 1.0)
BATCHED_RECORDS = Version(1, 1)  # from here a PULL's rows travel as RECORDS batches, not one RECORD each
NO_VERSION = Version(0, 0)


class HandshakeError(Exception):
    """The peer did not open with Relate's magic bytes, or no version is common."""


def client_handshake(versions: Iterable[Version] = (VERSION,)) -> bytes:
    proposals = list(versions)[:4]
    proposals += [NO_VERSION] * (4 - len(proposals))
    return MAGIC + b"".join(_PAIR.pack(*v) for v in proposals)


def parse_client_handshake(data: bytes) -> list[Version]:
    if len(data) != CLIENT_HANDSHAKE_SIZE or data[:4] != MAGIC:
        raise HandshakeError("not a Relate client: bad magic bytes")
    proposals = [Version(*_PAIR.unpack_from(data, 4 + 4 * i)) for i in range(4)]
    return [v for v in proposals if v != NO_VERSION]


def choose_version(proposed: Iterable[Version], supported: Iterable[Version] = (VERSION,)) -> Version | None:
    """The first proposal whose major we speak, at the highest minor both sides know."""
    ours = {v.major: v.minor for v in supported}
    for version in proposed:
        if version.major in ours:
            return Version(version.major, min(version.minor, ours[version.major]))
    return None


def server_response(version: Version | None) -> bytes:
    return _PAIR.pack(*(version or NO_VERSION))


def parse_server_response(data: bytes) -> Version | None:
    if len(data) != SERVER_RESPONSE_SIZE:
        raise HandshakeError("short handshake response")
    version = Version(*_PAIR.unpack(data))
    return None if version == NO_VERSION else version
