"""Neo4j's statement notifications: a label, relationship type or property key a statement reads that
the database does not hold (a misspelling matches nothing, silently otherwise), and a cartesian product
between disconnected MATCH patterns. What a statement reads is found once per plan (``references``);
whether each name exists is asked at every run (``for_run``), since data comes and goes."""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from . import ast

# (kind, name) -> (code, title, what the description calls it, category)
_UNKNOWN = {
    "label": ("Neo.ClientNotification.Statement.UnknownLabelWarning", "The provided label is not in the database.",
              "labels", "the missing label name is"),
    "type": ("Neo.ClientNotification.Statement.UnknownRelationshipTypeWarning",
             "The provided relationship type is not in the database.", "relationship types",
             "the missing relationship type is"),
    "key": ("Neo.ClientNotification.Statement.UnknownPropertyKeyWarning",
            "The provided property key is not in the database", "property keys", "the missing property name is"),
}


@dataclasses.dataclass(frozen=True)
class References:
    """What a statement reads by name, with positions, and its cartesian products (one note each)."""
    names: tuple[tuple[str, str, Any], ...]          # (kind, name, (line, column))
    cartesian: tuple[tuple[str, Any], ...]           # (the disconnected part's variables, (line, column))


def references(statement: ast.Statement) -> References:
    """The names ``statement`` reads (MATCH patterns, label checks, property reads) and the MATCH clauses
    whose parts fall apart into disconnected groups."""
    names: dict[tuple[str, str], Any] = {}
    cartesian: list[tuple[str, Any]] = []
    if isinstance(statement.body, ast.Query):
        entities = {v for part in statement.body.parts for clause in part.clauses if isinstance(clause, ast.Match)
                    for pattern in clause.pattern for v in _part_variables(pattern)}
        for kind, name, pos, subject in _read_names(statement.body, writing=False):
            # a key read from a map (WITH {a: 1} AS m RETURN m.a) is not the database's to know
            if kind != "key" or subject is None or subject in entities:
                names.setdefault((kind, name), pos)
        for part in statement.body.parts:
            bound: set[str] = set()
            for clause in part.clauses:
                if isinstance(clause, ast.Match):
                    cartesian.extend(_disconnected(clause, bound))
                bound |= _variables(clause)
    return References(tuple((k, n, p) for (k, n), p in names.items()), tuple(cartesian))


# The properties every relevance edge carries (relevance/operator.py), and its ``ai`` directives: never
# unknown keys.
RELEVANCE_EDGE_KEYS = frozenset(("score", "rank", "mode", "snippet", "matchedTerms", "probes", "via", "intent",
                                 "join", "ai"))
# What a files join's query-time nodes carry (relevance/files.py), besides a record's own fields.
FILES_NODE_KEYS = frozenset(("id", "text", "path", "line", "source", "section", "status"))


def for_run(refs: References, store, text: str, virtual_names=dict, tx=None) -> list[dict]:
    """The notifications for one run: names the store does not hold now, and the cartesian products.
    ``virtual_names()``: {kind: names} that relevance joins make exist whenever they are read (their edge
    types and edge keys, their anchor labels and keys: a pinned anchor), asked only when a name is missing.
    ``tx``: the explicit transaction the statement runs in, whose own writes make names known too."""
    out = []
    virtual = None
    pending = getattr(tx, "has_pending_token", None)
    for kind, name, pos in refs.names:
        if store.has_token(kind, name) or _created(store, kind, name) or (pending is not None and pending(kind, name)):
            continue
        if virtual is None:
            virtual = virtual_names()
        if name in virtual.get(kind, ()):
            continue
        code, title, plural, missing = _UNKNOWN[kind]
        out.append(_note(code, title, f"One of the {plural} in your query is not available in the database, "
                         f"make sure you didn't misspell it or that it is available when you run this "
                         f"statement in your application ({missing}: {name})", "WARNING", "UNRECOGNIZED",
                         pos, text))
    for variables, pos in refs.cartesian:
        out.append(_note("Neo.ClientNotification.Statement.CartesianProduct",
                         "This query builds a cartesian product between disconnected patterns.",
                         "If a part of a query contains multiple disconnected patterns, this will build a cartesian "
                         "product between all those parts. This may produce a large amount of data and slow down "
                         "query processing. While occasionally intended, it may often be possible to reformulate "
                         "the query that avoids the use of this cross product, perhaps by adding a relationship "
                         f"between the different parts or by using OPTIONAL MATCH (identifier is: ({variables}))",
                         "INFORMATION", "PERFORMANCE", pos, text))
    return out


def _created(store, kind: str, name: str) -> bool:
    """Whether ``name`` was made known without data (db.createLabel / createRelationshipType / createProperty)."""
    from relate.server.storage import tokens
    return getattr(store, "_schema", None) is not None and tokens.known(store, kind, name)


