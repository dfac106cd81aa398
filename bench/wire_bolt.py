"""The Bolt listener beside the native protocol: the same statements through the official neo4j
driver (bolt://) and through relate.connect (relate://), against one server. Used by bench/wire.py."""
from __future__ import annotations

import random
import statistics
import time

import relate

VECTOR_384 = "RETURN size($v) AS n"


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def _bolt_timed(session, query: str, n: int, **params) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        list(session.run(query, params))
        samples.append(time.perf_counter() - started)
    return samples


def _native_timed(conn, query: str, n: int, **params) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        conn.execute(query, params).fetchall()
        samples.append(time.perf_counter() - started)
    return samples


def _raw_bolt_timed(address: str, auth, query: str, params: dict, n: int, replies_each: int = 3) -> list[float]:
    """Round trips of pre-packed RUN + PULL bytes over a bare socket: the server's share alone (the
    official driver packs and unpacks PackStream in pure Python, which dominates its figures).
    ``replies_each``: the messages one round trip answers (SUCCESS, the RECORDs, SUCCESS)."""
    import socket
    from relate.protocol import FrameDecoder, frame
    from relate.protocol import messages as m
    from relate.protocol.bolt import handshake as hs
    from relate.protocol.bolt import messages as bm
    from relate.protocol.bolt.packstream import Packer
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.sendall(hs.client_handshake([hs.version_bytes(hs.BoltVersion(5, 8))]))
    assert sock.recv(4) == hs.version_bytes(hs.BoltVersion(5, 8))
    pack = lambda request: frame(Packer().pack(bm.encode_request(request)))  # noqa: E731
    decoder = FrameDecoder()

    def replies(count: int) -> None:
        got = 0
        while got < count:
            got += len(decoder.feed(sock.recv(65536)))
    sock.sendall(pack(m.Hello({})) + pack(m.Logon({"scheme": "basic", "principal": auth[0],
                                                       "credentials": auth[1]})))
    replies(2)
    request = pack(m.Run(query, params, {})) + pack(m.Pull(-1, -1))
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        sock.sendall(request)
        replies(replies_each)
        samples.append(time.perf_counter() - started)
    sock.close()
    return samples


def compare(url: str, bolt_address: str, auth: tuple[str, str], trips: int, rows: int,
            stream_query: str) -> dict[str, float]:
    """Median round trips (us), streamed rows/s and a 384-float parameter (us), per protocol."""
    from neo4j import GraphDatabase
    from neo4j.vector import Vector
    rng = random.Random(7)
    floats = [rng.uniform(-1, 1) for _ in range(384)]
    figures: dict[str, float] = {}
    with GraphDatabase.driver(f"bolt://{bolt_address}", auth=auth) as driver, \
            driver.session() as session, relate.connect(url, auth=auth) as conn:
        _bolt_timed(session, "RETURN 1 AS one", 50)
        _native_timed(conn, "RETURN 1 AS one", 50)
        figures["return1_native_median_us"] = _median_us(_native_timed(conn, "RETURN 1 AS one", trips))
        figures["return1_bolt_median_us"] = _median_us(_bolt_timed(session, "RETURN 1 AS one", trips))
        figures["return1_bolt_raw_socket_median_us"] = _median_us(
            _raw_bolt_timed(bolt_address, auth, "RETURN 1 AS one", {}, trips))
        figures["param384_native_median_us"] = _median_us(_native_timed(conn, VECTOR_384, trips, v=floats))
        figures["param384_bolt_list_median_us"] = _median_us(_bolt_timed(session, VECTOR_384, trips, v=floats))
        figures["param384_bolt_raw_socket_median_us"] = _median_us(
            _raw_bolt_timed(bolt_address, auth, VECTOR_384, {"v": floats}, trips))
        vector = Vector(floats, "f32")
        figures["param384_bolt_vector_median_us"] = _median_us(_bolt_timed(session, VECTOR_384, trips, v=vector))
        started = time.perf_counter()
        count = sum(1 for _ in conn.execute(stream_query, n=rows))
        figures["stream_native_rows_per_s"] = count / (time.perf_counter() - started)
        started = time.perf_counter()
        count = sum(1 for _ in session.run(stream_query, n=rows))
        figures["stream_bolt_rows_per_s"] = count / (time.perf_counter() - started)
        (seconds,) = _raw_bolt_timed(bolt_address, auth, stream_query, {"n": rows}, 1, replies_each=rows + 2)
        figures["stream_bolt_raw_socket_rows_per_s"] = rows / seconds
    return figures
