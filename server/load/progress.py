"""How far a running LOAD CSV has read its file, for ``SHOW TRANSACTIONS`` and the shell's progress bar.

The reader thread never pays for it per row: a CSV file's position is asked of the operating system
(``lseek`` on the file's descriptor, the compressed position for gzip) only when someone looks, and
Arrow files count rows per record batch against the row count in their metadata."""
from __future__ import annotations

import os
from typing import Any


class LoadProgress:
    """One file being read by LOAD CSV (set by the reader; read from any thread)."""

    __slots__ = ("url", "fd", "bytes_total", "rows_total", "rows_read")

    def __init__(self, url: str):
        self.url = url
        self.fd: int | None = None              # CSV: the on-disk file's descriptor
        self.bytes_total: int | None = None
        self.rows_total: int | None = None      # Arrow/Parquet: rows in the file
        self.rows_read = 0                      # Arrow/Parquet: rows of the batches read so far

    def snapshot(self, line: int | None) -> dict[str, Any]:
        """``{operation, url, line, bytesRead, bytesTotal, percent}`` (percent null when unknown)."""
        done, total = None, None
        fd = self.fd
        if fd is not None:
            try:
                done, total = os.lseek(fd, 0, os.SEEK_CUR), self.bytes_total
            except OSError:                     # closed meanwhile: the file was read to its end
                done = total = self.bytes_total
        elif self.rows_total is not None:
            done, total = self.rows_read, self.rows_total
        percent = round(min(100.0, 100.0 * done / total), 1) if done is not None and total else None
        return {"operation": "LOAD CSV", "url": self.url, "line": line,
                "bytesRead": done if fd is not None else None,
                "bytesTotal": total if fd is not None else None, "percent": percent}
