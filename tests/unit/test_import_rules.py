"""The one-way import rules of docs/architecture.md ("Layers"), checked on the source's import graph.

An AST walk over client/, protocol/ and server/ (every import, module-level or inside a function)
maps each file onto its ``relate.*`` name (as setup.py does) and reports each offending file:line.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Folder -> import name, as setup.py maps them.
FOLDERS = {"client": "relate", "protocol": "relate.protocol", "server": "relate.server"}
# The one client module allowed to import the engine (lazily): relate.connect()/aio.connect() call it.
EMBEDDED_ENTRY = "relate.embedded"
ENGINE = ("relate.server.query", "relate.server.storage", "relate.server.index", "relate.server.engine")
NETWORK = ("relate.server.net", "relate.server.session")
OWN_PACKAGES = ("relate.protocol", "relate.server", "relate.grammar")


@dataclass(frozen=True)
class Import:
    module: str          # the importing module, e.g. relate.server.storage.codec
    path: str            # file path relative to the repository root
    line: int
    target: str          # the imported module, absolute, e.g. relate.protocol.errors


def within(name: str, *packages: str) -> bool:
    """True when module ``name`` is one of ``packages`` or inside one of them."""
    return any(name == p or name.startswith(p + ".") for p in packages)


def is_client(name: str) -> bool:
    """A module of the client folder: ``relate`` itself or ``relate.<x>`` outside the other packages."""
    return within(name, "relate") and not within(name, *OWN_PACKAGES)


def module_name(root: Path, folder: str, file: Path) -> tuple[str, bool]:
    """The import name of ``file`` and whether it is a package (``__init__.py``)."""
    parts = list(file.relative_to(root / folder).with_suffix("").parts)
    package = parts[-1] == "__init__"
    if package:
        parts.pop()
    return ".".join([FOLDERS[folder], *parts]), package


def _resolve(node: ast.ImportFrom, module: str, package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(root: Path, folder: str, file: Path) -> list[Import]:
    """Every import in ``file`` as absolute module names (``from a import b`` counts as a.b and a)."""
    module, package = module_name(root, folder, file)
    rel = str(file.relative_to(root))
    found = []
    for node in ast.walk(ast.parse(file.read_text(), filename=rel)):
        if isinstance(node, ast.Import):
            found += [Import(module, rel, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, module, package)
            found.append(Import(module, rel, node.lineno, base))
            # `from relate import server` or `from relate.protocol import temporal` import submodules.
            found += [Import(module, rel, node.lineno, f"{base}.{alias.name}") for alias in node.names
                      if alias.name != "*"]
    return found


def all_imports(root: Path = ROOT) -> list[Import]:
    found = []
    for folder in FOLDERS:
        for file in sorted((root / folder).rglob("*.py")):
            if "_generated" not in file.parts:
                found += imports_of(root, folder, file)
    return found


# Each rule: (name, applies to the importing module, forbidden target).
RULES = [
    ("protocol/ imports no other relate package (the kernel imports neither side)",
     lambda m: within(m, "relate.protocol"), lambda t: within(t, "relate") and not within(t, "relate.protocol")),
    ("server/ never imports the client or the driver (relate, relate.<client module>)",
     lambda m: within(m, "relate.server"), lambda t: is_client(t)),
    (f"client/ reaches relate.server only through {EMBEDDED_ENTRY}",
     lambda m: is_client(m) and m != EMBEDDED_ENTRY, lambda t: within(t, "relate.server")),
    ("the engine (query, storage, index, engine.py) never imports server/net or server/session",
     lambda m: within(m, *ENGINE), lambda t: within(t, *NETWORK)),
    ("storage never imports the query engine",
     lambda m: within(m, "relate.server.storage"), lambda t: within(t, "relate.server.query")),
]


def violations(imports: list[Import], rule) -> list[str]:
    """One line per offending import statement: ``file:line: module imports target``."""
    _, applies, forbidden = rule
    first: dict[tuple[str, int], Import] = {}
    for i in imports:
        if applies(i.module) and forbidden(i.target):
            seen = first.get((i.path, i.line))
            if seen is None or len(i.target) < len(seen.target):
                first[(i.path, i.line)] = i
    return [f"{i.path}:{i.line}: {i.module} imports {i.target}" for _, i in sorted(first.items())]


@pytest.fixture(scope="module")
def source_imports() -> list[Import]:
    return all_imports()


def test_the_walk_sees_the_source(source_imports):
    """A guard against a silently empty walk: known imports of each folder are found."""
    pairs = {(i.module, i.target) for i in source_imports}
    assert ("relate.server.storage.codec", "relate.protocol.errors") in pairs
    assert ("relate.embedded", "relate.server.engine") in pairs
    assert ("relate.protocol.hydration", "relate.protocol.codec") in pairs      # a relative import


@pytest.mark.parametrize("rule", RULES, ids=[r[0] for r in RULES])
def test_import_rule(source_imports, rule):
    bad = violations(source_imports, rule)
    if bad:
        pytest.fail(f"{rule[0]}:\n" + "\n".join(bad), pytrace=False)


def test_each_rule_reports_a_violation_with_its_file_and_line(tmp_path):
    """The checker itself: a tree that breaks every rule once is reported, file:line each time."""
    breaking = {
        "protocol/values.py": "from relate.errors import ArgumentError\n",
        "server/auth.py": "import relate\n",
        "client/shell/main.py": "def f():\n    from relate.server.engine import Database\n",
        "server/query/context.py": "from ..net import connection\n",
        "server/storage/store.py": "from relate.server.query import ast\n",
    }
    for path, text in breaking.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    imports = all_imports(tmp_path)
    reported = [violations(imports, rule) for rule in RULES]
    assert reported == [
        ["protocol/values.py:1: relate.protocol.values imports relate.errors"],
        ["server/auth.py:1: relate.server.auth imports relate"],
        ["client/shell/main.py:2: relate.shell.main imports relate.server.engine"],
        ["server/query/context.py:1: relate.server.query.context imports relate.server.net"],
        ["server/storage/store.py:1: relate.server.storage.store imports relate.server.query"],
    ]
