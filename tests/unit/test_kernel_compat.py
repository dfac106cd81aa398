"""The kernel's move into relate.protocol keeps user imports and persisted bytes working.

The byte strings below were written by the code before the move (classes under relate.temporal and
relate.values): vector-index pickles and WAL/snapshot msgpack records must still load.
"""
from __future__ import annotations

import pickle

import numpy as np

import relate
import relate.errors
import relate.summary
import relate.temporal
import relate.temporal_parse
import relate.temporal_zones
import relate.values
from relate.protocol import errors, summary, temporal, values
from relate.protocol.temporal import Date, DateTime
from relate.protocol.temporal.zones import named_zone
from relate.protocol.values import Duration, Vector
from relate.server.storage import codec

OLD_PICKLE = (
    b'\x80\x04\x95\xda\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x0frelate.temporal\x94\x8c\x04Date\x94\x93\x94M'
    b'\xe4\x07K\x01K\x02\x87\x94R\x94\x8c\x08builtins\x94\x8c\x07getattr\x94\x93\x94h\x01\x8c\x08DateTime\x94'
    b'\x93\x94\x8c\nfrom_state\x94\x86\x94R\x94J\xaf\\@`K\x00\x8c\x10Europe/Stockholm\x94\x87\x94\x85\x94R\x94'
    b'\x8c\rrelate.values\x94\x8c\x08Duration\x94\x93\x94)\x81\x94N}\x94(\x8c\x06months\x94K\x01\x8c\x04days'
    b'\x94K\x02\x8c\x07seconds\x94K\x03\x8c\x0bnanoseconds\x94K\x04u\x86\x94be.')
OLD_RECORD = (
    b'\x84\xa1d\xc7\x06\x03\x93\xcd\x07\xe4\x01\x02\xa1t\xc7\x18\x06\x93\xce`@\\\xaf\x00\xb0Europe/Stockholm'
    b'\xa1u\xc7\x05\x02\x94\x01\x02\x03\x04\xa1v\xd8\x01FLOAT32\x00\x00\x00\x80?\x00\x00\x00@')
STOCKHOLM = DateTime(2021, 3, 4, 5, 6, 7, tzinfo=named_zone("Europe/Stockholm"))


def test_public_names_are_the_kernel_modules():
    assert (relate.errors, relate.values, relate.temporal, relate.summary) == (errors, values, temporal, summary)
    assert relate.temporal_parse is temporal.parse and relate.temporal_zones is temporal.zones
    assert relate.CypherTypeError is errors.CypherTypeError and relate.Vector is values.Vector
    from relate.temporal import NANOS_PER_DAY           # a name outside __all__ keeps working
    from relate.values import VECTOR_TYPES
    assert NANOS_PER_DAY == 86_400 * 10**9 and "FLOAT32" in VECTOR_TYPES


def test_pickles_written_before_the_move_load():
    date, stockholm, duration = pickle.loads(OLD_PICKLE)
    assert (date, stockholm, duration) == (Date(2020, 1, 2), STOCKHOLM,
                                           Duration(months=1, days=2, seconds=3, nanoseconds=4))
    assert type(stockholm) is DateTime and type(duration) is Duration


def test_stored_records_written_before_the_move_decode_and_encode_the_same():
    record = codec.decode(OLD_RECORD)
    assert record["d"] == Date(2020, 1, 2) and record["t"] == STOCKHOLM
    assert record["u"] == Duration(months=1, days=2, seconds=3, nanoseconds=4)
    assert np.array_equal(record["v"].to_numpy(), np.array([1.0, 2.0], dtype=np.float32))
    assert codec.encode({"d": record["d"], "t": record["t"], "u": record["u"],
                         "v": Vector(np.array([1.0, 2.0], dtype=np.float32), "FLOAT32")}) == OLD_RECORD
