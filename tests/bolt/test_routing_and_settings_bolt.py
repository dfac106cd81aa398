"""dbms.routing.getRoutingTable and SHOW SETTINGS against a real relate-server: the procedure's table is
the Bolt ROUTE message's, and the Neo4j 5 settings are the server's running configuration (bound
addresses, auth, TLS, time limits), over the official driver and Relate's own protocol."""
from __future__ import annotations

import pytest
from neo4j import GraphDatabase

import relate
from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm

from .conftest import AUTH
from .raw_bolt import RawBolt

LOGON = m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]})


def _by_role(servers) -> dict[str, list[str]]:
    return {server["role"]: list(server["addresses"]) for server in servers}


def _call_table(raw: RawBolt, context: dict, db: str | None = None) -> tuple[int, dict]:
    raw.send(m.Run("CALL dbms.routing.getRoutingTable($context, $db)", {"context": context, "db": db}, {}),
             m.Pull(-1, -1))
    assert raw.recv()[0] == bm.SUCCESS
    record = raw.recv()
    assert record[0] == bm.RECORD and raw.recv()[0] == bm.SUCCESS
    ttl, servers = record[1][0]
    return ttl, _by_role(servers)


@pytest.mark.parametrize("context", [{}, {"address": "db.example:7687"}])
def test_the_procedure_answers_as_the_route_message(server, context):
    raw = RawBolt(server.bolt_address)
    try:
        raw.manifest_handshake()
        raw.send(m.Hello({"user_agent": "raw"}), LOGON)
        assert raw.recv()[0] == bm.SUCCESS and raw.recv()[0] == bm.SUCCESS
        raw.send(bm.Route(context, [], {"db": None}))
        route = raw.recv()
        assert route[0] == bm.SUCCESS
        table = route[1][0]["rt"]
        ttl, servers = _call_table(raw, context)
        assert ttl == table["ttl"] and servers == _by_role(table["servers"])
        assert servers["WRITE"] == [context.get("address", server.bolt_address)]
    finally:
        raw.close()


def test_through_a_routing_driver_and_on_the_system_database(server):
    with GraphDatabase.driver(f"neo4j://{server.bolt_address}", auth=AUTH) as driver:
        for database in ("neo4j", "system"):
            records, _, _ = driver.execute_query("CALL dbms.routing.getRoutingTable({}, $db)", db=database,
                                                 database_=database)
            assert records[0]["ttl"] == 300
            assert _by_role(records[0]["servers"]) == {role: [server.bolt_address]
                                                       for role in ("WRITE", "READ", "ROUTE")}


def test_show_settings_reports_the_running_server(server, driver):
    records, _, _ = driver.execute_query("SHOW SETTINGS YIELD name, value RETURN name, value")
    found = {record["name"]: record["value"] for record in records}
    assert found["server.bolt.enabled"] == "true"
    assert found["server.bolt.listen_address"] == server.bolt_address          # the port bound, not "0"
    assert found["server.bolt.tls_level"] == "DISABLED" and found["dbms.security.auth_enabled"] == "true"
    assert found["server.http.enabled"] == "false" and "server.http.listen_address" not in found
    assert found["db.transaction.timeout"] == "0s" and found["db.logs.query.threshold"] == "1s"


def test_a_server_without_bolt_and_with_limits(start_server, tmp_path):
    imports = tmp_path / "import"
    imports.mkdir()
    server = start_server("--bolt-listen", "none", "--no-auth", "--query-timeout", "7", "--import-dir",
                          str(imports), "--slow-query-log", "2.5")
    with relate.connect(server.url) as db:
        found = dict(db.execute("SHOW SETTINGS YIELD name, value RETURN name, value").fetchall())
        assert found["server.bolt.enabled"] == "false" and "server.bolt.listen_address" not in found
        assert found["dbms.security.auth_enabled"] == "false"
        assert found["db.transaction.timeout"] == "7s" and found["query_timeout"] == "7.0"
        assert found["server.directories.import"] == str(imports)
        assert found["dbms.security.allow_csv_import_from_file_urls"] == "true"
        assert found["db.logs.query.threshold"] == "2500ms"
        with pytest.raises(relate.ProcedureCallFailed, match="without a Bolt listener"):
            db.execute("CALL dbms.routing.getRoutingTable({}, 'neo4j')").consume()
