"""The ``files`` relevance producer (spec 001 6.8): a lexical search over text files below the import
directory, e.g. a markdown memory directory, a MEMORY.md, or an MCP memory server's memory.jsonl.

Files are cut into units (``file``, ``paragraph`` or ``line``); a line holding a JSON object is a record
whose fields become the target's properties (``require`` keeps only records with the given field
values, ``fields`` names the fields searched). Units are ranked by BM25 over the anchor's terms
(any term; ``s / (1 + s)`` as the keyword lane's score) and become records for ``remote.resolve``: the
stored target whose ``targetKey`` matches, else a query-time node. The corpus is read once and kept
while no file under the path changes (size and mtime). Nothing leaves the deployment: a search is one
``semanticCalls``. Paths are confined as LOAD CSV's are: no ``..``, and a file whose real path leads
outside the import directory (a symbolic link) is never read. ``{user}`` and ``{context}`` in the path
are the session's bound scope (one memory directory per user): a session without them reads nothing.
"""
from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter, OrderedDict
from pathlib import Path

from relate.protocol.errors import ArgumentError

from ..load.paths import load_error

from . import lanes
from .remote import node_props

UNITS = ("file", "paragraph", "line")
MAX_FILES = 10_000
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_UNITS = 500_000
MAX_UNIT_CHARS = 20_000
K1, B = 1.2, 0.75
CORPUS_CACHE = 32            # joins whose corpus is kept in memory
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_SCOPE_VALUE = re.compile(r"[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,127}")     # one safe path segment
SCOPE_KEYS = ("user", "context")


def check_path(name: str, path) -> str:
    """The ``path`` option, validated without the import directory (it may be configured later)."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise ArgumentError(f"Relevance join `{name}` (files) needs OPTIONS {{path: 'dir/below/the/import/dir'}}")
    segments = [s for s in path.replace("\\", "/").split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ArgumentError(f"Relevance join `{name}` (files): '..' is not allowed in `path` "
                            f"(paths stay inside the import directory)")
    for key in _PLACEHOLDER.findall(path):
        if key not in SCOPE_KEYS:
            raise ArgumentError(f"Relevance join `{name}` (files): `path` may name the session's scope as "
                                f"{{user}} or {{context}}, not {{{key}}}")
    if "{" in _PLACEHOLDER.sub("", path) or "}" in _PLACEHOLDER.sub("", path):
        raise ArgumentError(f"Relevance join `{name}` (files): unbalanced braces in `path`")
    return "/".join(segments)


def scoped_path(join, scope: dict) -> str | None:
    """The join's path with ``{user}`` / ``{context}`` replaced by the session's scope; None (read
    nothing: fail closed) when a key is missing or its value is not one plain path segment."""
    def value(match):
        found = scope.get(match.group(1))
        text = str(found) if isinstance(found, (str, int)) and not isinstance(found, bool) else ""
        if not _SCOPE_VALUE.fullmatch(text):
            raise LookupError
        return text
    try:
        return _PLACEHOLDER.sub(value, join.path)
    except LookupError:
        return None


def _root(db, join, path: str) -> tuple[Path, Path]:
    """(import directory, the join's path inside it), both resolved; ClientError when neither can be used."""
    import_dir = getattr(db, "import_dir", None)
    if import_dir is None:
        raise load_error(f"Relevance join `{join.name}` (files) reads below the import directory, and none is "
                         f"configured (start the server with --import-dir DIR, or connect(..., import_dir=DIR))")
    root = Path(import_dir).resolve()
    target = root.joinpath(*[s for s in path.split("/") if s]).resolve()
    if target != root and root not in target.parents:
        raise load_error(f"Relevance join `{join.name}` (files): `{join.path}` leads outside the import directory")
    return root, target


def _listing(root: Path, target: Path, pattern: str) -> list[tuple[Path, int, int]]:
    """(real path, size, mtime_ns) of each readable file the join covers, in path order."""
    if target.is_file():
        candidates = [target]
    elif target.is_dir():
        # hidden files and folders (.git, .obsidian) are tooling, not memory
        candidates = sorted(p for p in target.glob(pattern)
                            if not any(part.startswith(".") for part in p.relative_to(target).parts) and p.is_file())
    else:
        return []
    out, seen = [], set()
    for path in candidates[:MAX_FILES]:
        try:
            real = path.resolve()
            if real != root and root not in real.parents:     # a symbolic link out of the import directory
                continue
            if real in seen:                                  # one file reached by two names is read once
                continue
            seen.add(real)
            stat = real.stat()
        except (OSError, RuntimeError):
            continue
        if stat.st_size <= MAX_FILE_BYTES:
            out.append((real, stat.st_size, stat.st_mtime_ns))
    return out


def _json_record(line: str):
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):      # not JSON, or nested past the decoder's depth: plain text
        return None
    return value if isinstance(value, dict) else None


