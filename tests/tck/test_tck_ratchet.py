"""The TCK ratchet: every scenario listed in passing.txt must keep passing (the list only grows)."""
from __future__ import annotations

from collections import defaultdict

import pytest

from tests.helpers import tck_features

from .run import PASSING, run_all
from .runner import load_list

FEATURES = tck_features()          # missing features fail (CI always has ../shared/tck)
LISTED = load_list(PASSING)


def _folders():
    per = defaultdict(set)
    for sid in LISTED:
        per[sid.split(":", 1)[0].rsplit("/", 1)[0]].add(sid)
    return per


PER_FOLDER = _folders()


@pytest.mark.parametrize("folder", sorted(PER_FOLDER))
def test_listed_scenarios_still_pass(folder):
    ids = PER_FOLDER[folder]
    outcomes = run_all(FEATURES, jobs=1, ids=ids)
    seen = {o.id for o in outcomes}
    missing = sorted(ids - seen)
    assert not missing, f"listed scenarios no longer exist: {missing[:5]}"
    broken = [o for o in outcomes if o.status != "passed"]
    assert not broken, "\n".join(f"{o.id}: {o.status}: {o.message[:400]}" for o in broken[:10])
