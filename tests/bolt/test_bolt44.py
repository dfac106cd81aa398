"""Bolt 4.4 (older drivers and tools): the official driver held to 4.4 reads entities without element
ids and, with the utc patch it asks for, DateTimes as 5.x; a client without the patch gets 4.4's
local-wall-time DateTimes, both ways."""
from __future__ import annotations

import datetime as dt

import pytest
from neo4j import GraphDatabase
from neo4j._sync.io._bolt._base import Bolt
from neo4j.time import DateTime as NeoDateTime

from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.packstream import Structure

from .conftest import AUTH
from .raw_bolt import RawBolt

BOLT_44_ONLY = b"\x00\x00\x04\x04" + b"\x00" * 12


@pytest.fixture
def driver44(bolt_url, monkeypatch):
    monkeypatch.setattr(Bolt, "get_handshake", classmethod(lambda cls: BOLT_44_ONLY))
    with GraphDatabase.driver(bolt_url, auth=AUTH) as driver:
        yield driver


def test_the_official_driver_speaks_4_4(driver44):
    assert driver44.get_server_info().protocol_version == (4, 4)
    records, _, _ = driver44.execute_query(
        "CREATE p = (a:B44 {name: 'a'})-[r:T {w: 1}]->(b:B44 {name: 'b'}) RETURN a, r, p, elementId(a) AS eid")
    a, r, p, eid = records[0]["a"], records[0]["r"], records[0]["p"], records[0]["eid"]
    assert set(a.labels) == {"B44"} and a["name"] == "a"
    assert r.type == "T" and r["w"] == 1 and r.start_node.element_id == a.element_id
    assert [n["name"] for n in p.nodes] == ["a", "b"] and len(p.relationships) == 1
    assert eid.startswith("n:")                  # elementId() itself still answers
    records, _, _ = driver44.execute_query("MATCH (n:B44) WHERE id(n) = toInteger($id) RETURN n.name AS name",
                                           id=a.element_id)
    assert records[0]["name"] == "a"


def test_datetimes_round_trip_with_the_utc_patch(driver44):
    zoned = NeoDateTime(2024, 3, 31, 2, 30, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    records, _, _ = driver44.execute_query(
        "RETURN $t AS t, datetime('2024-06-01T12:00:00[Europe/Oslo]') AS oslo, toString($t) AS text", t=zoned)
    assert records[0]["t"] == zoned
    assert records[0]["text"] == "2024-03-31T02:30:00+02:00"       # toString(): seconds always, as Neo4j
    oslo = records[0]["oslo"]
    assert (oslo.hour, oslo.utcoffset()) == (12, dt.timedelta(hours=2))


def test_without_the_patch_datetimes_count_local_wall_seconds(server):
    raw = RawBolt(server.bolt_address)
    assert raw.handshake("00000404", "00000000", "00000000", "00000000") == bytes((0, 0, 4, 4))
    raw.send(m.Hello({"user_agent": "old", "scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]}))
    tag, fields = raw.recv()
    assert tag == bm.SUCCESS and "patch_bolt" not in fields[0]
    # 2020-01-01T10:00+02:00 is 08:00Z: local wall seconds 1577872800, offset 7200
    raw.send(m.Run("RETURN datetime('2020-01-01T10:00:00+02:00') AS t, $p AS back, toString($p) AS text",
                   {"p": Structure(0x46, [1577872800, 0, 7200])}, {}), m.Pull(-1, -1))
    assert raw.recv()[0] == bm.SUCCESS
    tag, fields = raw.recv()
    assert tag == bm.RECORD
    t, back, text = fields[0]
    assert (t.tag, t.fields) == (0x46, [1577872800, 0, 7200])
    assert (back.tag, back.fields) == (0x46, [1577872800, 0, 7200])
    assert text == "2020-01-01T10:00:00+02:00"
    assert raw.recv()[0] == bm.SUCCESS
    # zone ids: 2020-07-01T10:00 in Oslo (+02:00 in summer) is local wall second 1593597600
    raw.send(m.Run("RETURN datetime('2020-07-01T10:00:00[Europe/Oslo]') AS t, toString($p) AS text",
                   {"p": Structure(0x66, [1593597600, 5, "Europe/Oslo"])}, {}), m.Pull(-1, -1))
    assert raw.recv()[0] == bm.SUCCESS
    tag, fields = raw.recv()
    t, text = fields[0]
    assert (t.tag, t.fields) == (0x66, [1593597600, 0, "Europe/Oslo"])
    assert text == "2020-07-01T10:00:00.000000005+02:00[Europe/Oslo]"
    raw.close()
