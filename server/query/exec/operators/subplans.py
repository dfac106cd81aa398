"""Operators that run other plans: OPTIONAL MATCH, CALL subqueries, UNION, FOREACH, procedures, Eager."""
from __future__ import annotations

from relate.protocol.errors import CypherTypeError, ParameterMissing, ProcedureCallFailed, RelateError

from ...context import checked
from ...procedures import MISSING, coerce, type_accepts
from .base import Operator
from ..values.ops import group_key, type_name


class Optional(Operator):
    """OPTIONAL MATCH: the inner plan's rows per input row, or the row with the new variables null."""
    __slots__ = ("inner", "new_vars")
    name = "Optional"

    def __init__(self, source, inner, new_vars):
        self.source, self.inner, self.new_vars = source, inner, new_vars

    def nested(self):
        return [self.inner]

    def details(self):
        return ", ".join(v for v in self.new_vars if not v.startswith(" "))

    def rows(self, ctx, arg):
        inner, new_vars = self.inner, self.new_vars
        for row in self.source.rows(ctx, arg):
            found = False
            for out in inner.rows(ctx, row):
                found = True
                yield out
            if not found:
                out = dict(row)
                for name in new_vars:
                    out[name] = None
                yield out


class Apply(Operator):
    """CALL (...) { ... }: runs the subquery per row; a unit subquery passes each row on once."""
    __slots__ = ("inner", "imports", "columns", "unit", "optional")
    name = "Apply"

    def __init__(self, source, inner, imports, columns, unit, optional):
        self.source, self.inner, self.imports = source, inner, imports
        self.columns, self.unit, self.optional = columns, unit, optional

    def nested(self):
        return [self.inner]

    def details(self):
        return ", ".join(self.columns)

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            yield from self.apply(ctx, row)

    def apply(self, ctx, row):
        """The output rows for one input row."""
        inner, imports, columns = self.inner, self.imports, self.columns
        inner_arg = row if imports is None else {name: row[name] for name in imports}
        if self.unit:
            for _ in inner.rows(ctx, inner_arg):
                pass
            yield row
            return
        found = False
        for result in inner.rows(ctx, inner_arg):
            found = True
            out = dict(row)
            for name in columns:
                out[name] = result[name]
            yield out
        if not found and self.optional:
            out = dict(row)
            for name in columns:
                out[name] = None
            yield out


class Reimport(Operator):
    """Inside a subquery, after a WITH: the outer variables again (they stay in scope, as in Neo4j)."""
    __slots__ = ("names",)
    name = "Reimport"

    def __init__(self, source, names):
        self.source, self.names = source, names

    def details(self):
        return ", ".join(self.names)

    def rows(self, ctx, arg):
        names = self.names
        for row in self.source.rows(ctx, arg):
            out = dict(row)
            for name in names:
                out[name] = arg[name]
            yield out


class Union(Operator):
    __slots__ = ("parts", "distinct", "columns")
    name = "Union"

    def __init__(self, parts, distinct, columns):
        self.source = None
        self.parts, self.distinct, self.columns = parts, distinct, columns

    def children(self):
        return list(self.parts)

    def details(self):
        return "DISTINCT" if self.distinct else "ALL"

    def rows(self, ctx, arg):
        columns = self.columns
        seen = set() if self.distinct else None
        for part in self.parts:
            for row in part.rows(ctx, arg):
                out = {c: row[c] for c in columns}
                if seen is not None:
                    key = tuple(group_key(out[c]) for c in columns)
                    if key in seen:
                        continue
                    seen.add(key)
                yield out


class Eager(Operator):
    """Reads all input rows before yielding the first: later writes stay unseen by earlier reads."""
    __slots__ = ()
    name = "Eager"

    def __init__(self, source):
        self.source = source

    def rows(self, ctx, arg):
        buffered = list(self.source.rows(ctx, arg))
        yield from checked(buffered, ctx)


class Foreach(Operator):
    __slots__ = ("var", "list_fn", "inner")
    name = "Foreach"

    def __init__(self, source, var, list_fn, inner):
        self.source, self.var, self.list_fn, self.inner = source, var, list_fn, inner

    def nested(self):
        return [self.inner]

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        var, inner = self.var, self.inner
        for row in self.source.rows(ctx, arg):
            items = self.list_fn(row, ctx)
            if items is None:
                yield row
                continue
            kind = type(items)
            if kind is not list and kind is not range:     # range: a lazy FOREACH over range(...)
                raise CypherTypeError(f"FOREACH expected a list, got {type_name(items)}",
                                      detail="InvalidArgumentType", phase="runtime")
            for item in checked(items, ctx):
                inner_arg = dict(row)
                inner_arg[var] = item
                for _ in inner.rows(ctx, inner_arg):
                    pass
            yield row


class ProcedureCall(Operator):
    """CALL name(args) YIELD ...: one output row per procedure result row."""
    __slots__ = ("proc", "args", "yields", "optional", "pass_through")
    name = "ProcedureCall"

    def __init__(self, source, proc, args, yields, optional=False, pass_through=False):
        self.source, self.proc, self.args, self.yields = source, proc, args, yields
        self.optional, self.pass_through = optional, pass_through

    def details(self):
        return self.proc.name

    def rows(self, ctx, arg):
        proc = self.proc
        outputs = proc.output_names
        index = {name: i for i, name in enumerate(outputs)}
        for row in self.source.rows(ctx, arg):
            values = self._arguments(row, ctx)
            found = False
            check = ctx.check
            try:
                results = proc.fn(ctx, *values)
                for result in results:
                    check()
                    found = True
                    out = dict(row)
                    if isinstance(result, dict):
                        for output, var in self.yields:
                            out[var] = result.get(output)
                    else:
                        for output, var in self.yields:
                            out[var] = result[index[output]]
                    yield out
            except RelateError:
                raise
            except Exception as exc:
                raise ProcedureCallFailed(f"Failed to invoke procedure `{proc.name}`: {exc}",
                                          phase="runtime") from exc
            if not found and not outputs and self.pass_through:
                yield row               # a void procedure inside a query keeps its input row (Neo4j)
            elif not found and self.optional:
                out = dict(row)
                for _, var in self.yields:
                    out[var] = None
                yield out

    def _arguments(self, row, ctx) -> list:
        proc = self.proc
        if self.args is None:
            values = []
            for name, type_name_, default in proc.inputs:
                if name in ctx.params:
                    values.append(ctx.params[name])
                elif default is not MISSING:
                    values.append(default)
                else:
                    raise ParameterMissing(f"Expected parameter(s): {name}", detail="MissingParameter",
                                           phase="runtime")
        else:
            values = [fn(row, ctx) for fn in self.args]
            for name, _, default in proc.inputs[len(values):]:
                values.append(None if default is MISSING else default)
        out = []
        for value, (name, type_name_, _) in zip(values, proc.inputs):
            if not type_accepts(type_name_, value):
                raise CypherTypeError(f"Wrong argument type for `{name}` of {proc.name}: expected {type_name_}, "
                                      f"got {type_name(value)}", detail="InvalidArgumentType", phase="runtime")
            out.append(coerce(type_name_, value))
        return out
