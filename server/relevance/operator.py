"""Physical operators: RelevanceExpand (a relationship type answered by a relevance join, one search
per distinct anchor key) and PinnedAnchor (``(c:Concept {value: '...'})``: stored matches, else a
query-time node the query named)."""
from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from collections import OrderedDict

from relate.protocol.errors import CypherTypeError

from relate.server.ai.statement import for_ctx
from relate.server.query.exec.operators.base import Operator, label_test
from relate.server.query.exec.values.ops import equals, type_name
from relate.server.query.refs import NodeRef, RelRef

from relate.server.ai.providers import ProviderError

from . import agentic, catalog as C, costs, files, lanes, remote

CACHE_ENTRIES = 10_000
AI_DIRECTIVES = frozenset({"materialize"})      # keys a relevance edge's ``ai`` map may hold
_caches: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


class TtlCache:
    """Per-database cache of relevance results for joins with ``cacheTtl`` (LRU-bounded)."""

    def __init__(self):
        self.entries: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            found = self.entries.get(key)
            if found is None:
                return None
            if found[0] < time.monotonic():
                del self.entries[key]
                return None
            self.entries.move_to_end(key)
            return found[1]

    def put(self, key, ttl: float, hits) -> None:
        with self.lock:
            self.entries[key] = (time.monotonic() + ttl, hits)
            self.entries.move_to_end(key)
            while len(self.entries) > CACHE_ENTRIES:
                self.entries.popitem(last=False)


def ttl_cache(db) -> TtlCache:
    with _caches_lock:
        cache = _caches.get(db)
        if cache is None:
            cache = _caches[db] = TtlCache()
        return cache


def select_joins(rc: C.RelevanceCatalog, rel_type: str, anchor_labels, via, end_label: str | None):
    """The joins answering ``(anchor)-[:rel_type {via}]->(:end_label)`` (``via: 'vector'`` is the default
    lane, as no via is): a parent end label selects every child system's join too, and a child end label
    reads its own system's joins alone, or, having none, a join to its parent narrowed to the child."""
    own, inherited = [], []
    for join in rc.joins_for(rel_type):
        if C.via_key(join.via) != C.via_key(via) or not set(join.anchor_labels) & set(anchor_labels):
            continue
        if end_label is not None and join.target_label != end_label:
            if join.target_label in rc.ancestors(end_label):
                inherited.append(dataclasses.replace(join, target_label=end_label))
                continue
            if end_label not in rc.ancestors(join.target_label):
                continue
        own.append(join)
    # a child with a join of its own is read through it alone (spec 001 6.8); a parent's join narrowed
    # to the child answers only for a child that has none
    return own or inherited


def runs_agentic(rc, join) -> bool:
    """An agentic-rag join runs its judging loop, except over memory: accepted there, it answers with
    the semantic lane today (r.mode says so) and spends no model call."""
    return join.kind == "agentic-rag" and not rc.is_memory(join.target_label)


def anchor_key(tx, nid: int, join):
    value = tx.node_prop(nid, join.anchor_property)
    if join.kind == "participant":
        return value
    if isinstance(value, list):
        value = " ".join(str(v) for v in value if v is not None)
    return value if isinstance(value, str) and value.strip() else None


def target_scope(ctx, rc, join) -> lanes.Scope | None:
    """The filters a search for ``join`` runs under, or None when the caller lacks a required scope."""
    equalities = []
    session_scope = getattr(ctx, "scope", None) or {}
    declared = rc.scope(join.target_label)
    if declared and session_scope.get("user") is None:
        return None                             # a principal is required, though it is never a data scope
    for prop, key in declared:
        value = session_scope.get(key)
        if value is None:
            return None                         # fail closed
        equalities.append((prop, value))
    life = rc.lifecycle(join.target_label)
    return lanes.Scope(ctx.tx, join.target_label, equalities, life.never if life else (),
                       life.status_property if life else None, join.statuses if life else None)


def read_statuses(rc, join, relaxed, statuses):
    """``join`` reading what the query reads of its target's lifecycle: the active statuses unless the
    query constrains the status (``relaxed``), then the statuses it names (None: every one but never)."""
    life = rc.lifecycle(join.target_label)
    if life is None or relaxed is None:
        return join
    if not relaxed:
        wanted = life.active
    elif isinstance(statuses, list) and all(isinstance(s, str) for s in statuses):
        wanted = tuple(s for s in statuses if s not in life.never)
    else:
        wanted = None
    return join if wanted == join.statuses else dataclasses.replace(join, statuses=wanted)


