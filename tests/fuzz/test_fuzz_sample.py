"""The fast sample of the reliability harness that `make test` runs (the long runs are `make fuzz`,
`make crash` and `make soak`): a few seconds of each, with the same pass criteria."""
import io
import random

from tests.fuzz import cypher_fuzz, soak, wire_fuzz
from tests.integration.test_embedded_crash import check, run_and_kill


def test_cypher_fuzz_sample_sees_only_rows_or_typed_errors():
    out = io.StringIO()
    findings = cypher_fuzz.run(seconds=4, cases=None, seed=random.randrange(1 << 30), deadline=2.0, out=out)
    assert findings.cases > 50
    assert not findings.untyped, out.getvalue()


def test_wire_fuzz_sample_never_crashes_the_server(tmp_path):
    out = io.StringIO()
    report = wire_fuzz.run(seconds=4, sessions=None, workers=8, seed=random.randrange(1 << 30),
                           directory=tmp_path, out=out, settle_s=2, users=2)
    assert report["sessions"] > 20
    assert report["server_alive"], out.getvalue()
    assert report["unexpected_log_errors"] == 0, out.getvalue()
    assert report["control_failures"] == 0, out.getvalue()


def test_crash_sample_keeps_every_acknowledged_transaction(tmp_path):
    path = str(tmp_path / "ledger.rl")
    acknowledged: set[int] = set()
    for seconds in (0.2, random.uniform(0.0, 0.6)):
        acknowledged.update(run_and_kill(path, seconds))
        check(path, acknowledged)
    assert acknowledged          # (search-index crash cycles: tests/integration/test_search_crash.py)


def test_soak_sample_has_no_errors(tmp_path):
    report = soak.run(clients=4, seconds=2, sample=1, directory=tmp_path)
    assert report["server_alive"] and report["errors"] == 0, report["first_errors"]
    assert report["operations"] > 20
