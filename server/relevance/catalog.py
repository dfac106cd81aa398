"""Relevance join and label declarations as durable schema-catalog entries, read back as objects.

Entries: ``relevance:NAME`` -> {"kind": "relevance_join", ...} and ``label:NAME`` ->
{"kind": "label_decl", "parents", "lifecycle", "scope"}. ``of(tx)`` gives the parsed catalog of a
transaction's snapshot (cached per schema version).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from relate.protocol.errors import ArgumentError

JOIN_KIND, LABEL_KIND = "relevance_join", "label_decl"
JOIN_PREFIX, LABEL_PREFIX = "relevance:", "label:"
MODES = ("fused", "keyword", "agentic-rag", "participant", "remote-search", "elasticsearch", "files")
REMOTE_MODES = ("remote-search", "elasticsearch")     # a store outside this world (relevance/remote.py)
RECORD_MODES = (*REMOTE_MODES, "files")               # hits are records, not stored nodes (relevance/files.py)
_REMOTE_OPTIONS = {"url", "index", "fields", "recordKey", "recordScoreField", "targetKey", "timeout", "apiKeyEnv",
                   "agentic"}
_FILES_OPTIONS = {"path", "glob", "unit", "require", "fields", "recordKey", "targetKey"}
_JOIN_OPTIONS = {"indexes", "via", "kind", "k", "minScore", "cacheTtl", "maxAnchors", "description",
                 "intent", "identityField", "maxRounds"} | _REMOTE_OPTIONS | _FILES_OPTIONS
SCOPE_KEYS = ("user", "context")
DEFAULT_VIA = "vector"      # the semantic lane's name: an edge or join saying it means "no via"
MEMORY_LABEL = "Memory"     # the memory relevance source's shared parent label


def via_key(via):
    """The selector a ``via`` value stands for: ``'vector'`` is the default lane, the same as none."""
    return None if via == DEFAULT_VIA else via


@dataclass(frozen=True)
class JoinDef:
    name: str
    anchor_labels: tuple[str, ...]
    rel_type: str
    target_label: str
    anchor_property: str
    kind: str = "fused"
    via: str | None = None
    indexes: tuple[str, ...] = ()
    k: int = 8
    min_score: float = 0.0
    cache_ttl: float | None = None
    max_anchors: int | None = None
    description: str = ""
    intent: str | None = None
    identity_field: str = "entityIds"
    max_rounds: int = 3
    # a remote store (kind remote-search / elasticsearch): where, and how its records map to targets
    url: str | None = None
    index: str | None = None
    fields: tuple[str, ...] = ()
    record_key: str = "id"
    score_field: str = "score"
    target_key: str = "id"
    timeout: float = 10.0
    api_key_env: str | None = None       # the name of the variable holding the store's key, never the key
    concept: bool = False                # remote-search `agentic: true`: a model picks probe terms per anchor
    # kind files: the path below the import directory, which files, how they are cut, which records count
    path: str | None = None
    glob: str = "**/*"
    unit: str = "paragraph"
    require: tuple[tuple[str, object], ...] = ()
    # per query, never stored: the lifecycle statuses the source reads (None: every one but `never`)
    statuses: tuple[str, ...] | None = None

    @property
    def remote(self) -> bool:
        """Whether a search is a request to a store outside this world (an apiCalls, not a semanticCalls)."""
        return self.kind in REMOTE_MODES

    @property
    def records(self) -> bool:
        """Whether hits are records (resolved to stored targets or query-time nodes), not stored nodes."""
        return self.kind in RECORD_MODES

    def _remote_entry(self) -> dict:
        if self.kind == "files":
            return {"path": self.path, "glob": self.glob, "unit": self.unit, "require": dict(self.require),
                    "fields": list(self.fields), "recordKey": self.record_key, "targetKey": self.target_key}
        return {"url": self.url, "index": self.index, "fields": list(self.fields), "recordKey": self.record_key,
                "recordScoreField": self.score_field, "targetKey": self.target_key, "timeout": self.timeout,
                "apiKeyEnv": self.api_key_env, "agentic": self.concept} if self.remote else {}

    def to_entry(self) -> dict:
        return {"kind": JOIN_KIND, "name": self.name, "anchorLabels": list(self.anchor_labels),
                "relType": self.rel_type, "targetLabel": self.target_label, "anchorProperty": self.anchor_property,
                "mode": self.kind, "via": self.via, "indexes": list(self.indexes), "k": self.k,
                "minScore": self.min_score, "cacheTtl": self.cache_ttl, "maxAnchors": self.max_anchors,
                "description": self.description, "intent": self.intent, "identityField": self.identity_field,
                "maxRounds": self.max_rounds, **self._remote_entry()}

    @classmethod
    def from_entry(cls, e: dict) -> "JoinDef":
        return cls(e["name"], tuple(e["anchorLabels"]), e["relType"], e["targetLabel"], e["anchorProperty"],
                   e.get("mode", "fused"), e.get("via"), tuple(e.get("indexes", ())), e.get("k", 8),
                   e.get("minScore", 0.0), e.get("cacheTtl"), e.get("maxAnchors"), e.get("description", ""),
                   e.get("intent"), e.get("identityField", "entityIds"), e.get("maxRounds", 3),
                   e.get("url"), e.get("index"), tuple(e.get("fields", ())), e.get("recordKey", "id"),
                   e.get("recordScoreField", "score"), e.get("targetKey", "id"), e.get("timeout", 10.0),
                   e.get("apiKeyEnv"), bool(e.get("agentic", False)), e.get("path"), e.get("glob", "**/*"),
                   e.get("unit", "paragraph"), tuple((e.get("require") or {}).items()))

    def show_row(self) -> dict:
        return {"name": self.name, "anchorLabels": list(self.anchor_labels), "anchorProperty": self.anchor_property,
                "type": self.rel_type, "targetLabel": self.target_label, "mode": self.kind, "via": self.via,
                "indexes": list(self.indexes), "k": self.k, "minScore": self.min_score, "cacheTtl": self.cache_ttl,
                "maxAnchors": self.max_anchors, "intent": self.intent, "description": self.description,
                **self._remote_entry()}


def make_join(name, anchor_labels, rel_type, target_label, anchor_property, options: dict | None) -> JoinDef:
    """Validate a CREATE RELEVANCE JOIN; ArgumentError names the bad option."""
    options = dict(options or {})
    unknown = set(options) - _JOIN_OPTIONS
    if unknown:
        raise ArgumentError(f"Unknown relevance join option(s) {sorted(unknown)}; known: {sorted(_JOIN_OPTIONS)}")
    via = options.get("via")
    if via is not None and not isinstance(via, str):
        raise ArgumentError("Relevance join option `via` must be a string")
    kind = options.get("kind")
    if kind is None:
        kind = {None: "fused", "vector": "fused", "keyword": "keyword", "agentic-rag": "agentic-rag",
                "participant": "participant", "remote-search": "remote-search",
                "elasticsearch": "elasticsearch", "files": "files"}.get(via)
        if kind is None:
            raise ArgumentError(f"Relevance join `{name}`: say which search answers via {via!r} "
                                f"with OPTIONS {{kind: one of {', '.join(MODES)}}}")
    if kind == "vector":              # spec 001's producers say `kind: vector`: the vector mode is fused
        kind = "fused"
    if kind not in MODES:
        raise ArgumentError(f"Relevance join `kind` must be one of {', '.join(MODES)} (or vector), got {kind!r}")
    if kind == "agentic-rag" and via is None:
        # spec 001 6.6: an agentic edge spends several model calls per anchor; it answers only when a
        # query selects it, never as the default an edge without `via` reads
        raise ArgumentError(f"Relevance join `{name}`: an agentic-rag join is selected explicitly, never the "
                            f"default; give it a `via` (e.g. via: 'agentic-rag')")
    indexes = options.get("indexes", [])
    if isinstance(indexes, str):
        indexes = [indexes]
    if not isinstance(indexes, list) or not all(isinstance(i, str) for i in indexes):
        raise ArgumentError("Relevance join option `indexes` must be a list of index names")
    if kind not in ("participant", *RECORD_MODES) and not indexes:
        raise ArgumentError(f"Relevance join `{name}` needs OPTIONS {{indexes: [...]}} (a vector and/or "
                            f"full-text index over :{target_label})")
    k = options.get("k", 8)
    if type(k) is not int or not 1 <= k <= 1000:
        raise ArgumentError(f"Relevance join option `k` must be an integer in 1..1000, got {k!r}")
    min_score = options.get("minScore", 0)
    if type(min_score) not in (int, float) or not 0 <= min_score <= 1:
        raise ArgumentError(f"Relevance join option `minScore` must be a number in 0..1, got {min_score!r}")
    ttl = options.get("cacheTtl")
    if ttl is not None and (type(ttl) not in (int, float) or ttl <= 0):
        raise ArgumentError(f"Relevance join option `cacheTtl` must be a positive number of seconds, got {ttl!r}")
    max_anchors = options.get("maxAnchors")
    if max_anchors is not None and (type(max_anchors) is not int or max_anchors < 1):
        raise ArgumentError(f"Relevance join option `maxAnchors` must be a positive integer, got {max_anchors!r}")
    max_rounds = options.get("maxRounds", 3)
    if type(max_rounds) is not int or not 1 <= max_rounds <= 10:
        raise ArgumentError(f"Relevance join option `maxRounds` must be an integer in 1..10, got {max_rounds!r}")
    for key in ("description", "intent", "identityField"):
        if options.get(key) is not None and not isinstance(options[key], str):
            raise ArgumentError(f"Relevance join option `{key}` must be a string")
    remote = _files_options(name, options) if kind == "files" else _remote_options(name, kind, options)
    return JoinDef(name, tuple(anchor_labels), rel_type, target_label, anchor_property, kind, via, tuple(indexes),
                   k, float(min_score), None if ttl is None else float(ttl), max_anchors,
                   options.get("description") or "", options.get("intent"),
                   options.get("identityField") or "entityIds", max_rounds, **remote)


def _fields(options: dict) -> tuple[str, ...]:
    """The ``fields`` option (a name or a list of names) of a remote or files join."""
    fields = options.get("fields", [])
    if isinstance(fields, str):
        fields = [fields]
    if not isinstance(fields, list) or not all(isinstance(f, str) and f for f in fields):
        raise ArgumentError("Relevance join option `fields` must be a list of field names")
    return tuple(fields)


def _files_options(name: str, options: dict) -> dict:
    """JoinDef's fields from the options of a files join (relevance/files.py)."""
    from .files import UNITS, check_path
    given = sorted(set(options) & (_REMOTE_OPTIONS - _FILES_OPTIONS))
    if given:
        raise ArgumentError(f"Relevance join `{name}`: option(s) {given} apply to kind remote-search or "
                            f"elasticsearch, not files")
    out: dict = {"path": check_path(name, options.get("path"))}
    glob = options.get("glob", "**/*")
    if not isinstance(glob, str) or not glob or ".." in glob.replace("\\", "/").split("/") or glob.startswith("/"):
        raise ArgumentError(f"Relevance join `{name}` (files): `glob` is a relative pattern such as '**/*.md'")
    out["glob"] = glob
    unit = options.get("unit", "paragraph")
    if unit not in UNITS:
        raise ArgumentError(f"Relevance join `{name}` (files): `unit` is one of {', '.join(UNITS)}, got {unit!r}")
    out["unit"] = unit
    require = options.get("require", {})
    if not isinstance(require, dict) or not all(isinstance(v, (str, int, float, bool)) for v in require.values()):
        raise ArgumentError(f"Relevance join `{name}` (files): `require` is a map of JSON fields to values, "
                            f"e.g. {{type: 'entity'}}")
    out["require"] = tuple(require.items())
    out["fields"] = _fields(options)
    for option, attr in (("recordKey", "record_key"), ("targetKey", "target_key")):
        value = options.get(option, "id")
        if not isinstance(value, str) or not value:
            raise ArgumentError(f"Relevance join option `{option}` must be a non-empty string")
        out[attr] = value
    return out


