"""Roles over the wire: reader / editor / admin enforced per statement, GRANT / REVOKE ROLE, and a
CHANGE REQUIRED user that may only change its own password."""
import pytest

import relate
from relate.errors import ClientError
from tests.security.conftest import AUTH

FORBIDDEN = "Neo.ClientError.Security.Forbidden"


def expect(conn, query, code):
    with pytest.raises(ClientError) as caught:
        conn.execute(query).consume()
    assert caught.value.code == code, caught.value


def test_roles_limit_each_user(server):
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("CREATE USER rita IF NOT EXISTS SET PASSWORD 'rita-pass-1' CHANGE NOT REQUIRED").consume()
        admin.execute("CREATE USER eddy IF NOT EXISTS SET PASSWORD 'eddy-pass-1' CHANGE NOT REQUIRED").consume()
        admin.execute("GRANT ROLE editor TO eddy").consume()
        admin.execute("CREATE (:Doc {n: 1})").consume()
        roles = {row["user"]: row["roles"] for row in admin.execute("SHOW USERS")}
        assert roles == {"neo4j": ["admin"], "rita": ["reader"], "eddy": ["reader", "editor"]}
    with relate.connect(server.url, auth=("rita", "rita-pass-1")) as reader:
        assert reader.execute("MATCH (d:Doc) RETURN count(d)").fetchall() == [(1,)]
        expect(reader, "CREATE (:Doc {n: 2})", FORBIDDEN)
        expect(reader, "MATCH (d:Doc) SET d.n = 5", FORBIDDEN)
        expect(reader, "CREATE INDEX doc_n FOR (d:Doc) ON (d.n)", FORBIDDEN)
        expect(reader, "ALTER USER neo4j SET PASSWORD 'stolen-pass-1'", FORBIDDEN)
        expect(reader, "SHOW USERS", FORBIDDEN)
        assert [row["user"] for row in reader.execute("SHOW CURRENT USER")] == ["rita"]
    with relate.connect(server.url, auth=("eddy", "eddy-pass-1")) as editor:
        editor.execute("CREATE (:Doc {n: 2})").consume()
        expect(editor, "CREATE INDEX doc_n FOR (d:Doc) ON (d.n)", FORBIDDEN)
        expect(editor, "CREATE USER mallory SET PASSWORD 'mallory-pw-1'", FORBIDDEN)
        expect(editor, "GRANT ROLE admin TO eddy", FORBIDDEN)
        # A backup writes a directory wherever the server may write: an administrator's call.
        expect(editor, "CALL db.backup('/tmp/relate-backup-by-editor')", FORBIDDEN)
        expect(editor, "CALL dbms.security.setUserContexts('eddy', ['any'])", FORBIDDEN)
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("REVOKE ROLE editor FROM eddy").consume()
        expect(admin, "GRANT ROLE superuser TO eddy", "Neo.ClientError.General.InvalidArguments")
    with relate.connect(server.url, auth=("eddy", "eddy-pass-1")) as eddy:
        expect(eddy, "CREATE (:Doc {n: 3})", FORBIDDEN)        # checked per statement, at once


def test_change_required_user_can_only_change_its_own_password(server):
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("CREATE USER newbie IF NOT EXISTS SET PASSWORD 'first-pass-1'").consume()
        admin.execute("GRANT ROLE admin TO newbie").consume()
    expired = "Neo.ClientError.Security.CredentialsExpired"
    with relate.connect(server.url, auth=("newbie", "first-pass-1")) as newbie:
        expect(newbie, "MATCH (n) RETURN count(n)", expired)
        expect(newbie, "ALTER USER neo4j SET PASSWORD 'taken-over-1'", expired)
        newbie.execute("ALTER CURRENT USER SET PASSWORD FROM 'first-pass-1' TO 'second-pass-2'").consume()
        assert newbie.execute("RETURN 1").fetchall() == [(1,)]
    relate.connect(server.url, auth=AUTH).close()          # neo4j's password is unchanged
    relate.connect(server.url, auth=("newbie", "second-pass-2")).close()


def test_a_statement_allowed_before_a_revoke_is_refused_after_it_in_the_same_session(server):
    """The per-statement check remembers the user entry a cached statement was allowed for; a REVOKE
    commits a new entry, so the very same statement text is checked again."""
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("CREATE USER vera IF NOT EXISTS SET PASSWORD 'vera-pass-1' CHANGE NOT REQUIRED").consume()
        admin.execute("GRANT ROLE editor TO vera").consume()
        with relate.connect(server.url, auth=("vera", "vera-pass-1")) as vera:
            for _ in range(3):
                vera.execute("CREATE (:Memo {by: 'vera'})").consume()
            admin.execute("REVOKE ROLE editor FROM vera").consume()
            expect(vera, "CREATE (:Memo {by: 'vera'})", FORBIDDEN)
            admin.execute("GRANT ROLE editor TO vera").consume()
            vera.execute("CREATE (:Memo {by: 'vera'})").consume()
        assert admin.execute("MATCH (m:Memo) RETURN count(m) AS c").fetchone().c == 4


