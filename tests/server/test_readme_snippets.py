"""Every ```python and ```cypher block of README.md, extracted from the file, runs twice in a row:
embedded ones in a fresh directory, server ones against a real server on a free port."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import relate
from relate.shell.statements import split_statements

from .conftest import ROOT, ServerProcess

README = (ROOT / "README.md").read_text(encoding="utf-8")
# A block right after a "<!-- not a script: why -->" line is a listing of call forms, not run.
BLOCKS = re.findall(r"^(<!-- not a script[^\n]*-->\n)?```(\w+)\n(.*?)^```", README, flags=re.M | re.S)
PYTHON = [code for listing, lang, code in BLOCKS if lang == "python" and not listing]
CYPHER = [code for listing, lang, code in BLOCKS if lang == "cypher" and not listing]
README_URL = "relate://127.0.0.1:7688"
README_BOLT_URL = "bolt://127.0.0.1:7687"
README_PASSWORD = "relate-local"          # the password `make run` gives the server
README_SERVER_PASSWORD = "secret"         # the one the server block starts it with


def test_readme_has_the_blocks_this_test_runs():
    assert len(PYTHON) >= 2 and len(CYPHER) >= 1


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("readme"), "--init-password", README_PASSWORD,
                            "--bolt-listen", "127.0.0.1:0")
    yield process
    process.stop()


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_python_block_runs_twice(index, server, tmp_path):
    code = PYTHON[index]
    # Server blocks run against this test's server (free ports, one password).
    code = code.replace(README_URL, server.url).replace(README_BOLT_URL, f"bolt://{server.info['bolt']}")
    code = code.replace(f'("neo4j", "{README_SERVER_PASSWORD}")', f'("neo4j", "{README_PASSWORD}")')
    if not code.lstrip().startswith("import relate"):
        code = "import relate\n" + code          # later blocks continue the first one's imports
    for attempt in (1, 2):
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, f"block {index}, run {attempt}:\n{code}\n{done.stderr}"


@pytest.mark.parametrize("index", range(len(CYPHER)))
def test_cypher_block_runs_twice_as_one_script(index, tmp_path):
    params = {"v": np.ones(384, dtype=np.float32), "since": 0, "k": 5, "q": "hello"}
    with relate.connect(tmp_path / "db") as db:
        db.execute("UNWIND range(1, 3) AS i CREATE (:Note {id: 'n' + i, text: 'hello ' + i, session: 's', "
                   "ts: i, embedding: vector([x IN range(1, 384) | toFloat(x % (i + 2))], 384, FLOAT32)})")
        for _ in (1, 2):
            summaries = db.executescript(CYPHER[index], params)
            assert summaries
        for piece in split_statements(CYPHER[index]):
            if piece.text.lstrip().startswith("MATCH (n:Note)"):      # the searches over the notes made above
                assert db.execute(piece.text, params).fetchall(), f"no rows from\n{piece.text}"
