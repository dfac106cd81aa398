"""LOAD CSV: rows read from a file in the import directory (CSV, gzip, Parquet, Arrow IPC)."""
from __future__ import annotations

from relate.server.load.paths import load_error, resolve_url
from relate.server.load.progress import LoadProgress
from relate.server.load.readers import rows as file_rows

from .base import Operator


class LoadCsv(Operator):
    """One output row per record; ``ctx.load_position`` = (url, line) for ``file()``/``linenumber()``."""
    __slots__ = ("url", "var", "headers", "terminator")
    name = "LoadCSV"

    def __init__(self, source, url, var, headers, terminator):
        self.source, self.url, self.var = source, url, var
        self.headers, self.terminator = headers, terminator

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        var, headers, terminator = self.var, self.headers, self.terminator
        import_dir = getattr(ctx.db, "import_dir", None)
        check = ctx.check
        for row in self.source.rows(ctx, arg):
            url = self.url(row, ctx)
            if url is None:
                raise load_error("LOAD CSV needs a URL, got null")
            path = resolve_url(url, import_dir)
            ctx.load_progress = LoadProgress(url)       # SHOW TRANSACTIONS and the shell read it
            try:
                for line, record in file_rows(path, url, headers, terminator, ctx.load_progress):
                    check()
                    ctx.load_position = (url, line)
                    out = dict(row)
                    out[var] = record
                    yield out
            finally:
                ctx.load_position = ctx.load_progress = None
