"""ReadTx: a consistent snapshot of the graph at one commit timestamp."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, Union

from relate.protocol.errors import EntityNotFound, TransactionError

from .adjacency import pairs, typed_pairs
from .adjacency import size as adjacency_size
from .indexes import in_bounds, order_key, prefix_successor, range_bounds
from .versions import visible

if TYPE_CHECKING:
    from typing import Hashable, Iterable, Self, Sequence

    from .adjacency import Adjacency
    from .indexes import Bounds, OrderKey, PropertyIndex
    from .store import GraphStore
    from .value_lookup import ValueLookup
    from .versions import E, Change, CountsVersion, EntityVersion, LiveNode, LiveRel, NodeVersion, Props, RelVersion


_EMPTY: dict[str, Any] = {}
_SCALARS = frozenset((str, bool, int, float))      # hashable, compared by value
SCAN_TICK = 1024          # members a scan reads between two of its caller's checks
# What a scan compares a property with: the values it must be among, or a test it must pass.
Sought = Union[frozenset[Any], Callable[[Any], bool]]


def _no_tick() -> None:
    """The check between blocks of a scan whose caller checks per result instead."""


def _missing_node(nid: int) -> EntityNotFound:
    return EntityNotFound(f"node {nid} does not exist or has been deleted", detail="EntityNotFound")


def _missing_rel(rid: int) -> EntityNotFound:
    return EntityNotFound(f"relationship {rid} does not exist or has been deleted",
                          detail="EntityNotFound")


class ReadTx:
    """Reads the graph as of commit ``ts``. Returned dicts and sets are shared: never mutate them."""

    __slots__ = ("_store", "_ts", "_nodes_get", "_rels_get", "_token", "_closed", "__weakref__")

    #: True when nothing read through this transaction can change while it is open (a snapshot that
    #: never writes), so callers may memoize what they read. WriteTx sets it False (it sees its writes).
    fixed = True

    def __init__(self, store: GraphStore, ts: int, token: int):
        self._store = store
        self._ts = ts
        # The entity lookups (storage/virtual.py wraps them to add query-time entities).
        self._nodes_get: Callable[[int], NodeVersion | None] = store._nodes.get
        self._rels_get: Callable[[int], RelVersion | None] = store._rels.get
        self._token = token
        self._closed = False

    @property
    def ts(self) -> int:
        return self._ts

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._store._readers.pop(self._token, None)

    def __del__(self) -> None:
        if not self._closed:
            self._store._readers.pop(self._token, None)

    def __enter__(self) -> Self:
        return self

    # -- query-time entities (storage/virtual.py): relevance edges and pinned anchors ------------------
    def add_virtual_rel(self, type: str, start: int, end: int, props: Props) -> int:
        """A relationship readable through this transaction only, under a fresh negative id."""
        from .virtual import add_rel
        return add_rel(self, type, start, end, props)

    def add_virtual_node(self, labels: Iterable[str], props: Props) -> int:
        """A node readable through this transaction only, under a fresh negative id."""
        from .virtual import add_node
        return add_node(self, labels, props)

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the entity tables ---------------------------------------------------------------------------
    # Nodes and relationships are two tables of the same shape (id -> newest version, older versions
    # chained by ``prev``; ``props`` None = deleted). Scans share ``_live_ids`` / ``_members``. The
    # per-entity accessors below (node_labels, node_prop, ...) repeat the visibility test inline
    # instead of calling one shared lookup (``_node``): they are the engine's hottest reads (every
    # property access, label test and expand end check), and a shared lookup adds a call to each.

    def _live_ids(self, table: dict[int, E]) -> Iterator[int]:
        """Ids of ``table`` (the store's nodes or relationships) live in this snapshot."""
        ts = self._ts
        rec: E | None
        for eid, rec in list(table.items()):
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            if rec.props is not None:
                yield eid

    def _members(self, index: dict[str, dict[int, None]], name: str, get: Callable[[int], Any],
                 check_label: bool) -> Iterator[int]:
        """Ids in ``index[name]`` (the label index with ``get`` = nodes, or the type index with rels)
        live in this snapshot; with ``check_label`` they must still carry the label (the label index
        keeps members until vacuum). Lazy: the member set is read and copied at the first ``next``.
        ``get`` is typed Any: it returns node or relationship versions, and ``check_label`` (nodes
        only) decides whether labels are read."""
        members = index.get(name)
        if not members:
            return
        ts = self._ts
        for eid in list(members):
            rec = get(eid)
            if rec is None:
                continue
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            if rec.props is not None and (not check_label or name in rec.labels):
                yield eid

    # -- nodes ---------------------------------------------------------------------------------------

    def _node(self, nid: int) -> LiveNode | None:
        """The visible version of node ``nid``, or None."""
        rec = self._nodes_get(nid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        if rec is None or rec.props is None:
            return None
        return rec  # type: ignore[return-value]  # props is not None: a live version

    def change_log(self) -> Sequence[Change]:
        """What this transaction wrote so far, in order (the WAL record to be): nothing for a reader."""
        return ()

    def node_exists(self, nid: int) -> bool:
        rec = self._nodes_get(nid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        return rec is not None and rec.props is not None

    def node_labels(self, nid: int) -> frozenset[str]:
        rec = self._nodes_get(nid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        if rec is None or rec.props is None:
            raise _missing_node(nid)
        return rec.labels

    def node_props(self, nid: int) -> Props:
        rec = self._nodes_get(nid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        if rec is None or rec.props is None:
            raise _missing_node(nid)
        return rec.props

    def node_prop(self, nid: int, key: str) -> Any:
        rec = self._nodes_get(nid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        if rec is None or rec.props is None:
            raise _missing_node(nid)
        return rec.props.get(key)

    def node(self, nid: int) -> tuple[frozenset[str], Props] | None:
        """(labels, props) of a visible node in one lookup, or None."""
        rec = self._node(nid)
        return None if rec is None else (rec.labels, rec.props)

    def all_nodes(self) -> Iterator[int]:
        return self._live_ids(self._store._nodes)

    def nodes_by_label(self, label: str) -> Iterator[int]:
        return self._members(self._store._label_index, label, self._nodes_get, True)

    def nodes_by_label_with_props(self, label: str, tick: Callable[[], Any]) -> Iterator[tuple[int, Props]]:
        """(id, properties) of the live nodes labelled ``label``, in ``nodes_by_label``'s order, each
        version read once: ``ORDER BY n.key LIMIT k`` over a label ranks the ids before any row is built.
        ``tick`` is called every SCAN_TICK members (the statement's cancel and deadline checks)."""
        members = self._store._label_index.get(label)
        if not members:
            return
        ts, get = self._ts, self._nodes_get
        ids = list(members)
        for start in range(0, len(ids), SCAN_TICK):
            if start:
                tick()
            for eid in ids[start:start + SCAN_TICK]:
                rec = get(eid)
                if rec is None:
                    continue
                if rec.ts > ts:
                    rec = visible(rec.prev, ts)
                    if rec is None:
                        continue
                props = rec.props
                if props is not None and label in rec.labels:
                    yield eid, props

    def nodes_by_label_and_values(self, label: str, key: str, values: Sought, tick: Callable[[], Any]) \
            -> Iterator[int]:
        """Ids of the live nodes labelled ``label`` whose ``key`` may pass a comparison, with no index:
        ``values`` is a frozenset the value must be a str, bool, int or float of (Python's equality, so a
        superset of Cypher's: ``true`` finds 1 too), or a test a non-null value must pass. One pass over
        the label's members reading each property in place (~4-6x a scan that hands every node to a
        filter): the caller's filter decides. ``tick`` is called every SCAN_TICK members (the statement's
        cancel and deadline checks)."""
        return self._members_with(self._store._label_index, label, self._nodes_get, label, key, values, tick)

    def all_nodes_with_values(self, key: str, values: Sought, tick: Callable[[], Any]) -> Iterator[int]:
        """``nodes_by_label_and_values`` over every node (a pattern node without a label)."""
        return self._members_with({"": self._store._nodes}, "", self._nodes_get, None, key, values, tick)

    def _members_with(self, index: dict[str, Any], name: str, get: Callable[[int], Any],
                      label: str | None, key: str, values: Sought, tick: Callable[[], Any]) -> Iterator[int]:
        """``_members`` of ``index[name]`` whose ``key`` may pass ``values`` (see above)."""
        members = index.get(name)
        if not members:
            return
        ts, scalars = self._ts, _SCALARS
        among, test = (values, None) if isinstance(values, frozenset) else (None, values)
        ids = list(members)
        for start in range(0, len(ids), SCAN_TICK):
            if start:
                tick()
            for eid in ids[start:start + SCAN_TICK]:
                rec = get(eid)
                if rec is None:
                    continue
                if rec.ts > ts:
                    rec = visible(rec.prev, ts)
                    if rec is None:
                        continue
                props = rec.props
                if props is None:
                    continue
                found = props.get(key)
                if found is None:
                    continue
                if among is not None:
                    if type(found) not in scalars or found not in among:
                        continue
                elif test is not None and not test(found):
                    continue
                if label is None or label in rec.labels:
                    yield eid

    def count_nodes(self, label: str | None = None) -> int:
        return self._counts().nodes.get(label, 0)

    def value_lookup(self, entity: str, name: str | None, keys: tuple[str, ...], tick: Callable[[], Any],
                     transform: str | None = None) -> ValueLookup:
        """A transient hash index by ``keys`` (one key's strings lower- or upper-cased with ``transform``)
        of the nodes labelled ``name`` (every node: None) or the relationships of type ``name``, built now
        from this view, for one statement's repeated seeks on unindexed keys (see value_lookup.py)."""
        from .value_lookup import ValueLookup
        return ValueLookup(self, entity, name, keys, tick, transform)

    # -- relationships -------------------------------------------------------------------------------

    def _rel(self, rid: int) -> LiveRel | None:
        rec = self._rels_get(rid)
        if rec is not None and rec.ts > self._ts:
            rec = visible(rec.prev, self._ts)
        if rec is None or rec.props is None:
            return None
        return rec  # type: ignore[return-value]  # props is not None: a live version

    def rel_exists(self, rid: int) -> bool:
        return self._rel(rid) is not None

    def rel_type(self, rid: int) -> str:
        rec = self._rel(rid)
        if rec is None:
            raise _missing_rel(rid)
        return rec.type

    def rel_endpoints(self, rid: int) -> tuple[int, int]:
        rec = self._rel(rid)
        if rec is None:
            raise _missing_rel(rid)
        return rec.start, rec.end

    def rel_props(self, rid: int) -> Props:
        rec = self._rel(rid)
        if rec is None:
            raise _missing_rel(rid)
        return rec.props

    def rel_prop(self, rid: int, key: str) -> Any:
        rec = self._rel(rid)
        if rec is None:
            raise _missing_rel(rid)
        return rec.props.get(key)

    def rel(self, rid: int) -> tuple[str, int, int, Props] | None:
        """(type, start, end, props) of a visible relationship in one lookup, or None."""
        rec = self._rel(rid)
        return None if rec is None else (rec.type, rec.start, rec.end, rec.props)

    def all_rels(self) -> Iterator[int]:
        return self._live_ids(self._store._rels)

    def rels_by_type(self, type: str) -> Iterator[int]:
        return self._members(self._store._type_index, type, self._rels_get, False)

    def rels_by_type_and_values(self, type: str, key: str, values: Sought, tick: Callable[[], Any]) \
            -> Iterator[int]:
        """``nodes_by_label_and_values`` for the relationships of one type."""
        return self._members_with(self._store._type_index, type, self._rels_get, None, key, values, tick)

    def count_rels(self, type: str | None = None) -> int:
        return self._counts().rels.get(type, 0)

    def expand(self, nid: int, direction: str, types: tuple[str, ...] | None = None
               ) -> Iterator[tuple[int, int]]:
        """(rid, other node id) for each visible relationship of ``nid`` in ``direction``."""
        store = self._store
        if direction == "out":
            if self.fixed and types is not None and len(types) == 1:
                return self._expand_fixed(store._out, nid, types[0])
            return self._expand(store._out, nid, types, False)
        if direction == "in":
            if self.fixed and types is not None and len(types) == 1:
                return self._expand_fixed(store._in, nid, types[0])
            return self._expand(store._in, nid, types, False)
        if direction == "both":
            return self._expand_both(nid, types)
        raise TransactionError(f"unknown direction {direction!r}")

    def _expand_fixed(self, adjacency: Adjacency, nid: int, rel_type: str) -> Iterator[tuple[int, int]]:
        """``_expand`` for one type on a fixed snapshot, built at once with a comprehension.

        On a snapshot what is visible cannot change (vacuum never removes what a live reader sees),
        so filtering now rather than when first advanced yields the same pairs, without a generator
        step per relationship (the hot path of 2-hop patterns: ~2x faster per relationship).
        """
        group = typed_pairs(adjacency.get(nid), rel_type)
        if not group:
            return iter(())
        get, ts = self._rels_get, self._ts
        # Most versions are older than the snapshot and live (props not None); newer ones are walked.
        return iter([(rid, other) for rid, other in group
                     if (rec := get(rid)) is not None
                     and ((rec.props is not None) if rec.ts <= ts else _live_at(rec.prev, ts))])

    def expand_props(self, nid: int, direction: str, types: tuple[str, ...] | None = None
                     ) -> list[tuple[int, int, Props]]:
        """(rid, other node id, properties) for each visible relationship ``expand`` gives, in its
        order; on a fixed snapshot with one type, one pass over the adjacency (no lookup per relationship)."""
        if not (self.fixed and types is not None and len(types) == 1 and direction != "both"):
            rel_props = self.rel_props
            return [(rid, other, rel_props(rid)) for rid, other in self.expand(nid, direction, types)]
        group = typed_pairs((self._store._out if direction == "out" else self._store._in).get(nid), types[0])
        if not group:
            return []
        get, ts, rel = self._rels_get, self._ts, self._rel
        found: list[tuple[int, int, Props]] = []
        for rid, other in group:
            rec = get(rid)
            if rec is None:
                continue
            if rec.ts <= ts:              # the usual case: the record is the visible version
                if rec.props is not None:
                    found.append((rid, other, rec.props))
            elif (live := rel(rid)) is not None:      # changed since the snapshot: walk its versions
                found.append((rid, other, live.props))
        return found

    def expand_rel_ids(self, nid: int, direction: str, types: tuple[str, ...] | None = None,
                       end_test: Callable[[frozenset[str]], bool] | None = None,
                       end_label: str | None = None) -> list[int]:
        """Ids of the visible relationships of ``nid`` in ``direction`` whose far end carries
        ``end_label`` (when given) and passes ``end_test`` (a predicate over its label set, when given).

        What ``expand`` + ``node_labels`` give, without a (rid, other) pair, a call per far node
        and a generator step per relationship: on a fixed snapshot and one type the visibility and
        label tests run in one comprehension (the 2-hop count's inner loop).
        """
        if end_label is not None:
            label = end_label
            test = end_test
            end_test = (lambda ls: label in ls) if test is None else (lambda ls: label in ls and test(ls))
        if not (self.fixed and types is not None and len(types) == 1 and direction != "both"):
            labels_of = self.node_labels
            return [rid for rid, other in self.expand(nid, direction, types)
                    if end_test is None or end_test(labels_of(other))]
        group = typed_pairs((self._store._out if direction == "out" else self._store._in).get(nid), types[0])
        if not group:
            return []
        get, ts = self._rels_get, self._ts
        if end_test is None:
            return [rid for rid, _ in group
                    if (rec := get(rid)) is not None
                    and ((rec.props is not None) if rec.ts <= ts else _live_at(rec.prev, ts))]
        nget, labels_of = self._nodes_get, self.node_labels
        # A far node's labels: its record's when that version is the visible one (the usual case),
        # else through node_labels (an older version; a missing node raises as node_labels does).
        if end_label is not None and test is None:
            return [rid for rid, other in group
                    if (rec := get(rid)) is not None
                    and ((rec.props is not None) if rec.ts <= ts else _live_at(rec.prev, ts))
                    and label in (node.labels if ((node := nget(other)) is not None and node.ts <= ts
                                                  and node.props is not None) else labels_of(other))]
        return [rid for rid, other in group
                if (rec := get(rid)) is not None
                and ((rec.props is not None) if rec.ts <= ts else _live_at(rec.prev, ts))
                and end_test(node.labels if ((node := nget(other)) is not None and node.ts <= ts
                                             and node.props is not None) else labels_of(other))]

    def expand_rel_id_set(self, nid: int, direction: str, types: tuple[str, ...] | None = None,
                          end_test: Callable[[frozenset[str]], bool] | None = None,
                          end_label: str | None = None, end_key: Hashable = None) -> set[int] | frozenset[int]:
        """``expand_rel_ids`` as a set, kept across statements in the store's ExpandCache.

        ``end_key`` names the far-end condition (hashable; equal keys must mean the same test over
        labels alone). On a fixed snapshot at or after the store's structure version the result is a
        frozenset shared with the cache (never mutate it); otherwise a fresh set, computed as before.
        """
        if not self.fixed:
            return set(self.expand_rel_ids(nid, direction, types, end_test, end_label))
        store = self._store
        version = store._structure_ts          # read once: the structure this snapshot sees, if <= ts
        if self._ts < version:
            return set(self.expand_rel_ids(nid, direction, types, end_test, end_label))
        cache = store._expand_cache
        key = (nid, direction, types if types is None or type(types) is tuple else tuple(types), end_key)
        ids = cache.get(key, version)
        if ids is None:
            ids = frozenset(self.expand_rel_ids(nid, direction, types, end_test, end_label))
            if len(ids) >= _CACHE_MIN:          # small sets cost less to recompute than to keep
                cache.put(key, ids, version)
        return ids

    def _expand_both(self, nid: int, types: tuple[str, ...] | None) -> Iterator[tuple[int, int]]:
        yield from self._expand(self._store._out, nid, types, False)
        yield from self._expand(self._store._in, nid, types, True)    # self-loops came already

    def _expand(self, adjacency: Adjacency, nid: int, types: tuple[str, ...] | None, skip_loops: bool
                ) -> Iterator[tuple[int, int]]:
        get, ts = self._rels_get, self._ts
        for rid, other in pairs(adjacency.get(nid), types):
            if skip_loops and other == nid:
                continue
            rec = get(rid)
            if rec is None:
                continue
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            if rec.props is not None:
                yield rid, other

    def adjacency_size(self, nid: int, direction: str, types: tuple[str, ...] | None = None) -> int:
        """An upper bound on what ``expand`` yields (relationships listed, visible here or not), read
        at once: which end of a relationship between two known nodes is cheaper to expand."""
        store = self._store
        if direction == "out":
            return adjacency_size(store._out.get(nid), types)
        if direction == "in":
            return adjacency_size(store._in.get(nid), types)
        return adjacency_size(store._out.get(nid), types) + adjacency_size(store._in.get(nid), types)

    def degree(self, nid: int, direction: str, types: tuple[str, ...] | None = None,
               at_most: int | None = None) -> int:
        """How many pairs ``expand`` yields (a self-loop once both ways), stopping at ``at_most``:
        counted in place, with no pair or generator step per relationship."""
        store = self._store
        if direction == "out":
            sides: tuple[tuple[Adjacency, bool], ...] = ((store._out, False),)
        elif direction == "in":
            sides = ((store._in, False),)
        elif direction == "both":
            sides = ((store._out, False), (store._in, True))      # self-loops came with the first
        else:
            raise TransactionError(f"unknown direction {direction!r}")
        get, ts = self._rels_get, self._ts
        count = 0
        for adjacency, skip_loops in sides:
            for rid, other in pairs(adjacency.get(nid), types):
                if skip_loops and other == nid:
                    continue
                rec = get(rid)
                if rec is None:
                    continue
                if rec.ts > ts:
                    rec = visible(rec.prev, ts)
                    if rec is None:
                        continue
                if rec.props is not None:
                    count += 1
                    if count == at_most:
                        return count
        return count

    # -- names, schema, counts -------------------------------------------------------------------------

    def _counts(self) -> CountsVersion:
        counts = self._store._counts
        if counts.ts > self._ts:
            # A live snapshot always finds a version: vacuum prunes only below the oldest reader's ts.
            counts = visible(counts.prev, self._ts)  # type: ignore[assignment]
        return counts

    def labels(self) -> list[str]:
        """The labels some node in this snapshot carries, in token order (creation order, as Neo4j's)."""
        counts = self._counts().nodes
        return [name for name in list(self._store._label_names) if counts.get(name, 0) > 0]

    def rel_types(self) -> list[str]:
        """The relationship types some relationship in this snapshot has, in token (creation) order."""
        counts = self._counts().rels
        return [name for name in list(self._store._type_names) if counts.get(name, 0) > 0]

    def property_keys(self) -> list[str]:
        """Every property key the database knows (tokens: kept once created), in creation order."""
        return list(self._store._key_names)

    def token_names(self, kind: str) -> list[str]:
        """Every ``kind`` token ('label', 'type' or 'key') the database knows, in creation order."""
        store = self._store
        return list(store._label_names if kind == "label" else store._type_names if kind == "type"
                    else store._key_names)

    def schema(self) -> dict[str, dict[str, Any]]:
        version = self._store._schema
        if version.ts > self._ts:
            version = visible(version.prev, self._ts)  # type: ignore[assignment]  # found, as in _counts
        return version.entries

    # -- property indexes ------------------------------------------------------------------------------

    def has_property_index(self, entity: str, label: str, key: str) -> bool:
        index = self._store._prop_indexes.get((entity, label, key))
        return index is not None and index.ts <= self._ts

    def property_indexes(self) -> list[tuple[str, str, str]]:
        """(entity, label, key) of every property index this transaction can use."""
        return [ident for ident, index in list(self._store._prop_indexes.items()) if index.ts <= self._ts]

    def _indexed_value(self, entity: str, label: str, key: str, eid: int) -> Any:
        """The value of ``key`` on the visible entity if it has the label/type, else a miss marker."""
        rec: LiveNode | LiveRel | None
        if entity == "node":
            rec = self._node(eid)
            if rec is None or label not in rec.labels:
                return _MISS
        else:
            rec = self._rel(eid)
            if rec is None or rec.type != label:
                return _MISS
        return rec.props.get(key)

    def index_shared_keys(self, entity: str, label: str, key: str) -> list[list[int]] | None:
        """The id groups sharing one key of the property index (possibly stale ids: callers re-check),
        or None without an index. A value held by one id only cannot break uniqueness, so a check
        over existing data reads these groups, not every entity."""
        index = self._store._prop_indexes.get((entity, label, key))
        if index is None:
            return None
        return [list(ids) for ids in list(index.entries.values()) if not isinstance(ids, int)]

    def _index_source(self, entity: str, label: str, key: str) -> PropertyIndex | None:
        """The property index, or None when there is none (then callers scan the label/type)."""
        return self._store._prop_indexes.get((entity, label, key))

    def _scan(self, entity: str, label: str) -> Iterator[int]:
        return self.nodes_by_label(label) if entity == "node" else self.rels_by_type(label)

    def index_seek(self, entity: str, label: str, key: str, value: Any) -> Iterator[int]:
        """Ids of the entities with ``label`` (or type) whose ``key`` equals ``value``.

        Through an index the matches are collected at the call (one pass over the few candidates,
        no generator step per row: the hot path of ``UNWIND ... MATCH (n:L {key: ...})``); a write
        transaction sees the state as of the call. Without an index the label/type scan is lazy.
        """
        target = order_key(value)
        if target is None:
            return iter(())
        index = self._store._prop_indexes.get((entity, label, key))
        if index is None:
            return self._seek_scan(entity, label, key, target, value)
        entry = index.entries.get(target)
        if entry is None:
            return iter(())
        ids = [entry] if isinstance(entry, int) else list(entry)   # one id (a unique value) or a dict
        if len(ids) == 1 and entity == "node":     # the usual case (a unique key): inlined
            eid = ids[0]
            rec = self._nodes_get(eid)
            if rec is not None and rec.ts > self._ts:
                rec = visible(rec.prev, self._ts)
            if rec is None or rec.props is None or label not in rec.labels:
                return iter(())
            found = rec.props.get(key)
            if found is None:
                return iter(())
            if type(found) is type(value) and type(found) in _SIMPLE:
                return iter(ids) if found == value else iter(())
            return iter(ids) if order_key(found) == target else iter(())
        return iter(self._seek_candidates(entity, label, key, value, target, ids))

    def _seek_candidates(self, entity: str, label: str, key: str, value: Any, target: OrderKey, ids: list[int]
                         ) -> list[int]:
        """The ``ids`` (index candidates, possibly stale) visible here with ``key`` equal to ``value``."""
        ts = self._ts
        vt = type(value)
        # Same exact type: plain == decides for scalars (order_key would compare (rank, value) the same way).
        simple = vt in _SIMPLE
        is_node = entity == "node"
        get = self._nodes_get if is_node else self._rels_get
        rec: Any                               # a node or relationship version: ``is_node`` says which
        out = []
        for eid in ids:
            rec = get(eid)
            if rec is None:
                continue
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            props = rec.props
            if props is None or (label not in rec.labels if is_node else rec.type != label):
                continue
            found = props.get(key)
            if found is None:
                continue
            if simple and type(found) is vt:
                if found == value:
                    out.append(eid)
            elif order_key(found) == target:
                out.append(eid)
        return out

    def _seek_scan(self, entity: str, label: str, key: str, target: OrderKey, value: Any = None) -> Iterator[int]:
        candidates: Iterable[int]
        if type(value) in _SCALARS and value == value:      # compared in place first (NaN: by order key)
            seek = self.nodes_by_label_and_values if entity == "node" else self.rels_by_type_and_values
            candidates = seek(label, key, frozenset((value,)), _no_tick)
        else:
            candidates = self._scan(entity, label)
        for eid in candidates:
            found = self._indexed_value(entity, label, key, eid)
            if found is not _MISS and order_key(found) == target:
                yield eid

    def index_range(self, entity: str, label: str, key: str, lo: Any = None, lo_inclusive: bool = True,
                    hi: Any = None, hi_inclusive: bool = True, descending: bool | None = None) -> Iterator[int]:
        """Ids whose ``key`` lies between the bounds (None = open), ascending by value when indexed, and in
        any case with ``descending`` False (ascending) or True (descending).

        With both bounds None: every entity with a non-null, indexable value.
        """
        index = self._index_source(entity, label, key)
        if lo is None and hi is None:
            bounds = None
        else:
            bounds = range_bounds(lo, lo_inclusive, hi, hi_inclusive)
            if bounds is None:
                return
        if index is None:
            matches = self._range_scan(entity, label, key, bounds)
            if descending is None:
                yield from (eid for _, eid in matches)
            else:                               # no index (dropped since planning): ordered all the same
                yield from (eid for _, eid in sorted(matches, key=lambda pair: pair[0], reverse=descending))
            return
        keys = index.ordered_keys() if bounds is None else index.range_keys(*bounds)
        yield from self._ids_under(entity, label, key, index, keys[::-1] if descending else keys)

    def index_substring(self, entity: str, label: str, key: str, needle: str, suffix: bool,
                        descending: bool | None = None) -> Iterator[int] | None:
        """Ids whose string ``key`` contains ``needle`` (``suffix``: ends with it), through the property
        index's substring search, in key order when ``descending`` is not None; None without an index."""
        index = self._index_source(entity, label, key)
        if index is None:
            return None
        keys = index.substring_keys(needle, suffix)
        return self._ids_under(entity, label, key, index, keys[::-1] if descending else keys)

    def _ids_under(self, entity: str, label: str, key: str, index: PropertyIndex, keys: list[OrderKey]
                   ) -> Iterator[int]:
        """The ids filed under ``keys`` (in that order) whose value in this snapshot has that key: an id
        can sit under a stale key too."""
        entries = index.entries
        for k in keys:
            ids = entries.get(k)
            if ids is None:
                continue
            for eid in ((ids,) if isinstance(ids, int) else list(ids)):
                found = self._indexed_value(entity, label, key, eid)
                if found is not _MISS and order_key(found) == k:
                    yield eid

    def index_present(self, entity: str, label: str, key: str, descending: bool | None = None
                      ) -> Iterator[int] | None:
        """Ids of the entities whose ``key`` is not null, through its property index, lazily; with
        ``descending`` not None in ORDER BY order (False: ascending). None when the index cannot tell:
        there is none, a value was left out of it (NaN), or, for an order, its keys are not all of one
        ordered kind (numbers, strings, ...: kinds sort otherwise in Cypher than in the index)."""
        index = self._index_source(entity, label, key)
        if index is None or index.unindexed:
            return None
        if descending is None:
            return self.index_range(entity, label, key)
        if len(index.entries) != len(index.sorted_keys):
            return None                 # equality-only keys (lists, durations), or a writer mid-change
        first_last = index.rank_span()
        if first_last is None:
            return iter(())
        if first_last[0] != first_last[1]:
            return None                 # several kinds
        return self._walk_keys(entity, label, key, index, descending)

    def _walk_keys(self, entity: str, label: str, key: str, index: PropertyIndex, descending: bool
                   ) -> Iterator[int]:
        """``index``'s ids in key order, read in chunks between bounds (a writer may insert between
        chunks: a key is found by value, never by position), each checked against this snapshot."""
        chunk = 64
        last: OrderKey | None = None
        while True:
            keys = index.key_chunk(last, descending, chunk)
            if not keys:
                return
            yield from self._ids_under(entity, label, key, index, keys)
            last = keys[-1]
            chunk = min(chunk * 4, 1 << 16)

    def _range_scan(self, entity: str, label: str, key: str, bounds: Bounds | None) -> Iterator[tuple[OrderKey, int]]:
        """(order key, id) of the label's or type's entities whose ``key`` lies within ``bounds``, by scanning."""
        for eid in self._scan(entity, label):
            found = self._indexed_value(entity, label, key, eid)
            if found is _MISS:
                continue
            k = order_key(found)
            if k is not None and (bounds is None or in_bounds(k, *bounds)):
                yield k, eid

    def index_candidates(self, entity: str, label: str, key: str, compare: str, value: Any,
                         upper: tuple[str, Any] | None = None, descending: bool | None = None
                         ) -> Iterator[int] | list[int] | None:
        """Ids that may pass ``key <compare> value`` (``=``, ``IN``, ``<``, ``<=``, ``>``, ``>=``, ``STARTS
        WITH``, ``CONTAINS``, ``ENDS WITH``; ``IS NOT NULL`` ignores the value), and ``key <upper[0]> upper[1]`` (``<``, ``<=``) when given with a lower bound, through the
        property index of (label, key): a superset of what passes in Cypher, the caller's filters deciding;
        a range or prefix comes in ``descending`` order when that is not None (False: ascending).
        None when the index cannot tell (a list or other unordered bound, a prefix that is not a string,
        ``IN`` something not a list): then the caller scans."""
        if compare == "IS NOT NULL":
            return self.index_present(entity, label, key, descending)
        if value is None or (upper is not None and upper[1] is None):
            return []                                   # a comparison with null holds for nothing
        if compare == "=":
            return self.index_seek(entity, label, key, value)
        if compare == "IN":
            if type(value) is not list:
                return None
            found: dict[int, None] = {}
            for item in value:
                if item is not None:
                    found.update(dict.fromkeys(self.index_seek(entity, label, key, item)))
            return list(found)
        if compare == "CONTAINS" or compare == "ENDS WITH":
            if type(value) is not str:
                return []                               # null for every entity: nothing passes
            return self.index_substring(entity, label, key, value, compare == "ENDS WITH", descending)
        if compare == "STARTS WITH":
            if type(value) is not str:
                return None
            after = prefix_successor(value)
            return self.index_range(entity, label, key, value, True, after, False, descending)
        lo, lo_inclusive, hi, hi_inclusive = ((value, compare == ">=", None, True) if compare in (">", ">=")
                                              else (None, True, value, compare == "<="))
        if upper is not None:
            hi, hi_inclusive = upper[1], upper[0] == "<="
        if range_bounds(lo, lo_inclusive, hi, hi_inclusive) is None:
            return None
        return self.index_range(entity, label, key, lo, lo_inclusive, hi, hi_inclusive, descending)


def _live_at(prev: EntityVersion | None, ts: int) -> bool:
    """Whether the version chain ``prev`` holds a live version visible at ``ts``."""
    rec = visible(prev, ts)
    return rec is not None and rec.props is not None


# Smallest relationship-id set expand_rel_id_set keeps in the store's cache.
_CACHE_MIN = 16

# Value types for which == between two values of the same type agrees with their order_key equality.
_SIMPLE = frozenset((str, int, float, bool))


class _Miss:
    __slots__ = ()


_MISS = _Miss()
