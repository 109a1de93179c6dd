"""Tuvalon in the game report: the map, round by round, drawn from a stored game, and the
second discussion's lines with who heard them; a live game's page shows the map too (it is
public), and nothing secret."""

from __future__ import annotations

import re
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest

from arena.games import rebuild
from arena.games.tuvalon import board
from arena.report import game_page
from arena.report.charts import tuvalon_map as draw
from arena.report.views import Names, heard_in_private, talk_by_proposal, tuvalon_map
from arena.store import Store
from arena.store.export import export, export_live
from tests.watched import PacedJournal, hub_game, live_game


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A Tuvalon game of rule bots (``t1``), played by the referee's real code and stored."""
    path = tmp_path_factory.mktemp("tuvalon-report") / "results.db"
    with Store(path) as store:
        hub_game(store, "tuvalon", PacedJournal(store), gid="t1")
        yield store


def engine_cells_by_round(store: Store, gid: str) -> list[list[str]]:
    """Every seat's cell once each round's moves were made, as the engine has it: the engine
    rebuilt from the answers up to each round's last move."""
    game = store.games.load(gid)
    assert game is not None
    history = list(game.history)
    ends = [
        i
        for i, (_, kind, _) in enumerate(history)
        if kind == "move" and (i + 1 == len(history) or history[i + 1][1] != "move")
    ]
    out = []
    for end in ends:
        engine: Any = rebuild(
            "tuvalon", len(game.summary.nicks), game.options, game.seed, game.deal, history[: end + 1]
        )
        out.append([board.name(c) for c in engine.cells])
    return out


def test_the_maps_cells_are_the_engines_positions(stored: Store) -> None:
    doc = export(stored, "t1")
    assert doc is not None and doc["status"] == "finished"
    names = Names(tuple(p["nick"] for p in doc["players"]))
    rounds = tuvalon_map(doc)
    assert len(rounds) == sum(e["kind"] == "leader" for e in doc["events"]) > 3
    expected = engine_cells_by_round(stored, "t1")
    assert [[board.name(r.cells[s]) for s in range(7)] for r in rounds] == expected
    moves = [e["data"] for e in doc["events"] if e["kind"] == "move" and e["data"]["from"] != e["data"]["to"]]
    assert sum(len(r.moves) for r in rounds) == len(moves) > 0
    for rnd, cells in zip(rounds, expected):
        svg = str(draw(rnd, names))
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="map"')
        drawn = dict(re.findall(r"<title>(\w+) at ([a-i][1-9])", svg))
        assert drawn == dict(zip(names.nicks, cells)), rnd.label
        assert svg.count('<g class="move">') == len(rnd.moves)
        for seat, before, after in rnd.moves:
            assert f"{names.of(seat)}: {board.name(before)} → {board.name(after)}</title>" in svg
        assert svg.count('class="map-leader"') == 1
        assert svg.count('class="map-member"') == len(rnd.team)


def test_the_second_discussion_says_who_heard_it(stored: Store) -> None:
    doc = export(stored, "t1")
    assert doc is not None
    nick = {p["seat"]: p["nick"] for p in doc["players"]}
    heard_by: dict[int, list[str]] = {}
    for e in doc["events"]:
        if e["kind"] == "speech" and e["data"]["purpose"] == "near":
            heard_by.setdefault(e["data"]["player"], []).append(", ".join(nick[s] for s in e["data"]["heard_by"]))
    private = heard_in_private(doc)
    assert private, "the rule bots' Merlin says nothing in the second discussion"
    relayed = [line for line in doc["lines"] if line["to"] and line["line"].startswith("TEAM ")]
    assert sum(t["heard"].count(",") + 1 for t in private) == len(relayed)
    for t in private:
        assert t["heard"] in heard_by[t["seat"]] and t["text"].startswith("between us")
    said = [t for _, t in talk_by_proposal(doc)]
    assert [t["after"] for t in said] == sorted(t["after"] for t in said)
    page = game_page(doc)
    for t in private:
        assert f"heard by {t['heard']}</span>: {t['text']}" in page
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="map"') == len(tuvalon_map(doc))


def test_a_live_games_page_shows_the_map_and_no_private_line(tmp_path: Path) -> None:
    with Store(tmp_path / "results.db") as s:
        live = live_game(s, "tuvalon", 60)
    doc = export_live(live)
    rounds = tuvalon_map(doc)
    assert rounds and all(len(r.cells) == 7 for r in rounds)
    assert heard_in_private(doc) == []
    page = game_page(doc)
    assert page.count('class="map"') == len(rounds) and "heard by" not in page
