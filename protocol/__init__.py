"""Relate's wire protocol, sans I/O: handshake, chunked framing, messages, msgpack codec, states; and
the kernel both sides share: values, temporal types, errors, summaries, hydration (docs/architecture.md).

Nothing here reads or writes a socket, and nothing imports the server or the client: the server's
network layer and the driver feed bytes in and take bytes out. See docs/protocol.md.
"""
from .codec import Codec, CodecError, Structure, ValueTooDeep
from .errors import PROTOCOL_ERROR_CODE, ProtocolViolation
from .framing import DEFAULT_MAX_MESSAGE_SIZE, FrameDecoder, FrameTooLarge, frame
from .handshake import MAGIC, VERSION, HandshakeError, Version

__all__ = ["Codec", "CodecError", "Structure", "ValueTooDeep", "ProtocolViolation", "PROTOCOL_ERROR_CODE",
           "FrameDecoder", "FrameTooLarge", "frame", "DEFAULT_MAX_MESSAGE_SIZE", "MAGIC", "VERSION",
           "Version", "HandshakeError"]
