"""PackStream v1, Bolt's value encoding: markers for null/bool/int/float/bytes/string/list/map and
Structures (a tag byte plus up to 15 fields). Decoding is bounded by the same limits as the native
msgpack codec: nesting depth (lists, maps and structures together; too deep is fatal, as natively:
``PackStreamTooDeep`` closes the connection), container sizes (never more items than bytes left) and
structure field counts; every other violation is a ``PackStreamError`` (non-fatal: the frame is
skipped, the stream stays in sync). A map with a repeated key keeps its last value, as msgpack does.
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from ..codec import MAX_DEPTH  # nesting of lists, maps and structures in one value (both protocols)
from ..errors import ProtocolViolation

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

_F64 = struct.Struct(">d")
_I8, _I16, _I32, _I64 = struct.Struct(">b"), struct.Struct(">h"), struct.Struct(">i"), struct.Struct(">q")
_U8, _U16, _U32 = struct.Struct(">B"), struct.Struct(">H"), struct.Struct(">I")
_FLOAT_MARKERS = b"\xC1" * 65536


class PackStreamError(ProtocolViolation):
    """Bytes that are not one valid PackStream value, or a value PackStream cannot carry."""
    code = "Neo.ClientError.Request.InvalidFormat"


class PackStreamTooDeep(PackStreamError):
    """A value nested past the limit: refused, and the connection closed (hostile input)."""
    fatal = True


class Structure:
    """A tagged structure before hydration: ``tag`` (one byte, as an int) and its ``fields``."""

    __slots__ = ("tag", "fields")

    def __init__(self, tag: int | bytes, fields: list[Any] | tuple[Any, ...]):
        self.tag = tag[0] if isinstance(tag, (bytes, bytearray)) else tag
        self.fields = list(fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Structure) and (self.tag, self.fields) == (other.tag, other.fields)

    def __repr__(self) -> str:
        return f"Structure({bytes([self.tag])!r}, {self.fields!r})"


Dehydrate = Callable[[Any], Any]      # a value PackStream does not know -> Structure or plain value


# -- encoding -------------------------------------------------------------------------------------

def _int(value: int, out: bytearray) -> None:
    if -16 <= value <= 127:
        out += _I8.pack(value)
    elif -128 <= value <= 127:
        out += b"\xC8" + _I8.pack(value)
    elif -32768 <= value <= 32767:
        out += b"\xC9" + _I16.pack(value)
    elif -2147483648 <= value <= 2147483647:
        out += b"\xCA" + _I32.pack(value)
    elif INT64_MIN <= value <= INT64_MAX:
        out += b"\xCB" + _I64.pack(value)
    else:
        raise PackStreamError(f"integer {value} does not fit in 64 bits")


def _header(size: int, tiny: int | None, markers: tuple[int, int, int], out: bytearray, what: str) -> None:
    if size < 16 and tiny is not None:
        out.append(tiny + size)
    elif size <= 0xFF:
        out.append(markers[0]); out += _U8.pack(size)
    elif size <= 0xFFFF:
        out.append(markers[1]); out += _U16.pack(size)
    elif size <= 0x7FFFFFFF:
        out.append(markers[2]); out += _U32.pack(size)
    else:
        raise PackStreamError(f"{what} too large for PackStream")


class Packer:
    """Encodes values; ``dehydrate`` turns other types into Structures (TypeError if it cannot)."""

    def __init__(self, dehydrate: Dehydrate | None = None):
        self._dehydrate = dehydrate

    def pack(self, value: Any) -> bytes:
        out = bytearray()
        self._pack(value, out, 0)
        return bytes(out)

    def pack_into(self, value: Any, out: bytearray) -> None:
        self._pack(value, out, 0)

    def pack_row(self, row: list[Any] | tuple[Any, ...], out: bytearray) -> None:
        """A result row (a tuple or list) as a PackStream list, appended to ``out``."""
        _header(len(row), 0x90, (0xD4, 0xD5, 0xD6), out, "list")
        pack = self._pack
        for value in row:
            pack(value, out, 1)

    def _pack(self, value: Any, out: bytearray, depth: int) -> None:
        kind = type(value)
        # The common scalars first: result rows are mostly small ints and short strings.
        if kind is int and -16 <= value <= 127:
            out.append(value & 0xFF)
            return
        if kind is str and len(value) < 16 and value.isascii():
            out.append(0x80 + len(value))
            out += value.encode("ascii")
            return
        if depth > MAX_DEPTH:
            raise PackStreamError(f"value nested deeper than {MAX_DEPTH} levels")
        if value is None:
            out.append(0xC0)
        elif kind is bool:
            out.append(0xC3 if value else 0xC2)
        elif kind is int:
            _int(value, out)
        elif kind is float:
            out.append(0xC1); out += _F64.pack(value)
        elif kind is str:
            data = value.encode("utf-8")
            _header(len(data), 0x80, (0xD0, 0xD1, 0xD2), out, "string")
            out += data
        elif kind is list or kind is tuple:
            _header(len(value), 0x90, (0xD4, 0xD5, 0xD6), out, "list")
            for item in value:
                self._pack(item, out, depth + 1)
        elif kind is dict:
            _header(len(value), 0xA0, (0xD8, 0xD9, 0xDA), out, "map")
            for key, item in value.items():
                if type(key) is not str:
                    raise PackStreamError("map keys must be strings")
                data = key.encode("utf-8")
                _header(len(data), 0x80, (0xD0, 0xD1, 0xD2), out, "string")
                out += data
                self._pack(item, out, depth + 1)
        elif kind is bytes or kind is bytearray:
            _header(len(value), None, (0xCC, 0xCD, 0xCE), out, "byte array")
            out += value
        elif kind is Structure:
            if len(value.fields) > 15:
                raise PackStreamError("a structure has at most 15 fields")
            out.append(0xB0 + len(value.fields)); out.append(value.tag)
            for field in value.fields:
                self._pack(field, out, depth + 1)
        elif isinstance(value, bool):
            out.append(0xC3 if value else 0xC2)
        elif isinstance(value, int):
            _int(int(value), out)
        elif isinstance(value, float):
            out.append(0xC1); out += _F64.pack(float(value))
        elif isinstance(value, str):
            self._pack(str(value), out, depth)
        elif isinstance(value, dict):
            self._pack(dict(value), out, depth)
        else:
            if self._dehydrate is None:
                raise PackStreamError(f"cannot encode a value of type {kind.__name__}")
            try:
                converted = self._dehydrate(value)
            except TypeError as exc:
                raise PackStreamError(str(exc)) from None
            if type(converted) is kind:
                raise PackStreamError(f"cannot encode a value of type {kind.__name__}")
            self._pack(converted, out, depth)


# -- decoding -------------------------------------------------------------------------------------

Hydrate = Callable[[Structure], Any]      # a decoded Structure -> a value (or the Structure itself)


class Unpacker:
    """Decodes one value per ``unpack`` call; ``hydrate`` sees every Structure, innermost first."""

    def __init__(self, hydrate: Hydrate | None = None, max_depth: int = MAX_DEPTH):
        self._hydrate = hydrate
        self._max_depth = max_depth

    def unpack(self, data: bytes) -> Any:
        """The single value ``data`` holds; PackStreamError if it holds anything else."""
        view = memoryview(data)
        value, pos = self._value(view, 0, 0)
        if pos != len(view):
            raise PackStreamError(f"{len(view) - pos} unexpected byte(s) after the value")
        return value

    def unpack_message(self, data: bytes) -> Structure:
        """A Bolt message: one Structure whose fields are hydrated (the message itself is not)."""
        view = memoryview(data)
        if not view or not 0xB0 <= view[0] <= 0xBF:
            raise PackStreamError("a message is a structure")
        if len(view) < 2:
            raise PackStreamError("truncated message")
        size, tag, pos = view[0] - 0xB0, view[1], 2
        fields: list[Any] = []
        for _ in range(size):
            field, pos = self._value(view, pos, 1)
            fields.append(field)
        if pos != len(view):
            raise PackStreamError(f"{len(view) - pos} unexpected byte(s) after the message")
        return Structure(tag, fields)

    def _need(self, view: memoryview, pos: int, n: int) -> None:
        if pos + n > len(view):
            raise PackStreamError("truncated PackStream value")

    def _size(self, view: memoryview, pos: int, width: int) -> tuple[int, int]:
        self._need(view, pos, width)
        fmt = (_U8, _U16, None, _U32)[width - 1]
        size: int = fmt.unpack_from(view, pos)[0]  # type: ignore[union-attr]  # width is 1, 2 or 4
        if width == 4 and size > 0x7FFFFFFF:
            raise PackStreamError("size too large")
        return size, pos + width

    def _value(self, view: memoryview, pos: int, depth: int) -> tuple[Any, int]:
        self._need(view, pos, 1)
        marker = view[pos]
        pos += 1
        if marker < 0x80:
            return marker, pos
        if marker >= 0xF0:
            return marker - 0x100, pos
        high = marker & 0xF0
        if high == 0x80:
            return self._string(view, pos, marker & 0x0F)
        if high == 0x90:
            return self._list(view, pos, marker & 0x0F, depth)
        if high == 0xA0:
            return self._map(view, pos, marker & 0x0F, depth)
        if high == 0xB0:
            return self._structure(view, pos, marker & 0x0F, depth)
        if marker == 0xC0:
            return None, pos
        if marker == 0xC1:
            self._need(view, pos, 8)
            return _F64.unpack_from(view, pos)[0], pos + 8
        if marker == 0xC2:
            return False, pos
        if marker == 0xC3:
            return True, pos
        if 0xC8 <= marker <= 0xCB:
            fmt = (_I8, _I16, _I32, _I64)[marker - 0xC8]
            self._need(view, pos, fmt.size)
            return fmt.unpack_from(view, pos)[0], pos + fmt.size
        if 0xCC <= marker <= 0xCE:
            size, pos = self._size(view, pos, (1, 2, 4)[marker - 0xCC])
            self._need(view, pos, size)
            return bytes(view[pos:pos + size]), pos + size
        if 0xD0 <= marker <= 0xD2:
            size, pos = self._size(view, pos, (1, 2, 4)[marker - 0xD0])
            return self._string(view, pos, size)
        if 0xD4 <= marker <= 0xD6:
            size, pos = self._size(view, pos, (1, 2, 4)[marker - 0xD4])
            return self._list(view, pos, size, depth)
        if 0xD8 <= marker <= 0xDA:
            size, pos = self._size(view, pos, (1, 2, 4)[marker - 0xD8])
            return self._map(view, pos, size, depth)
        raise PackStreamError(f"unknown PackStream marker 0x{marker:02X}")

    def _string(self, view: memoryview, pos: int, size: int) -> tuple[str, int]:
        self._need(view, pos, size)
        try:
            return str(view[pos:pos + size], "utf-8"), pos + size
        except UnicodeDecodeError:
            raise PackStreamError("a string is not valid UTF-8") from None

    def _enter(self, view: memoryview, pos: int, items: int, depth: int) -> None:
        if depth >= self._max_depth:
            raise PackStreamTooDeep(f"value nested deeper than {self._max_depth} levels")
        if items > len(view) - pos:          # every item takes at least one byte
            raise PackStreamError("container larger than the message holding it")

    def _list(self, view: memoryview, pos: int, size: int, depth: int) -> tuple[list[Any], int]:
        self._enter(view, pos, size, depth)
        end = pos + 9 * size
        if size > 8 and view[pos] == 0xC1 and end <= len(view) and view[pos:end:9] == _FLOAT_MARKERS[:size]:
            # A list of floats (an embedding): one struct call instead of one per element.
            return list(struct.unpack_from(">" + "xd" * size, view, pos)), end
        items: list[Any] = []
        for _ in range(size):
            item, pos = self._value(view, pos, depth + 1)
            items.append(item)
        return items, pos

    def _map(self, view: memoryview, pos: int, size: int, depth: int) -> tuple[dict[str, Any], int]:
        self._enter(view, pos, 2 * size, depth)
        result: dict[str, Any] = {}
        for _ in range(size):
            key, pos = self._value(view, pos, depth + 1)
            if type(key) is not str:
                raise PackStreamError("map keys must be strings")
            result[key], pos = self._value(view, pos, depth + 1)
        return result, pos

    def _structure(self, view: memoryview, pos: int, size: int, depth: int) -> tuple[Any, int]:
        self._enter(view, pos, size + 1, depth)
        tag = view[pos]
        pos += 1
        fields: list[Any] = []
        for _ in range(size):
            field, pos = self._value(view, pos, depth + 1)
            fields.append(field)
        structure = Structure(tag, fields)
        if self._hydrate is None:
            return structure, pos
        return self._hydrate(structure), pos