def memo_key(ctx, join, key, intent) -> tuple:
    """One search's identity: the join's whole definition (a join dropped and created again under its name
    with other settings searches anew; its narrowed label and statuses too), the key, the brief, the scope."""
    scope_key = tuple(sorted((getattr(ctx, "scope", None) or {}).items()))
    return join, key, intent, scope_key


def _notify_cull(state, join, dropped: int, total: int, best) -> None:
    notes = state.notes
    note = notes.get(("cull", join.name))
    if note is None:
        note = notes[("cull", join.name)] = {"dropped": 0, "total": 0, "best": None}
        note["dict"] = {"code": "Relate.ClientNotification.Relevance.MinScoreCull", "severity": "INFORMATION",
                        "category": "GENERIC", "title": "A relevance join's minScore dropped hits"}
        state.ctx.notifications.append(note["dict"])
    note["dropped"] += dropped
    note["total"] += total
    if best is not None and (note["best"] is None or best > note["best"]):
        note["best"] = best
    best_text = "none" if note["best"] is None else f"{note['best']:.4f}"
    note["dict"]["description"] = (f"Relevance join `{join.name}`: minScore {join.min_score} dropped "
                                   f"{note['dropped']} of {note['total']} hits (best score seen {best_text})")


def _notify_once(state, key: tuple, note: dict) -> None:
    """Add ``note`` (a WARNING) once per statement and ``key``; later occurrences are only counted."""
    if key in state.notes:
        state.notes[key]["count"] += 1
        return
    state.notes[key] = {"count": 1}
    state.ctx.notifications.append({"severity": "WARNING", "category": "GENERIC", **note})


def _notify_degraded(state, join, error: BaseException) -> None:
    _notify_once(state, ("degraded", join.name), {
        "code": "Relate.ClientNotification.Relevance.AgenticDegraded",
        "title": "The agentic-rag loop failed; the default lane answered",
        "description": f"Relevance join `{join.name}`: {type(error).__name__} "
                       f"({getattr(error, 'detail', None) or 'error'}); rows come from the fused lane"})


def _notify_remote_failed(state, join, error: BaseException, step: str) -> None:
    _notify_once(state, ("remote", join.name, step), {
        "code": "Relate.ClientNotification.Relevance.RemoteSearchFailed",
        "title": f"A remote relevance join's {step} failed",
        "description": f"Relevance join `{join.name}` ({join.kind}) {step}: {error} "
                       f"({getattr(error, 'detail', None) or 'error'})"
                       + ("; the anchor's own text was searched" if step == "concept expansion" else
                          "; that search contributes no edges")})


def _remote_hits(ctx, state, join, scope, key, intent, cache, memo) -> list[dict]:
    """The store's record hits for one key: the TTL cache, else one request per probe (each one apiCalls,
    counted when sent; concept mode first asks the model for the probes, else the key is the one probe);
    none when every request failed (a notification says so). Only a complete answer is cached."""
    found = cache.get(memo) if cache is not None else None
    if found is not None:
        return found
    probes = [key]
    if join.concept:
        try:
            probes = remote.probe_terms(ctx, join, key, intent)
        except (ProviderError, ValueError) as error:   # the anchor's own text still searches
            _notify_remote_failed(state, join, error, "concept expansion")
    lists, failed = [], False
    for probe in probes:
        try:
            with ctx.costs.call("apiCalls", "remote search", join.name):
                lists.append(remote.search(join, probe, join.k, intent, dict(scope.equalities)))
        except ProviderError as error:      # fail-open: what the other probes found stands
            failed = True
            _notify_remote_failed(state, join, error, "search")
    if not lists:
        return []
    found = remote.fuse(lists, join.k)
    if cache is not None and not failed:
        cache.put(memo, join.cache_ttl, found)
    return found


