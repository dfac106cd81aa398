"""Chunked framing: a message is a run of chunks (uint16 big-endian length + bytes) ended by an
empty chunk. An empty chunk between messages is a no-op (keep-alive). Messages larger than the
receiver's maximum are refused as soon as a chunk header announces it, before the bytes arrive.
"""
from __future__ import annotations

from .errors import ProtocolViolation

MAX_CHUNK_SIZE = 0xFFFF
DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024
_END = b"\x00\x00"


class FrameTooLarge(ProtocolViolation):
    """A message grew past the receiver's maximum size; the stream cannot be resynchronized."""
    fatal = True


def frame(payload: bytes) -> bytes:
    """One message's bytes, chunked and terminated."""
    size = len(payload)
    if 0 < size <= MAX_CHUNK_SIZE:
        return size.to_bytes(2, "big") + payload + _END
    parts = []
    for start in range(0, size, MAX_CHUNK_SIZE):
        chunk = payload[start:start + MAX_CHUNK_SIZE]
        parts.append(len(chunk).to_bytes(2, "big"))
        parts.append(chunk)
    parts.append(_END)
    return b"".join(parts)


class MessageSkipped(ProtocolViolation):
    """A message grew over the maximum size: it is dropped as it arrives (up to its end), so the
    stream stays in step and the sender gets a FAILURE instead of a cut connection."""


class FrameDecoder:
    """Feed bytes in, take whole message payloads out. With ``skip_oversized`` a message over the
    maximum is discarded as it arrives (never held) and a ``MessageSkipped`` takes its place in
    the output; otherwise ``FrameTooLarge`` is raised and the stream must be closed."""

    __slots__ = ("max_message_size", "_buffer", "_parts", "_size", "_skip_oversized", "_skipping")

    def __init__(self, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, *, skip_oversized: bool = False):
        self.max_message_size = max_message_size
        self._buffer = bytearray()
        self._parts: list[bytes] = []    # chunks of the message being assembled
        self._size = 0
        self._skip_oversized = skip_oversized
        self._skipping = False           # inside an oversized message: drop chunks until its end

    def feed(self, data: bytes) -> list[bytes | MessageSkipped]:
        """Add received bytes; return the messages they complete (possibly none); a ``MessageSkipped``
        stands for an oversized one (only with ``skip_oversized``)."""
        if self._buffer:
            # Only an incomplete chunk is ever held back, so this copy is at most ~64 KiB.
            self._buffer += data
            data = bytes(self._buffer)
            self._buffer.clear()
        messages: list[bytes | MessageSkipped] = []
        parts = self._parts
        pos, end = 0, len(data)
        while end - pos >= 2:
            size = (data[pos] << 8) | data[pos + 1]
            if size == 0:
                pos += 2
                if self._skipping:
                    self._skipping = False       # the oversized message ended: back in step
                    continue
                if parts:
                    messages.append(parts[0] if len(parts) == 1 else b"".join(parts))
                    parts.clear()
                    self._size = 0
                continue
            if self._skipping or self._size + size > self.max_message_size:
                if not self._skip_oversized:
                    raise FrameTooLarge(f"message larger than the maximum of {self.max_message_size} bytes")
                if pos + 2 + size > end:
                    break                        # wait for the whole chunk, then drop it
                if not self._skipping:           # answered at once, while the rest still arrives
                    messages.append(MessageSkipped(
                        f"message larger than the maximum of {self.max_message_size} bytes"))
                self._skipping = True
                parts.clear()
                self._size = 0
                pos += 2 + size
                continue
            stop = pos + 2 + size
            if stop > end:
                break
            if not parts and stop + 2 <= end and data[stop] == 0 and data[stop + 1] == 0:
                messages.append(data[pos + 2:stop])        # the common case: a one-chunk message
                pos = stop + 2
                continue
            parts.append(data[pos + 2:stop])
            self._size += size
            pos = stop
        if pos < end:
            self._buffer += memoryview(data)[pos:]
        return messages

    @property
    def pending(self) -> int:
        """Bytes held that do not yet form a whole message (1 while an oversized one is skipped)."""
        return len(self._buffer) + self._size + self._skipping
