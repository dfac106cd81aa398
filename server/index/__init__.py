"""Search indexes: FAISS vector indexes and full-text indexes (Whoosh or tantivy, exact Lucene BM25).

`IndexManager` is the entry point (contract in docs/architecture.md, "Search indexes").
"""
from .manager import DEFAULT_FULLTEXT_ENGINE, IndexManager

__all__ = ["IndexManager", "DEFAULT_FULLTEXT_ENGINE"]
