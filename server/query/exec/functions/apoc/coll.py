"""APOC list functions (apoc.coll.*): sums and statistics, sorting, set operations, slicing, pairing.

Equality is Cypher's (1 = 1.0, lists and maps by content) and order is ORDER BY's; set results keep
the first list's order (APOC's come from a hash set, in no promised order)."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter

from relate.server.query.exec.functions.apoc.args import (as_int, as_list, java_long, as_str, distinct, key, keys_of, out_of_range,
                                                          sized_list, total)
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import arithmetic_error, java_str, order_key
from relate.server.query.refs import NodeRef

_INT64 = 2 ** 63


def _numbers(name: str, items: list) -> list:
    """The numbers of ``items`` (nulls skipped); a typed error for anything else."""
    out = []
    for item in items:
        if item is None:
            continue
        if type(item) is not int and type(item) is not float:
            raise type_error(name, item, "a List of numbers")
        out.append(item)
    return out


@function("apoc.coll.sum", 1, description="The sum of a list of numbers, as a float (APOC).")
def coll_sum(ctx, values):
    if values is None:
        return None
    return float(total(_numbers("apoc.coll.sum", as_list("apoc.coll.sum", values))))


@function("apoc.coll.sumLongs", 1, description="The sum of a list of numbers as an integer, floats truncated (APOC).")
def sum_longs(ctx, values):
    if values is None:
        return None
    total = sum(java_long(v) for v in _numbers("apoc.coll.sumLongs", as_list("apoc.coll.sumLongs", values)))
    if not -_INT64 <= total < _INT64:
        raise arithmetic_error("long overflow")
    return total


@function("apoc.coll.avg", 1, description="The average of a list of numbers; null for an empty list (APOC).")
def coll_avg(ctx, values):
    if values is None:
        return None
    numbers = _numbers("apoc.coll.avg", as_list("apoc.coll.avg", values))
    return total(numbers) / len(numbers) if numbers else None


@function("apoc.coll.stdev", 1, 2, description="The standard deviation of a list of numbers: sample by default, "
                                               "population when isBiasCorrected is false (APOC).")
def stdev(ctx, values, bias_corrected=True):
    if values is None:
        return None
    numbers = [float(v) for v in _numbers("apoc.coll.stdev", as_list("apoc.coll.stdev", values))]
    if not numbers:
        return None
    n = len(numbers)
    if n == 1:
        return 0.0
    mean = total(numbers) / n
    squares = total((x - mean) * (x - mean) for x in numbers)
    return math.sqrt(squares / (n - 1 if bias_corrected is not False else n))


def _extreme(name: str, values, pick):
    if values is None:
        return None
    items = [v for v in as_list(name, values) if v is not None]
    return pick(items, key=order_key) if items else None


@function("apoc.coll.max", 1, description="The largest value of a list, by Cypher's ORDER BY order across types (APOC).")
def coll_max(ctx, values):
    return _extreme("apoc.coll.max", values, max)


@function("apoc.coll.min", 1, description="The smallest value of a list, by Cypher's ORDER BY order across types (APOC).")
def coll_min(ctx, values):
    return _extreme("apoc.coll.min", values, min)


@function("apoc.coll.sort", 1, description="The list sorted ascending, by Cypher's ORDER BY order (APOC).")
def coll_sort(ctx, values):
    if values is None:
        return None
    return sorted(as_list("apoc.coll.sort", values), key=order_key)


def _order_field(name: str, prop) -> tuple[str, bool]:
    """(property, ascending): a leading ``^`` asks for ascending order, as in APOC."""
    prop = as_str(name, prop)
    return (prop[1:], True) if prop.startswith("^") else (prop, False)


@function("apoc.coll.sortMaps", 2, description="Maps sorted by a key, descending (a leading ^ on the key: ascending) (APOC).")
def sort_maps(ctx, values, prop):
    if values is None:
        return None
    field, ascending = _order_field("apoc.coll.sortMaps", prop)
    maps = as_list("apoc.coll.sortMaps", values)
    for item in maps:
        if type(item) is not dict:
            raise type_error("apoc.coll.sortMaps", item, "a List of Maps")
    return sorted(maps, key=lambda m: order_key(m.get(field)), reverse=not ascending)


@function("apoc.coll.sortMulti", 2, 4, description="Maps sorted by several keys (each descending, ^key ascending), "
                                                   "then limit and skip (APOC).")
def sort_multi(ctx, values, fields, limit=-1, skip=0):
    if values is None:
        return None
    maps = as_list("apoc.coll.sortMulti", values)
    out = list(maps)
    for field in reversed(as_list("apoc.coll.sortMulti", fields or [])):
        name, ascending = _order_field("apoc.coll.sortMulti", field)
        out.sort(key=lambda m: order_key(m.get(name) if type(m) is dict else None), reverse=not ascending)
    skip, limit = as_int("apoc.coll.sortMulti", skip or 0), as_int("apoc.coll.sortMulti", -1 if limit is None else limit)
    out = out[max(skip, 0):]
    return out if limit < 0 else out[:limit]


@function("apoc.coll.sortNodes", 2, pure=False,
          description="Nodes sorted by a property, descending (a leading ^ on the key: ascending) (APOC).")
def sort_nodes(ctx, values, prop):
    if values is None:
        return None
    field, ascending = _order_field("apoc.coll.sortNodes", prop)
    nodes = as_list("apoc.coll.sortNodes", values)
    for node in nodes:
        if type(node) is not NodeRef:
            raise type_error("apoc.coll.sortNodes", node, "a List of Nodes")
    return sorted(nodes, key=lambda n: order_key(ctx.tx.node_prop(n.id, field)), reverse=not ascending)


@function("apoc.coll.reverse", 1, description="The list in reverse order (APOC).")
def coll_reverse(ctx, values):
    return None if values is None else as_list("apoc.coll.reverse", values)[::-1]


@function("apoc.coll.contains", 2, description="Whether the list contains the value; false for a null list (APOC).")
def contains(ctx, values, value):
    if values is None:
        return False
    return key(value) in keys_of(as_list("apoc.coll.contains", values))


def _contains(name: str, quantifier, values, wanted) -> bool:
    """Whether ``quantifier`` (all / any) of the wanted values are in the list (false for null)."""
    if values is None or wanted is None:
        return False
    have = keys_of(as_list(name, values))
    return quantifier(key(v) in have for v in as_list(name, wanted))


@function("apoc.coll.containsAll", 2, description="Whether the list contains every one of the values (APOC).")
def contains_all(ctx, values, wanted):
    return _contains("apoc.coll.containsAll", all, values, wanted)


@function("apoc.coll.containsAny", 2, description="Whether the list contains any of the values (APOC).")
def contains_any(ctx, values, wanted):
    return _contains("apoc.coll.containsAny", any, values, wanted)


@function("apoc.coll.containsDuplicates", 1, description="Whether some value occurs more than once in the list (APOC).")
def contains_duplicates(ctx, values):
    if values is None:
        return False
    items = as_list("apoc.coll.containsDuplicates", values)
    return len(keys_of(items)) < len(items)


@function("apoc.coll.toSet", 1, description="The list without repeated values, in first-seen order (APOC).")
def to_set(ctx, values):
    return None if values is None else distinct(as_list("apoc.coll.toSet", values))


def _flat(items: list, recursive: bool, out: list) -> list:
    for item in items:
        if type(item) is list:
            if recursive:
                _flat(item, True, out)
            else:
                out.extend(item)
        else:
            out.append(item)
    return out


@function("apoc.coll.flatten", 1, 2, description="Nested lists flattened one level (all levels with recursive) (APOC).")
def flatten(ctx, values, recursive=False):
    if values is None:
        return None
    return _flat(as_list("apoc.coll.flatten", values), recursive is True, [])


def _two(name: str, first, second) -> tuple[list, list]:
    return as_list(name, first), as_list(name, second)


@function("apoc.coll.union", 2, description="The distinct values of both lists (APOC).")
def union(ctx, first, second):
    if first is None or second is None:
        return second if first is None else distinct(as_list("apoc.coll.union", first))
    a, b = _two("apoc.coll.union", first, second)
    return distinct(a + b)


@function("apoc.coll.unionAll", 2, description="Both lists one after the other, repeats kept (APOC).")
def union_all(ctx, first, second):
    if first is None or second is None:
        return second if first is None else first
    a, b = _two("apoc.coll.unionAll", first, second)
    return a + b


@function("apoc.coll.intersection", 2, description="The distinct values found in both lists (APOC).")
def intersection(ctx, first, second):
    if first is None or second is None:
        return []
    a, b = _two("apoc.coll.intersection", first, second)
    other = keys_of(b)
    return [v for v in distinct(a) if key(v) in other]


@function("apoc.coll.subtract", 2, description="The distinct values of the first list not in the second (APOC).")
def subtract(ctx, first, second):
    if first is None:
        return None
    a = as_list("apoc.coll.subtract", first)
    other = keys_of(as_list("apoc.coll.subtract", second)) if second is not None else set()
    return [v for v in distinct(a) if key(v) not in other]


@function("apoc.coll.removeAll", 2, description="The first list without any value of the second, repeats kept (APOC).")
def remove_all(ctx, first, second):
    if first is None:
        return None
    a = as_list("apoc.coll.removeAll", first)
    if second is None:
        return list(a)
    other = keys_of(as_list("apoc.coll.removeAll", second))
    return [v for v in a if key(v) not in other]


@function("apoc.coll.disjunction", 2, description="The distinct values found in exactly one of the two lists (APOC).")
def disjunction(ctx, first, second):
    if first is None or second is None:
        return second if first is None else first
    a, b = _two("apoc.coll.disjunction", first, second)
    ka, kb = keys_of(a), keys_of(b)
    return [v for v in distinct(a) if key(v) not in kb] + [v for v in distinct(b) if key(v) not in ka]


@function("apoc.coll.isEqualCollection", 2, description="Whether the lists hold the same values as often, in any order (APOC).")
def is_equal_collection(ctx, first, second):
    if first is None or second is None:
        return first is None and second is None
    a, b = _two("apoc.coll.isEqualCollection", first, second)
    return Counter(key(v) for v in a) == Counter(key(v) for v in b)


@function("apoc.coll.zip", 2, description="Pairs [a[i], b[i]] for each element of the first list (b padded with null) (APOC).")
def zip_(ctx, first, second):
    if first is None or second is None:
        return None
    a, b = _two("apoc.coll.zip", first, second)
    return [[x, b[i] if i < len(b) else None] for i, x in enumerate(a)]


@function("apoc.coll.pairs", 1, description="Each element with the next: [[a, b], [b, c], ..., [z, null]] (APOC).")
def pairs(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.pairs", values)
    return [[x, items[i + 1] if i + 1 < len(items) else None] for i, x in enumerate(items)]


@function("apoc.coll.pairsMin", 1, description="Each element with the next, without the last (null) pair (APOC).")
def pairs_min(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.pairsMin", values)
    return [[items[i], items[i + 1]] for i in range(len(items) - 1)]


def _batch_size(name: str, size) -> int:
    size = as_int(name, size)
    if size <= 0:
        raise out_of_range(name, f"the batch size must be positive, not {size}")
    return size


@function("apoc.coll.partition", 2, description="The list cut into sublists of a size (the last may be shorter) (APOC).")
def partition(ctx, values, size):
    if values is None or size is None:
        return None
    items, size = as_list("apoc.coll.partition", values), _batch_size("apoc.coll.partition", size)
    return [items[i:i + size] for i in range(0, len(items), size)]


def split_at(items: list, value) -> list[list]:
    """The runs of ``items`` between occurrences of ``value`` (empty runs dropped), as apoc.coll.split."""
    marker, out, run = key(value), [], []
    for item in items:
        if key(item) == marker:
            if run:
                out.append(run)
            run = []
        else:
            run.append(item)
    if run:
        out.append(run)
    return out


@function("apoc.coll.frequencies", 1, description="Each distinct value with its count: [{item, count}] (APOC).")
def frequencies(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.frequencies", values)
    counts = Counter(key(v) for v in items)
    return [{"item": v, "count": counts[key(v)]} for v in distinct(items)]


@function("apoc.coll.frequenciesAsMap", 1, description="Each distinct value's count, in a map keyed by its text (APOC).")
def frequencies_as_map(ctx, values):
    if values is None:
        return None
    out: dict = {}
    for item in as_list("apoc.coll.frequenciesAsMap", values):
        name = "null" if item is None else (java_str(item) or repr(item))
        out[name] = out.get(name, 0) + 1
    return out


@function("apoc.coll.occurrences", 2, description="How often the value occurs in the list (APOC).")
def occurrences(ctx, values, value):
    if values is None:
        return 0
    wanted = key(value)
    return sum(1 for v in as_list("apoc.coll.occurrences", values) if key(v) == wanted)


@function("apoc.coll.indexOf", 2, description="The index of the value's first occurrence in the list, -1 if absent (APOC).")
def index_of(ctx, values, value):
    if values is None:
        return -1
    wanted = key(value)
    return next((i for i, v in enumerate(as_list("apoc.coll.indexOf", values)) if key(v) == wanted), -1)


@function("apoc.coll.remove", 2, 3, description="The list without length (default 1) elements from an index (APOC).")
def remove(ctx, values, index, length=1):
    if values is None:
        return None
    items = as_list("apoc.coll.remove", values)
    index, length = as_int("apoc.coll.remove", index), as_int("apoc.coll.remove", 1 if length is None else length)
    if index < 0 or index >= len(items) or length <= 0:
        return list(items)
    return items[:index] + items[index + length:]


@function("apoc.coll.insert", 3, description="The list with a value inserted at an index (APOC).")
def insert(ctx, values, index, value):
    if values is None:
        return None
    items, index = as_list("apoc.coll.insert", values), as_int("apoc.coll.insert", index)
    if index < 0 or index > len(items):
        return list(items)
    return items[:index] + [value] + items[index:]


@function("apoc.coll.insertAll", 3, description="The list with the values inserted at an index (APOC).")
def insert_all(ctx, values, index, inserted):
    if values is None:
        return None
    items, index = as_list("apoc.coll.insertAll", values), as_int("apoc.coll.insertAll", index)
    if index < 0 or index > len(items) or inserted is None:
        return list(items)
    return items[:index] + as_list("apoc.coll.insertAll", inserted) + items[index:]


@function("apoc.coll.set", 3, description="The list with the element at an index replaced (APOC).")
def set_(ctx, values, index, value):
    if values is None:
        return None
    items, index = as_list("apoc.coll.set", values), as_int("apoc.coll.set", index)
    if index < 0 or index >= len(items) or value is None:
        return list(items)
    return items[:index] + [value] + items[index + 1:]


@function("apoc.coll.shuffle", 1, pure=False, description="The list in random order (APOC).")
def shuffle(ctx, values):
    if values is None:
        return None
    items = list(as_list("apoc.coll.shuffle", values))
    random.shuffle(items)
    return items


@function("apoc.coll.randomItem", 1, pure=False, description="A random element of the list; null when empty (APOC).")
def random_item(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.randomItem", values)
    return random.choice(items) if items else None


@function("apoc.coll.randomItems", 2, 3, pure=False,
          description="count random elements of the list, each at most once unless allowRepick (APOC).")
def random_items(ctx, values, count, allow_repick=False):
    if values is None:
        return None
    items, count = as_list("apoc.coll.randomItems", values), as_int("apoc.coll.randomItems", count)
    if count <= 0 or not items:
        return []
    if allow_repick is True:
        sized_list(count)
        return [random.choice(items) for _ in range(count)]
    return random.sample(items, min(count, len(items)))


@function("apoc.coll.fill", 2, description="A list of count copies of the item (APOC).")
def fill(ctx, item, count):
    if item is None or count is None:
        return None
    count = as_int("apoc.coll.fill", count)
    sized_list(max(count, 0))
    return [item] * max(count, 0)


@function("apoc.coll.duplicates", 1, description="The values that occur more than once, each once (APOC).")
def duplicates(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.duplicates", values)
    counts = Counter(key(v) for v in items)
    return [v for v in distinct(items) if counts[key(v)] > 1]


@function("apoc.coll.duplicatesWithCount", 1, description="The values that occur more than once with their counts: "
                                                          "[{item, count}] (APOC).")
def duplicates_with_count(ctx, values):
    if values is None:
        return None
    return [f for f in frequencies(ctx, as_list("apoc.coll.duplicatesWithCount", values)) if f["count"] > 1]


@function("apoc.coll.different", 1, description="Whether every value of the list differs from the others (APOC).")
def different(ctx, values):
    if values is None:
        return None
    items = as_list("apoc.coll.different", values)
    return len(keys_of(items)) == len(items)


@function("apoc.coll.dropDuplicateNeighbors", 1, description="The list without elements equal to the one before (APOC).")
def drop_duplicate_neighbors(ctx, values):
    if values is None:
        return None
    out: list = []
    for item in as_list("apoc.coll.dropDuplicateNeighbors", values):
        if not out or key(out[-1]) != key(item):
            out.append(item)
    return out


@function("apoc.coll.combinations", 2, 3, description="Every combination of minSelect to maxSelect (default minSelect) "
                                                      "elements of the list (APOC).")
def combinations(ctx, values, min_select, max_select=None):
    if values is None:
        return None
    items = as_list("apoc.coll.combinations", values)
    low = as_int("apoc.coll.combinations", min_select)
    high = low if max_select is None else as_int("apoc.coll.combinations", max_select)
    if not items or low < 1 or low > high or high > len(items):
        return []
    sized_list(sum(math.comb(len(items), k) for k in range(low, high + 1)))
    return [list(c) for k in range(low, high + 1) for c in itertools.combinations(items, k)]


@function("apoc.coll.runningTotal", 1, description="The running totals of a list of numbers (APOC).")
def running_total(ctx, values):
    if values is None:
        return None
    running: int | float = 0
    out = []
    for item in _numbers("apoc.coll.runningTotal", as_list("apoc.coll.runningTotal", values)):
        running += item
        if type(running) is int and not -_INT64 <= running < _INT64:
            raise arithmetic_error("long overflow")
        out.append(running)
    return out
