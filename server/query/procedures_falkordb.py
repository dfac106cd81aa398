"""FalkorDB's index procedures over Relate's indexes, so that queries written for FalkorDB run unchanged:

    CREATE VECTOR INDEX FOR (p:Product) ON (p.e) OPTIONS {dimension: 128, similarityFunction: 'euclidean'}
    CALL db.idx.vector.queryNodes('Product', 'e', 10, vecf32($v)) YIELD node, score
    CALL db.idx.fulltext.createNodeIndex('Movie', 'title', 'plot')
    CALL db.idx.fulltext.queryNodes('Movie', 'jungle | %bok%') YIELD node, score
    CALL db.idx.fulltext.drop('Movie')

FalkorDB names no index: a query finds it by label (or type) and property. A vector query's ``score`` is
FalkorDB's: the distance by the index's function (cosine: 1 - cos; euclidean: the L2 distance), smallest
first. Full-text queries are RediSearch's syntax (terms all required, ``|`` for either, ``-`` not,
``%fuzzy%``, ``prefix*``, "phrases"), scored by Relate's BM25, best first.
"""
from __future__ import annotations

import math
import re

from relate.protocol.errors import ArgumentError, IndexNotFound

from . import ast
from .procedures_info import run_schema_command

_MAX_FIELDS = 16           # createNodeIndex(label, field, field, ...): its fields as optional arguments


def register_falkordb(registry) -> None:
    for entity, column, token in (("node", "node", "label"), ("relationship", "relationship", "relationshipType")):
        procedure = "queryNodes" if entity == "node" else "queryRelationships"
        registry.register(f"db.idx.vector.{procedure}",
                          [(token, "STRING?"), ("attribute", "STRING?"), ("k", "INTEGER?"), ("query", "ANY?")],
                          [(column, f"{column.upper()}?"), ("score", "FLOAT?")],
                          lambda ctx, *args, entity=entity: _vector_query(ctx, entity, *args),
                          description=f"The k {column}s nearest a vector in the vector index on a "
                                      f"{token} and attribute, with their distances (FalkorDB).")
        registry.register(f"db.idx.fulltext.{procedure}", [(token, "STRING?"), ("query", "STRING?")],
                          [(column, f"{column.upper()}?"), ("score", "FLOAT?")],
                          lambda ctx, *args, entity=entity: _fulltext_query(ctx, entity, *args),
                          description=f"The {column}s of a {token}'s full-text index matching a RediSearch "
                                      f"query, best first (FalkorDB).")
    fields = [(f"field{i}", "ANY?", None) for i in range(1, _MAX_FIELDS + 1)]
    registry.register("db.idx.fulltext.createNodeIndex", [("label", "ANY?"), *fields], [],
                      _create_fulltext, mode="SCHEMA",
                      description="Create (or extend) a label's full-text index over string properties (FalkorDB).")
    registry.register("db.idx.fulltext.drop", [("label", "STRING?")], [], _drop_fulltext, mode="SCHEMA",
                      description="Drop a label's full-text index (FalkorDB).")


def _index_on(ctx, kind: str, entity: str, token: str, proc: str, attribute: str | None = None):
    """The definition of the ``kind`` index on ``token`` (and exactly ``attribute``, when given), as FalkorDB
    finds its indexes; IndexNotFound naming ``proc`` when there is none."""
    found = _definitions(ctx, kind, entity, token)
    if attribute is not None:
        found = [d for d in found if d.properties == [attribute]]
    if not found:
        on = token if attribute is None else f"{token}.{attribute}"
        raise IndexNotFound(f"{proc}: there is no {kind.lower()} index on {on}", detail="IndexNotFound")
    return found[0]


def _definitions(ctx, kind: str, entity: str, token: str) -> list:
    manager = ctx.db.index_manager
    return [d for d in (manager.get(name).definition for name in manager.names())
            if d.type == kind and d.entity == entity and d.tokens == [token]]


def _vector_query(ctx, entity: str, token, attribute, k, query) -> list[dict]:
    proc = f"db.idx.vector.query{'Nodes' if entity == 'node' else 'Relationships'}"
    if token is None or attribute is None or k is None or query is None:
        return []
    if type(k) is not int or k <= 0:
        raise ArgumentError(f"{proc}: k must be a positive integer, not {k!r}")
    definition = _index_on(ctx, "VECTOR", entity, token, proc, attribute)
    from relate.server.index.providers.base import visible_rows
    hits = ctx.db.index_manager.vector_search(definition.name, query, k, (), entity=entity, tx=ctx.tx)
    rows = visible_rows(ctx, entity, hits)
    to_distance = cosine_distance if definition.config.get("vector.similarity_function") == "cosine" \
        else euclidean_distance
    for row in rows:
        row["score"] = to_distance(row["score"])
    return rows


