"""``relate-server --check host:port``: is a server there and speaking Relate? For container health
checks. ``relate+ssc://host:port`` checks a TLS listener (certificate not verified: this is a liveness
probe, not a trust decision); ``http://host:port/health`` targets are checked over HTTP instead."""
from __future__ import annotations

import socket
import ssl
import urllib.request

from relate.protocol import ProtocolViolation
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from relate.protocol.connection import ClientConnection, Records


def check(target: str, timeout: float = 5.0) -> tuple[bool, str]:
    """(healthy, what was seen)."""
    if target.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(target, timeout=timeout) as response:
                return response.status == 200, f"HTTP {response.status}"
        except OSError as exc:
            return False, str(exc)
    tls = target.startswith(("relate+s://", "relate+ssc://"))
    host, _, port = target.split("://", 1)[-1].rpartition(":")
    try:
        with _open(host or "127.0.0.1", int(port), timeout, tls) as sock:
            protocol = ClientConnection()
            sock.sendall(protocol.initiate())
            (opened,) = protocol.receive_data(_recv_exactly(sock, hs.SERVER_RESPONSE_SIZE))
            if opened.version is None:
                return False, "no common protocol version"
            sock.sendall(protocol.send(m.Hello({"user_agent": "relate-check"})))
            while True:
                data = sock.recv(65536)
                if not data:
                    return False, "connection closed"
                for reply in protocol.receive_data(data):
                    sock.sendall(protocol.send(m.Goodbye()))
                    if isinstance(reply, m.Success):
                        return True, f"{reply.metadata.get('server')} protocol {opened.version}"
                    kind = "records" if isinstance(reply, Records) else type(reply).__name__
                    return False, f"unexpected reply {kind}"
    except (OSError, ValueError, hs.HandshakeError, ProtocolViolation) as exc:
        return False, str(exc)


def _open(host: str, port: int, timeout: float, tls: bool) -> socket.socket:
    sock = socket.create_connection((host, port), timeout=timeout)
    if not tls:
        return sock
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return context.wrap_socket(sock, server_hostname=host)


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("connection closed during the handshake")
        data += chunk
    return data
