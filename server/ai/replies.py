"""Reading what a model answered: the first JSON list of strings in a reply that may wrap it in prose
or a code fence (entity names, probe terms)."""
from __future__ import annotations

import json
import re

MAX_REPLY_CHARS = 64 * 1024    # of a reply, searched for the list
_OPENING = re.compile(r"\[")


def string_list(text: str, limit: int) -> list[str]:
    """The first JSON array of strings in ``text`` (stripped, empty ones dropped, at most ``limit``);
    ValueError when there is none (an empty array is an answer: the model found nothing)."""
    text = text[:MAX_REPLY_CHARS] if isinstance(text, str) else ""
    decoder = json.JSONDecoder()
    for match in _OPENING.finditer(text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [item.strip() for item in value if item.strip()][:limit]
    raise ValueError("the model's reply holds no JSON array of strings")
