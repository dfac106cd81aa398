"""Cypher 25's collection functions (Neo4j 2025.11): coll.distinct, coll.flatten, coll.indexOf, coll.insert,
coll.max, coll.min, coll.remove and coll.sort. Order is ORDER BY's (maps < lists < strings < booleans <
numbers < null, NaN above every number), equality is ``=``'s and sameness DISTINCT's."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import equals, group_key, order_key


def _list(fn_name: str, value) -> list:
    if type(value) is not list:
        raise type_error(fn_name, value, "a List")
    return value


def _index(fn_name: str, value) -> int:
    if type(value) is not int:
        raise type_error(fn_name, value, "an Integer")
    return value


def _out_of_range(fn_name: str) -> ArgumentError:
    return ArgumentError(f"Function argument to '{fn_name}()' is out of range", detail="NumberOutOfRange",
                         phase="runtime")


@function("coll.distinct", 1, description="The list without duplicates, first occurrences in their order.")
def coll_distinct(ctx, items):
    if items is None:
        return None
    seen, out = set(), []
    for item in _list("coll.distinct", items):
        if type(item) is float and item != item:      # NaN is never the same value as another NaN
            out.append(item)
            continue
        key = group_key(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


@function("coll.flatten", 1, 2, description="The list with nested lists spliced in, to a depth (default 1).")
def coll_flatten(ctx, items, depth=1):
    if items is None or depth is None:
        return None
    items, depth = _list("coll.flatten", items), _index("coll.flatten", depth)
    if depth < 0:
        raise _out_of_range("coll.flatten")
    for _ in range(depth):
        if not any(type(item) is list for item in items):
            break
        flat: list = []
        for item in items:
            if type(item) is list:
                flat.extend(item)
            else:
                flat.append(item)
        items = flat
    return list(items)


@function("coll.indexOf", 2, description="The index of the first element equal to a value, or -1.")
def coll_index_of(ctx, items, value):
    if items is None or value is None:
        return None
    for i, item in enumerate(_list("coll.indexOf", items)):
        if equals(item, value):
            return i
    return -1


@function("coll.insert", 3, description="The list with a value inserted at an index (0 to its size).")
def coll_insert(ctx, items, index, value):
    if items is None or index is None:
        return None
    items, index = _list("coll.insert", items), _index("coll.insert", index)
    if not 0 <= index <= len(items):
        raise _out_of_range("coll.insert")
    return items[:index] + [value] + items[index:]


@function("coll.max", 1, description="The largest element in ORDER BY order (null when the list holds one).")
def coll_max(ctx, items):
    if items is None:
        return None
    items = _list("coll.max", items)
    return max(items, key=order_key) if items else None


@function("coll.min", 1, description="The smallest element in ORDER BY order, nulls passed over.")
def coll_min(ctx, items):
    if items is None:
        return None
    items = _list("coll.min", items)
    return min(items, key=order_key) if items else None


@function("coll.remove", 2, description="The list without the element at an index.")
def coll_remove(ctx, items, index):
    if items is None or index is None:
        return None
    items, index = _list("coll.remove", items), _index("coll.remove", index)
    if not items:
        raise ArgumentError("The argument `list` in the `coll.remove()` function must not be empty.",
                            detail="InvalidArgumentValue", phase="runtime")
    if not 0 <= index < len(items):
        raise _out_of_range("coll.remove")
    return items[:index] + items[index + 1:]


@function("coll.sort", 1, description="The list in ascending ORDER BY order (nulls last).")
def coll_sort(ctx, items):
    if items is None:
        return None
    return sorted(_list("coll.sort", items), key=order_key)
