"""A bare Bolt client over a blocking socket, for sending exactly the bytes a test wants."""
from __future__ import annotations

import socket

from relate.protocol import FrameDecoder, frame
from relate.protocol.bolt import handshake as hs
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.packstream import Packer, Unpacker


class RawBolt:
    def __init__(self, address: str, timeout: float = 10.0):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.decoder = FrameDecoder(1 << 30)
        self._ready: list = []

    def _read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def handshake(self, *slots: str) -> bytes:
        """Send the slots (hex); the server's 4-byte answer."""
        self.sock.sendall(hs.client_handshake([bytes.fromhex(s) for s in slots]))
        return self._read(4)

    def manifest_handshake(self, pick: str = "00000006") -> bytes:
        assert self.handshake("000001FF") == hs.MANIFEST_V1
        count = self._read(1)[0]
        offered = self._read(4 * count)
        assert self._read(1) == b"\x00"          # capabilities
        self.sock.sendall(bytes.fromhex(pick) + b"\x00")
        return offered

    def send(self, *requests) -> None:
        self.sock.sendall(b"".join(frame(Packer().pack(bm.encode_request(r))) for r in requests))

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self):
        """The next reply as (signature, fields); None when the server closed the connection."""
        while not self._ready:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                return None
            if not data:
                return None
            self._ready += self.decoder.feed(data)
        message = Unpacker().unpack_message(self._ready.pop(0))
        return message.tag, message.fields

    def close(self):
        self.sock.close()
