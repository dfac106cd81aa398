"""A smoke-size run of the peer benchmark (bench/peers) so it never rots: tiny N, few repetitions. It asserts
that the systems agree with the exact answers (same top ids where the search is exact, same counts), never
timings. Relate and the FAISS/tantivy floor always run; FalkorDB and Kuzu only where installed."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "bench"))   # appended: bench/ must not shadow other top-level modules

from peers import run as peers_run  # noqa: E402
from peers import systems  # noqa: E402

N = 300
EXACT_SEARCH = {"relate", "relate-wire", "floor"}      # exact vector search below 50k notes, exact BM25


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("peers")
    wanted = ["relate", "relate-wire", "floor", "whoosh"] + [s for s in ("falkordb", "kuzu") if systems.installed(s)]
    args = peers_run.parse(["--n", str(N), "--systems", ",".join(wanted), "--budget", "0.05", "--max-reps", "6",
                            "--calibration-questions", "5", "--out", str(tmp / "results"),
                            "--cache", str(tmp / "cache"), "--workdir", str(tmp / "work")])
    res = peers_run.run(args)
    res["paths"] = peers_run.report.write(res, args.out, f"peers-n{N}")
    return res


def test_every_system_ran_every_operation(results):
    ran = {s["name"] for s in results["systems"]}
    assert {"relate", "relate-wire", "floor", "whoosh"} <= ran, results["skipped"]
    for name in ran:
        assert set(results["load"][name]) == {"load_nodes", "load_edges", "build_indexes"}
        assert results["rss_mib"][name] > 0
    for op, row in results["defaults"].items():
        for name, cell in row.items():
            assert cell["stats"]["reps"] > 0, f"{name} {op}: {cell['stats'].get('error')}"


def test_exact_operations_agree_across_systems(results):
    """Counts and lookups are exact on every system; so are searches on Relate and the floor at this N."""
    assert results["disagreements"] == []
    for op, row in results["defaults"].items():
        for name, cell in row.items():
            kind = peers_run.O.OPS_BY_NAME[op].kind
            if kind in ("count", "lookup", "trivial") or (name in EXACT_SEARCH and kind != "trivial"):
                assert cell["quality"]["agree"] == 1.0, (name, op, cell["quality"])


def test_relate_and_floor_return_the_same_top_ids(results):
    for op in ("vector", "vector_ts30", "vector_ts1", "fulltext", "hybrid"):
        row = results["defaults"][op]
        assert row["relate"]["quality"]["recall"] == row["floor"]["quality"]["recall"] == 1.0, op
        if op.startswith("vector"):      # 1% of 300 notes is 3: all of them, as many as exist
            assert row["relate"]["quality"]["returned"] == row["floor"]["quality"]["returned"]


def test_peers_report_recall_and_hits(results):
    for name in ("falkordb", "kuzu"):
        if name not in results["defaults"]["vector"]:
            continue
        for op in ("vector", "vector_ts30", "vector_ts1"):
            quality = results["defaults"][op][name]["quality"]
            assert 0 <= quality["recall"] <= 1 and 0 <= quality["returned"] <= 10
        assert results["tuned"]["calibration"][name]["ladder"]


def test_reports_are_written(results):
    json_path, md_path = results["paths"]
    assert json.loads(Path(json_path).read_text())["n"] == N
    text = Path(md_path).read_text()
    assert "| vector top-10 |" in text and "relate ÷ best peer" in text
