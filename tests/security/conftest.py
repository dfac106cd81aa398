"""Real server processes for the hostile-client tests (see tests/server/conftest.py)."""
from __future__ import annotations

import pytest

from tests.server.conftest import AUTH, PASSWORD, ServerProcess, start_server  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server shared by a module's tests (each test leaves it healthy, or says so)."""
    process = ServerProcess(tmp_path_factory.mktemp("server"))
    yield process
    process.stop()
