"""The registry of named text embedders the engine uses (indexes, relevance joins, ``ai.text.embed``).

Built in: ``hash-384`` (the cookbook's deterministic embedder, the default), ``all-minilm-l6-v2`` (a
real sentence model, offline, optional package), and ``openai`` / ``openai:<model>`` (the configured
OpenAI-compatible provider). ``register(name, embedder)`` adds more. Names are case-insensitive.
"""
from __future__ import annotations

import threading

from relate.protocol.errors import ArgumentError

from . import providers
from .hash384 import hash384

DEFAULT = "hash-384"


class Embedder:
    """Turns texts into vectors; ``remote`` embedders cost one API call per batch."""

    name = "embedder"
    dimensions: int | None = None
    remote = False

    def embed(self, texts: list[str], db=None) -> list[list[float]]:
        raise NotImplementedError


class HashEmbedder(Embedder):
    name, dimensions = "hash-384", 384

    def embed(self, texts, db=None):
        return [hash384(t) for t in texts]


class MiniLMEmbedder(Embedder):
    name, dimensions = "all-minilm-l6-v2", 384

    def __init__(self):
        self._model = None
        self._lock = threading.Lock()

    def embed(self, texts, db=None):
        with self._lock:
            if self._model is None:
                from .minilm import MiniLM
                self._model = MiniLM()
        return self._model.embed(list(texts)).tolist()


class ProviderEmbedder(Embedder):
    """Embeddings from the configured provider (``openai:<model>``; bare ``openai`` = its default model)."""

    remote = True

    def __init__(self, model: str | None):
        self.model = model
        self.name = "openai" + (f":{model}" if model else "")

    def embed(self, texts, db=None):
        return providers.get_provider(db).embed(list(texts), self.model)


_ALIASES = {"hash384": "hash-384", "hash-384": "hash-384", "default": "hash-384",
            "all-minilm-l6-v2": "all-minilm-l6-v2", "minilm": "all-minilm-l6-v2",
            "sentence-transformers/all-minilm-l6-v2": "all-minilm-l6-v2"}
_REGISTRY: dict[str, Embedder] = {"hash-384": HashEmbedder(), "all-minilm-l6-v2": MiniLMEmbedder()}
_lock = threading.Lock()


def register(name: str, embedder: Embedder) -> None:
    """Make ``embedder`` available under ``name`` (replacing one of the same name)."""
    with _lock:
        _REGISTRY[name.lower()] = embedder


def names() -> list[str]:
    return sorted(_REGISTRY) + ["openai[:model]"]


def get(name: str | None) -> Embedder:
    """The embedder called ``name`` (None = the default); an ArgumentError for an unknown name."""
    if name is None:
        name = DEFAULT
    if not isinstance(name, str):
        raise ArgumentError(f"An embedder name must be a string, got {name!r}", detail="InvalidArgumentValue")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    found = _REGISTRY.get(key)
    if found is not None:
        return found
    if key == "openai" or key.startswith("openai:"):
        model = name.strip()[len("openai:"):] or None if ":" in key else None
        with _lock:
            return _REGISTRY.setdefault(key, ProviderEmbedder(model))
    raise ArgumentError(f"Unknown embedder {name!r}; known: {', '.join(names())}",
                        detail="InvalidArgumentValue")
