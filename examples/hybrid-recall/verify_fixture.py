"""Independent reference for fixture.json: recomputes every cookbook table in plain Python/numpy (no
database) and asserts it matches expected.py. Run: python examples/hybrid-recall/verify_fixture.py"""
from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
import sys
from datetime import datetime, timezone

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _sibling(name: str):
    """Load expected.py / statements.py by path under unique names (this folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"hybrid_recall_{name}", os.path.join(HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = _sibling("expected")
load_fixture = _sibling("statements").load_fixture

DIMS, K1, B, RRF_K = 384, 1.2, 0.75, 60
MIN_GAP = 1e-4        # vector scores either side of a LIMIT boundary must differ at least this much
MIN_ROUND = 2e-6      # a printed 4-decimal score must sit at least this far from a rounding edge


def embed(text: str) -> list[float]:
    """The cookbook's embed(), copied verbatim so that this check does not trust relate.embedders."""
    v = [0.0] * DIMS
    words = re.findall(r"[a-z0-9]+", text.lower())
    feats = words + [w[i:i + 3] for w in words for i in range(max(1, len(w) - 2))]
    for f in feats:
        h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=8).digest(), "little")
        v[h % DIMS] += 1.0 if h >> 63 else -1.0
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def round6(v):
    return [float(f"{x:.6g}") for x in v]


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp() * 1000)


class Ref:
    """The fixture as the engine would hold it, with the engine's search and query semantics."""

    def __init__(self, fx: dict, dtype=np.float32):
        self.fx = fx
        self.notes = {n["id"]: n for n in fx["notes"]}
        self.ids = sorted(self.notes)
        # Stored as vector(..., FLOAT32); the score is computed in double over those components.
        self.E = {i: np.asarray(self.notes[i]["e"], dtype=dtype).astype(np.float64) for i in self.ids}
        self.dtype = dtype
        self.decisions = fx["decisions"]

    # -- search primitives -------------------------------------------------------------------------
    def vector(self, v, k, where=lambda n: True):
        q = np.asarray(v, dtype=self.dtype).astype(np.float64)
        scored = []
        for i in self.ids:
            if not where(self.notes[i]):
                continue
            e = self.E[i]
            cos = float(q @ e) / (float(np.linalg.norm(q)) * float(np.linalg.norm(e)))
            scored.append((i, (1 + cos) / 2))
        scored.sort(key=lambda x: (-x[1], x[0]))
        if len(scored) > k:
            gap = scored[k - 1][1] - scored[k][1]
            assert gap >= MIN_GAP, f"vector LIMIT {k} boundary too close: {scored[k - 1]} vs {scored[k]}"
        return scored[:k]

    @staticmethod
    def bm25(docs: dict[str, list[str]], query: str) -> dict[str, float]:
        n_docs = len(docs)
        avgdl = sum(len(t) for t in docs.values()) / n_docs
        scores: dict[str, float] = {}
        for term in tokens(query):
            df = sum(1 for t in docs.values() if term in t)
            if not df:
                continue
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            for key, toks in docs.items():
                tf = toks.count(term)
                if tf:
                    s = idf * tf / (tf + K1 * (1 - B + B * len(toks) / avgdl))
                    scores[key] = scores.get(key, 0.0) + s
        return scores

    def fulltext(self, q, limit):
        scores = self.bm25({i: tokens(self.notes[i]["text"]) for i in self.ids}, q)
        ranked = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
        if len(ranked) > limit:
            # A tie across the LIMIT boundary would make the window depend on the engine's tie order.
            assert ranked[limit - 1][1] != ranked[limit][1], f"full-text LIMIT {limit} boundary tie"
        return ranked[:limit]

    # -- the cookbook statements -------------------------------------------------------------------
    def since(self, p):
        ms = epoch_ms(p["since"])
        return lambda n: n["ts"] >= ms

    def vector_list(self, p):
        rows = self.vector(p["v"], p["k"], self.since(p))
        return [(i, self.notes[i]["session"], round(s, 4), self.notes[i]["text"]) for i, s in rows], rows

    def fulltext_list(self, p):
        keep = self.since(p)
        rows = [(i, s) for i, s in self.fulltext(p["q"], p["k"] * 3) if keep(self.notes[i])]
        rows.sort(key=lambda x: (-x[1], x[0]))
        return [(i, s, self.notes[i]["text"]) for i, s in rows[:p["k"]]]

    def filter_forms(self, p):
        k, ms = p["k"], epoch_ms(p["since"])
        scope = lambda n: n["session"] == p["session"] and n["ts"] >= ms  # noqa: E731
        ordered = lambda rows: [i for i, s in sorted(rows, key=lambda x: (-x[1], x[0]))]  # noqa: E731
        inside = ordered(self.vector(p["v"], k, scope))
        after = ordered([(i, s) for i, s in self.vector(p["v"], k) if scope(self.notes[i])])
        ft_k = ordered([(i, s) for i, s in self.fulltext(p["q"], k) if scope(self.notes[i])])
        ft_3k = ordered([(i, s) for i, s in self.fulltext(p["q"], k * 3) if scope(self.notes[i])])[:k]
        return [(X.FILTER_FORMS[0][0], inside), (X.FILTER_FORMS[1][0], after),
                (X.FILTER_FORMS[2][0], ft_k), (X.FILTER_FORMS[3][0], ft_3k)]

    def fused(self, p):
        """The CALL () { vector UNION ALL fulltext } fusion: [(id, rrf, vector_rank, fulltext_rank)]."""
        vec = [i for i, _ in self.vector(p["v"], p["k"], self.since(p))]
        ft = [i for i, _, _ in self.fulltext_list(p)]
        acc: dict[str, list] = {}
        for lst, ids in (("vector", vec), ("fulltext", ft)):   # UNION ALL order: vector rows first
            for rank, i in enumerate(ids, 1):
                a = acc.setdefault(i, [0.0, None, None])
                a[0] += 1.0 / (RRF_K + rank)
                a[1 if lst == "vector" else 2] = rank
        rows = sorted(acc.items(), key=lambda x: (-x[1][0], x[0]))[:p["k"]]
        return [(i, a[0], a[1], a[2]) for i, a in rows]

    def rrf_table(self, p):
        return [(i, vr, fr, round(s, 4), self.notes[i]["text"]) for i, s, vr, fr in self.fused(p)]

    def latest_decision(self, topic):
        ds = [d for d in self.decisions if d["topic"] == topic]
        return max(ds, key=lambda d: d["ts"]) if ds else None

    def recall(self, p):
        rows = []
        for i, s, _, _ in self.fused(p):
            for t in self.notes[i]["topics"]:
                d = self.latest_decision(t)
                rows.append((i, self.notes[i]["text"], t, d["text"] if d else None, round(s, 4)))
        return sorted(rows, key=lambda r: (-r[4], r[0], r[2]))

    def paths(self, p):
        rows = []
        for i, s, _, _ in self.fused(p):
            for t in self.notes[i]["topics"]:
                d = self.latest_decision(t)
                if d:
                    rows.append((s, i, t, d["note"]))
        return [(i, t, m) for s, i, t, m in sorted(rows, key=lambda r: (-r[0], r[1], r[2]))]

    def decision_search(self, p):
        docs = {j: tokens(d["text"]) for j, d in enumerate(self.decisions)}
        ranked = sorted(self.bm25(docs, p["q"]).items(), key=lambda x: -x[1])[:p["k"]]
        rows = []
        for j, s in ranked:
            d = self.decisions[j]
            day = datetime.fromtimestamp(d["ts"] / 1000, timezone.utc).date().isoformat()
            rows.append((d["note"], d["topic"], d["text"], day, s))
        return sorted(rows, key=lambda r: (-r[4], r[3], r[0]))

    def session_scope(self, p):
        rows = self.vector(p["v"], p["k"], lambda n: "session-2" <= n["session"] <= "session-3")
        return [(i, self.notes[i]["session"], round(s, 4)) for i, s in rows], rows


