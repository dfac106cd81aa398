"""dbms.routing.getRoutingTable and the Neo4j 5 settings of SHOW SETTINGS, embedded and with the facts a
server hands its database (config.Serving; tests/bolt/test_routing_and_settings_bolt.py runs a real one)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import ClientError, ProcedureCallFailed
from relate.server.config import Config, Serving
from relate.server.net.bolt_connection import ROUTING_TTL_S
from relate.server.query import procedures_neo4j

ROLES = ["WRITE", "READ", "ROUTE"]                      # Neo4j's order


@pytest.fixture
def db():
    connection = relate.connect(":memory:")
    yield connection
    connection.close()


def serve(db, bolt: str | None = "127.0.0.1:7687", http: str | None = None, **settings) -> Config:
    """Make ``db`` look served, as server/app.py does once its listeners are bound."""
    config = Config(**settings)
    db._owner.serving = Serving(config, "127.0.0.1:7688", bolt, http)
    return config


def table(db, query: str, params: dict | None = None) -> tuple[int, dict[str, list[str]]]:
    ttl, servers = db.execute(query, params or {}).fetchone()
    assert [server["role"] for server in servers] == ROLES
    return ttl, {server["role"]: server["addresses"] for server in servers}


def settings(db, *names: str) -> dict[str, str | None]:
    rows = db.execute("SHOW SETTINGS YIELD name, value").fetchall()
    found = {name: value for name, value in rows}
    return found if not names else {name: found[name] for name in names if name in found}


# -- dbms.routing.getRoutingTable ------------------------------------------------------------------------

def test_routing_table_names_the_bolt_listener_in_every_role(db):
    serve(db, bolt="127.0.0.1:7999")
    ttl, servers = table(db, "CALL dbms.routing.getRoutingTable({}, 'neo4j')")
    assert ttl == ROUTING_TTL_S == procedures_neo4j.ROUTING_TTL_S       # the Bolt ROUTE answer's ttl
    assert servers == {role: ["127.0.0.1:7999"] for role in ROLES}
    # the default database, the system database, names in any case, and the 4.x cluster name
    for query in ("CALL dbms.routing.getRoutingTable({})", "CALL dbms.routing.getRoutingTable({}, null)",
                  "CALL dbms.routing.getRoutingTable({}, 'SYSTEM')",
                  "CALL dbms.cluster.routing.getRoutingTable($context, $database)"):
        assert table(db, query, {"context": {}, "database": "Neo4j"})[1] == servers
    rows = db.execute("CALL dbms.routing.getRoutingTable({}) YIELD servers UNWIND servers AS s "
                      "RETURN s.role AS role, s.addresses AS addresses").fetchall()
    assert [tuple(row) for row in rows] == [(role, ["127.0.0.1:7999"]) for role in ROLES]


def test_routing_table_echoes_the_address_the_client_dialled(db):
    serve(db, bolt="127.0.0.1:7999")
    # as the Bolt ROUTE message answers (and Neo4j's standalone server): the routing context's address
    assert table(db, "CALL dbms.routing.getRoutingTable({address: 'db.example.com:7617'})")[1]["READ"] == [
        "db.example.com:7617"]
    assert table(db, "CALL dbms.routing.getRoutingTable({address: 'db.example.com'})")[1]["ROUTE"] == [
        "db.example.com:7687"]                                              # no port: Bolt's default
    assert table(db, "CALL dbms.routing.getRoutingTable({address: '[::1]:7617', region: 'x'})")[1]["WRITE"] == [
        "[::1]:7617"]
    with pytest.raises(ProcedureCallFailed, match="could not be parsed"):
        db.execute("CALL dbms.routing.getRoutingTable({address: 7617})").consume()


@pytest.mark.parametrize("bound, advertised", [
    ("0.0.0.0:7687", "localhost:7687"), (":::7690", "localhost:7690"), ("::1:7691", "[::1]:7691"),
    ("10.1.2.3:7692", "10.1.2.3:7692")])
def test_a_wildcard_listen_host_is_advertised_as_localhost(db, bound, advertised):
    serve(db, bolt=bound)
    assert table(db, "CALL dbms.routing.getRoutingTable({})")[1]["WRITE"] == [advertised]


def test_routing_table_refuses_other_databases_and_needs_a_bolt_listener(db):
    with pytest.raises(ClientError) as failure:
        db.execute("CALL dbms.routing.getRoutingTable({}, 'movies')").consume()
    assert failure.value.code == "Neo.ClientError.Database.DatabaseNotFound"
    assert "routing table for database 'movies' because this database does not exist" in str(failure.value)
    # embedded: no server listens, as Neo4j answers when Bolt is not enabled
    with pytest.raises(ProcedureCallFailed, match="Bolt is not enabled: this database is embedded"):
        db.execute("CALL dbms.routing.getRoutingTable({}, 'neo4j')").consume()
    serve(db, bolt=None)                                                # --bolt-listen none
    with pytest.raises(ProcedureCallFailed, match="without a Bolt listener"):
        db.execute("CALL dbms.routing.getRoutingTable({})").consume()


def test_routing_table_is_listed_with_its_signature_and_description(db):
    rows = db.execute("SHOW PROCEDURES YIELD name, signature, description, mode "
                      "WHERE name ENDS WITH 'routing.getRoutingTable' RETURN name, signature, description, mode "
                      "ORDER BY name").fetchall()
    assert [row[0] for row in rows] == ["dbms.cluster.routing.getRoutingTable", "dbms.routing.getRoutingTable"]
    for _, signature, description, mode in rows:
        assert "(context :: MAP" in signature and "ttl :: INTEGER" in signature and "servers :: LIST" in signature
        assert "embedded" in description and "ProcedureCallFailed" in description and mode == "DBMS"


# -- SHOW SETTINGS -----------------------------------------------------------------------------------------

def test_embedded_settings_under_neo4j_names_are_the_options_in_force(tmp_path):
    with relate.connect(":memory:") as db:
        assert settings(db, "db.transaction.timeout", "dbms.security.allow_csv_import_from_file_urls",
                        "server.directories.import", "server.db.query_cache_size", "dbms.security.auth_enabled",
                        "server.bolt.enabled", "server.http.enabled") == {
            "db.transaction.timeout": "0s", "dbms.security.allow_csv_import_from_file_urls": "false",
            "server.directories.import": None, "server.db.query_cache_size": "1000",
            "dbms.security.auth_enabled": "false", "server.bolt.enabled": "false", "server.http.enabled": "false"}
        # no listener, no address: none is made up
        assert not {"server.bolt.listen_address", "server.http.listen_address", "server.bolt.tls_level",
                    "db.logs.query.threshold"} & set(settings(db))
    with relate.connect(":memory:", query_timeout=2.5, import_dir=str(tmp_path), plan_cache_size=64) as db:
        assert settings(db, "db.transaction.timeout", "query_timeout", "server.directories.import",
                        "dbms.security.allow_csv_import_from_file_urls", "server.db.query_cache_size") == {
            "db.transaction.timeout": "2500ms", "query_timeout": "2.5", "server.directories.import": str(tmp_path),
            "dbms.security.allow_csv_import_from_file_urls": "true", "server.db.query_cache_size": "64"}


def test_server_settings_come_from_the_running_configuration(db):
    serve(db, bolt="0.0.0.0:7999", http="127.0.0.1:7475", query_timeout=30.0, auth=True, slow_query_log=0.25)
    assert settings(db, "db.transaction.timeout", "query_timeout", "dbms.security.auth_enabled",
                    "server.bolt.enabled", "server.bolt.listen_address", "server.bolt.tls_level",
                    "server.http.enabled", "server.http.listen_address", "db.logs.query.threshold") == {
        "db.transaction.timeout": "30s", "query_timeout": "30.0",       # the server's limit, not the engine's
        "dbms.security.auth_enabled": "true", "server.bolt.enabled": "true",
        "server.bolt.listen_address": "0.0.0.0:7999", "server.bolt.tls_level": "DISABLED",
        "server.http.enabled": "true", "server.http.listen_address": "127.0.0.1:7475",
        "db.logs.query.threshold": "250ms"}
    serve(db, bolt=None, auth=False, tls_cert="cert.pem", tls_key="key.pem")
    found = settings(db)
    assert found["server.bolt.enabled"] == "false" and "server.bolt.listen_address" not in found
    assert found["dbms.security.auth_enabled"] == "false" and "server.bolt.tls_level" not in found
    serve(db, tls_cert="cert.pem", tls_key="key.pem")
    assert settings(db, "server.bolt.tls_level") == {"server.bolt.tls_level": "REQUIRED"}


def test_settings_columns_defaults_and_listconfig_agree(db):
    serve(db, bolt="127.0.0.1:7687", query_timeout=5.0)
    rows = {row["name"]: row for row in db.execute("SHOW SETTINGS YIELD *").data()}
    names = list(rows)
    assert names == sorted(names)                                    # by name, as Neo4j lists them
    timeout = rows["db.transaction.timeout"]
    assert (timeout["value"], timeout["defaultValue"], timeout["startupValue"], timeout["isExplicitlySet"],
            timeout["isDynamic"]) == ("5s", "0s", "5s", True, False)
    bolt = rows["server.bolt.listen_address"]
    assert (bolt["defaultValue"], bolt["isExplicitlySet"]) == ("127.0.0.1:7687", False)
    assert all(row["description"] for row in rows.values())
    listed = {row[0]: row[2] for row in db.execute("CALL dbms.listConfig('')")}
    assert listed == {name: row["value"] for name, row in rows.items()}
    assert db.execute("SHOW SETTINGS 'db.transaction.timeout', 'server.bolt.enabled' YIELD name, value "
                      "RETURN name, value").fetchall() == [("db.transaction.timeout", "5s"),
                                                           ("server.bolt.enabled", "true")]
