"""LOAD CSV's position functions: ``linenumber()`` and ``file()`` (null outside LOAD CSV)."""
from __future__ import annotations

from relate.server.query.exec.functions.registry import function


@function("linenumber", 0, pure=False)
def linenumber(ctx):
    """The line (row, for Parquet/Arrow) of LOAD CSV's current record; null outside LOAD CSV."""
    position = ctx.load_position
    return None if position is None else position[1]


@function("file", 0, pure=False)
def file(ctx):
    """The URL LOAD CSV's current record comes from; null outside LOAD CSV."""
    position = ctx.load_position
    return None if position is None else position[0]
