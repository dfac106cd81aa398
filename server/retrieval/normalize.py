"""Entity names as identities: one normalized spelling per name."""
from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")


def normalize_name(name: str) -> str:
    """NFKC, case-folded, inner whitespace collapsed, punctuation trimmed from both ends."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _EDGE_PUNCT.sub("", _SPACES.sub(" ", text)).strip()
