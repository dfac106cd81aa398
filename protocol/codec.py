"""msgpack value codec. Plain values (null, bool, int, float, str, bytes, list, map) are msgpack's
own; everything else travels as an ext type whose payload is a msgpack array of fields.

The codec only knows ``Structure(code, fields)``. Domain objects (Node, Vector, Date, ...) are turned
into structures by a ``dehydrate`` hook and back by ``hydrators`` keyed by ext code, which the server
and the driver supply. A structure without a hydrator stays a ``Structure``.
"""
from __future__ import annotations

from itertools import chain
from typing import Any, Callable, Mapping

import msgpack

from .errors import ProtocolViolation

# Ext type codes (see docs/protocol.md for each one's fields).
NODE = 1
RELATIONSHIP = 2
PATH = 3
VECTOR = 4
DATE = 5
TIME = 6
LOCAL_TIME = 7
DATE_TIME = 8
LOCAL_DATE_TIME = 9
DURATION = 10
POINT = 11

# Decoding limits. Hostile bytes must not be able to recurse without bound: an ext payload is
# unpacked by a nested call (C stack), and deep lists make every later recursive walk (the engine,
# the packer) fail. A decoded value may nest at most MAX_DEPTH containers in all, ext values and
# their payloads included; msgpack's own container and string lengths stay bounded by the frame.
MAX_DEPTH = 256
MAX_EXT_DEPTH = 8


class Structure:
    """An ext-typed value before hydration: its code and its list of fields.
    (Not a tuple subclass: msgpack would pack a tuple as an array instead of asking the codec.)"""

    __slots__ = ("code", "fields")

    def __init__(self, code: int, fields: list[Any]):
        self.code = code
        self.fields = fields

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Structure) and (self.code, self.fields) == (other.code, other.fields)

    def __repr__(self) -> str:
        return f"Structure({self.code}, {self.fields!r})"


class CodecError(ProtocolViolation):
    """Bytes that are not a valid msgpack value, or a value that cannot be encoded."""


class UnknownStructure(CodecError):
    """An ext value whose code this side does not know (a strict codec: the server reading requests)."""
    code = "Neo.ClientError.Statement.TypeError"


class ValueTooDeep(CodecError):
    """A value nested past the decoder's limit: refused, and the connection closed (hostile input)."""
    fatal = True


_CONTAINERS = (list, dict, tuple)
_NESTING = frozenset((list, dict, tuple, Structure))
_FLAT_AT = 16          # from this many items a container is first checked for nested ones in C


def check_depth(value: Any, limit: int) -> None:
    """Raise ValueTooDeep when ``value`` nests more than ``limit`` lists/maps (iterative walk)."""
    if limit <= 0:
        raise ValueTooDeep(f"value nested more than {MAX_DEPTH} levels deep")
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is Structure:
            item = item.fields
        elif kind is dict:
            item = item.values()
        elif kind is not list and kind is not tuple:
            continue
        # A long run of scalars (an embedding's floats, a batch of ids) is passed over at C speed:
        # walking it item by item in Python cost ~20 us for 384 floats, on every such request.
        # (A first item that nests is taken as a sign that the walk is needed anyway: rows of lists.)
        if len(item) >= _FLAT_AT and (kind is dict or type(item[0]) not in _NESTING) and _flat(item):
            continue
        for child in item:
            kind = type(child)
            if kind is list or kind is dict or kind is tuple or kind is Structure:
                if depth >= limit:
                    raise ValueTooDeep(f"value nested more than {limit} levels deep")
                push((child, depth + 1))


def _flat(items: Any) -> bool:
    """Whether no item of ``items`` (a list, tuple or dict values) is a list, map or structure. Numbers
    first: a float sum succeeds only when every item is an int, float or bool (a list, map, string or
    structure added to a float raises TypeError), at ~3x the speed of collecting the item types."""
    try:
        sum(items, 0.0)
        return True
    except Exception:           # TypeError, or whatever a hydrated value's __radd__ raises: look
        return _NESTING.isdisjoint(set(map(type, items)))


Dehydrate = Callable[[Any], Any]          # object -> Structure (or a plain value); TypeError if unknown
Hydrator = Callable[[list[Any]], Any]          # fields -> object


