"""Hand computations for the acceptance fixture: similarities from hash-384 vectors computed here
(numpy, independent of the engine), scope membership and token containment from the fixture data."""
from __future__ import annotations

import re

import numpy as np

from relate.embedders import hash384

from . import fixture


def sim(anchor: str, text: str) -> float:
    """Cosine similarity as vector indexes report it: (1 + cos) / 2."""
    return (1.0 + float(np.dot(hash384(anchor), hash384(text)))) / 2.0


def threads_in(scope) -> list[tuple]:
    return [t for t in fixture.THREADS if (t[3], t[4]) == (scope["user"], scope["context"])]


def docs_in(scope) -> list[tuple]:
    return [d for d in fixture.DOCUMENTS if d[3] == scope["context"]]


def thread_sim(anchor: str, thread) -> float:
    return sim(anchor, thread[1] + " " + thread[2])


def doc_sim(anchor: str, doc) -> float:
    return sim(anchor, doc[1] + " " + doc[2])


def tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def vector_order(anchor: str, items, score) -> list:
    return sorted(items, key=lambda item: -score(anchor, item))