def _note(code, title, description, severity, category, pos, text) -> dict:
    note = {"code": code, "title": title, "description": description, "severity": severity, "category": category}
    if pos is not None:
        line, column = pos
        offset = sum(len(row) + 1 for row in text.split("\n")[:line - 1]) + column - 1
        note["position"] = {"offset": offset, "line": line, "column": column}
    return note


# -- what a statement reads ---------------------------------------------------------------------------
def _read_names(root, writing: bool) -> Iterator[tuple[str, str, Any, Any]]:
    """(kind, name, pos, subject) of labels, types and property keys read (a key's subject: the variable
    it is read from, False for an expression, None in a pattern's map); ``writing``: inside a CREATE/MERGE
    pattern or a SET/REMOVE target, whose names the statement creates rather than reads. Iterative: a
    statement may nest as deep as the parser allows."""
    stack = [(root, writing)]
    while stack:
        node, writing = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend((item, writing) for item in reversed(node))
            continue
        if not dataclasses.is_dataclass(node):
            continue
        if isinstance(node, (ast.Create, ast.Merge)):
            writing = True
        if isinstance(node, (ast.NodePattern, ast.RelPattern)):
            if not writing:
                if isinstance(node, ast.NodePattern):
                    yield from (("label", label.name, label.pos or node.pos, None)
                                for label in _positive_labels(node.labels))
                else:
                    positions = node.type_pos if len(node.type_pos) == len(node.types) else [None] * len(node.types)
                    yield from (("type", name, pos or node.pos, None) for name, pos in zip(node.types, positions))
            if isinstance(node.properties, ast.MapLiteral):
                literal = node.properties
                for i, (key, value) in enumerate(literal.entries):
                    if not writing:
                        yield "key", key, literal.key_pos[i] if i < len(literal.key_pos) else node.pos, None
                    stack.append((value, False))
            stack.append((node.where, False))
            stack.append((getattr(node, "label_args", None), False))
            continue
        if isinstance(node, ast.LabelCheck):
            yield from (("label", label.name, label.pos or node.pos, None) for label in _positive_labels(node.labels))
        elif isinstance(node, ast.Property):
            yield ("key", node.key, node.key_pos or node.pos,
                   node.subject.name if isinstance(node.subject, ast.Variable) else False)
        elif isinstance(node, ast.SetProperty):
            stack.extend(((node.target.subject, False), (node.value, False)))
            continue
        elif type(node).__name__ in ("SetLabels", "RemoveLabels", "RemoveProperty"):
            continue                    # names the statement writes
        for field in reversed(dataclasses.fields(node)):
            value = getattr(node, field.name)
            if isinstance(value, (list, tuple)) or dataclasses.is_dataclass(value):
                stack.append((value, writing))


def _positive_labels(labels) -> list[ast.LabelName]:
    """Label names a match requires or allows (not under ``!``, not dynamic)."""
    out: list[ast.LabelName] = []
    todo = [labels]
    while todo:
        item = todo.pop()
        if isinstance(item, ast.LabelName):
            out.append(item)
        elif isinstance(item, (ast.LabelAnd, ast.LabelOr)):
            todo.extend(reversed(item.items))
    return out


# -- cartesian products --------------------------------------------------------------------------------
def _disconnected(clause: ast.Match, bound: set[str]) -> list[tuple[str, Any]]:
    """One (variables, pos) per group of the clause's parts that shares no variable with the others nor
    with earlier clauses, when the clause has more than one group."""
    groups: list[tuple[set[str], Any]] = []
    for part in clause.pattern:
        names = {v for v in _part_variables(part)}
        joined = [g for g in groups if g[0] & names]
        for g in joined:
            groups.remove(g)
            names |= g[0]
        groups.append((names, joined[0][1] if joined else part.pos))
    if len(groups) < 2:
        return []
    free = [(names, pos) for names, pos in groups if not names & bound]
    return [(", ".join(sorted(v for v in names if not v.startswith(" "))), pos)
            for names, pos in free[1 if len(free) == len(groups) else 0:]]


def _part_variables(part: ast.PatternPart) -> Iterator[str]:
    for element in part.elements:
        if getattr(element, "variable", None):
            yield element.variable
        if isinstance(element, ast.QuantifiedPath):
            yield from _part_variables(ast.PatternPart(None, element.elements))


def _variables(clause) -> set[str]:
    """Variables a clause may bind (a superset is fine: it only keeps a later part from being reported)."""
    found: set[str] = set()
    for part in getattr(clause, "pattern", None) or []:
        found.update(_part_variables(part))
    for attr in ("variable", "alias"):
        value = getattr(clause, attr, None)
        if isinstance(value, str):
            found.add(value)
    projection = getattr(clause, "projection", None)
    for item in getattr(projection, "items", None) or []:
        found.add(item.name)
    return found
