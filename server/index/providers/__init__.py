"""The registry of search-index kinds: one provider per kind (vector, full-text, trigram, ...).

A provider (``base.SearchProvider``) owns everything kind-specific: DDL validation, the live structure,
applying committed changes, searching, save/load, its SHOW INDEXES columns and its procedures. The
manager, the live index, the schema commands, the SEARCH rules and the SEARCH operator dispatch
through ``get_provider(kind)``; adding a kind is one module here that calls ``register``: every module
of this package is imported (in name order) when the registry is first used, so nothing else is edited.
"""
from __future__ import annotations

import importlib
import pkgutil

from relate.protocol.errors import ArgumentError

from .base import SearchProvider

_PROVIDERS: dict[str, SearchProvider] = {}


def register(provider: SearchProvider) -> SearchProvider:
    """Add ``provider`` under its ``kind`` (upper case); a kind registers once."""
    kind = provider.kind.upper()
    if not kind or kind in _PROVIDERS:
        raise ValueError(f"search-index kind {kind!r} is empty or registered already")
    _PROVIDERS[kind] = provider
    return provider


def get_provider(kind: str) -> SearchProvider:
    """The provider of ``kind`` (any case); ArgumentError naming the known kinds when there is none."""
    provider = _PROVIDERS.get(str(kind).upper())
    if provider is None:
        raise ArgumentError(f"Unknown search-index kind `{kind}`; known kinds: {', '.join(kinds())}")
    return provider


def is_search_kind(kind: str) -> bool:
    return str(kind).upper() in _PROVIDERS


def kinds() -> list[str]:
    return sorted(_PROVIDERS)


def providers() -> list[SearchProvider]:
    return [_PROVIDERS[k] for k in kinds()]


def discover() -> list[str]:
    """Import every module of this package not imported yet (each registers its kind); their names."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            importlib.import_module(f"{__name__}.{module.name}")
            found.append(module.name)
    return found


# The kinds register themselves on import (after the registry above exists).
discover()

__all__ = ["SearchProvider", "register", "get_provider", "is_search_kind", "kinds", "providers"]