def check_rounding(rows, what):
    for i, s in rows:
        edge = abs((s * 1e4) % 1 - 0.5) / 1e4
        assert edge >= MIN_ROUND, f"{what}: {i} score {s} sits on a rounding edge"


def check_structure(fx: dict) -> None:
    notes, decisions = fx["notes"], fx["decisions"]
    ids = [n["id"] for n in notes]
    assert ids == [f"n{i:02d}" for i in range(1, 41)], "note ids"
    topics = list(dict.fromkeys(t for n in notes for t in n["topics"]))
    assert fx["topics"] == topics, "the topics list is the notes' topics in MERGE order"
    about = sum(len(n["topics"]) for n in notes)
    sessions = {n["session"] for n in notes}
    assert (len(notes), len(sessions), len(topics), about, len(decisions)) == X.COUNT[0], "count row"
    counters = {"nodes_created": len(notes) + len(topics), "relationships_created": about + len(decisions),
                "properties_set": 5 * len(notes) + len(topics) + 2 * len(decisions),
                "labels_added": len(notes) + len(topics)}
    assert counters == X.LOAD_COUNTERS, counters
    for n in notes:
        assert len(n["e"]) == DIMS and all(type(x) is float for x in n["e"]), f"{n['id']}: e"
        assert n["e"] == round6(embed(n["text"])), f"{n['id']}: e is not hash-384 of its text"
        assert type(n["ts"]) is int
    for name, q in fx["questions"].items():
        assert all(type(x) is float for x in q["v"]) and q["v"] == round6(embed(q["q"])), f"question {name}"
    for i, text in X.T.items():
        assert notes[int(i[1:]) - 1]["text"] == text, f"{i}: text differs from the cookbook"
    for i, (session, ts) in X.SHOWN.items():
        n = notes[int(i[1:]) - 1]
        assert n["session"] == session and (ts is None or n["ts"] == ts), f"{i}: session/ts"
    by_id = {n["id"]: n for n in notes}
    for d in decisions:
        assert d["ts"] == by_id[d["note"]]["ts"], f"decision of {d['note']}: ts is the note's ts"
    total = sum(len(tokens(n["text"])) for n in notes)
    assert total == 453, f"the 40 note texts hold {total} tokens, not 453"
    # The cookbook's internal ids (n41 auth, n42 kafka, r1..r4, r17, r28 ABOUT, r50/r53 DECIDED) follow
    # from creating notes first, then MERGEd topics, with relationships in row order.
    order = list(dict.fromkeys(t for n in notes for t in n["topics"]))
    assert order.index("auth") == 1 and order.index("kafka") == 2, order
    rid = {}
    for n in notes:
        for t in n["topics"]:
            rid[(n["id"], t)] = len(rid)
    assert [rid[("n02", "auth")], rid[("n03", "auth")], rid[("n03", "kafka")], rid[("n04", "kafka")],
            rid[("n15", "auth")], rid[("n25", "auth")]] == [1, 2, 3, 4, 17, 28], "ABOUT ids"
    dn = [d["note"] for d in decisions]
    assert about + dn.index("n15") == 50 and about + dn.index("n27") == 53, "DECIDED ids"
    # The hop's premise: the oldest decision is Auth0's, the latest on auth is the Okta migration.
    assert min(decisions, key=lambda d: d["ts"])["text"] == X.OLDEST_DECISION