def test_privileges_are_listed_as_neo4j_lists_them(server):
    """SHOW PRIVILEGES, SHOW ROLE r PRIVILEGES, SHOW USER [u] PRIVILEGES (each user its own; others' only for
    an admin), AS [REVOKE] COMMANDS, SHOW USERS WITH AUTH: each role holding what the ones below it hold."""
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("CREATE USER perry IF NOT EXISTS SET PASSWORD 'perry-pass-1' CHANGE NOT REQUIRED").consume()
        every = admin.execute("SHOW PRIVILEGES").fetchall()
        assert admin.execute("SHOW PRIVILEGES").keys() == ["access", "action", "resource", "graph", "segment",
                                                             "role", "immutable"]
        by_role = {}
        for row in every:
            by_role.setdefault(row["role"], set()).add((row["action"], row["segment"]))
        assert set(by_role) == {"reader", "editor", "admin"}
        assert by_role["reader"] < by_role["editor"] < by_role["admin"]
        assert ("match", "NODE(*)") in by_role["reader"] and ("write", "NODE(*)") not in by_role["reader"]
        assert ("write", "RELATIONSHIP(*)") in by_role["editor"] and ("index", "database") not in by_role["editor"]
        assert ("index", "database") in by_role["admin"]
        commands = [row["command"] for row in admin.execute("SHOW ROLE editor PRIVILEGES AS COMMANDS")]
        assert "GRANT MATCH {*} ON GRAPH * NODE * TO `editor`" in commands
        assert commands.count("GRANT WRITE ON GRAPH * TO `editor`") == 1
        revoke = [row["command"] for row in admin.execute("SHOW ROLES reader PRIVILEGES AS REVOKE COMMANDS")]
        assert "REVOKE GRANT ACCESS ON DATABASE * FROM `reader`" in revoke
        assert admin.execute("SHOW ROLE nobody PRIVILEGES").fetchall() == []
        perry = admin.execute("SHOW USER perry PRIVILEGES YIELD user, role, action").fetchall()
        assert {row["user"] for row in perry} == {"perry"} and {row["role"] for row in perry} == {"reader"}
        auth_rows = {row["user"]: row for row in admin.execute("SHOW USERS WITH AUTH")}
        assert auth_rows["perry"]["provider"] == "native" and auth_rows["neo4j"]["roles"] == ["admin"]
        assert admin.execute("SHOW ALIASES FOR DATABASE").fetchall() == []
    with relate.connect(server.url, auth=("perry", "perry-pass-1")) as reader:
        own = reader.execute("SHOW USER PRIVILEGES").fetchall()
        assert own and {row["user"] for row in own} == {"perry"}
        assert "GRANT ACCESS ON DATABASE * TO $role" in [
            row["command"] for row in reader.execute("SHOW USER PRIVILEGES AS COMMANDS")]
        expect(reader, "SHOW PRIVILEGES", FORBIDDEN)
        expect(reader, "SHOW USER neo4j PRIVILEGES", FORBIDDEN)
        expect(reader, "SHOW USERS WITH AUTH", FORBIDDEN)


def test_index_procedures_need_an_admin(server):
    """CALL forms of CREATE/DROP INDEX (Neo4j's db.index.vector.createNodeIndex, FalkorDB's and Kuzu's
    index calls: SCHEMA procedures) need what CREATE INDEX needs; WRITE procedures an editor."""
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute("CREATE USER idra IF NOT EXISTS SET PASSWORD 'idra-pass-1' CHANGE NOT REQUIRED").consume()
        admin.execute("GRANT ROLE editor TO idra").consume()
    calls = ["CALL db.index.vector.createNodeIndex('doc_e', 'Doc', 'e', 3, 'cosine')",
             "CALL db.idx.fulltext.createNodeIndex('Doc', 'text')",
             "CALL CREATE_VECTOR_INDEX('Doc', 'doc_v', 'e')",
             "CALL CREATE_FTS_INDEX('Doc', 'doc_f', ['text'])"]
    with relate.connect(server.url, auth=("idra", "idra-pass-1")) as editor:
        for call in calls:
            expect(editor, call, FORBIDDEN)
        editor.execute("CALL apoc.create.node(['Doc'], {n: 9})").consume()       # a WRITE procedure
    with relate.connect(server.url, auth=AUTH) as admin:
        admin.execute(calls[2]).consume()
        names = [row["name"] for row in admin.execute("SHOW VECTOR INDEXES YIELD name")]
        assert "doc_v" in names
        admin.execute("CALL DROP_VECTOR_INDEX('Doc', 'doc_v')").consume()
