"""Protocol violations as plain values: a Neo4j-style status code and a message.

The protocol package may not import ``relate.errors``; the server turns a violation into a FAILURE
with this code, and the driver rebuilds the matching ``relate.errors`` class from it.
"""
from __future__ import annotations

PROTOCOL_ERROR_CODE = "Neo.ClientError.Request.Invalid"


class ProtocolViolation(Exception):
    """Bytes or messages that break the protocol (bad frame, bad message, wrong state)."""

    code = PROTOCOL_ERROR_CODE
    fatal = False        # True when the byte stream cannot be trusted any more: close the connection

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_metadata(self) -> dict:
        return {"code": self.code, "message": self.message}
