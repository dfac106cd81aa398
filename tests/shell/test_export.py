"""``:export FILE <statement>`` writes a result as CSV, JSON lines or Parquet."""
from __future__ import annotations

import json

import pyarrow.parquet as pq

from .conftest import run_shell

SCRIPT = """CREATE (:X {a: 1, name: 'one', v: vector([1, 2], 2, FLOAT32)}), (:X {a: 2, name: 'two, too'});
:export out.csv MATCH (x:X) RETURN x.a AS a, x.name AS name ORDER BY a;
:export out.jsonl MATCH (x:X) RETURN x.a AS a, x.v AS v ORDER BY a;
:export out.parquet MATCH (x:X) RETURN x.a AS a, x.name AS name, x.v AS v ORDER BY a;
"""


def test_export_writes_csv_jsonl_and_parquet(tmp_path):
    done = run_shell(tmp_path, ":memory:", stdin=SCRIPT)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_text() == 'a,name\n1,one\n2,"two, too"\n'
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert lines == [{"a": 1, "v": [1.0, 2.0]}, {"a": 2, "v": None}]
    assert pq.read_table(tmp_path / "out.parquet").to_pylist() == [
        {"a": 1, "name": "one", "v": [1.0, 2.0]}, {"a": 2, "name": "two, too", "v": None}]


def test_export_needs_a_known_extension(tmp_path):
    done = run_shell(tmp_path, ":memory:", stdin=":export out.txt RETURN 1;\n")
    assert done.returncode == 1 and "cannot tell the format" in done.stderr
    assert not (tmp_path / "out.txt").exists()