def main() -> int:
    fx = load_fixture()
    check_structure(fx)
    print("structure, counters, embeddings, 453 tokens, cookbook ids: ok")
    qs = {k: {kk: vv for kk, vv in v.items()} for k, v in fx["questions"].items()}
    for dtype in (np.float32, np.float64):   # the tables must not depend on the stored precision
        ref = Ref(fx, dtype)
        rows, raw = ref.vector_list(qs["oauth"])
        assert rows == X.VECTOR_LIST, rows
        check_rounding(raw, "vector list")
        _, raw = ref.vector_list(qs["oauth_since_0309"])
        assert [i for i, _ in raw] == X.VECTOR_LIST_SINCE_0309_IDS, raw
        ft = ref.fulltext_list(qs["oauth"])
        assert [(i, t) for i, _, t in ft] == [(i, t) for i, _, t in X.FULLTEXT_LIST], ft
        for (_, got, _), (_, want, _) in zip(ft, X.FULLTEXT_LIST):
            assert abs(got - want) <= 1e-12, (got, want)
        assert ref.filter_forms(qs["kafka_scope"]) == X.FILTER_FORMS, ref.filter_forms(qs["kafka_scope"])
        assert ref.rrf_table(qs["oauth"]) == X.RRF_OAUTH, ref.rrf_table(qs["oauth"])
        assert ref.rrf_table(qs["revocation"]) == X.RRF_REVOCATION, ref.rrf_table(qs["revocation"])
        assert ref.rrf_table(qs["incident"]) == X.RRF_INCIDENT, ref.rrf_table(qs["incident"])
        assert ref.recall(qs["oauth"]) == X.RECALL, ref.recall(qs["oauth"])
        assert ref.paths(qs["oauth"]) == X.PATHS, ref.paths(qs["oauth"])
        dec = ref.decision_search(qs["decisions"])
        assert [r[:4] for r in dec] == [r[:4] for r in X.DECISIONS], dec
        for got, want in zip(dec, X.DECISIONS):
            assert abs(got[4] - want[4]) <= 1e-12, (got, want)
        rows, raw = ref.session_scope(qs["oauth"])
        assert [i for i, _ in raw] == X.IN_FORM and rows == X.RANGE_FORM, rows
        check_rounding(raw, "range form")
    ref = Ref(fx)
    print("vector list, since 2026-03-09, full-text list, filter forms, 3 fusions, recall hop, paths,")
    print("decision search, IN and range forms: all match the cookbook")
    for name in ("revocation", "incident"):
        v = [i for i, _ in ref.vector(qs[name]["v"], 5, ref.since(qs[name]))]
        f = [i for i, _ in ref.fulltext(qs[name]["q"], 15)][:5]
        print(f"  {name}: q={qs[name]['q']!r} vector {v} fulltext {f}")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
