"""A parsed Lucene query analyzed against one index, and its exact Lucene BM25 score for a document.

Scoring follows Lucene (what Neo4j reports): a term scores bm25(idf, tf, dl, avgdl) per field; a
boolean query sums its matching MUST and SHOULD clauses; several properties are several fields, each
scored on its own statistics, and an unfielded term is OR'ed over them (MultiFieldQueryParser), so
the scores add up. A phrase scores like a term whose tf is the phrase frequency and whose idf is the
sum of its terms' idfs (sloppy phrases count 1 / (1 + distance) per in-order match). Prefix and
wildcard terms score a constant 1 (Lucene's constant-score rewrite); fuzzy terms expand to at most
50 variants (edit distance with transpositions), each scored with boost 1 - edits / min length and
the variants' largest df (Lucene's blended-frequency rewrite). Boosts multiply.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .analyzers import Analyzer
from .corpus import GAP, Corpus, bm25_term
from .lucene_query import MUST, MUST_NOT, SHOULD, Bool, Leaf

FUZZY_MAX_EXPANSIONS = 50
FUZZY_MAX_EDITS = 2


@dataclass
class PTerm:
    field: int
    token: str
    tid: int
    boost: float
    weight: float = 0.0      # boost * idf, fixed when the plan is built


@dataclass
class PPhrase:
    field: int
    tokens: list              # [(offset, token, tid)]
    slop: int
    boost: float
    weight: float = 0.0


@dataclass
class PConst:
    """A prefix or wildcard term: constant score ``boost`` when any token of the field matches."""
    field: int
    kind: str                 # "prefix" or "wildcard"
    text: str                 # the prefix, or the wildcard's regex
    boost: float
    regex: object = None


@dataclass
class PAll:
    boost: float


@dataclass
class PNone:
    """Matches nothing (an unknown term or field)."""


@dataclass
class PBool:
    must: list = field(default_factory=list)
    should: list = field(default_factory=list)
    must_not: list = field(default_factory=list)


def build_plan(tree: Bool | Leaf, fields: list[str], analyzer: Analyzer, corpus: Corpus):
    """Analyze ``tree`` for an index over ``fields``; boosts are pushed down to the leaves."""
    node = _resolve(tree, None, 1.0, fields, analyzer, corpus)
    return PNone() if node is None else node


def _resolve(node, field_name, boost, fields, analyzer, corpus):
    if isinstance(node, Bool):
        boost *= node.boost
        parts = {MUST: [], SHOULD: [], MUST_NOT: []}
        for occur, child in node.clauses:
            resolved = _resolve(child, field_name, boost, fields, analyzer, corpus)
            if resolved is not None:
                parts[occur].append(resolved)
        if not any(parts.values()):
            return None          # every clause was analyzed away: Lucene drops the empty group
        return _simplify(PBool(parts[MUST], parts[SHOULD], parts[MUST_NOT]))
    leaf: Leaf = node
    boost *= leaf.boost
    if leaf.kind == "all":
        return PAll(boost)
    name = leaf.field or field_name
    targets = [name] if name is not None else fields
    per_field = []
    for target in targets:
        if target not in fields:
            per_field.append(PNone())
            continue
        resolved = _resolve_leaf(leaf, fields.index(target), boost, analyzer, corpus)
        if resolved is None:
            return None          # the analyzer removed the whole term: Lucene drops the clause
        per_field.append(resolved)
    return per_field[0] if len(per_field) == 1 else _simplify(PBool(should=per_field))


def _resolve_leaf(leaf: Leaf, f: int, boost: float, analyzer: Analyzer, corpus: Corpus):
    if leaf.kind in ("term", "phrase"):
        pairs = analyzer.analyze(leaf.text)
        if not pairs:
            return None
        if len(pairs) == 1:
            return _term(f, pairs[0][1], boost, corpus)
        if leaf.kind == "term":   # one query word split by the analyzer: its parts are OR'ed
            return _simplify(PBool(should=[_term(f, token, boost, corpus) for _, token in pairs]))
        first = pairs[0][0]
        tokens = [(pos - first, token, corpus.term_id(token)) for pos, token in pairs]
        if any(corpus.doc_freq(f, tid) == 0 for _, _, tid in tokens):
            return PNone()
        weight = boost * sum(corpus.idf(f, corpus.doc_freq(f, tid)) for _, _, tid in tokens)
        return PPhrase(f, tokens, leaf.slop, boost, weight)
    text = analyzer.normalize(leaf.text)
    if leaf.kind == "prefix":
        return PConst(f, "prefix", text, boost)
    if leaf.kind == "wildcard":
        pattern = analyzer.normalize(leaf.pattern)
        return PConst(f, "wildcard", pattern, boost, re.compile(pattern, re.DOTALL))
    return _fuzzy(f, text, leaf.edits, boost, corpus)


def _term(f: int, token: str, boost: float, corpus: Corpus, df: int | None = None):
    tid = corpus.term_id(token)
    live_df = corpus.doc_freq(f, tid) if tid >= 0 else 0
    if live_df == 0:
        return PNone()
    return PTerm(f, token, tid, boost, boost * corpus.idf(f, df or live_df))


def _fuzzy(f: int, text: str, edits: float | None, boost: float, corpus: Corpus):
    max_edits = _float_to_edits(edits, len(text))
    if max_edits == 0:
        return _term(f, text, boost, corpus)
    variants = []
    for term, tid in corpus.field_terms(f):
        if abs(len(term) - len(text)) > max_edits:
            continue
        distance = edit_distance(text, term, max_edits)
        if distance > max_edits:
            continue
        similarity = 1.0 if distance == 0 else 1.0 - distance / min(len(term), len(text))
        if similarity > 0:
            variants.append((-similarity, term, tid))
    if not variants:
        return PNone()
    variants.sort()
    variants = variants[:FUZZY_MAX_EXPANSIONS]
    blended_df = max(corpus.doc_freq(f, tid) for _, _, tid in variants)
    terms = [_term(f, term, boost * -neg_sim, corpus, df=blended_df) for neg_sim, term, _ in variants]
    return _simplify(PBool(should=terms))


def _float_to_edits(value: float | None, length: int) -> int:
    """Lucene's FuzzyQuery.floatToEdits: ~N is N edits (at most 2); ~0.x is the old similarity form."""
    if value is None:
        return FUZZY_MAX_EDITS
    if value >= 1:
        return int(min(value, FUZZY_MAX_EDITS))
    if value == 0:
        return 0
    return min(int((1 - value) * length), FUZZY_MAX_EDITS)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count 1), or limit + 1 once it exceeds limit."""
    if a == b:
        return 0
    prev2, prev = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = i
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            value = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if prev2 is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, prev2[j - 2] + 1)
            cur[j] = value
            best = min(best, value)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def _simplify(node: PBool):
    """A MUST that never matches sinks the whole query; never-matching SHOULD/MUST_NOT clauses drop out."""
    if any(isinstance(c, PNone) for c in node.must):
        return PNone()
    node.should = [c for c in node.should if not isinstance(c, PNone)]
    node.must_not = [c for c in node.must_not if not isinstance(c, PNone)]
    if not node.must and not node.should:
        return PNone()
    if not node.must and not node.must_not and len(node.should) == 1:
        return node.should[0]
    if not node.should and not node.must_not and len(node.must) == 1:
        return node.must[0]
    return node


def iter_leaves(node):
    """Every scoring leaf of a plan (MUST_NOT subtrees excluded)."""
    if isinstance(node, PBool):
        for child in node.must + node.should:
            yield from iter_leaves(child)
    elif not isinstance(node, PNone):
        yield node


# ---- exact scoring of one document -------------------------------------------------------------

def score_document(node, doc: tuple, corpus: Corpus) -> float | None:
    """The exact score of a document (its per-field token ids) for ``node``; None when it does not match."""
    kind = type(node)
    if kind is PTerm:
        ids = doc[node.field]
        if ids is None:
            return None
        tf = ids.count(node.tid)
        if not tf:
            return None
        return bm25_term(node.weight, tf, len(ids) - ids.count(GAP), corpus.avgdl(node.field))
    if kind is PBool:
        total = 0.0
        for child in node.must:
            s = score_document(child, doc, corpus)
            if s is None:
                return None
            total += s
        for child in node.must_not:
            if score_document(child, doc, corpus) is not None:
                return None
        matched = False
        for child in node.should:
            s = score_document(child, doc, corpus)
            if s is not None:
                total += s
                matched = True
        if not node.must and not matched:
            return None
        return total
    if kind is PPhrase:
        ids = doc[node.field]
        if ids is None:
            return None
        freq = phrase_freq(ids, node.tokens, node.slop)
        if not freq:
            return None
        return bm25_term(node.weight, freq, len(ids) - ids.count(GAP), corpus.avgdl(node.field))
    if kind is PConst:
        ids = doc[node.field]
        if ids is None:
            return None
        terms = corpus.terms
        if node.kind == "prefix":
            hit = any(tid != GAP and terms[tid].startswith(node.text) for tid in set(ids))
        else:
            hit = any(tid != GAP and node.regex.fullmatch(terms[tid]) for tid in set(ids))
        return node.boost if hit else None
    if kind is PAll:
        return node.boost
    return None


def compile_scorer(node, corpus: Corpus):
    """``score_document(node, doc, corpus)`` as a function of ``doc`` alone: the same floats.

    A query of plain terms (the usual one) walks each field's token ids once, keeping the few that
    are query terms or stop-word gaps, and counts in those, instead of walking the plan and scanning
    the field again per term (``array.count`` boxes every element: ~0.8 us a scan). Other queries
    walk the plan.
    The statistics are read once: callers hold the index's read lock.
    """
    if type(node) is PTerm:
        must, should, must_not = [], [node], []
    elif type(node) is PBool and all(type(c) is PTerm for c in (*node.must, *node.should, *node.must_not)):
        must, should, must_not = node.must, node.should, node.must_not
    else:
        return lambda doc: score_document(node, doc, corpus)
    terms = (*must, *should, *must_not)
    if any(t.tid == GAP for t in terms):
        return lambda doc: score_document(node, doc, corpus)
    wanted: dict[int, frozenset] = {}
    for t in terms:
        wanted[t.field] = wanted.get(t.field, frozenset([GAP])) | {t.tid}
    slot = {f: i for i, f in enumerate(sorted(wanted))}          # fields as positions in a list
    fields = [(f, wanted[f], corpus.avgdl(f)) for f in sorted(wanted)]
    must_terms = [(slot[t.field], t.tid, t.weight) for t in must]
    should_terms = [(slot[t.field], t.tid, t.weight) for t in should]
    not_terms = [(slot[t.field], t.tid) for t in must_not]
    required = bool(must)

    def score(doc: tuple) -> float | None:
        # per field: the query's terms (and gaps) as they occur in it, the field length, its avgdl
        held = []
        for f, want, avgdl in fields:
            ids = doc[f]
            if ids is None:
                held.append(_ABSENT)
            else:
                hits = [tid for tid in ids.tolist() if tid in want]
                held.append((hits, len(ids) - hits.count(GAP), avgdl))
        total = 0.0
        for i, tid, weight in must_terms:         # the order score_document adds them in
            hits, dl, avgdl = held[i]
            tf = hits.count(tid)
            if not tf:
                return None
            total += bm25_term(weight, tf, dl, avgdl)
        for i, tid in not_terms:
            if tid in held[i][0]:
                return None
        matched = False
        for i, tid, weight in should_terms:
            hits, dl, avgdl = held[i]
            if tid in hits:
                total += bm25_term(weight, hits.count(tid), dl, avgdl)
                matched = True
        if not required and not matched:
            return None
        return total

    return score


_ABSENT = ((), 0, 1.0)          # a field the document does not hold: no term occurs in it


def phrase_freq(ids, tokens: list, slop: int) -> float:
    """Phrase frequency: exact matches count 1; with slop, in-order matches count 1 / (1 + distance)."""
    positions = []
    for _, _, tid in tokens:
        where = [i for i, x in enumerate(ids) if x == tid]
        if not where:
            return 0.0
        positions.append(where)
    offsets = [offset for offset, _, _ in tokens]
    if slop == 0:
        present = [set(p) for p in positions]
        return float(sum(1 for start in positions[0]
                         if all(start + offsets[i] in present[i] for i in range(1, len(tokens)))))
    freq = 0.0
    for start in positions[0]:
        last, ok = start, True
        for i in range(1, len(tokens)):
            nxt = next((p for p in positions[i] if p > last), None)
            if nxt is None:
                ok = False
                break
            last = nxt
        if not ok:
            continue
        distance = (last - start) - (offsets[-1] - offsets[0])
        if 0 <= distance <= slop:
            freq += 1.0 / (1 + distance)
    return freq
