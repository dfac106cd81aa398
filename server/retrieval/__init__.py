"""Three-lane graph retrieval, entity resolution and grounded answers (docs/retrieval.md)."""
from __future__ import annotations


def register(registry) -> None:
    """Add db.entity.resolve, db.retrieve, db.retrieve.diagnostics and db.answer to ``registry``."""
    from . import procedures
    procedures.register(registry)
