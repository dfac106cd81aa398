"""PackStream v1: the spec's encodings byte for byte, round trips, and bounded decoding of hostile bytes."""
import pytest

from relate.protocol.bolt.packstream import MAX_DEPTH, Packer, PackStreamError, Structure, Unpacker

pack = Packer().pack
unpack = Unpacker().unpack

# Examples from the PackStream v1 specification (value, hex).
SPEC = [
    (None, "C0"), (True, "C3"), (False, "C2"),
    (1, "01"), (42, "2A"), (-16, "F0"), (127, "7F"), (-17, "C8 EF"), (-128, "C8 80"), (128, "C9 00 80"),
    (-129, "C9 FF 7F"), (32768, "CA 00 00 80 00"), (2147483648, "CB 00 00 00 00 80 00 00 00"),
    (1.1, "C1 3F F1 99 99 99 99 99 9A"), (-1.1, "C1 BF F1 99 99 99 99 99 9A"),
    ("", "80"), ("A", "81 41"), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                   "D0 1A 41 42 43 44 45 46 47 48 49 4A 4B 4C 4D 4E 4F 50 51 52 53 54 55 56 57 58 59 5A"),
    ("Größenmaßstäbe", "D0 12 47 72 C3 B6 C3 9F 65 6E 6D 61 C3 9F 73 74 C3 A4 62 65"),
    (b"", "CC 00"), (bytes([1, 2, 3]), "CC 03 01 02 03"),
    ([], "90"), ([1, 2, 3], "93 01 02 03"), ({}, "A0"), ({"one": "eins"}, "A1 83 6F 6E 65 84 65 69 6E 73"),
    (Structure(b"N", [1, ["L"], {}, "n:1"]), "B4 4E 01 91 81 4C A0 83 6E 3A 31"),
]


@pytest.mark.parametrize("value,hexed", SPEC)
def test_spec_examples_encode_and_decode(value, hexed):
    data = bytes.fromhex(hexed)
    assert pack(value) == data
    assert unpack(data) == value


def test_sizes_pick_the_smallest_header():
    assert pack("x" * 15)[0] == 0x8F
    assert pack("x" * 16)[:2] == b"\xD0\x10"
    assert pack("x" * 256)[:3] == b"\xD1\x01\x00"
    assert pack(list(range(16)))[:2] == b"\xD4\x10"
    assert pack({str(i): i for i in range(16)})[:2] == b"\xD8\x10"
    big = pack("x" * 70000)
    assert big[:5] == b"\xD2\x00\x01\x11\x70" and unpack(big) == "x" * 70000


def test_round_trip_of_nested_values():
    value = {"a": [1, -2 ** 63, 2 ** 63 - 1, 0.5, None, True, {"b": ["c", b"\x00\xff"]}], "e": {}}
    assert unpack(pack(value)) == value


def test_values_packstream_cannot_carry_are_refused():
    with pytest.raises(PackStreamError):
        pack(2 ** 63)
    with pytest.raises(PackStreamError):
        pack({1: "x"})
    with pytest.raises(PackStreamError):
        pack(object())
    with pytest.raises(PackStreamError):
        pack(Structure(b"X", list(range(16))))


def test_dehydrate_hook_turns_unknown_types_into_structures():
    class Point:
        pass
    packer = Packer(dehydrate=lambda v: Structure(b"X", [7203, 1.0, 2.0]))
    assert Unpacker().unpack(packer.pack([Point()])) == [Structure(b"X", [7203, 1.0, 2.0])]


def test_hydrate_hook_sees_every_structure():
    data = pack([Structure(b"D", [19000]), {"k": Structure(b"E", [1, 2, 3, 4])}])
    seen = Unpacker(hydrate=lambda s: (chr(s.tag), s.fields)).unpack(data)
    assert seen == [("D", [19000]), {"k": ("E", [1, 2, 3, 4])}]


@pytest.mark.parametrize("hexed,why", [
    ("", "empty"), ("C1 00 00", "truncated float"), ("CB 00 00", "truncated int"), ("D0 05 41", "short string"),
    ("83 C3 28 41", "invalid UTF-8"), ("C7", "unknown marker"), ("E0", "reserved marker"),
    ("A1 01 01", "integer map key"), ("D6 7F FF FF FF", "list claiming 2^31 items"),
    ("DA 00 10 00 00 80", "map claiming more entries than bytes"), ("CE 7F FF FF FF", "bytes past the end"),
    ("01 02", "trailing bytes"),
])
def test_hostile_bytes_raise_typed_errors(hexed, why):
    with pytest.raises(PackStreamError):
        unpack(bytes.fromhex(hexed))


def test_nesting_is_bounded_without_recursion_errors():
    ok = b"\x91" * (MAX_DEPTH - 1) + b"\x90"
    assert unpack(ok) is not None
    with pytest.raises(PackStreamError, match="nested"):
        unpack(b"\x91" * 100_000 + b"\x90")
    with pytest.raises(PackStreamError, match="nested"):
        pack(_deep(MAX_DEPTH + 5))


def _deep(n):
    value = []
    for _ in range(n):
        value = [value]
    return value


def test_unpack_message_reads_one_structure():
    with pytest.raises(PackStreamError, match="truncated"):
        Unpacker().unpack_message(bytes.fromhex("B1 10"))      # one field announced, none sent
    run = Unpacker().unpack_message(pack(Structure(b"\x10", ["RETURN 1", {}, {}])))
    assert (run.tag, run.fields) == (0x10, ["RETURN 1", {}, {}])
    with pytest.raises(PackStreamError):
        Unpacker().unpack_message(pack([1]))
    with pytest.raises(PackStreamError):
        Unpacker().unpack_message(pack(Structure(b"\x10", ["x"])) + b"\x00")
