"""Parameter conversion: a list of row maps (the UNWIND load shape) converts every non-plain field."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from relate.protocol import temporal
from relate.protocol.conversion import to_parameters
from relate.protocol.errors import CypherTypeError
from relate.protocol.values import Duration


def test_plain_row_maps_pass_through_unchanged():
    rows = [{"id": i, "name": f"n{i}", "score": i * 0.5, "ok": True, "none": None} for i in range(100)]
    assert to_parameters({"rows": rows})["rows"] == rows


def test_row_maps_convert_their_non_plain_fields():
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    rows = [{"id": 1, "t": when}, {"id": 2, "tags": ("a", "b")}, {"id": 3, "d": dt.timedelta(days=1)},
            {"id": 4, "x": np.int64(7)}, {"id": 5, "nested": {"when": dt.date(2026, 1, 1)}}]
    out = to_parameters({"rows": rows})["rows"]
    assert isinstance(out[0]["t"], temporal.DateTime)
    assert out[1]["tags"] == ["a", "b"]
    assert isinstance(out[2]["d"], Duration)
    assert out[3]["x"] == 7 and type(out[3]["x"]) is int
    assert isinstance(out[4]["nested"]["when"], temporal.Date)
    assert rows[0]["t"] is when                      # the caller's maps are never changed


@pytest.mark.parametrize("bad", [{"id": 1 << 64}, {"id": object()}, {1: "not a string key"}])
def test_row_maps_refuse_what_a_single_value_refuses(bad):
    with pytest.raises(CypherTypeError):
        to_parameters({"rows": [{"id": 0}, bad]})


@pytest.mark.parametrize("bad", [{"id": -(1 << 63) - 1}, {"id": 1 << 63}, {"id": 1.5, "n": [object()]},
                                 {b"key": 1}, {"id": {1, 2}}])
def test_a_batch_of_plain_rows_with_one_bad_row_at_its_end_is_still_checked(bad):
    # Big batches are told plain at C speed (types collected, then int ranges): the one bad field
    # among 30,000 must still be found (refused, or converted as a single value would be).
    rows = [{"id": i, "name": f"n{i}", "score": i * 0.5} for i in range(10_000)] + [bad]
    if "id" in bad and isinstance(bad["id"], set):
        assert to_parameters({"rows": rows})["rows"][-1]["id"] in ([1, 2], [2, 1])
        return
    with pytest.raises(CypherTypeError):
        to_parameters({"rows": rows})


def test_int64_bounds_in_a_batch_pass_unchanged():
    rows = [{"id": -(1 << 63)}, {"id": (1 << 63) - 1}, {"id": True}]
    assert to_parameters({"rows": rows})["rows"] is rows
