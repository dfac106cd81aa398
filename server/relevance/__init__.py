"""Relevance joins: relationship types answered by a search at query time (docs/relevance.md)."""