def _remote_options(name: str, kind: str, options: dict) -> dict:
    """JoinDef's remote-store fields from the options of a remote-search / elasticsearch join."""
    given = sorted(set(options) & (_REMOTE_OPTIONS | _FILES_OPTIONS))
    if kind not in REMOTE_MODES:
        if given:
            raise ArgumentError(f"Relevance join `{name}`: option(s) {given} apply to kind remote-search, "
                                f"elasticsearch or files only")
        return {}
    url = options.get("url")
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise ArgumentError(f"Relevance join `{name}` ({kind}) needs OPTIONS {{url: 'http(s)://...'}}")
    index = options.get("index")
    if kind == "elasticsearch" and (not isinstance(index, str) or not index):
        raise ArgumentError(f"Relevance join `{name}` (elasticsearch) needs OPTIONS {{index: '...'}}")
    out = {"url": url, "index": index if kind == "elasticsearch" else None, "fields": _fields(options)}
    defaults = {"recordKey": "_id" if kind == "elasticsearch" else "id", "recordScoreField": "score",
                "targetKey": "id", "apiKeyEnv": None}
    for option, attr in (("recordKey", "record_key"), ("recordScoreField", "score_field"),
                         ("targetKey", "target_key"), ("apiKeyEnv", "api_key_env")):
        value = options.get(option, defaults[option])
        if value is not None and (not isinstance(value, str) or not value):
            raise ArgumentError(f"Relevance join option `{option}` must be a non-empty string")
        out[attr] = value
    timeout = options.get("timeout", 10)
    if type(timeout) not in (int, float) or not 0 < timeout <= 300:
        raise ArgumentError(f"Relevance join option `timeout` must be seconds in (0, 300], got {timeout!r}")
    out["timeout"] = float(timeout)
    concept = options.get("agentic", False)
    if type(concept) is not bool or (concept and kind != "remote-search"):
        raise ArgumentError("Relevance join option `agentic` is a boolean, for kind remote-search (concept mode)")
    out["concept"] = concept
    return out


