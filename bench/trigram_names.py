"""Trigram name index at scale: build time and search latency over N synthetic names (default 1,000,000).

Usage: python bench/trigram_names.py [N] [queries]
"""
from __future__ import annotations

import random
import sys
import time

from relate.server.index.trigram import TrigramIndex

SYLLABLES = ["ka", "fo", "ri", "zen", "mar", "tel", "os", "qua", "lin", "dor", "via", "pex", "sun", "gra", "tor",
             "mi", "bel", "cor", "nax", "ul", "ved", "hy", "jo", "ster"]


def names(n: int, rng: random.Random) -> list[str]:
    out = []
    for _ in range(n):
        words = [("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))).capitalize()
                 for _ in range(rng.randint(1, 3))]
        out.append(" ".join(words))
    return out


def typo(name: str, rng: random.Random) -> str:
    i = rng.randrange(len(name))
    return name[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + name[i + 1:]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    q = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = random.Random(7)
    data = names(n, rng)
    index = TrigramIndex()
    start = time.perf_counter()
    index.build(enumerate(data))
    build_s = time.perf_counter() - start
    targets = [rng.randrange(n) for _ in range(q)]
    times, found = [], 0
    for key in targets:
        query = typo(data[key], rng)
        t0 = time.perf_counter()
        hits = index.search(query, 10, 0.3)
        times.append(time.perf_counter() - t0)
        found += any(data[h] == data[key] for h, _ in hits)
    times.sort()
    print(f"N={n:,} names, build {build_s:.1f} s; {q} one-typo queries top-10 (threshold 0.3): "
          f"median {times[q // 2] * 1000:.2f} ms, p95 {times[int(q * 0.95)] * 1000:.2f} ms, "
          f"target name found {found / q:.3f}")


if __name__ == "__main__":
    main()
