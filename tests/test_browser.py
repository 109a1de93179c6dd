"""Every kind of page in a real browser (headless Chromium): it loads, shows what it is for,
logs no console error, and is photographed; a live game's page updates itself while the
game is played and shows the roles only once it has ended.

``ARENA_SCREENSHOTS=DIR`` also writes the screenshots docs/operators.md shows to DIR (docs/screenshots).
Without Chromium these tests skip, except where ARENA_REQUIRE_CHROMIUM=1 (CI) fails them.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from pathlib import Path
from collections.abc import Callable, Iterator

import pytest
from werkzeug.serving import make_server

from arena.games.avalon.engine import FIVE_REJECTIONS
from arena.store import Store
from arena.web import create_app
from tests.chromium import Chromium, Page, chromium_path
from tests.watched import PacedJournal, hub_game, run, stored_tournaments

DOC_SHOTS = {"avalon-game", "werewolf-game", "tuvalon-game", "tournament", "web-index", "web-live"}
"""The screenshots docs/operators.md shows (the others are only looked at)."""
DOCS = Path(__file__).resolve().parents[1] / "docs"
SHOT_FROM = {"tuvalon-game": "section.tuvalon"}
"""Screenshots of a page's part (a CSS selector) rather than of its top."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    binary = chromium_path()
    if binary is None:
        if os.environ.get("ARENA_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is required (ARENA_REQUIRE_CHROMIUM=1) but not installed")
        pytest.skip("chromium not installed (apt-get install chromium); ARENA_REQUIRE_CHROMIUM=1 makes this fail")
    chromium = Chromium(binary)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("browser") / "results.db"
    stored_tournaments(path, games=6)
    with Store(path) as store:  # a game whose seer speaks (the tournaments' deals are secret)
        hub_game(store, "werewolf", PacedJournal(store))  # g1, as in test_watch
        hub_game(store, "tuvalon", PacedJournal(store), gid="t1")  # its Merlin talks in the second discussion
    return path


@pytest.fixture(scope="module")
def site(stored: Path) -> Iterator[str]:
    """``arena web`` over the stored games, on a free port of 127.0.0.1."""
    server = make_server("127.0.0.1", 0, create_app(str(stored)), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


def shoot(page: Page, name: str, tmp_path: Path) -> None:
    """A screenshot of the page (from the part of it the shot is of, ``SHOT_FROM``), kept
    with the test's files and, when asked, for docs/operators.md."""
    path = tmp_path / f"{name}.png"
    start = SHOT_FROM.get(name)
    top = 0.0
    if start:
        top = float(page.evaluate(f"document.querySelector({start!r}).getBoundingClientRect().top + scrollY - 8"))
    page.screenshot(str(path), max_height=1100, top=top)
    assert path.stat().st_size > 10_000, f"{name}: an empty screenshot"
    wanted = os.environ.get("ARENA_SCREENSHOTS")
    if wanted and name in DOC_SHOTS:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(wanted) / path.name)


def visit(browser: Chromium, url: str, ready: str) -> Page:
    """Load ``url``; ``ready`` (a script expression) must hold and no console error appear."""
    page = browser.page()
    page.load(url)
    assert page.evaluate(ready), f"{url}: {ready} is false"
    assert page.console_errors() == [], url
    return page


REPORTS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "avalon-game": (
        lambda stored: [played_three_quests(stored)],
        "document.querySelectorAll('tr.proposal').length >= 3"
        " && document.querySelectorAll('.quest.success, .quest.fail').length >= 3",
    ),
    "werewolf-game": (
        lambda stored: ["g1"],
        "document.querySelectorAll('.phase.night').length >= 1"
        " && document.querySelectorAll('.phase.day').length >= 1"
        " && document.querySelectorAll('blockquote.talk').length >= 1",
    ),
    "tuvalon-game": (
        lambda stored: ["t1"],
        "document.querySelectorAll('svg.map').length >= 3 && "
        "document.querySelectorAll('svg.map').length == document.querySelectorAll('tr.proposal').length"
        " && [...document.querySelectorAll('svg.map')]"
        ".every(m => m.querySelectorAll('g.player').length == 7)"
        " && document.querySelectorAll('svg.map g.move').length >= 1"
        " && [...document.querySelectorAll('ul.log .to')]"
        ".some(e => e.innerText.startsWith('heard by'))",
    ),
    "tournament": (
        lambda stored: ["--tournament", "av"],
        "document.querySelectorAll('svg.chart polyline').length >= 10",
    ),
    "store": (lambda stored: ["--all"], "document.querySelectorAll('section.standings').length == 3"),
}


