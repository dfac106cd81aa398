"""String similarity functions: trigram (pg_trgm), Levenshtein, Jaro-Winkler, and full-text escape.

``text.trigram.similarity(a, b)`` follows PostgreSQL's pg_trgm: lowercase, split into words of letters
and digits, pad each word with two spaces in front and one behind, take the set of 3-character windows,
and return |A ∩ B| / |A ∪ B| (0.0 when both sets are empty). Levenshtein and Jaro-Winkler come from
rapidfuzz; the APOC names (``apoc.text.levenshteinDistance`` ...) are aliases.
"""
from __future__ import annotations

from rapidfuzz.distance import JaroWinkler, Levenshtein

from relate.server.index.plain_query import escape_lucene
from relate.server.index.trigram import trigram_similarity
from relate.server.query.exec.functions.registry import function, type_error


def _strings(name: str, a, b) -> bool:
    """False when either argument is null (the result is null); raises for non-strings."""
    if a is None or b is None:
        return False
    for value in (a, b):
        if not isinstance(value, str):
            raise type_error(name, value, "a String")
    return True


@function("text.trigram.similarity", 2, description="Trigram similarity of two strings, as PostgreSQL's pg_trgm (0 to 1).")
def trigram(ctx, a, b):
    return trigram_similarity(a, b) if _strings("text.trigram.similarity", a, b) else None


@function("text.levenshtein", 2, description="The Levenshtein edit distance of two strings.")
def levenshtein(ctx, a, b):
    return Levenshtein.distance(a, b) if _strings("text.levenshtein", a, b) else None


@function("text.levenshteinSimilarity", 2, description="1 minus the edit distance over the longer string's length.")
def levenshtein_similarity(ctx, a, b):
    """1 - distance / length of the longer string (1.0 for two empty strings)."""
    if not _strings("text.levenshteinSimilarity", a, b):
        return None
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - Levenshtein.distance(a, b) / longest


@function("text.jaroWinklerSimilarity", 2, description="The Jaro-Winkler similarity of two strings (0 to 1).")
def jaro_winkler_similarity(ctx, a, b):
    return JaroWinkler.similarity(a, b) if _strings("text.jaroWinklerSimilarity", a, b) else None


@function("text.jaroWinklerDistance", 2, description="1 minus the Jaro-Winkler similarity of two strings.")
def jaro_winkler_distance(ctx, a, b):
    """1 - Jaro-Winkler similarity (0.0 for equal strings)."""
    return JaroWinkler.distance(a, b) if _strings("text.jaroWinklerDistance", a, b) else None


for _alias, _fn, _same in (("apoc.text.levenshteinDistance", levenshtein, "text.levenshtein"),
                           ("apoc.text.levenshteinSimilarity", levenshtein_similarity, "text.levenshteinSimilarity"),
                           ("apoc.text.jaroWinklerDistance", jaro_winkler_distance, "text.jaroWinklerDistance"),
                           ("apoc.text.jaroWinklerSimilarity", jaro_winkler_similarity, "text.jaroWinklerSimilarity")):
    function(_alias, 2, description=f"APOC's name for {_same}().")(_fn)


@function("db.index.fulltext.escape", 1, description="A string with every Lucene query-syntax character escaped.")
def fulltext_escape(ctx, text):
    """``text`` as a literal Lucene query: special characters escaped, AND/OR/NOT quoted."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise type_error("db.index.fulltext.escape", text, "a String")
    return escape_lucene(text)