@dataclass(frozen=True)
class LabelDecl:
    name: str
    parents: tuple[str, ...] = ()
    active: tuple[str, ...] | None = None     # lifecycle: statuses answered by default
    never: tuple[str, ...] = ()               # lifecycle: statuses never answered
    status_property: str = "status"
    scope: tuple[tuple[str, str], ...] = ()   # (node property, session scope key)

    def to_entry(self) -> dict:
        return {"kind": LABEL_KIND, "name": self.name, "parents": list(self.parents),
                "lifecycle": None if self.active is None and not self.never else
                {"active": list(self.active or ()), "never": list(self.never), "property": self.status_property},
                "scope": {prop: key for prop, key in self.scope}}

    @classmethod
    def from_entry(cls, e: dict) -> "LabelDecl":
        life = e.get("lifecycle") or {}
        return cls(e["name"], tuple(e.get("parents", ())),
                   tuple(life["active"]) if "active" in life else None, tuple(life.get("never", ())),
                   life.get("property", "status"), tuple((e.get("scope") or {}).items()))

    def show_row(self) -> dict:
        e = self.to_entry()
        return {"name": self.name, "parents": e["parents"], "lifecycle": e["lifecycle"], "scope": e["scope"]}


def make_label(name: str, options: dict | None) -> LabelDecl:
    options = dict(options or {})
    unknown = set(options) - {"parents", "lifecycle", "scope"}
    if unknown:
        raise ArgumentError(f"Unknown label option(s) {sorted(unknown)}; known: lifecycle, parents, scope")
    parents = options.get("parents", [])
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents) or name in parents:
        raise ArgumentError("Label option `parents` must be a list of other label names")
    life = options.get("lifecycle")
    active, never, prop = None, (), "status"
    if life is not None:
        if not isinstance(life, dict) or set(life) - {"active", "never", "property"}:
            raise ArgumentError("Label option `lifecycle` is a map {active: [...], never: [...], property: 'status'}")
        for key in ("active", "never"):
            v = life.get(key, [])
            if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
                raise ArgumentError(f"lifecycle.{key} must be a list of status strings")
        active, never = tuple(life.get("active", [])), tuple(life.get("never", []))
        prop = life.get("property", "status")
    scope = options.get("scope", {})
    if not isinstance(scope, dict) or not all(isinstance(v, str) and v in SCOPE_KEYS for v in scope.values()):
        raise ArgumentError(f"Label option `scope` maps node properties to session scope keys {SCOPE_KEYS}, "
                            f"e.g. {{userId: 'user', contextId: 'context'}}")
    return LabelDecl(name, tuple(parents), active, never, prop, tuple(scope.items()))


