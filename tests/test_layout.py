"""The shape of the house: small modules and classes, and packages that import downwards only.

A package may import only the packages of layers below its own (``LAYERS``); so the import
graph between packages has no cycle, and a library (``core``, ``protocol``, ``narrate``…)
never depends on the applications built on it. No module is over ``MAX_MODULE`` lines and
no class over ``MAX_CLASS``: a module or class that grows past them is split along what it
holds, as the referee, the Werewolf engine and the SDK's session were.

``python -m tests.test_layout`` prints the largest modules and classes and the graph.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "arena"
MAX_MODULE = 600
MAX_CLASS = 400

LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer.split())
    for layer in (
        "arena core parallel",
        "protocol",
        "ratings irc",
        "narrate",
        "games",
        "config sdk",
        "bots store spectate",
        "referee",
        "report tournament simulate",
        "web",
        "cli_results",
        "cli_bots cli_watch cli_store",
        "cli",
        "__main__",
    )
)
"""Packages (and top-level modules) from the bottom up: each imports only from below
(``arena`` is the package's own ``__init__``: its version)."""


@dataclass(frozen=True)
class Module:
    path: str
    """Relative to the repository, with forward slashes."""
    package: str
    """The package (or top-level module) of ``arena`` it belongs to."""
    lines: int
    classes: tuple[tuple[str, int], ...]
    imports: frozenset[str]
    """The other packages of ``arena`` it imports."""


def _package(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _read(path: Path) -> Module:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    if path.name == "__init__.py":
        parts = parts[:-1]
    dotted = ".".join(parts)
    own = _package(dotted)
    here = dotted.split(".") if path.name == "__init__.py" else dotted.split(".")[:-1]
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    imports: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                targets = [target] if node.module else [f"{target}.{alias.name}" for alias in node.names]
            elif node.module:
                targets = [node.module] if node.module != "arena" else [f"arena.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        for target in targets:
            if target.startswith("arena.") and _package(target) != own:
                imports.add(_package(target))
    classes = tuple(
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    )
    return Module(path.relative_to(ROOT.parent).as_posix(), own, len(text.splitlines()), classes, frozenset(imports))


@cache
def modules() -> tuple[Module, ...]:
    return tuple(_read(path) for path in sorted(ROOT.rglob("*.py")))


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for module in modules():
        edges[module.package] |= module.imports
    return dict(edges)


def sizes() -> list[tuple[str, int]]:
    """Every module and class, ``path`` or ``path:Class``, by size, largest first."""
    found = [(m.path, m.lines) for m in modules()] + [
        (f"{m.path}:{name}", n) for m in modules() for name, n in m.classes
    ]
    return sorted(found, key=lambda item: -item[1])


def _layer(package: str) -> int:
    for level, layer in enumerate(LAYERS):
        if package in layer:
            return level
    raise AssertionError(f"package {package!r} has no place in LAYERS: give it one")


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph, as a path that comes back to its start; None if there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def report() -> str:
    lines = ["largest modules and classes:"]
    lines += [f"  {n:5d}  {name}" for name, n in sizes()[:15]]
    lines.append("imports between packages, bottom layer first:")
    edges = graph()
    for package in sorted(edges, key=lambda p: (_layer(p), p)):
        lines.append(f"  {package} -> {', '.join(sorted(edges[package], key=lambda p: (_layer(p), p)))}")
    return "\n".join(lines)


def test_packages_import_downwards_only() -> None:
    print(report())
    edges = graph()
    cycle = _cycle(edges)
    assert cycle is None, f"packages import each other in a circle: {' -> '.join(cycle)}"
    upward = [f"{p} -> {q}" for p, targets in sorted(edges.items()) for q in sorted(targets) if _layer(q) >= _layer(p)]
    assert not upward, f"imports that do not go down a layer: {', '.join(upward)}"


def test_no_module_or_class_is_too_big() -> None:
    too_big = [f"{name} ({n} lines)" for name, n in sizes() if n > (MAX_CLASS if ":" in name else MAX_MODULE)]
    assert not too_big, f"over {MAX_MODULE} lines a module, {MAX_CLASS} a class: {', '.join(too_big)}"


def test_the_layout_check_sees_a_cycle_and_an_upward_import() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert _layer("core") < _layer("games") < _layer("referee") < _layer("cli")


if __name__ == "__main__":
    print(report())
