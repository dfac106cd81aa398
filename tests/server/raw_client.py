"""A bare protocol client over a blocking socket, for sending exactly the bytes a test wants."""
from __future__ import annotations

import socket

from relate.protocol.hydration import value_codec
from relate.protocol import FrameDecoder, frame
from relate.protocol import handshake as hs
from relate.protocol import messages as m


ONE_RECORD_PER_ROW = (hs.Version(1, 0),)


class RawClient:
    def __init__(self, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.codec = value_codec()
        self.decoder = FrameDecoder(1 << 30)
        self._ready: list = []

    def handshake(self, versions=ONE_RECORD_PER_ROW) -> hs.Version | None:
        """Version 1.0 by default: every row a RECORD message of its own (what ``recv`` reads)."""
        self.sock.sendall(hs.client_handshake(versions))
        data = b""
        while len(data) < 4:
            chunk = self.sock.recv(4 - len(data))
            if not chunk:
                raise ConnectionError("closed during handshake")
            data += chunk
        return hs.parse_server_response(data)

    def send(self, *messages) -> None:
        self.sock.sendall(b"".join(frame(self.codec.pack(m.encode(msg))) for msg in messages))

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self):
        """The next reply; None when the server closed the connection."""
        while not self._ready:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                return None
            if not data:
                return None
            self._ready += self.decoder.feed(data)
        return m.decode_reply(self.codec.unpack(self._ready.pop(0)))

    def recv_until_summary(self):
        """Records until the next non-RECORD reply: (rows, that reply)."""
        rows = []
        while True:
            reply = self.recv()
            if not isinstance(reply, m.Record):
                return rows, reply
            rows.append(reply.values)

    def login(self, user: str, password: str):
        assert self.handshake() is not None
        self.send(m.Hello({"user_agent": "raw-test"}),
                  m.Logon({"scheme": "basic", "principal": user, "credentials": password}))
        return self.recv(), self.recv()

    def closed_by_server(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self) -> None:
        self.sock.close()
