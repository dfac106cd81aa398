"""The one provider interface for embeddings and LLM chat, and its OpenAI-compatible HTTP client.

Configuration comes from ``configure(...)`` or the environment: ``RELATE_AI_BASE_URL`` (e.g.
``http://127.0.0.1:8080/v1``), ``RELATE_AI_API_KEY``, ``RELATE_AI_EMBED_MODEL``, ``RELATE_AI_CHAT_MODEL``,
``RELATE_AI_TIMEOUT`` (seconds). The API key is sent as a bearer token and never logged or shown.
Failures raise ``ProviderError`` (a TransientError with code ``Neo.TransientError.AI.ProviderUnavailable``).
"""
from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from relate.protocol.errors import TransientError

PROVIDER_UNAVAILABLE = "Neo.TransientError.AI.ProviderUnavailable"
MAX_RESPONSE_BYTES = 32 << 20     # a bounded read: a hostile or broken server cannot exhaust memory


class ProviderError(TransientError):
    """An embedding or chat provider failed (unreachable, timeout, HTTP error, malformed answer)."""
    code = PROVIDER_UNAVAILABLE


class Provider:
    """What embedders, relevance joins and answer synthesis call; subclasses talk to a real service."""

    name = "provider"

    def embed(self, texts: list[str], model: str | None = None) -> list[list[float]]:
        raise NotImplementedError

    def chat(self, messages: list[dict], model: str | None = None, *, temperature: float = 0.0,
             max_tokens: int | None = None, response_format: dict | None = None) -> str:
        """The assistant message's text for ``messages`` ([{role, content}])."""
        raise NotImplementedError


@dataclass
class ProviderConfig:
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)     # never in a repr, a log or an error
    embed_model: str = "text-embedding-3-small"
    chat_model: str = "gpt-4o-mini"
    timeout_s: float = 30.0

    @classmethod
    def from_env(cls) -> "ProviderConfig":
        env = os.environ
        return cls(base_url=env.get("RELATE_AI_BASE_URL") or env.get("OPENAI_BASE_URL"),
                   api_key=env.get("RELATE_AI_API_KEY") or env.get("OPENAI_API_KEY"),
                   embed_model=env.get("RELATE_AI_EMBED_MODEL", cls.embed_model),
                   chat_model=env.get("RELATE_AI_CHAT_MODEL", cls.chat_model),
                   timeout_s=float(env.get("RELATE_AI_TIMEOUT", cls.timeout_s)))


def post_json(url: str, body: dict, *, headers: dict, timeout_s: float, what: str):
    """POST ``body`` as JSON and the decoded JSON answer; every failure (HTTP status, timeout, refused,
    oversized, not JSON) is a ProviderError naming ``what``, never the URL's secrets or the headers."""
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Accept": "application/json", **headers},
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            raw = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as e:
        raise ProviderError(f"{what} answered HTTP {e.code}", detail="HttpError") from None
    except (TimeoutError, socket.timeout):
        raise ProviderError(f"{what} timed out after {timeout_s}s", detail="Timeout") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise ProviderError(f"{what} timed out after {timeout_s}s", detail="Timeout") from None
        raise ProviderError(f"{what} unreachable: {type(reason).__name__}", detail="Unreachable") from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise ProviderError(f"{what}: the answer exceeds {MAX_RESPONSE_BYTES} bytes", detail="Malformed")
    try:
        return json.loads(raw)
    except ValueError:
        raise ProviderError(f"{what} sent malformed JSON", detail="Malformed") from None


class OpenAICompatibleProvider(Provider):
    """``POST {base}/embeddings`` and ``POST {base}/chat/completions`` of an OpenAI-compatible API."""

    name = "openai"

    def __init__(self, config: ProviderConfig):
        self.config = config

    def __repr__(self):
        return f"OpenAICompatibleProvider(base_url={self.config.base_url!r})"

    def _post(self, path: str, body: dict) -> dict:
        base = self.config.base_url
        if not base:
            raise ProviderError("No AI provider is configured (set RELATE_AI_BASE_URL)", detail="NotConfigured")
        headers = {"Authorization": "Bearer " + self.config.api_key} if self.config.api_key else {}
        data = post_json(base.rstrip("/") + path, body, headers=headers, timeout_s=self.config.timeout_s,
                         what=f"AI provider ({path})")
        if not isinstance(data, dict):
            raise ProviderError(f"AI provider sent a non-object for {path}", detail="Malformed")
        return data

    def embed(self, texts, model=None):
        data = self._post("/embeddings", {"model": model or self.config.embed_model, "input": list(texts)})
        try:
            items = sorted(data["data"], key=lambda d: d.get("index", 0))
            vectors = [[float(x) for x in item["embedding"]] for item in items]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("AI provider sent a malformed embeddings answer", detail="Malformed") from None
        if len(vectors) != len(texts):
            raise ProviderError("AI provider returned a different number of embeddings", detail="Malformed")
        return vectors

    def chat(self, messages, model=None, *, temperature=0.0, max_tokens=None, response_format=None):
        body = {"model": model or self.config.chat_model, "messages": messages, "temperature": temperature}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if response_format is not None:
            body["response_format"] = response_format
        data = self._post("/chat/completions", body)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("AI provider sent a malformed chat answer", detail="Malformed") from None
        if not isinstance(content, str):
            raise ProviderError("AI provider sent a chat answer without text", detail="Malformed")
        return content


_default: Provider | None = None


def configure(provider: Provider | ProviderConfig | None) -> None:
    """Set the process's provider (a Provider, or a config for the OpenAI-compatible one); None = env."""
    global _default
    _default = OpenAICompatibleProvider(provider) if isinstance(provider, ProviderConfig) else provider


def get_provider(db=None) -> Provider:
    """The provider for ``db``: ``db.ai_provider`` when the engine set one, else the process default."""
    own = getattr(db, "ai_provider", None) if db is not None else None
    if own is not None:
        return own
    global _default
    if _default is None:
        _default = OpenAICompatibleProvider(ProviderConfig.from_env())
    return _default


def configured(db=None) -> bool:
    """Whether a provider is there to call: the engine's own, one set with ``configure``, or one the
    environment names (as ``get_provider`` would read it)."""
    if db is not None and getattr(db, "ai_provider", None) is not None:
        return True
    if _default is not None and not isinstance(_default, OpenAICompatibleProvider):
        return True
    config = _default.config if isinstance(_default, OpenAICompatibleProvider) else ProviderConfig.from_env()
    return bool(config.base_url or config.api_key)