def _strings(value, out: list[str]) -> None:
    """Every string inside ``value``, in order (an explicit stack: a record may nest deeply)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))


_HEADING = re.compile(r"#{1,6}\s+(.*?)\s*#*\s*$")


def _units(join, text: str):
    """(first line, text, record or None, section or None) for each unit of one file's text. A
    paragraph's section is the markdown heading above it: a heading is no unit of its own."""
    if join.unit == "file":
        yield 1, text, None, None
        return
    if join.unit == "line":
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if line:
                yield number, line, _json_record(line), None
        return
    start, block, section = 0, [], None
    for number, line in enumerate([*text.splitlines(), ""], start=1):
        heading = _HEADING.fullmatch(line.strip())
        if line.strip() and heading is None:
            if not block:
                start = number
            block.append(line)
            continue
        if block:
            yield start, "\n".join(block), None, section
            block = []
        if heading is not None:
            section = heading.group(1) or None


class Corpus:
    """The units of one join's files, with their term counts (BM25 statistics)."""

    def __init__(self, join, root: Path, files: list[tuple[Path, int, int]]):
        self.stamp = tuple(files)
        self.records: list[dict] = []
        self.counts: list[Counter] = []
        self.lengths: list[int] = []
        self.postings: dict[str, list[int]] = {}
        for path, _, _ in files:
            if len(self.records) >= MAX_UNITS:
                break
            try:
                raw = path.read_bytes()
            except OSError:
                continue
            if b"\x00" in raw[:8192]:           # a binary file is not text to search
                continue
            text = raw.decode("utf-8", errors="replace")
            relative = path.relative_to(root).as_posix()
            for line, unit, record, section in _units(join, text):
                if len(self.records) >= MAX_UNITS:
                    break
                self._add(join, relative, line, unit[:MAX_UNIT_CHARS], record, section)
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0

    def _add(self, join, relative: str, line: int, unit: str, record: dict | None, section: str | None) -> None:
        if record is not None:
            if any(record.get(f) != v for f, v in join.require):
                return
            parts: list[str] = []
            required = {f for f, _ in join.require}     # the same on every record: nothing to rank by
            for name in (join.fields or [f for f in record if f not in required]):
                _strings(record.get(name), parts)
            searched = evidence = " ".join(parts)
            fields = {"text": searched, **record}       # the memory contract's text: what was searched
        elif join.require:          # require names JSON fields: a unit that is no record has none
            return
        else:
            fields = {"text": unit}
            searched = evidence = unit
            if section is not None:         # the heading's words find its paragraphs too
                fields["section"] = section
                searched = f"{section}\n{unit}"
        key = record.get(join.record_key) if record is not None else None
        if not isinstance(key, (str, int)) or isinstance(key, bool):     # a unit: its place is its key
            key = f"{relative}#{line}"
        words = lanes._WORD.findall(searched[:100_000].lower())
        number = len(self.records)
        self.records.append({"source": "files", **fields, "_key": key, "path": relative, "line": line,
                             "snippet": evidence[:400]})
        counts = Counter(words)
        self.counts.append(counts)
        self.lengths.append(len(words))
        for word in counts:
            self.postings.setdefault(word, []).append(number)

    def search(self, text: str, k: int) -> list[dict]:
        """The best ``k`` units for ``text`` (any of its assertable terms), best first."""
        words = lanes.assertable(text)
        total = len(self.records)
        scores: dict[int, float] = {}
        matched: dict[int, list[str]] = {}
        for word in words:
            posting = self.postings.get(word)
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for number in posting:
                tf = self.counts[number][word]
                norm = K1 * (1 - B + B * self.lengths[number] / (self.average or 1.0))
                scores[number] = scores.get(number, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
                matched.setdefault(number, []).append(word)
        ranked = sorted(scores, key=lambda n: (-scores[n], n))[:k]
        return [{"record": self.records[n], "key": self.records[n]["_key"],
                 "score": round(scores[n] / (1.0 + scores[n]), 6), "rank": rank, "matchedTerms": matched[n]}
                for rank, n in enumerate(ranked, start=1)]


_corpora: OrderedDict = OrderedDict()
_lock = threading.Lock()


def corpus(db, join, path: str) -> Corpus:
    """The join's corpus under ``path``, read again only when a file under it changed, appeared or went."""
    root, target = _root(db, join, path)
    files = _listing(root, target, join.glob)
    memo = (id(db), join.name, path, join.glob, join.unit, join.require, join.fields, join.record_key)
    with _lock:
        found = _corpora.get(memo)
        if found is not None and found.stamp == tuple(files):
            _corpora.move_to_end(memo)
            return found
    made = Corpus(join, root, files)
    with _lock:
        _corpora[memo] = made
        while len(_corpora) > CORPUS_CACHE:
            _corpora.popitem(last=False)
    return made


def search(ctx, join, key: str, k: int) -> list[dict]:
    """The join's best units for one anchor key: [{record, key, score, rank, matchedTerms}]."""
    path = scoped_path(join, getattr(ctx, "scope", None) or {})
    if path is None:
        return []
    return corpus(ctx.db, join, path).search(key, k)


def record_props(join, record: dict, rkey) -> dict:
    """A unit's properties on its target node: its fields (or text), path, line and key."""
    return node_props(join, {k: v for k, v in record.items() if k not in ("_key", "snippet")}, rkey)
