"""Hostile Bolt sessions for the wire fuzzer: a handshake (manifest or legacy version slots), HELLO,
LOGON, then RUN/PULL/BEGIN/COMMIT/RESET/LOGOFF/ROUTE/TELEMETRY/GOODBYE and unknown tags, with
random PackStream values (deep nesting, unknown structure tags, malformed temporals, huge headers),
the whole byte string then mutated (bit flips, cuts, inserted chunk headers, repeats)."""
from __future__ import annotations

import random

from relate.protocol import frame
from relate.protocol.bolt import handshake as hs
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.packstream import Packer, Structure

_PACKER = Packer()
_LEGACY_SLOTS = ["00080805", "00000005", "00040404", "00000104", "00020404", "00000003"]


def _value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(12 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 2 ** 63 - 1, -2 ** 63, rng.randint(-1000, 1000)])
    if kind == 3:
        return rng.choice([0.5, float("nan"), float("inf"), -0.0])
    if kind == 4:
        return "x" * rng.randint(0, 40)
    if kind == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 12)))
    if kind == 6:          # a structure: a temporal with random fields, a point, a node, unknown tags
        tag = rng.choice([0x44, 0x45, 0x46, 0x49, 0x54, 0x58, 0x59, 0x4E, 0x56, 0x66, rng.randrange(256)])
        return Structure(tag, [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))])
    if kind == 7:
        value: list = []
        for _ in range(rng.choice([2, 100, 300])):
            value = [value]
        return value
    if kind in (8, 9):
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rng.choice(["a", "b", "db", "n", "qid", ""]): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _messages(rng: random.Random, users: list[str], tokens: list[str] | None, password: str) -> list[Structure]:
    if tokens and rng.random() < 0.97:
        auth = {"scheme": "bearer", "credentials": rng.choice(tokens)}
    else:
        auth = {"scheme": "basic", "principal": rng.choice(users), "credentials": password}
    seq = [Structure(bm.HELLO, [{"user_agent": "fuzz/1.0", "bolt_agent": {"product": "fuzz"}}]),
           Structure(bm.LOGON, [auth])]
    for _ in range(rng.randint(0, 6)):
        kind = rng.randrange(11)
        if kind < 3:
            query = rng.choice(["RETURN $p AS p", "UNWIND range(1, 50) AS x RETURN x", "CREATE (:Fz {v: $p})",
                                "MATCH (n:Fz) DELETE n", "RETURN 1 +", "UNWIND range(1, 2000) AS x RETURN count(x)"])
            if rng.random() < 0.01:    # a long statement, cancelled when the client leaves (costly: rare)
                query = "UNWIND range(1, 100000000) AS x RETURN count(x)"
            extra = rng.choice([{}, {"db": "neo4j"}, {"db": "other"}, {"mode": "r"}, {"tx_timeout": 10}])
            seq.append(Structure(bm.RUN, [query, {"p": _value(rng)}, extra]))
            seq.append(Structure(bm.PULL, [{"n": rng.choice([-1, 1, 10]), "qid": -1}]))
        elif kind == 3:
            seq.append(Structure(bm.BEGIN, [rng.choice([{}, {"db": "neo4j"}, {"tx_timeout": 1}])]))
        elif kind == 4:
            seq.append(Structure(bm.COMMIT, []))
        elif kind == 5:
            seq.append(Structure(bm.RESET, []))
        elif kind == 6:
            seq.append(Structure(bm.DISCARD, [{"n": -1}]))
        elif kind == 7:
            seq.append(Structure(bm.ROUTE, [{"address": "x:1"}, [], {"db": _value(rng)}]))
        elif kind == 8:
            seq.append(Structure(rng.choice([bm.TELEMETRY, bm.LOGOFF, bm.ROLLBACK]), [_value(rng)][:rng.randint(0, 1)]))
        elif kind == 9:
            seq.append(Structure(rng.randrange(256), [_value(rng) for _ in range(rng.randint(0, 3))]))
        else:
            seq.append(Structure(bm.GOODBYE, []))
    if rng.random() < 0.3:
        rng.shuffle(seq)
    return seq


def _handshake(rng: random.Random) -> bytes:
    if rng.random() < 0.6:
        # manifest v1: the client's 20 bytes, then (after the server's offer) its choice and capabilities
        opening = hs.client_handshake([hs.MANIFEST_V1, bytes.fromhex("00080805")])
        return opening + bytes.fromhex(rng.choice(["00000006", "00080805", "00000105", "FFFFFFFF"])) + b"\x00"
    slots = [bytes.fromhex(rng.choice(_LEGACY_SLOTS)) for _ in range(rng.randint(1, 4))]
    return hs.client_handshake(slots)


def _mutate(rng: random.Random, data: bytearray) -> bytearray:
    for _ in range(rng.randint(0, 3)):
        if not data:
            break
        op, i = rng.randrange(6), rng.randrange(len(data))
        if op == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2:
            del data[i:i + rng.randint(1, 8)]
        elif op == 3:
            data = data[:i]
        elif op == 4:
            data[i:i] = rng.choice([b"\xff\xff", b"\xD2\x7f\xff\xff\xff", b"\xD6\x7f\xff\xff\xff", b"\x91" * 300])
        else:
            j = rng.randrange(i, len(data)) + 1
            data[i:i] = data[i:j]
    return data


def session_bytes(rng: random.Random, users: list[str], tokens: list[str] | None, password: str) -> bytes:
    payloads = []
    for message in _messages(rng, users, tokens, password):
        try:
            payloads.append(frame(_PACKER.pack(message)))
        except Exception:  # a value even the fuzzer cannot pack: an empty structure of that tag instead
            payloads.append(frame(bytes([0xB0, message.tag])))
    data = bytearray(_handshake(rng) + b"".join(payloads))
    if rng.random() < 0.8:
        data = _mutate(rng, data)
    return bytes(data)
