"""Text analyzers for full-text indexes, named as Neo4j names them (`fulltext.analyzer`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import snowballstemmer

from relate.protocol.errors import ArgumentError

# Lucene's English stop words (StandardAnalyzer / EnglishAnalyzer default set).
ENGLISH_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with".split())

_LETTERS_AND_DIGITS = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_WHITESPACE_SEPARATED = re.compile(r"\S+")
# A word may hold apostrophes (dog's, o'neil), as Lucene's standard tokenizer keeps them.
_WORDS_WITH_APOSTROPHES = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_PORTER = snowballstemmer.stemmer("porter")      # Lucene's PorterStemFilter is the original Porter


def _english_words(text: str) -> list[str]:
    """Words with possessives dropped (EnglishPossessiveFilter): dog's -> dog."""
    words = _WORDS_WITH_APOSTROPHES.findall(text)
    return [w[:-2] if w.endswith(("'s", "\u2019s")) else w for w in words]


@dataclass(frozen=True)
class Analyzer:
    """Turns a text into (position, token) pairs; positions skip removed stop words, as Lucene's do."""
    name: str
    description: str
    _split: Callable[[str], list[str]]
    lowercase: bool
    stopwords: frozenset = frozenset()
    stem: Callable[[str], str] | None = None

    def analyze(self, text: str) -> list[tuple[int, str]]:
        words = self._split(text.lower() if self.lowercase else text)
        if self.stopwords:
            pairs = [(pos, word) for pos, word in enumerate(words) if word not in self.stopwords]
        else:
            pairs = list(enumerate(words))
        if self.stem is not None:
            stem = self.stem
            pairs = [(pos, stem(word)) for pos, word in pairs]
        return pairs

    def tokens(self, text: str) -> list[str]:
        return [token for _, token in self.analyze(text)]

    def normalize(self, term: str) -> str:
        """How a wildcard, prefix or fuzzy term is normalized (not split): lowercased when the analyzer lowercases."""
        return term.lower() if self.lowercase else term


ANALYZERS: dict[str, Analyzer] = {a.name: a for a in (
    Analyzer("standard-no-stop-words",
             "Lowercased runs of letters and digits; no stop words, no stemming (the default).",
             _LETTERS_AND_DIGITS.findall, True),
    Analyzer("standard", "Lowercased runs of letters and digits without English stop words.",
             _LETTERS_AND_DIGITS.findall, True, ENGLISH_STOP_WORDS),
    Analyzer("simple", "Lowercased runs of letters (digits split words).", _LETTERS.findall, True),
    Analyzer("whitespace", "Splits on whitespace; keeps case and punctuation.", _WHITESPACE_SEPARATED.findall, False),
    Analyzer("keyword", "The whole value is one token.", lambda text: [text] if text else [], False),
    Analyzer("english", "Lowercased words without possessives and English stop words, Porter-stemmed "
             "(Lucene's EnglishAnalyzer).", _english_words, True, ENGLISH_STOP_WORDS, _PORTER.stemWord),
    Analyzer("classic", "Lowercased runs of letters and digits without English stop words.",
             _LETTERS_AND_DIGITS.findall, True, ENGLISH_STOP_WORDS),
    Analyzer("stop", "Lowercased runs of letters without English stop words.", _LETTERS.findall, True,
             ENGLISH_STOP_WORDS),
    Analyzer("unicode_whitespace", "Splits on Unicode whitespace; keeps case and punctuation.",
             str.split, False),
)}

DEFAULT_ANALYZER = "standard-no-stop-words"


def get_analyzer(name: str | None) -> Analyzer:
    """The analyzer called ``name`` (None = the default); an unknown name is an ArgumentError."""
    analyzer = ANALYZERS.get(name or DEFAULT_ANALYZER)
    if analyzer is None:
        raise ArgumentError(f"Unknown full-text analyzer {name!r}; available: {', '.join(sorted(ANALYZERS))}")
    return analyzer
