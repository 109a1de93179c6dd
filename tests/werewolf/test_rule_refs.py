"""The Werewolf code cites the rules the repository ships: every "§N.M" in a docstring or
comment of arena/games/werewolf is a numbered section of rules/werewolf.md (and "§N, step
K" a step of that section's list), and no docstring cites the numbering of the Chinese
specification, which is not in the repository. The engine's docstring, the map of the game,
names every decision and every event the engine can produce."""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize
from pathlib import Path

import pytest

from arena.games.werewolf import engine
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.simulate import play_random

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "werewolf.md"
PACKAGE = ROOT / "arena" / "games" / "werewolf"
CITE = re.compile(r"§(\d+(?:\.\d+)*)(?:, steps? (\d+)(?: and (\d+))?)?")
SPEC_NUMBER = re.compile(r"(?<![\w.§])(?<!step )(?<!steps )\d{1,2}(?:\.\d+)+(?![\d.]*\d)(?! ==)")
SPEC_SECTION = re.compile(r"(?<!protocol\.md, )(?<!protocol\.md's )\b[Ss]ections? \d|\b[Ee]xamples? \d")
EMITTERS = {"tell": 0, "tell_when_free": 1, "_emit": 0}
"""Who emits events, with the position of the kind among its arguments (the night's
``tell_when_free`` takes the game first)."""


def sections(text: str) -> dict[str, str]:
    """Each numbered section of the rules, by number, with its text up to the next heading."""
    heads = list(re.finditer(r"^#{2,3} (\d+(?:\.\d+)*)\.? ", text, flags=re.M))
    return {
        m.group(1): text[m.end() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        for i, m in enumerate(heads)
    }


def prose(path: Path) -> list[tuple[int, str]]:
    """The comments and docstrings of a module, with their line numbers: the code is left out."""
    source = path.read_text(encoding="utf-8")
    found = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else []:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.append((statement.lineno, statement.value.value))
    return found


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_rules_sections_are_numbered_once_each() -> None:
    text = RULES.read_text(encoding="utf-8")
    numbers = re.findall(r"^#{2,3} (\d+(?:\.\d+)*)\.? ", text, flags=re.M)
    headings = re.findall(r"^#{2,3} ", text, flags=re.M)
    assert len(numbers) == len(headings), "every section of rules/werewolf.md has a number"
    assert len(set(numbers)) == len(numbers), "no number is given twice"
    assert {"1.1", "3.2", "3.10", "4.1", "6"} <= set(numbers)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_cited_section_exists(path: Path) -> None:
    rules = sections(RULES.read_text(encoding="utf-8"))
    wrong = []
    cites = False
    for line, text in prose(path):
        for m in CITE.finditer(text):
            cites = True
            number, *steps = m.groups()
            if number not in rules:
                wrong.append(f"line {line}: §{number}")
            for step in filter(None, steps):
                if not re.search(rf"^{step}\. ", rules.get(number, ""), flags=re.M):
                    wrong.append(f"line {line}: §{number}, step {step}")
    assert not wrong, f"{path.name} cites what rules/werewolf.md does not have: {wrong}"
    if cites:
        assert any("rules/werewolf.md" in text for _, text in prose(path)), f"{path.name}: name the document cited"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_docstring_cites_the_specification_s_numbers(path: Path) -> None:
    stale = [
        f"line {line}: {m.group(0)!r}"
        for line, text in prose(path)
        for pattern in (SPEC_NUMBER, SPEC_SECTION)
        for m in pattern.finditer(text)
    ]
    assert not stale, f"{path.name} cites section numbers that are not rules/werewolf.md's: {stale}"


def test_the_spec_number_check_can_fail() -> None:
    assert SPEC_NUMBER.findall("as 10.4.5 says, in the 4.2 order (5.3)") == ["10.4.5", "4.2", "5.3"]
    assert SPEC_NUMBER.findall("step 11.2, steps 4.5, §3.10, 1.0 == 1") == []
    assert SPEC_SECTION.findall("section 9, protocol.md, section 9, example 11") == ["section 9", "example 1"]


def event_kinds() -> set[str]:
    """Every event kind the package emits: the kind argument of ``tell``, ``tell_when_free``
    and ``_emit`` (``EMITTERS``), written out or as a module constant."""
    kinds = set()
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                at = EMITTERS.get(name)
                if at is None or len(node.args) <= at:
                    continue
                kind = node.args[at]
                if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                    kinds.add(kind.value)
                elif isinstance(kind, ast.Name) and kind.id in constants:
                    kinds.add(constants[kind.id])
    return kinds


def part(title: str, until: str) -> str:
    doc = engine.__doc__ or ""
    return doc[doc.index(title) : doc.index(until)]


def test_the_engine_docstring_names_every_decision() -> None:
    decisions = part("Decisions (kind: options)", "Timeouts (")
    kinds = WerewolfGame.public_kinds | WerewolfGame.secret_kinds | WerewolfGame.tallied_kinds
    assert len(kinds) >= 43
    missing = sorted(k for k in kinds if not re.search(rf"(?<![\w-]){k}(?![\w-])", decisions))
    assert not missing, f"engine.py's docstring does not name the decisions {missing}"


def test_the_engine_docstring_names_every_event() -> None:
    kinds = event_kinds()
    assert {"setup", "wolf_votes", "oracle_reveal", "end"} <= kinds and len(kinds) >= 36
    # Played games emit nothing the static reading missed (it would miss a kind computed at run time).
    for seed in range(12):
        game = WerewolfGame(16, WerewolfOptions(preset="chaos"), seed=seed)
        play_random(game, random.Random(seed))
        assert {event.kind for event in game.events} <= kinds
    events = part("Events (audience) and data", "Choices where")
    missing = sorted(k for k in kinds if not re.search(rf"(?<![\w-]){k}(?![\w-])", events))
    assert not missing, f"engine.py's docstring does not name the events {missing}"
