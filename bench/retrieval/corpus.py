"""A corpus generated from a known multi-hop knowledge graph, for scoring retrieval.

People work at companies; companies have a headquarters city and make products. Each fact is stated
by one to three documents, each in one of several wordings (synonyms, varied sentence shapes). Questions:

- one-hop: "Who employs P?" (answers: the documents stating P's employer), "Where is C headquartered?";
- two-hop: "Where is P's employer headquartered?", "What does P's employer produce?": the answer
  documents state the company's city or product and never name P.

No question shares a word with its answer documents other than the entity it names (one-hop) and none at
all for two-hop questions; ``generate`` checks that for every question it emits.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

WORKS = ["{P} is on the payroll of {C}.", "{C} hired {P} a while ago.", "{P} draws a salary from {C}.",
         "Staff lists at {C} include {P}."]
HQ = ["{C} keeps its head office in {T}.", "{T} hosts the main campus of {C}.",
      "The registered seat of {C} lies in {T}."]
MAKES = ["{C} manufactures {R}.", "{R} is built by {C}.", "{C} ships a product called {R}.",
         "{R} comes off the assembly lines of {C}."]
Q_EMPLOYS = "Who employs {P}?"
Q_HQ = "Where is {C} headquartered?"
Q_2HQ = "Where is {P}'s employer headquartered?"
Q_2MAKES = "What does {P}'s employer produce?"

_SYL = ["ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "ny", "pa", "qe", "ri", "so", "tu", "vy",
        "wa", "xe", "zo", "bri", "dra", "kel", "mor", "nal", "phe", "quo", "rav", "sil", "tor", "ulm", "vex",
        "wyn", "yar", "zan", "oct", "eld", "isk", "orn", "ath"]
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class Corpus:
    documents: list[dict] = field(default_factory=list)      # {id, text}
    entities: list[dict] = field(default_factory=list)       # {name, type}
    facts: list[dict] = field(default_factory=list)          # {from, type, predicate, to, sources}
    questions: list[dict] = field(default_factory=list)      # {text, hops, kind, relevant: [doc ids]}


def _names(rng: random.Random, count: int, parts: int, taken: set[str]) -> list[str]:
    """Names whose words are all new: no entity's name is a word of another's (no ambiguous questions)."""
    out = []
    while len(out) < count:
        parts_ = ["".join(rng.choice(_SYL) for _ in range(rng.randint(2, 4))).capitalize() for _ in range(parts)]
        lowered = {p.lower() for p in parts_}
        if len(lowered) == parts and not lowered & taken and not lowered & RESERVED:
            taken.update(lowered)
            out.append(" ".join(parts_))
    return out


RESERVED = set().union(*(words(t) for t in WORKS + HQ + MAKES + [Q_EMPLOYS, Q_HQ, Q_2HQ, Q_2MAKES])) | {"p", "c", "t", "r"}


def generate(n_docs: int, n_questions: int = 200, seed: int = 16) -> Corpus:
    """About ``n_docs`` documents (one fact each, 1-3 documents per fact) and ``n_questions`` questions."""
    rng = random.Random(seed)
    facts_wanted = max(8, n_docs // 2)                     # two documents per fact on average
    n_people = max(4, int(facts_wanted * 0.7))
    n_companies = max(2, n_people // 5)
    n_cities = max(2, n_companies // 4)
    taken: set[str] = set()
    people, companies = _names(rng, n_people, 2, taken), _names(rng, n_companies, 1, taken)
    cities, products = _names(rng, n_cities, 1, taken), _names(rng, n_companies, 1, taken)
    corpus = Corpus()
    corpus.entities = ([{"name": p, "type": "Person"} for p in people] +
                       [{"name": c, "type": "Company"} for c in companies] +
                       [{"name": t, "type": "City"} for t in cities] +
                       [{"name": r, "type": "Product"} for r in products])
    employer = {p: rng.choice(companies) for p in people}
    hq = {c: rng.choice(cities) for c in companies}
    makes = dict(zip(companies, products))
    fact_docs: dict[tuple, list[str]] = {}

    def state(kind, a, b, templates, predicate):
        ids = []
        for template in rng.sample(templates, rng.choice((1, 2, 2, 3))):    # each in its own wording
            doc_id = f"doc{len(corpus.documents):06d}"
            text = template.format(P=a, C=b) if kind == "works" else template.format(C=a, T=b, R=b)
            corpus.documents.append({"id": doc_id, "text": text})
            ids.append(doc_id)
        corpus.facts.append({"from": a, "type": kind.upper(), "predicate": predicate, "to": b, "sources": ids})
        fact_docs[(kind, a)] = ids

    for c in companies:
        state("hq", c, hq[c], HQ, "is headquartered in")
        state("makes", c, makes[c], MAKES, "makes")
    for p in people:
        if len(corpus.documents) >= n_docs:
            break
        state("works", p, employer[p], WORKS, "works at")
    stated = [p for p in people if ("works", p) in fact_docs]
    per_kind = n_questions // 4
    for kind in ("employs", "hq", "2hq", "2makes"):
        pool = companies if kind == "hq" else stated
        for subject in rng.sample(pool, min(per_kind, len(pool))):
            if kind == "employs":
                q, rel, hops = Q_EMPLOYS.format(P=subject), fact_docs[("works", subject)], 1
            elif kind == "hq":
                q, rel, hops = Q_HQ.format(C=subject), fact_docs[("hq", subject)], 1
            elif kind == "2hq":
                q, rel, hops = Q_2HQ.format(P=subject), fact_docs[("hq", employer[subject])], 2
            else:
                q, rel, hops = Q_2MAKES.format(P=subject), fact_docs[("makes", employer[subject])], 2
            _check_disjoint(q, subject, hops, [d for d in corpus.documents if d["id"] in set(rel)])
            corpus.questions.append({"text": q, "hops": hops, "kind": kind, "relevant": list(rel)})
    return corpus


def _check_disjoint(question: str, subject: str, hops: int, answers: list[dict]) -> None:
    allowed = words(subject) if hops == 1 else set()
    for doc in answers:
        shared = (words(question) & words(doc["text"])) - allowed
        if shared:
            raise AssertionError(f"question {question!r} shares {shared} with its answer {doc['text']!r}")
