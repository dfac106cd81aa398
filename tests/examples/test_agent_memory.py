"""examples/agent-memory end to end (embedded): every memory system through one edge, the lifecycle,
the per-user scope of stored and file memories, and what each answer spent."""
from __future__ import annotations

import importlib.util
import os

import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "agent-memory", "memory.py")
_spec = importlib.util.spec_from_file_location("agent_memory_example", EXAMPLE)
memory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory)


@pytest.fixture(scope="module")
def alice(tmp_path_factory):
    return memory.ask(str(tmp_path_factory.mktemp("alice") / "db"), "alice", "acme", "coffee")


def test_one_edge_asks_every_memory_system(alice):
    title, rows, costs = alice[0]
    assert {r["system"] for r in rows} == {"DiceMemory", "MarkdownMemory", "McpMemory"}
    texts = [r["text"] for r in rows]
    assert "Alice drinks her coffee black every morning" in texts
    assert "Booked the coffee tasting with the Lisbon team for Friday." in texts
    assert any(t.startswith("Grace Hopper") for t in texts)            # the entity line, not the relation
    assert not any("decaf" in t or "Bob" in t for t in texts)          # contradicted; another user's
    assert {r["mode"] for r in rows if r["system"] == "DiceMemory"} == {"fused"}
    assert {r["mode"] for r in rows if r["system"] != "DiceMemory"} == {"keyword"}
    assert costs == {"semanticCalls": 3, "llmCalls": 0, "apiCalls": 0}     # one search per system


def test_the_lifecycle_holds_in_every_mode(alice):
    assert alice[2][1] == []                        # 'decaf' is only in a CONTRADICTED memory
    facts = alice[3][1]
    assert facts == [{"text": "Ada Lovelace prefers email over calls", "status": "ACTIVE"},
                     {"text": "Ada Lovelace used to work from the London office", "status": "SUPERSEDED"}]


def test_another_user_reads_only_their_own_memories(tmp_path):
    title, rows, _ = memory.ask(str(tmp_path / "db"), "bob", "globex", "coffee")[0]
    assert sorted(r["text"] for r in rows) == ["Bob likes his coffee with oat milk", "Bob takes coffee with oat milk."]
