"""``LOAD CSV`` URLs to files inside the import directory; every escape is refused.

Like Neo4j, ``file:///data/x.csv`` names ``<import dir>/data/x.csv``: the URL's path is always taken
relative to the import directory (an absolute path that already lies inside it is accepted as is).
``..`` segments, symlinks that lead outside and non-file schemes raise ``ExternalResourceFailed``.
"""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from relate.protocol.errors import ClientError

EXTERNAL_RESOURCE_FAILED = "Neo.ClientError.Statement.ExternalResourceFailed"


def load_error(message: str) -> ClientError:
    """The typed error of every LOAD CSV failure (Neo4j's code for it)."""
    return ClientError(message, code=EXTERNAL_RESOURCE_FAILED, phase="runtime")


def resolve_url(url, import_dir: str | os.PathLike | None) -> Path:
    """The real path of the file ``url`` names inside ``import_dir``."""
    if not isinstance(url, str):
        raise load_error(f"LOAD CSV needs a URL string, got {type(url).__name__}")
    if import_dir is None:
        raise load_error("LOAD CSV from files is disabled: no import directory is configured "
                         "(start the server with --import-dir DIR, or connect(..., import_dir=DIR))")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("file", ""):
        raise load_error(f"Couldn't load the external resource at: {url} "
                         f"(only file:/// URLs are supported, not {parts.scheme}:)")
    if parts.netloc not in ("", "localhost"):
        raise load_error(f"Couldn't load the external resource at: {url} (a file URL names no host)")
    path = unquote(parts.path if parts.scheme else url)
    if "\x00" in path:
        raise load_error(f"Couldn't load the external resource at: {url} (NUL in the path)")
    root = Path(import_dir).resolve()
    segments = [s for s in path.replace("\\", "/").split("/") if s not in ("", ".")]
    if ".." in segments:
        raise load_error(f"Couldn't load the external resource at: {url} "
                         "('..' is not allowed: paths stay inside the import directory)")
    candidate = Path(path)
    if not (candidate.is_absolute() and _inside(candidate, root)):
        candidate = root.joinpath(*segments)
    try:
        real = candidate.resolve()
        inside, is_file = _inside(real, root), real.is_file()
    except (OSError, RuntimeError) as exc:      # a name too long, a symlink loop
        raise load_error(f"Couldn't load the external resource at: {url[:200]} ({exc.__class__.__name__}: "
                         f"{getattr(exc, 'strerror', None) or exc})") from None
    if not inside:
        raise load_error(f"Couldn't load the external resource at: {url} "
                         "(it leads outside the import directory, e.g. through a symbolic link)")
    if not is_file:
        raise load_error(f"Couldn't load the external resource at: {url} "
                         "(no such file in the import directory)")
    return real


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
