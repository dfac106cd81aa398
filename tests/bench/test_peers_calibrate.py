"""bench/peers harness.calibrate: the cheapest setting reaching the target, below the default too."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "bench"))   # appended: bench/ must not shadow other top-level modules

from peers import harness  # noqa: E402


class FakeWorker:
    name = "fake"

    def __init__(self, levels, recall_of):
        self.info = {"levels": levels}
        self.recall_of = recall_of
        self.level = levels[0]
        self.sets = []

    def call(self, command, *args):
        if command == "level":
            self.level = args[0]
            self.sets.append(args[0]["ef"])
            return 0.01
        assert command == "run"
        return [(0.0, self.recall_of[self.level["ef"]])] * args[2]


class FakeChecker:
    def score(self, op, answers):
        return {"recall": sum(answers) / len(answers)}


def ladder(default, *efs):
    return [{"ef": default}] + [{"ef": ef} for ef in efs]


def test_picks_a_setting_below_the_default():
    w = FakeWorker(ladder(256, 32, 64, 128, 256, 512), {32: 0.80, 64: 0.96, 128: 0.98, 256: 0.99, 512: 1.0})
    out = harness.calibrate(w, FakeChecker(), 0.95, 4, log=lambda *_: None)
    assert out["level"] == {"ef": 64} and w.level == {"ef": 64} and w.sets == [32, 64]
    assert [l["level"]["ef"] for l in out["ladder"]] == [32, 64] and out["default"] == {"ef": 256}


def test_default_cheapest_walks_up_and_reuses_the_default_recall():
    w = FakeWorker(ladder(10, 10, 100, 400), {10: 0.6, 100: 0.97, 400: 0.99})
    out = harness.calibrate(w, FakeChecker(), 0.95, 4, log=lambda *_: None)
    assert out["level"] == {"ef": 100} and w.sets == [100]       # the default is not set again


def test_back_to_the_default_when_it_is_the_first_to_reach():
    w = FakeWorker(ladder(256, 64, 128, 256, 512), {64: 0.90, 128: 0.94, 256: 0.99, 512: 1.0})
    out = harness.calibrate(w, FakeChecker(), 0.95, 4, log=lambda *_: None)
    assert out["level"] == {"ef": 256} and w.level == {"ef": 256} and out["ladder"][-1]["default"]


def test_dearest_when_none_reaches_and_no_levels():
    w = FakeWorker(ladder(16, 16, 32), {16: 0.5, 32: 0.6})
    assert harness.calibrate(w, FakeChecker(), 0.95, 4, log=lambda *_: None)["level"] == {"ef": 32}
    empty = FakeWorker([{"ef": 1}], {1: 1.0})
    empty.info = {"levels": []}
    assert harness.calibrate(empty, FakeChecker(), 0.95, 4, log=lambda *_: None) == {"ladder": [], "level": None}
