"""to_arrow over the wire: record batches are built while rows stream, so client memory stays bounded."""
import tracemalloc

import pyarrow as pa
import pytest

import relate

from .conftest import AUTH, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("arrow"))
    yield process
    process.stop()


def streamed_peak(db, statement: str, rows: int) -> int:
    """Peak traced Python memory while reading ``rows`` rows as 5,000-row Arrow batches."""
    tracemalloc.start()
    try:
        seen = 0
        for batch in db.execute(statement, {"n": rows}).iter_arrow_batches(5_000):
            assert batch.schema.types == [pa.int64(), pa.string(), pa.float64()]
            seen += batch.num_rows
        assert seen == rows
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_arrow_batches_over_the_wire_keep_memory_bounded(server):
    statement = "UNWIND range(1, $n) AS i RETURN i, toString(i) AS s, i * 0.5 AS f"
    with relate.connect(server.url, auth=AUTH) as db:
        streamed_peak(db, statement, 1_000)         # warm up: imports and caches are not the result's
        small, large = streamed_peak(db, statement, 20_000), streamed_peak(db, statement, 80_000)
        table = db.execute(statement, {"n": 1000}).to_arrow()
        assert table.num_rows == 1000 and table.column("s").to_pylist()[-1] == "1000"
    print(f"peak Python memory reading Arrow batches: 20k rows {small / 2**20:.1f} MiB, 80k rows {large / 2**20:.1f} MiB")
    assert large < small * 2          # four times the rows, not four times the memory