@dataclass
class RelevanceCatalog:
    joins: dict[str, JoinDef] = field(default_factory=dict)
    labels: dict[str, LabelDecl] = field(default_factory=dict)
    rel_types: frozenset = frozenset()

    def is_memory(self, label: str) -> bool:
        """True for :Memory and every label declared under it (a memory system)."""
        return label == MEMORY_LABEL or MEMORY_LABEL in self.ancestors(label)

    def joins_for(self, rel_type: str) -> list[JoinDef]:
        return [j for j in self.joins.values() if j.rel_type == rel_type]

    def ancestors(self, label: str) -> list[str]:
        """``label``'s declared parents, transitively (nearest first, no repeats)."""
        out, todo = [], [label]
        while todo:
            decl = self.labels.get(todo.pop(0))
            for parent in decl.parents if decl else ():
                if parent not in out and parent != label:
                    out.append(parent)
                    todo.append(parent)
        return out

    def lifecycle(self, label: str) -> LabelDecl | None:
        """The declaration whose lifecycle ``label`` follows (its own, else the nearest ancestor's)."""
        for name in [label] + self.ancestors(label):
            decl = self.labels.get(name)
            if decl is not None and (decl.active is not None or decl.never):
                return decl
        return None

    def scope(self, label: str) -> tuple[tuple[str, str], ...]:
        for name in [label] + self.ancestors(label):
            decl = self.labels.get(name)
            if decl is not None and decl.scope:
                return decl.scope
        return ()

    @property
    def empty(self) -> bool:
        return not self.joins and not self.labels


_EMPTY = RelevanceCatalog()
_cache: tuple[object, RelevanceCatalog] | None = None
_lock = threading.Lock()


def from_schema(schema: dict) -> RelevanceCatalog:
    global _cache
    cached = _cache
    if cached is not None and cached[0] is schema:
        return cached[1]
    joins, labels = {}, {}
    for name, entry in schema.items():
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if kind == JOIN_KIND:
            j = JoinDef.from_entry(entry)
            joins[j.name] = j
        elif kind == LABEL_KIND:
            d = LabelDecl.from_entry(entry)
            labels[d.name] = d
    out = RelevanceCatalog(joins, labels, frozenset(j.rel_type for j in joins.values())) \
        if joins or labels else _EMPTY
    with _lock:
        _cache = (schema, out)
    return out


def of(tx) -> RelevanceCatalog:
    """The relevance catalog visible to ``tx`` (an empty one when ``tx`` has no schema)."""
    schema = getattr(tx, "schema", None)
    if schema is None:
        return _EMPTY
    return from_schema(schema())
