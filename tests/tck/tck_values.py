"""The TCK's value syntax (result tables, parameters) parsed into expected values, and matching rules."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from relate.values import Duration, Node, Path, Relationship


@dataclass
class ExpectedNode:
    labels: frozenset
    properties: dict


@dataclass
class ExpectedRel:
    type: str | None
    properties: dict


@dataclass
class ExpectedPath:
    nodes: list                      # ExpectedNode
    rels: list                       # (ExpectedRel, forward: bool)


class _Parser:
    """Recursive-descent parser over one table cell."""

    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def error(self, msg: str):
        raise ValueError(f"{msg} at {self.i} in {self.s!r}")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self, token: str) -> bool:
        self.ws()
        return self.s.startswith(token, self.i)

    def eat(self, token: str):
        self.ws()
        if not self.s.startswith(token, self.i):
            self.error(f"expected {token!r}")
        self.i += len(token)

    def name(self) -> str:
        self.ws()
        if self.peek("`"):
            end = self.s.index("`", self.i + 1)
            out = self.s[self.i + 1:end]
            self.i = end + 1
            return out
        start = self.i
        while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] == "_"):
            self.i += 1
        if start == self.i:
            self.error("expected a name")
        return self.s[start:self.i]

    def value(self) -> Any:
        self.ws()
        s, i = self.s, self.i
        if i >= len(s):
            self.error("unexpected end")
        c = s[i]
        if c == "'":
            return self.string()
        if c == "[":
            if self._looks_like_rel():
                return self.rel()
            return self.list()
        if c == "{":
            return self.map()
        if c == "(":
            return self.node()
        if c == "<":
            return self.path()
        for word, val in (("null", None), ("true", True), ("false", False), ("NaN", math.nan),
                          ("-Inf", -math.inf), ("Inf", math.inf)):
            if s.startswith(word, i) and not (i + len(word) < len(s) and (s[i + len(word)].isalnum())):
                self.i += len(word)
                return val
        return self.number()

    def _looks_like_rel(self) -> bool:
        j = self.i + 1
        while j < len(self.s) and self.s[j].isspace():
            j += 1
        return j < len(self.s) and self.s[j] == ":"

    def number(self):
        s = self.s
        start = self.i
        if self.i < len(s) and s[self.i] in "+-":
            self.i += 1
        while self.i < len(s) and (s[self.i].isalnum() or s[self.i] in ".+-_"):
            if s[self.i] in "+-" and s[self.i - 1] not in "eE":
                break
            self.i += 1
        text = s[start:self.i]
        try:
            if text.lower().startswith(("0x", "-0x")):
                return int(text, 16)
            if any(ch in text for ch in ".eE") and not text.lower().startswith(("0x", "-0x")):
                return float(text)
            return int(text)
        except ValueError:
            self.error(f"bad number {text!r}")

    def string(self) -> str:
        self.eat("'")
        out = []
        s = self.s
        while True:
            if self.i >= len(s):
                self.error("unterminated string")
            c = s[self.i]
            if c == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt, nxt))
                self.i += 2
                continue
            if c == "'":
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1

    def list(self) -> list:
        self.eat("[")
        items = []
        if self.peek("]"):
            self.eat("]")
            return items
        while True:
            items.append(self.value())
            if self.peek(","):
                self.eat(",")
                continue
            self.eat("]")
            return items

    def map(self) -> dict:
        self.eat("{")
        out = {}
        if self.peek("}"):
            self.eat("}")
            return out
        while True:
            key = self.name()
            self.eat(":")
            out[key] = self.value()
            if self.peek(","):
                self.eat(",")
                continue
            self.eat("}")
            return out

    def node(self) -> ExpectedNode:
        self.eat("(")
        labels = []
        while self.peek(":"):
            self.eat(":")
            labels.append(self.name())
        props = self.map() if self.peek("{") else {}
        self.eat(")")
        return ExpectedNode(frozenset(labels), props)

    def rel(self) -> ExpectedRel:
        self.eat("[")
        rtype = None
        if self.peek(":"):
            self.eat(":")
            rtype = self.name()
        props = self.map() if self.peek("{") else {}
        self.eat("]")
        return ExpectedRel(rtype, props)

    def path(self) -> ExpectedPath:
        self.eat("<")
        nodes = [self.node()]
        rels = []
        while not self.peek(">"):
            if self.peek("<-"):
                self.eat("<-")
                rel = self.rel()
                self.eat("-")
                forward = False
            else:
                self.eat("-")
                rel = self.rel()
                self.eat("->")
                forward = True
            rels.append((rel, forward))
            nodes.append(self.node())
        self.eat(">")
        return ExpectedPath(nodes, rels)


def parse_value(text: str) -> Any:
    """Parse one TCK cell into an expected value."""
    parser = _Parser(text.strip())
    value = parser.value()
    parser.ws()
    if parser.i != len(parser.s):
        parser.error("trailing input")
    return value


def _is_temporal(value: Any) -> bool:
    import datetime as dt
    return isinstance(value, (dt.date, dt.time, Duration))


def matches(expected: Any, actual: Any, *, unordered_lists: bool = False) -> bool:
    """Structural comparison of an expected TCK value with an engine value (1 != 1.0)."""
    if expected is None:
        return actual is None
    if isinstance(expected, bool):
        return isinstance(actual, bool) and actual == expected
    if isinstance(expected, int):
        return type(actual) is int and actual == expected
    if isinstance(expected, float):
        if type(actual) is not float:
            return False
        if math.isnan(expected):
            return math.isnan(actual)
        return actual == expected or math.isclose(actual, expected, rel_tol=1e-12, abs_tol=0.0)
    if isinstance(expected, str):
        if isinstance(actual, str):
            return actual == expected
        return _is_temporal(actual) and str(actual) == expected
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return False
        if not unordered_lists:
            return all(matches(e, a, unordered_lists=False) for e, a in zip(expected, actual))
        return bag_matches(expected, actual, unordered_lists=True)
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and set(actual) == set(expected)
                and all(matches(v, actual[k], unordered_lists=unordered_lists) for k, v in expected.items()))
    if isinstance(expected, ExpectedNode):
        return (isinstance(actual, Node) and actual.labels == expected.labels
                and matches(expected.properties, actual.properties))
    if isinstance(expected, ExpectedRel):
        return (isinstance(actual, Relationship) and (expected.type is None or actual.type == expected.type)
                and matches(expected.properties, actual.properties))
    if isinstance(expected, ExpectedPath):
        if not isinstance(actual, Path) or len(actual.relationships) != len(expected.rels):
            return False
        if not all(matches(e, a) for e, a in zip(expected.nodes, actual.nodes)):
            return False
        for i, ((erel, forward), arel) in enumerate(zip(expected.rels, actual.relationships)):
            if not matches(erel, arel):
                return False
            start, end = actual.nodes[i].id, actual.nodes[i + 1].id
            if (arel.start_id, arel.end_id) != ((start, end) if forward else (end, start)):
                return False
        return True
    raise TypeError(f"unknown expected value {expected!r}")


def bag_matches(expected: list, actual: list, *, unordered_lists: bool = False) -> bool:
    """Multiset comparison: every expected item matches a distinct actual item."""
    if len(expected) != len(actual):
        return False
    remaining = list(actual)
    for e in expected:
        for j, a in enumerate(remaining):
            if matches(e, a, unordered_lists=unordered_lists):
                del remaining[j]
                break
        else:
            return False
    return True


def to_param(value: Any) -> Any:
    """Expected values used as query parameters (only plain values occur there)."""
    return value
