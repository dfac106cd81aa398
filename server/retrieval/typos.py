"""Spellings that are one slip apart: the typos and plurals that trigram similarity alone under-scores.

Trigram similarity punishes a slip inside a word hard: "microsfot" and "microsoft" share only 0.43 of
their trigrams, "onbaording" and "onboarding" 0.47, "apis" and "api" 0.5; all below the resolver's 0.6.
Lowering the threshold instead would merge names that merely overlap ("meta" and "metabase", 0.4), so a
candidate below the threshold is accepted only when the two spellings are one of these slips apart.
Substitutions are not slips here: "mario" and "maria" are usually two people.
"""
from __future__ import annotations

import re

TRANSPOSE_MIN = 5       # "microsfot": two adjacent letters swapped, in a name this long or longer
INDEL_MIN = 8           # "onboardng": one letter missing or doubled, the shorter name this long or longer
PLURAL_MIN = 3          # "apis", "metas", "boxes": the plural of a name this long or longer
_PUNCTUATION = re.compile(r"[\W_]+")


def one_slip(a: str, b: str) -> bool:
    """True if normalized names ``a`` and ``b`` differ by one adjacent swap, one letter in or out of a
    long name, or a plural ending."""
    if a == b:
        return False
    short, long_ = sorted((a, b), key=len)
    if len(short) >= PLURAL_MIN and long_ in (short + "s", short + "es"):
        return True
    for one, many in ((a, b), (b, a)):
        if len(one) >= PLURAL_MIN + 1 and (one.endswith("y") and many == one[:-1] + "ies"         # policies
                                           or one.endswith("is") and many == one[:-2] + "es"):    # analyses
            return True
    squeezed = _PUNCTUATION.sub("", a)
    # "node.js" / "nodejs": stray punctuation or a space; not in short names, where a sign is the name (c / c++)
    if len(squeezed) > PLURAL_MIN and squeezed == _PUNCTUATION.sub("", b):
        return True
    if len(a) == len(b):
        if len(a) < TRANSPOSE_MIN:
            return False
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return (len(diff) == 2 and diff[1] == diff[0] + 1
                and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    if len(long_) != len(short) + 1 or len(short) < INDEL_MIN:
        return False
    i = next((i for i, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))
    return long_[:i] + long_[i + 1:] == short
