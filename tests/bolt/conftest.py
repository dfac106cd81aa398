"""One real relate-server per test module, with the Bolt listener on an ephemeral loopback port."""
from __future__ import annotations

import pytest
from neo4j import GraphDatabase

from tests.server.conftest import AUTH, PASSWORD, ServerProcess, start_server  # noqa: F401  (fixtures re-exported)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("bolt"))
    yield process
    process.stop()


@pytest.fixture(scope="module")
def bolt_url(server):
    return f"bolt://{server.bolt_address}"


@pytest.fixture
def driver(bolt_url):
    with GraphDatabase.driver(bolt_url, auth=AUTH) as driver:
        yield driver
