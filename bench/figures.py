"""Print a benchmark's named figures as an aligned table and, on request, write them as JSON."""
from __future__ import annotations

import json
from typing import Callable


def report(title: str, figures: dict, json_path: str | None, fmt: Callable[[float], str]) -> int:
    """``title``, then one line per figure (``fmt`` its value; None prints n/a); exit status 0."""
    width = max(map(len, figures))
    print(title)
    for name, value in figures.items():
        print(f"  {name.ljust(width)}  {'n/a' if value is None else fmt(value)}")
    if json_path:
        with open(json_path, "w") as file:
            json.dump(figures, file, indent=2)
    return 0
