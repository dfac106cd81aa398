"""Weighted reciprocal rank fusion: Σ weight / (constant + rank) over the lists an item appears in."""
from __future__ import annotations


def wrrf(lists: dict[str, list[int]], weights: dict[str, float], constant: float) -> list[tuple[int, float, list]]:
    """[(id, fused score, [lanes it came from])], best first; ties keep first-seen order."""
    scores: dict[int, float] = {}
    lanes: dict[int, list] = {}
    for lane, ids in lists.items():
        weight = weights.get(lane, 0.0)
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (constant + rank)
            lanes.setdefault(item, []).append(lane)
    order = sorted(scores, key=lambda item: -scores[item])
    return [(item, scores[item], lanes[item]) for item in order]
