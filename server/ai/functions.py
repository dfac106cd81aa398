"""Cypher functions that embed text on the server: ``ai.text.embed(text, {model})`` and Neo4j's
``genai.vector.encode(text, provider, {model})`` spelling; both return a LIST<FLOAT> (null for null)."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.registry import function, type_error

from .statement import for_ctx


def _embed(ctx, fn_name, text, model):
    if text is None:
        return None
    if not isinstance(text, str):
        raise type_error(fn_name, text, "a String")
    return list(for_ctx(ctx).embed(text, model))


def _options(fn_name, options) -> dict:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise type_error(fn_name, options, "a Map of options")
    unknown = set(options) - {"model", "token", "vendorOptions", "dimensions"}
    if unknown:
        raise ArgumentError(f"{fn_name}(): unknown option(s) {sorted(unknown)}; expected model",
                            detail="InvalidArgumentValue", phase="runtime")
    return options


@function("ai.text.embed", 1, 2, pure=False)
def ai_text_embed(ctx, text, options=None):
    """``text`` embedded by the named embedder (``{model: 'hash-384'}`` is the default)."""
    return _embed(ctx, "ai.text.embed", text, _options("ai.text.embed", options).get("model"))


@function("genai.vector.encode", 1, 3, pure=False)
def genai_vector_encode(ctx, text, provider=None, configuration=None):
    """Neo4j's spelling: provider 'OpenAI' (or any OpenAI-compatible name) uses the configured
    provider with ``configuration.model``; any other provider string names an embedder."""
    if provider is not None and not isinstance(provider, str):
        raise type_error("genai.vector.encode", provider, "a String provider")
    options = _options("genai.vector.encode", configuration)
    model = options.get("model")
    if provider is None:
        name = model
    elif provider.lower() in ("openai", "azure-openai", "openai-compatible"):
        name = "openai" + (f":{model}" if model else "")
    else:
        name = provider
    return _embed(ctx, "genai.vector.encode", text, name)