class Codec:
    """Packs and unpacks values with the ext types above; one per connection (not thread-safe)."""

    def __init__(self, dehydrate: Dehydrate | None = None, hydrators: Mapping[int, Hydrator] | None = None,
                 *, max_depth: int = MAX_DEPTH, max_ext_depth: int = MAX_EXT_DEPTH, strict: bool = False):
        self._dehydrate = dehydrate
        self._hydrators = dict(hydrators or {})
        # strict (the server reading requests, like the Bolt decoder): map keys must be strings and
        # an unknown ext code is refused, so nothing the engine cannot take reaches it as a parameter.
        self._strict = strict
        self.max_depth = max_depth
        self.max_ext_depth = max_ext_depth
        self._ext_depth = 0                # ext payloads being unpacked right now (nested calls)
        self._packer = msgpack.Packer(default=self._default, use_bin_type=True, datetime=False)

    def _default(self, obj: Any) -> Any:
        structure = obj if isinstance(obj, Structure) else None
        if structure is None:
            if self._dehydrate is None:
                raise TypeError(f"cannot encode a value of type {type(obj).__name__}")
            structure = self._dehydrate(obj)
            if not isinstance(structure, Structure):
                return structure          # the hook turned it into a plain value
        # Nested values (a Path's nodes) need their own packer: the outer one is mid-message.
        payload = msgpack.packb(list(structure.fields), default=self._default, use_bin_type=True,
                                datetime=False)
        return msgpack.ExtType(structure.code, payload)

    def _ext_hook(self, code: int, data: bytes) -> Any:
        if self._ext_depth >= self.max_ext_depth:
            raise ValueTooDeep(f"ext values nested more than {self.max_ext_depth} levels deep")
        self._ext_depth += 1
        try:
            fields = msgpack.unpackb(data, ext_hook=self._ext_hook, raw=False, strict_map_key=self._strict)
        except CodecError:
            raise
        except msgpack.StackError:
            raise ValueTooDeep("value nested too deep") from None
        except Exception as exc:  # msgpack raises several unrelated classes for garbage input
            raise CodecError(f"malformed ext type {code}: {type(exc).__name__}: {exc}") from None
        finally:
            self._ext_depth -= 1
        if not isinstance(fields, list):
            raise CodecError(f"ext type {code} does not hold an array of fields")
        # A hydrated value is a leaf for the outer walk, so its own fields are checked here (an ext
        # value counts as one level besides its fields). Each level takes at least one byte, so a
        # payload no longer than the limit cannot pass it: only longer ones are walked.
        if len(data) > self.max_depth - 1:
            check_depth(fields, self.max_depth - 1)
        hydrate = self._hydrators.get(code)
        if hydrate is None:
            if self._strict:
                raise UnknownStructure(f"unknown ext type {code}")
            return Structure(code, fields)
        try:
            return hydrate(fields)
        except (TypeError, ValueError, IndexError, KeyError, OverflowError) as exc:
            raise CodecError(f"malformed value for ext type {code}: {exc}") from None

    def pack(self, value: Any) -> bytes:
        try:
            packed: bytes = self._packer.pack(value)
            return packed
        except (TypeError, ValueError, OverflowError) as exc:
            raise CodecError(f"cannot encode value: {exc}") from None

    def _unpackb(self, data: bytes | memoryview, what: str) -> Any:
        """One msgpack value (ext values hydrated); the decoder's errors as CodecError, nesting past
        msgpack's own stack as ValueTooDeep."""
        try:
            return msgpack.unpackb(data, ext_hook=self._ext_hook, raw=False, strict_map_key=self._strict)
        except CodecError:
            raise
        except msgpack.StackError:
            raise ValueTooDeep(f"{what} nested too deep") from None
        except Exception as exc:  # msgpack raises several unrelated classes for garbage input
            raise CodecError(f"malformed {what}: {type(exc).__name__}: {exc}") from None
        finally:
            self._ext_depth = 0

    def unpack_rows(self, bodies: list[bytes | memoryview]) -> list[tuple[Any, ...]]:
        """Several msgpack arrays (RECORD bodies) decoded in one pass, as tuples: prefixed with an array
        header they are one RECORDS body."""
        count = len(bodies)
        head = bytes([0x90 | count]) if count < 16 else \
            (b"\xdc" + count.to_bytes(2, "big") if count <= 0xFFFF else b"\xdd" + count.to_bytes(4, "big"))
        return self.unpack_batch(head + b"".join(bodies))

    def unpack_batch(self, body: bytes | memoryview) -> list[tuple[Any, ...]]:
        """One RECORDS body (a msgpack array of rows) decoded, as tuples; each row may nest as deep as a
        RECORD's values may."""
        rows = self._unpackb(body, "records")
        if type(rows) is not list or not set(map(type, rows)) <= {list}:
            raise CodecError("a RECORDS message holds an array of rows, each an array")
        # Rows of scalars (the common case) are told apart at C speed; only rows that hold lists or maps
        # are walked, each against the same limit as a single RECORD's.
        if len(body) > self.max_depth and not _NESTING.isdisjoint(set(map(type, chain.from_iterable(rows)))):
            for row in rows:
                check_depth(row, self.max_depth)
        return list(map(tuple, rows))

    def unpack(self, data: bytes | memoryview) -> Any:
        value = self._unpackb(data, "message")
        if len(data) > self.max_depth:      # shorter data cannot nest past the limit (a byte a level)
            check_depth(value, self.max_depth)
        return value