def search(ctx, rc, join, key, intent: str | None) -> list[dict]:
    """The hits of ``join`` for one anchor key: statement memo, then the TTL cache, then a real search."""
    state = for_ctx(ctx)
    scope = target_scope(ctx, rc, join)
    memo = memo_key(ctx, join, key, intent)
    found = state.memo.get(memo)
    if found is not None:
        return found
    if scope is None:
        state.memo[memo] = []
        return []
    cache = ttl_cache(ctx.db) if join.cache_ttl else None
    if join.remote:
        # records are cached, not node ids: a query-time target node lives as long as its statement
        records = _remote_hits(ctx, state, join, scope, key, intent, cache, memo)
        hits = remote.resolve(ctx, rc, join, scope, records, state.pinned)
        return _floor_and_keep(state, join, memo, hits, None)
    if join.kind == "files":
        # a search of this world's own files: one semanticCalls; records cached, as a remote join's
        records = cache.get(memo) if cache is not None else None
        if records is None:
            ctx.costs["semanticCalls"] += 1
            records = files.search(ctx, join, key, join.k)
            if cache is not None:
                cache.put(memo, join.cache_ttl, records)
        life = rc.lifecycle(join.target_label)
        hits = remote.resolve(ctx, rc, join, scope, records, state.pinned, mode="keyword", probe="files",
                              props=files.record_props, status=life.active[0] if life and life.active else None)
        return _floor_and_keep(state, join, memo, hits, None)
    if cache is not None:
        cached = cache.get(memo)
        if cached is not None:
            hits, cull = cached
            if cull is not None:          # the floor's report holds for the cached answer too
                _notify_cull(state, join, *cull)
            hits = _still_there(ctx.tx, hits)
            state.memo[memo] = hits
            return hits
    ctx.costs["semanticCalls"] += 1
    k = join.k
    if join.kind == "participant":
        hits = lanes.participant(ctx, join, scope, key, k)
    elif join.kind == "keyword":
        hits = lanes.keyword(ctx, join, scope, key, k)
    elif runs_agentic(rc, join):
        try:
            hits = agentic.run(ctx, join, scope, key, intent, k)
        except Exception as error:           # fail-open: an LLM hiccup costs precision, never the answer
            _notify_degraded(state, join, error)
            hits = lanes.fused(ctx, join, scope, key, k)
    else:
        hits = lanes.fused(ctx, join, scope, key, k)
    return _floor_and_keep(state, join, memo, hits, cache)


def _floor_and_keep(state, join, memo, hits: list[dict], cache) -> list[dict]:
    """``hits`` past the join's minScore floor, memoized for the statement (and cached for its TTL, with
    what the floor dropped, so that a cached answer reports its cull as the first one did)."""
    cull = None
    if join.min_score > 0 and hits:
        # a fused hit without a similarity (the lexical arm found a document that has no embedding) is
        # kept: the floor is a similarity threshold, and either arm's documents stay reachable (spec 6.6)
        kept = [h for h in hits if h["score"] is None or h["score"] >= join.min_score]
        if len(kept) < len(hits):
            scores = [h["score"] for h in hits if h["score"] is not None]
            cull = (len(hits) - len(kept), len(hits), max(scores) if scores else None)
            _notify_cull(state, join, *cull)
        hits = kept
    state.memo[memo] = hits
    if cache is not None:
        cache.put(memo, join.cache_ttl, (hits, cull))
    return hits


def _still_there(tx, hits: list[dict]) -> list[dict]:
    """Cached ``hits`` without the targets deleted since they were found (ranks closed up again)."""
    if all(tx.node_exists(h["id"]) for h in hits):
        return hits
    kept = [dict(h) for h in hits if tx.node_exists(h["id"])]
    for rank, hit in enumerate(kept, start=1):
        hit["rank"] = rank
    return kept


def planned_calls(ctx, rc, work) -> dict:
    """What the distinct, not yet answered anchor keys in ``work`` will spend."""
    state = for_ctx(ctx)
    seen, semantic, llm, api, expansions = set(), 0, 0, 0, 0
    for join, key, intent in work:
        memo = memo_key(ctx, join, key, intent)
        if memo in seen or memo in state.memo:
            continue
        seen.add(memo)
        if join.cache_ttl and ttl_cache(ctx.db).get(memo) is not None:
            continue
        if join.remote:
            api += 1                       # a request to a store outside this world (spec 001 section 9)
            if join.concept:               # one model call picks the probes; each probe is a search: a floor
                llm += 1
                expansions += 1
            continue
        semantic += 1
        if runs_agentic(rc, join):
            llm += 2
    planned = {"semanticCalls": semantic, "llmCalls": llm, "apiCalls": api}
    if expansions:
        planned["expansions"] = expansions  # concept mode: its API figure is the first search per anchor
    return planned