def cosine_distance(score: float) -> float:
    """A cosine index score as the distance 1 - cos (FalkorDB's and Kuzu's); Relate's score is (1 + cos) / 2."""
    return max(0.0, 2.0 - 2.0 * score)


def euclidean_distance(score: float) -> float:
    """A Euclidean index score as the distance d (FalkorDB's and Kuzu's); Relate's score is 1 / (1 + d²)."""
    return math.sqrt(max(0.0, 1.0 / score - 1.0)) if score > 0 else math.inf


def _fulltext_query(ctx, entity: str, token, query) -> list[dict]:
    proc = f"db.idx.fulltext.query{'Nodes' if entity == 'node' else 'Relationships'}"
    if token is None or query is None:
        return []
    definition = _index_on(ctx, "FULLTEXT", entity, token, proc)
    from relate.server.index.providers.base import visible_rows
    hits = ctx.db.index_manager.fulltext_search(definition.name, lucene_of_redisearch(query), entity=entity,
                                                tx=ctx.tx)
    return visible_rows(ctx, entity, hits)


def _create_fulltext(ctx, label, *fields) -> list:
    """One full-text index per label, named ``fulltext_<label>``; fields join an existing one (rebuilt)."""
    if isinstance(label, dict):          # {label: 'Movie', language: ..., stopwords: [...]}: the label only
        label = label.get("label")
    if not isinstance(label, str) or not label:
        raise ArgumentError(f"db.idx.fulltext.createNodeIndex: label must be a non-empty string, not {label!r}")
    names = []
    for field in fields:
        if isinstance(field, dict):      # {field: 'title', weight: 2, nostem: true, ...}: the field only
            field = field.get("field")
        if field is None:
            continue
        if not isinstance(field, str) or not field:
            raise ArgumentError(f"db.idx.fulltext.createNodeIndex: a field must be a property name, not {field!r}")
        if field not in names:
            names.append(field)
    if not names:
        raise ArgumentError("db.idx.fulltext.createNodeIndex needs at least one field")
    existing = _definitions(ctx, "FULLTEXT", "node", label)
    if existing:
        current = existing[0]
        if all(name in current.properties for name in names):
            return []
        names = current.properties + [name for name in names if name not in current.properties]
        run_schema_command(ctx, ast.DropIndex(name=current.name), {})
    name = existing[0].name if existing else f"fulltext_{label}"
    run_schema_command(ctx, ast.CreateIndex(kind="FULLTEXT", name=name, entity="node", variable="n",
                                            labels=[label], properties=names), {})
    return []


def _drop_fulltext(ctx, label) -> list:
    if label is None:
        return []
    definition = _index_on(ctx, "FULLTEXT", "node", label, "db.idx.fulltext.drop")
    run_schema_command(ctx, ast.DropIndex(name=definition.name), {})
    return []


# ---------------------------------------------------------------- RediSearch -> Lucene
_TOKEN = re.compile(r'"[^"]*"|\([^()]*\)|[^\s|]+|\|')
_FUZZY = re.compile(r"^(%{1,3})([^%]+)\1$")


def lucene_of_redisearch(query: str) -> str:
    """RediSearch's query syntax in Lucene's: space-separated parts are all required (RediSearch
    intersects), ``a | b`` either side, ``-x`` not, ``%x%`` / ``%%x%%`` fuzzy by one / two edits,
    ``x*`` a prefix, ``@field:x`` a field; quoted phrases and (groups) pass as they are."""
    alternatives: list[list[str]] = [[]]
    for token in _TOKEN.findall(query):
        if token == "|":
            alternatives.append([])
            continue
        negated = token.startswith("-") and len(token) > 1
        body = token[1:] if negated else token
        if body.startswith("@") and ":" in body:
            body = body[1:]
        fuzzy = _FUZZY.match(body)
        if fuzzy:
            body = f"{fuzzy.group(2)}~{min(len(fuzzy.group(1)), 2)}"
        alternatives[-1].append(("-" if negated else "+") + body)
    groups = [" ".join(parts) for parts in alternatives if parts]
    if len(groups) == 1:
        return groups[0]
    return " ".join(f"({group})" for group in groups)
