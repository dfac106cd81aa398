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
        figures["param384_native_median_us"] = _median_us(_native_timed(conn, VECTOR_384, trips, v=floats))
        figures["param384_bolt_list_median_us"] = _median_us(_bolt_timed(session, VECTOR_384, trips, v=floats))
        vector = Vector(floats, "f32")
        figures["param384_bolt_vector_median_us"] = _median_us(_bolt_timed(session, VECTOR_384, trips, v=vector))
        started = time.perf_counter()
        count = sum(1 for _ in conn.execute(stream_query, n=rows))
        figures["stream_native_rows_per_s"] = count / (time.perf_counter() - started)
        started = time.perf_counter()
        count = sum(1 for _ in session.run(stream_query, n=rows))
        figures["stream_bolt_rows_per_s"] = count / (time.perf_counter() - started)
    return figures
