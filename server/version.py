"""The installed Relate version, read from the package metadata (the server never imports the client)."""
from __future__ import annotations

from importlib import metadata


def version() -> str:
    try:
        return metadata.version("relate-db")
    except metadata.PackageNotFoundError:       # a source tree that was never installed
        return "0.0.0+unknown"
