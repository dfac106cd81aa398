"""Full-text engines behind `FullTextIndex`: Whoosh and tantivy, one interface (`base.FullTextEngine`)."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

ENGINES = ("whoosh", "tantivy")


def open_engine(kind: str, directory: str | None, n_fields: int, create: bool):
    """The engine ``kind`` over ``n_fields`` text fields, in ``directory`` (None = in memory)."""
    if kind == "whoosh":
        from .whoosh_engine import WhooshEngine
        return WhooshEngine(directory, n_fields, create)
    if kind == "tantivy":
        from .tantivy_engine import TantivyEngine
        return TantivyEngine(directory, n_fields, create)
    raise ArgumentError(f"Unknown full-text engine {kind!r}; choose one of {', '.join(ENGINES)}")
