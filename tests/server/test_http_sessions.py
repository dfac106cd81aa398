"""The HTTP listener's core pool and transaction cap, against a real server process."""
import httpx

from .conftest import PASSWORD, ServerProcess


def test_open_transactions_are_capped_and_pooled_cores_reused(tmp_path):
    server = ServerProcess(tmp_path, "--http-listen", "127.0.0.1:0", "--max-connections", "3",
                           "--log-level", "debug")
    try:
        with httpx.Client(base_url=f"http://{server.info['http']}", auth=("neo4j", PASSWORD), timeout=60) as http:
            opened = [http.post("/db/neo4j/query/v2/tx", json={}) for _ in range(3)]
            assert all(r.status_code == 202 for r in opened)
            refused = http.post("/db/neo4j/query/v2/tx", json={})
            assert refused.status_code == 503 and "Too many open HTTP transactions" in refused.text
            for r in opened:
                assert http.delete(f"/db/neo4j/query/v2/tx/{r.json()['transaction']['id']}").status_code == 202
            assert http.post("/db/neo4j/query/v2/tx", json={}).status_code == 202
            for _ in range(20):     # sequential auto-commit requests: one pooled core, one login
                assert http.post("/db/neo4j/query/v2", json={"statement": "RETURN 1"}).status_code == 202
        opened_cores = server.log().count("http session opened")
        assert 4 <= opened_cores <= 6, server.log()[-2000:]    # 4 transactions + the pooled one (+ slack)
    finally:
        server.stop()
