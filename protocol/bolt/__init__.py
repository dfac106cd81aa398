"""Bolt, sans I/O: the PackStream v1 codec, the handshake (legacy slots and manifest v1), messages and
the Bolt state table. Framing is the chunking of ``relate.protocol.framing`` (the same on both wires).
Imports nothing from the server or the client."""
from .handshake import MAGIC, SUPPORTED, BoltHandshakeError, BoltVersion
from .packstream import Packer, PackStreamError, Structure, Unpacker

__all__ = ["MAGIC", "SUPPORTED", "BoltHandshakeError", "BoltVersion", "Packer", "PackStreamError",
           "Structure", "Unpacker"]