def _prefetch(ctx, rc, rows) -> None:
    """Batch the vector arms of the keys about to be searched (not memoized, not cached)."""
    state = for_ctx(ctx)
    by_join: dict[str, tuple] = {}
    for _, work in rows:
        for join, key, intent in work:
            if join.kind not in ("fused", "agentic-rag"):
                continue
            memo = memo_key(ctx, join, key, intent)
            if memo in state.memo or (join.cache_ttl and ttl_cache(ctx.db).get(memo) is not None):
                continue
            by_join.setdefault(join.name, (join, []))[1].append(key)
    for join, keys in by_join.values():
        scope = target_scope(ctx, rc, join) if len(keys) > 1 else None
        if scope is not None:
            lanes.prefetch_vectors(ctx, join, scope, keys, join.k)


class RelevanceExpand(Operator):
    """``(start)-[rel:TYPE {via, intent, ai}]->(end)`` answered by relevance joins."""
    __slots__ = ("start", "rel", "end", "rel_type", "end_label", "end_test", "into", "via", "intent", "relaxed",
                 "statuses", "ai")
    name = "RelevanceExpand"

    def __init__(self, source, start, rel, end, rel_type, end_labels, into, via, intent, relaxed=None,
                 statuses=None, ai=None):
        self.source, self.start, self.rel, self.end = source, start, rel, end
        self.rel_type, self.into, self.via, self.intent = rel_type, into, via, intent
        self.ai = ai            # the edge's ``ai`` directives (compiled map expression) or None
        # what the source reads of the target's lifecycle (planning.edge_selectors)
        self.relaxed, self.statuses = relaxed, statuses
        self.end_label = getattr(end_labels, "name", None) if type(end_labels).__name__ == "LabelName" else None
        self.end_test = None if into else label_test(end_labels)

    def details(self):
        return f"({self.start.strip()})-[{self.rel.strip()}:{self.rel_type}]->({self.end.strip()}) relevance join"

    def selection(self, row, ctx):
        """(via, relaxed, statuses) for one row: the edge's via, whether the query constrains the
        target's status (None: the target has no lifecycle) and the statuses it names (or None)."""
        via = self.via(row, ctx) if self.via is not None else None
        return via, self.relaxed, self.statuses(row, ctx) if self.statuses is not None else None

    def opted_in(self, row, ctx) -> bool:
        """Whether the edge's ``ai: {materialize: true}`` opts this row's searches into their spend: the
        statement's AI budget does not refuse them (they are still counted, and maxAnchors still holds)."""
        if self.ai is None:
            return False
        directives = self.ai(row, ctx)
        if directives is None:
            return False
        if not isinstance(directives, dict):
            raise CypherTypeError(f"A relevance edge's `ai` must be a map, got {type_name(directives)}",
                                  detail="InvalidArgumentType", phase="runtime")
        unknown = sorted(set(directives) - AI_DIRECTIVES)
        if unknown:
            raise CypherTypeError(f"Unknown directive(s) in a relevance edge's `ai` map: {', '.join(unknown)} "
                                  f"(known: {', '.join(sorted(AI_DIRECTIVES))})",
                                  detail="InvalidArgumentValue", phase="runtime")
        materialize = directives.get("materialize")
        if materialize is not None and not isinstance(materialize, bool):
            raise CypherTypeError(f"`ai.materialize` must be a boolean, got {type_name(materialize)}",
                                  detail="InvalidArgumentType", phase="runtime")
        return bool(materialize)

    def _work(self, ctx, rc, row, chosen=None):
        """[(join, key, intent)] for one input row (empty when nothing anchors it); ``chosen`` memoizes
        the join selection per (labels, via)."""
        node = row.get(self.start)
        if node is None:
            return []
        if type(node) is not NodeRef:
            raise CypherTypeError(f"Expected `{self.start.strip()}` to be a node, got {type_name(node)}",
                                  detail="InvalidArgumentType", phase="runtime")
        tx = ctx.tx
        if not tx.node_exists(node.id):
            return []
        via, relaxed, statuses = self.selection(row, ctx)
        intent = self.intent(row, ctx) if self.intent is not None else None
        if via is not None and not isinstance(via, str):
            raise CypherTypeError(f"A relevance edge's `via` must be a string, got {type_name(via)}",
                                  detail="InvalidArgumentType", phase="runtime")
        if intent is not None and not isinstance(intent, str):
            raise CypherTypeError(f"A relevance edge's `intent` must be a string, got {type_name(intent)}",
                                  detail="InvalidArgumentType", phase="runtime")
        out = []
        labels = tx.node_labels(node.id)
        joins = None if chosen is None else chosen.get((labels, via))
        if joins is None:
            joins = select_joins(rc, self.rel_type, labels, via, self.end_label)
            if chosen is not None:
                chosen[(labels, via)] = joins
        for join in joins:
            join = read_statuses(rc, join, relaxed, statuses)
            key = anchor_key(tx, node.id, join)
            if key is not None:
                out.append((join, key, intent if intent is not None else join.intent
                            if join.kind == "agentic-rag" else None))
        return out

    def rows(self, ctx, arg):
        rc = C.of(ctx.tx)
        # Buffer the anchors first: the distinct keys are counted, priced and checked before any search.
        chosen: dict = {}
        rows = [(row, self._work(ctx, rc, row, chosen)) for row in self.source.rows(ctx, arg)]
        per_join: dict[str, set] = {}
        for _, work in rows:
            for join, key, intent in work:
                per_join.setdefault(join.name, set()).add((key, intent))
        for name, keys in per_join.items():
            limit = rc.joins[name].max_anchors
            if limit is not None and len(keys) > limit:
                raise costs.too_expensive(f"Relevance join `{name}` would search {len(keys)} distinct anchors; "
                                          f"its maxAnchors is {limit}")
        # rows whose edge opts in with ai: {materialize: true} are not gated by the budget (spec 001 6.7)
        gated = [w for row, work in rows if work and not self.opted_in(row, ctx) for w in work]
        costs.check(ctx, planned_calls(ctx, rc, gated))
        _prefetch(ctx, rc, rows)
        state = for_ctx(ctx)
        tx = ctx.tx
        rel_var, end_var, start_var = self.rel, self.end, self.start
        for row, work in rows:
            anchor = row[start_var].id if work else None
            via = self.selection(row, ctx)[0] if work else None
            for join, key, intent in work:
                for hit in search(ctx, rc, join, key, intent):
                    target = hit["id"]
                    if self.into:
                        bound = row.get(end_var)
                        if bound is None or bound.id != target:
                            continue
                    elif self.end_test is not None and not self.end_test(tx.node_labels(target)):
                        continue
                    edge_key = (anchor, target, join.name, join.target_label, join.statuses, intent)
                    rid = state.edges.get(edge_key)
                    if rid is None:
                        props = {"score": hit["score"], "rank": hit["rank"], "mode": hit["mode"],
                                 "snippet": hit.get("snippet"), "matchedTerms": hit.get("matchedTerms", []),
                                 "probes": hit.get("probes", []), "via": join.via or via, "intent": intent,
                                 "join": join.name}
                        rid = state.edges[edge_key] = tx.add_virtual_rel(join.rel_type, anchor, target, props)
                    out = dict(row)
                    out[rel_var] = RelRef(rid)
                    if not self.into:
                        out[end_var] = NodeRef(target)
                    yield out


