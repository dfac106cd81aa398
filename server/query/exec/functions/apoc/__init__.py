"""The APOC function library (Neo4j's APOC 5 names and semantics): ``coll`` (lists), ``maps``, ``text``
(with ``text_format``: Java String.format), ``convert`` (JSON), ``dates`` (with ``java_time``: Java date
patterns), ``numbers``, ``util`` (hashes, compression, UUIDs, apoc.math), ``meta`` (type names),
``graph`` (degrees, labels) and ``aggregates`` (apoc.agg.*); ``args`` holds their shared argument checks.
The APOC procedures live in ``relate.server.query.procedures_apoc``."""
from __future__ import annotations

from relate.server.query.exec.functions.apoc import (aggregates, coll, convert, dates, graph, maps,  # noqa: F401
                                                     meta, numbers, text, util)