def played_three_quests(stored: Path) -> str:
    """A stored Avalon game of the tournament that got to three quests: the deals are secret,
    so one of them may have ended at five rejections before its third quest."""
    with Store(stored) as store:
        games = store.games.find(game="avalon", tournament="av", limit=None)
    return next(g.id for g in sorted(games, key=lambda g: g.id) if g.reason != FIVE_REJECTIONS)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_report_files(browser: Chromium, stored: Path, tmp_path: Path, name: str) -> None:
    args, ready = REPORTS[name]
    out = tmp_path / f"{name}.html"
    run(stored, "report", *args(stored), "-o", str(out))
    shoot(visit(browser, out.as_uri(), ready), name, tmp_path)


def test_web_pages(browser: Chromium, site: str, tmp_path: Path) -> None:
    home = visit(browser, site + "/", "document.querySelectorAll('a[href^=\"/games/\"]').length >= 12")
    shoot(home, "web-games", tmp_path)
    game = visit(browser, site + "/games/ww-3", "document.querySelector('#game').dataset.status == 'finished'")
    shoot(game, "web-game", tmp_path)
    visit(browser, site + "/tournaments/ww", "document.querySelectorAll('svg.chart').length == 2")
    visit(browser, site + "/all", "document.querySelectorAll('section.standings').length == 3")
    visit(browser, site + "/games/t1", "document.querySelectorAll('svg.map').length >= 3")


def test_a_live_games_page_follows_the_game(browser: Chromium, stored: Path, site: str, tmp_path: Path) -> None:
    """A game played by the referee's real code, journaled to the store the site reads, slowly
    (half a second a step): its page updates itself without reloading, shows no role while
    the game runs, and every role once it has ended."""
    errors: list[BaseException] = []

    def play() -> None:
        try:
            with Store(stored) as store:
                hub_game(store, "avalon", PacedJournal(store, pause=0.5), gid="live1")
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    player = threading.Thread(target=play)
    player.start()
    try:
        with Store(stored) as reader:  # the home page lists the games live when it is loaded
            guard = time.monotonic() + 60
            while not reader.live.all("live1") and not errors and time.monotonic() < guard:
                time.sleep(0.05)
        page = browser.page()
        page.load(site + "/")
        page.wait_for("document.querySelector('#live-games a[href=\"/games/live1\"]') !== null", 10)
        shoot(page, "web-index", tmp_path)
        page.load(site + "/games/live1")
        # The reader opens two sections (closed by default): the updates keep them open.
        page.evaluate(
            "['events', 'lines'].forEach(k => document.querySelector(`details[data-keep=${k}] summary`).click()); true"
        )
        first = int(page.evaluate("window.loadedOnce = true; +document.querySelector('#game').dataset.events"))
        assert page.evaluate("document.querySelector('#game').dataset.status") == "live"
        page.wait_for(
            f"+document.querySelector('#game').dataset.events > {first} "
            "&& document.querySelectorAll('tr.proposal').length >= 2",
            20,
        )
        assert page.evaluate("window.loadedOnce === true"), "the page reloaded instead of updating itself"
        opened = "[...document.querySelectorAll('details[open]')].map(d => d.dataset.keep).filter(k => k)"
        assert {"events", "lines"} <= set(page.evaluate(opened)), "an update closed what the reader had opened"
        hidden = page.evaluate("document.querySelector('table.players').innerText")
        assert "merlin" not in hidden and "assassin" not in hidden and "hidden" in hidden
        shoot(page, "web-live", tmp_path)
        page.wait_for("document.querySelector('#game').dataset.status == 'finished'", 30)
        shown = page.evaluate("document.querySelector('table.players').innerText")
        assert "merlin" in shown and "assassin" in shown
        assert page.console_errors() == []
    finally:
        player.join()
    assert not errors, errors


def test_the_operators_guide_shows_the_screenshots_these_tests_write() -> None:
    """What ``ARENA_SCREENSHOTS`` rewrites is what the guide shows, and every one is there."""
    shown = set(
        re.findall(r"!\[[^]]*\]\(screenshots/([\w-]+)\.png\)", (DOCS / "operators.md").read_text(encoding="utf-8"))
    )
    assert shown == DOC_SHOTS
    assert all((DOCS / "screenshots" / f"{name}.png").is_file() for name in DOC_SHOTS)