class PinnedAnchor(Operator):
    """``(c:Label {prop: value, ...})`` anchoring a relevance join: the stored nodes that match, or,
    when the label has no stored node (a concept the query names), one query-time node carrying
    exactly what the query named."""
    __slots__ = ("var", "label", "props")
    name = "PinnedAnchor"

    def __init__(self, source, var, label, props):
        self.source, self.var, self.label, self.props = source, var, label, props

    def details(self):
        return f"({self.var.strip()}:{self.label} {{...}})"

    def rows(self, ctx, arg):
        tx = ctx.tx
        for row in self.source.rows(ctx, arg):
            wanted = self.props(row, ctx)
            if not isinstance(wanted, dict) or any(v is None for v in wanted.values()):
                continue
            found = False
            for nid in tx.nodes_by_label(self.label):
                ctx.check()
                props = tx.node_props(nid)
                if all(equals(props.get(k), v) is True for k, v in wanted.items()):
                    found = True
                    out = dict(row)
                    out[self.var] = NodeRef(nid)
                    yield out
            # Only a label with no stored node at all is a query-time concept: a stored label
            # (Person) that has no match answers nothing, as any MATCH would.
            if not found and tx.count_nodes(self.label) == 0:
                state = for_ctx(ctx)
                key = (self.label, tuple(sorted((k, repr(v)) for k, v in wanted.items())))
                nid = state.pinned.get(key)
                if nid is None:
                    nid = state.pinned[key] = tx.add_virtual_node([self.label], dict(wanted))
                out = dict(row)
                out[self.var] = NodeRef(nid)
                yield out
