"""APOC map functions (apoc.map.*): build, merge, pick, drop, flatten and group maps."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.apoc.args import as_bool, as_list, as_map, as_str, invalid, key
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import java_str
from relate.server.query.refs import NodeRef, RelRef


def _key(name: str, value) -> str:
    if type(value) is str:
        return value
    raise type_error(name, value, "a String key")


@function("apoc.map.merge", 2, description="The first map with the second's entries added or replacing (APOC; a null "
                                           "map counts as empty).")
def merge(ctx, first, second):
    out = dict(as_map("apoc.map.merge", first)) if first is not None else {}
    if second is not None:
        out.update(as_map("apoc.map.merge", second))
    return out


@function("apoc.map.mergeList", 1, description="The maps of a list merged, later ones winning (APOC).")
def merge_list(ctx, maps):
    if maps is None:
        return None
    out: dict = {}
    for item in as_list("apoc.map.mergeList", maps):
        if item is not None:
            out.update(as_map("apoc.map.mergeList", item))
    return out


def _pairs(name: str, pairs) -> list[tuple[str, object]]:
    out = []
    for pair in as_list(name, pairs):
        if type(pair) is not list or len(pair) != 2:
            raise type_error(name, pair, "a List of [key, value] pairs")
        out.append((_key(name, pair[0]), pair[1]))
    return out


def _lists(name: str, keys, values) -> list[tuple[str, object]]:
    keys, values = as_list(name, keys), as_list(name, values)
    if len(keys) != len(values):
        raise invalid(name, f"the key and value lists differ in length ({len(keys)} and {len(values)})")
    return [(_key(name, k), v) for k, v in zip(keys, values)]


def _flat_pairs(name: str, values) -> list[tuple[str, object]]:
    values = as_list(name, values)
    if len(values) % 2:
        raise invalid(name, "expects a list of alternating keys and values, of even length")
    return [(_key(name, values[i]), values[i + 1]) for i in range(0, len(values), 2)]


@function("apoc.map.fromPairs", 1, description="A map from a list of [key, value] pairs (APOC).")
def from_pairs(ctx, pairs):
    return None if pairs is None else dict(_pairs("apoc.map.fromPairs", pairs))


@function("apoc.map.fromLists", 2, description="A map from a list of keys and a list of values (APOC).")
def from_lists(ctx, keys, values):
    if keys is None or values is None:
        return None
    return dict(_lists("apoc.map.fromLists", keys, values))


@function("apoc.map.fromValues", 1, description="A map from a list of alternating keys and values (APOC).")
def from_values(ctx, values):
    return None if values is None else dict(_flat_pairs("apoc.map.fromValues", values))


def _with(name: str, base, entries) -> dict | None:
    if base is None:
        return None
    out = dict(as_map(name, base))
    out.update(entries)
    return out


@function("apoc.map.setKey", 3, description="The map with a key set to a value (APOC).")
def set_key(ctx, base, k, value):
    return _with("apoc.map.setKey", base, [(_key("apoc.map.setKey", k), value)])


@function("apoc.map.setEntry", 3, description="The map with a key set to a value (APOC).")
def set_entry(ctx, base, k, value):
    return _with("apoc.map.setEntry", base, [(_key("apoc.map.setEntry", k), value)])


@function("apoc.map.setPairs", 2, description="The map with [key, value] pairs set (APOC).")
def set_pairs(ctx, base, pairs):
    return _with("apoc.map.setPairs", base, _pairs("apoc.map.setPairs", pairs or []))


@function("apoc.map.setLists", 3, description="The map with keys set to the values of a parallel list (APOC).")
def set_lists(ctx, base, keys, values):
    return _with("apoc.map.setLists", base, _lists("apoc.map.setLists", keys or [], values or []))


@function("apoc.map.setValues", 2, description="The map with alternating keys and values set (APOC).")
def set_values(ctx, base, values):
    return _with("apoc.map.setValues", base, _flat_pairs("apoc.map.setValues", values or []))


def _recursive(name: str, config) -> bool:
    if config is None:
        return False
    return as_bool(name, as_map(name, config).get("recursive", False))


def _without(value, drop: set, recursive: bool):
    if type(value) is dict:
        return {k: (_without(v, drop, True) if recursive else v) for k, v in value.items() if k not in drop}
    if type(value) is list and recursive:
        return [_without(v, drop, True) for v in value]
    return value


@function("apoc.map.removeKey", 2, 3, description="The map without a key ({recursive: true}: in nested maps too) (APOC).")
def remove_key(ctx, base, k, config=None):
    if base is None:
        return None
    as_map("apoc.map.removeKey", base)
    if k is None:
        return dict(base)
    return _without(base, {_key("apoc.map.removeKey", k)}, _recursive("apoc.map.removeKey", config))


@function("apoc.map.removeKeys", 2, 3, description="The map without the keys ({recursive: true}: in nested maps too) (APOC).")
def remove_keys(ctx, base, keys, config=None):
    if base is None:
        return None
    as_map("apoc.map.removeKeys", base)
    drop = {_key("apoc.map.removeKeys", k) for k in as_list("apoc.map.removeKeys", keys or [])}
    return _without(base, drop, _recursive("apoc.map.removeKeys", config))


@function("apoc.map.clean", 3, description="The map without the given keys, null values and the given values (APOC).")
def clean(ctx, base, keys, values):
    if base is None:
        return None
    drop_keys = {as_str("apoc.map.clean", k) for k in as_list("apoc.map.clean", keys or []) if k is not None}
    drop_values = {key(v) for v in as_list("apoc.map.clean", values or [])}
    return {k: v for k, v in as_map("apoc.map.clean", base).items()
            if k not in drop_keys and v is not None and key(v) not in drop_values}


@function("apoc.map.dropNullValues", 1, description="The map without its null values (APOC).")
def drop_null_values(ctx, base):
    if base is None:
        return None
    return {k: v for k, v in as_map("apoc.map.dropNullValues", base).items() if v is not None}


def _missing(name: str, k: str) -> ArgumentError:
    return ArgumentError(f"{name}(): key '{k}' is not in the map", detail="InvalidArgumentValue", phase="runtime")


@function("apoc.map.submap", 2, 4, description="The map restricted to the keys; a missing key is an error unless fail "
                                               "is false or a default is given (APOC).")
def submap(ctx, base, keys, defaults=None, fail=True):
    if base is None:
        return None
    base = as_map("apoc.map.submap", base)
    defaults = {} if defaults is None else as_map("apoc.map.submap", defaults)
    out = {}
    for k in as_list("apoc.map.submap", keys or []):
        k = _key("apoc.map.submap", k)
        if k in base:
            out[k] = base[k]
        elif k in defaults:
            out[k] = defaults[k]
        elif fail is False:
            out[k] = None
        else:
            raise _missing("apoc.map.submap", k)
    return out


@function("apoc.map.values", 1, 3, description="The values of the keys, in order (all values without keys; nulls for "
                                               "missing keys with addNullsForMissing) (APOC).")
def values(ctx, base, keys=None, add_nulls=False):
    if base is None:
        return None
    base = as_map("apoc.map.values", base)
    if keys is None:
        return list(base.values())
    out = []
    for k in as_list("apoc.map.values", keys):
        k = _key("apoc.map.values", k)
        if k in base:
            out.append(base[k])
        elif add_nulls is True:
            out.append(None)
    return out


@function("apoc.map.get", 2, 4, description="The value of a key, else the default; a missing key with no default is an "
                                            "error unless fail is false (APOC).")
def get(ctx, base, k, value=None, fail=True):
    if base is None:
        return None
    base, k = as_map("apoc.map.get", base), _key("apoc.map.get", k)
    if k not in base and value is None and fail is not False:
        raise _missing("apoc.map.get", k)
    return base.get(k, value)


@function("apoc.map.mget", 2, 4, description="The values of the keys (the parallel defaults for missing ones); a missing "
                                             "key with no default is an error unless fail is false (APOC).")
def mget(ctx, base, keys, defaults=None, fail=True):
    if base is None:
        return None
    base = as_map("apoc.map.mget", base)
    defaults = as_list("apoc.map.mget", defaults) if defaults is not None else []
    out = []
    for i, k in enumerate(as_list("apoc.map.mget", keys or [])):
        k = _key("apoc.map.mget", k)
        default = defaults[i] if i < len(defaults) else None
        if k not in base and default is None and fail is not False:
            raise _missing("apoc.map.mget", k)
        out.append(base.get(k, default))
    return out


def _flatten(value: dict, prefix: str, delimiter: str, out: dict) -> dict:
    for k, v in value.items():
        name = f"{prefix}{delimiter}{k}" if prefix else k
        if type(v) is dict:
            _flatten(v, name, delimiter, out)
        else:
            out[name] = v
    return out


@function("apoc.map.flatten", 1, 2, description="Nested maps flattened into one, keys joined by a delimiter ('.') (APOC).")
def flatten(ctx, base, delimiter="."):
    if base is None:
        return None
    delimiter = "." if delimiter is None else as_str("apoc.map.flatten", delimiter)
    return _flatten(as_map("apoc.map.flatten", base), "", delimiter, {})


@function("apoc.map.unflatten", 1, 2, description="A flat map with delimited keys ('.') made nested again (APOC).")
def unflatten(ctx, base, delimiter="."):
    if base is None:
        return None
    delimiter = "." if delimiter is None else as_str("apoc.map.unflatten", delimiter)
    if not delimiter:
        raise invalid("apoc.map.unflatten", "the delimiter may not be empty")
    out: dict = {}
    for k, v in as_map("apoc.map.unflatten", base).items():
        *path, last = k.split(delimiter)
        node = out
        for part in path:
            child = node.get(part)
            if type(child) is not dict:
                child = node[part] = {}
            node = child
        node[last] = v
    return out


def _group_value(ctx, item, k: str):
    if type(item) is dict:
        return item.get(k)
    if type(item) is NodeRef:
        return ctx.tx.node_prop(item.id, k)
    if type(item) is RelRef:
        return ctx.tx.rel_prop(item.id, k)
    raise type_error("apoc.map.groupBy", item, "a List of Maps, Nodes or Relationships")


def _grouped(name: str, ctx, items, k):
    k = _key(name, k)
    for item in as_list(name, items):
        if item is None:
            continue
        value = _group_value(ctx, item, k)
        if value is not None:
            yield (value if type(value) is str else (java_str(value) or repr(value))), item


@function("apoc.map.groupBy", 2, pure=False, description="Maps or entities keyed by a property's value (the last one "
                                                         "per value wins) (APOC).")
def group_by(ctx, items, k):
    if items is None or k is None:
        return None
    return dict(_grouped("apoc.map.groupBy", ctx, items, k))


@function("apoc.map.groupByMulti", 2, pure=False, description="Maps or entities grouped into lists by a property's "
                                                              "value (APOC).")
def group_by_multi(ctx, items, k):
    if items is None or k is None:
        return None
    out: dict = {}
    for name, item in _grouped("apoc.map.groupByMulti", ctx, items, k):
        out.setdefault(name, []).append(item)
    return out


@function("apoc.map.sortedProperties", 1, 2, description="The map's [key, value] pairs sorted by key (case-insensitive "
                                                         "by default) (APOC).")
def sorted_properties(ctx, base, ignore_case=True):
    if base is None:
        return None
    items = as_map("apoc.map.sortedProperties", base).items()
    order = (lambda kv: kv[0].lower()) if ignore_case is not False else (lambda kv: kv[0])
    return [[k, v] for k, v in sorted(items, key=order)]
