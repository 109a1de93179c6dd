"""The documentation stays navigable: the README is a short front page (what the arena is,
how to start it, how to test it, its commands and configuration, where to read more), and
every relative link of the README and of docs/ leads to a file, and a heading, that exist.

The operators' guide, the bot authors' guide and the contributors' guide live in docs/;
the performance figures and their history in bench/README.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_README_LINES = 500
TEST_COMMAND = "pip install -e '.[test]' && python -m pytest"
"""The suite's command: the README shows it and .ci/run runs it, verbatim."""
PENDING = {"docs/games.md", "docs/adding-a-role.md"}
"""Guides linked before they land (written alongside); a link to them may not resolve yet."""
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def documents() -> list[Path]:
    return [README, ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets: lower case, code marks and punctuation dropped,
    spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: move detail to docs/"


def test_the_readme_shows_the_command_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    assert f"```sh\n{TEST_COMMAND}\n```" in readme
    assert "pip install -e . && arena demo" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == TEST_COMMAND


def test_the_readme_points_to_every_guide() -> None:
    targets = set(links(README))
    for guide in (
        "protocol.md",
        "docs/operators.md",
        "docs/bot-authors.md",
        "docs/contributing.md",
        "bench/README.md",
        "rules/werewolf.md",
        "rules/tuvalon.md",
    ):
        assert guide in targets, f"README.md does not link {guide}"


def broken_links(doc: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``doc`` whose file (outside ``PENDING``) or heading is missing."""
    broken = []
    for target in links(doc):
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        if not path.exists():
            if not (path.is_relative_to(root) and path.relative_to(root).as_posix() in PENDING):
                broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(target)
    return broken


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(doc: Path) -> None:
    assert broken_links(doc) == [], f"{doc.relative_to(ROOT)}: broken links"


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    """The check can fail: a missing file and a missing heading are both seen, a link in a
    code block is not one, and only the two pending guides may be missing."""
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "a.md"
    doc.write_text(
        "# Title `x`, y\n\n[ok](#title-x-y) [gone](b.md) [no heading](#nowhere) [up](../c.md#top)\n"
        "[pending](games.md) [http](https://example.org/x.md)\n```\n[in code](d.md)\n```\n"
    )
    (tmp_path / "c.md").write_text("## Top\n")
    assert anchors(doc) == {"title-x-y"}
    assert broken_links(doc, tmp_path) == ["b.md", "#nowhere"]
