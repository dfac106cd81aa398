"""The SEARCH clause's rules (cookbook "SEARCH rules worth remembering"), each violation named.

``search_index(name)`` describes an index as ``{"kind": "VECTOR"|"FULLTEXT"|..., "entity": "node"|
"relationship", "filter_properties": [...]}`` or returns None when it does not exist.
"""
from __future__ import annotations

from relate.protocol.errors import CypherSemanticError
from relate.server.index.providers import get_provider, is_search_kind, kinds

from .. import ast
from .scope import ANY, NODE, REL
from .walk import and_terms, free_variables

COMPARISONS = ("=", "<", "<=", ">", ">=", "IN")


def rule_error(rule: str, message: str, node=None) -> CypherSemanticError:
    pos = getattr(node, "pos", None)
    line, column = pos if pos else (None, None)
    return CypherSemanticError(f"SEARCH rule violated ({rule}): {message}", detail="InvalidSearch",
                               phase="compile time", line=line, column=column)


def check(match: ast.Match, scope, search_index, check_expr) -> None:
    """Validate ``match.search`` against its MATCH; binds the score variable into ``scope``."""
    search = match.search
    var = search.variable
    entity = _searched_entity(match, var)
    if scope.kind(var) not in (NODE, REL, ANY, None):
        raise rule_error("searched variable", f"`{var}` is not a node or relationship", search)
    _check_spec(search.spec, var, entity, scope, search_index, check_expr, top=True)
    if search.score_variable is None:
        scope.search_without_score = True
    else:
        if search.score_variable in scope:
            raise rule_error("SCORE AS names a new variable",
                             f"`{search.score_variable}` is already defined", search)
        scope.kinds[search.score_variable] = ANY


def _searched_entity(match: ast.Match, var: str) -> str:
    rule = "the MATCH before SEARCH holds only the searched variable"
    hint = "use (n:Label) or ()-[r:TYPE]->() with bare endpoints, and traverse after a WITH"
    if len(match.pattern) != 1:
        raise rule_error(rule, hint, match)
    part = match.pattern[0]
    if part.variable is not None or part.shortest:
        raise rule_error(rule, hint, part)
    elements = part.elements
    if len(elements) == 1:
        node = elements[0]
        if node.variable != var:
            raise rule_error(rule, f"the pattern must bind `{var}`; {hint}", node)
        return "node"
    if len(elements) == 3:
        left, rel, right = elements
        bare = all(n.variable is None and n.labels is None and n.properties is None and n.where is None
                   for n in (left, right))
        if not bare or rel.variable != var or rel.length is not None:
            raise rule_error(rule, hint, part)
        return "relationship"
    raise rule_error(rule, hint, part)


def _check_spec(spec, var, entity, scope, search_index, check_expr, top: bool) -> None:
    if isinstance(spec, ast.CombineSearch):
        if len(spec.sources) < 2:
            raise rule_error("COMBINE needs at least two sources", "add another index search", spec)
        if spec.limit is None:
            raise rule_error("LIMIT is required inside the search", "COMBINE needs a LIMIT", spec)
        for expr in (spec.limit, spec.constant, spec.weight):
            if expr is not None:
                _constant(expr, var, check_expr, scope)
        for source in spec.sources:
            _check_spec(source, var, entity, scope, search_index, check_expr, top=False)
        return
    kind = spec.kind.upper()
    if not is_search_kind(kind):
        raise rule_error("the index kind must exist", f"`{spec.kind}` is not a search-index kind; kinds: "
                         f"{', '.join(kinds())}", spec)
    if spec.limit is None:
        raise rule_error("LIMIT is required inside the search", f"add LIMIT to the {kind} INDEX search", spec)
    if spec.skip is not None and not get_provider(kind).skip_allowed:
        raise rule_error("SKIP (or OFFSET) works for full-text only",
                         f"a {kind.lower()} search takes no SKIP", spec)
    if spec.weight is not None and top:
        raise rule_error("WEIGHT belongs to a COMBINE source", "remove WEIGHT or use COMBINE", spec)
    for expr in (spec.query, spec.limit, spec.skip, spec.weight):
        if expr is not None:
            _constant(expr, var, check_expr, scope)
    info = search_index(spec.index) if search_index is not None else None
    if search_index is not None and info is None:
        raise rule_error("the index must exist", f"there is no search index named `{spec.index}`", spec)
    if info is not None:
        if info["kind"] != kind:
            raise rule_error("the index kind must match", f"`{spec.index}` is a {info['kind']} index, "
                             f"not a {kind} index", spec)
        if info["entity"] != entity:
            raise rule_error("the searched variable must match the index",
                             f"`{spec.index}` indexes {info['entity']}s but `{var}` is a {entity}", spec)
    if spec.where is not None:
        declared = None if info is None else set(info.get("filter_properties") or ())
        _check_filter(spec.where, var, declared, spec.index, check_expr, scope)


def _check_filter(where, var, declared, index, check_expr, scope) -> None:
    rule = "WHERE inside the search"
    for term in and_terms(where):
        if not (isinstance(term, ast.BinaryOp) and term.op in COMPARISONS):
            raise rule_error(rule, "use only =, <, <=, >, >= or IN on declared properties, joined by AND", term)
        prop, other = term.left, term.right
        if term.op == "IN" and isinstance(prop, ast.Variable) and prop.name == var:
            # `n IN $candidates`: restrict the search to a candidate set (nodes, ids or element ids)
            if var in free_variables(other):
                raise rule_error(rule, f"the candidate list must not depend on `{var}`", term)
            _constant(other, var, check_expr, scope)
            continue
        if not _is_prop_of(prop, var):
            if term.op != "IN" and _is_prop_of(other, var):
                prop, other = other, prop
            else:
                raise rule_error(rule, f"each condition compares a property of `{var}` with a value", term)
        if var in free_variables(other):
            raise rule_error(rule, f"the compared value must not depend on `{var}`", term)
        if declared is not None and prop.key not in declared:
            raise rule_error(rule, f"`{var}.{prop.key}` is not declared in the WITH [...] of index "
                             f"`{index}`", term)
        _constant(other, var, check_expr, scope)


def _is_prop_of(expr, var) -> bool:
    return isinstance(expr, ast.Property) and isinstance(expr.subject, ast.Variable) and expr.subject.name == var


def _constant(expr, var, check_expr, scope) -> None:
    if var in free_variables(expr):
        raise rule_error("search arguments", f"the search's arguments must not read `{var}`", expr)
    check_expr(expr, scope)
