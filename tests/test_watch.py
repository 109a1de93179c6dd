"""What spectators get: ``arena export``'s document, the reports and the web view; above
all, that a game in progress shows nothing its channel has not shown, whatever asks."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.report.views import Names, avalon, describe, event_lines, talk_by_proposal, werewolf, word
from arena.store import LiveGame, Store
from arena.store.export import FINISHED, LIVE, export, export_game, export_live
from arena.web import create_app
from tests.watched import hub_game, live_game, PacedJournal, run, stored_tournaments

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "operators.md"


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("watch") / "results.db"
    stored_tournaments(path)
    return path


@pytest.fixture
def store(stored: Path) -> Iterator[Store]:
    with Store(stored) as s:
        yield s


def test_a_finished_games_document_holds_everything(store: Store) -> None:
    for gid in ("av-1", "ww-1"):
        game = store.games.load(gid)
        assert game is not None
        doc = export_game(game)
        assert json.loads(json.dumps(doc)) == doc, "not plain JSON"
        assert doc["status"] == FINISHED and doc["seed"] == game.seed
        assert [(p["nick"], p["bot"], p["role"], p["side"]) for p in doc["players"]] == list(
            zip(game.summary.nicks, game.summary.bots, game.roles, game.sides)
        )
        assert [p["result"] for p in doc["players"]] == [o.result for o in game.outcomes]
        assert [(e["kind"], e["audience"]) for e in doc["events"]] == [
            (e.kind, None if e.audience is None else sorted(e.audience)) for e in game.events
        ]
        assert any(e["audience"] for e in doc["events"]), "the private events are missing"
        assert [(line["to"], line["line"]) for line in doc["lines"]] == list(game.transcript)
        assert len(doc["actions"]) == len(game.history)
        assert doc["result"]["winner"] == game.summary.winner
        elo = {c["entity"]: c for c in doc["ratings"]["elo"] if c["kind"] == "bot"}
        assert set(elo) == set(game.summary.bots)
        assert all(c["before"]["mu"] != c["after"]["mu"] for c in elo.values())


def _keys(value: Any, prefix: str = "") -> set[str]:
    """Every field name of a document, nested ones too (not inside event data or options)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            if key not in ("data", "options"):
                found |= _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= _keys(inner)
    return found


def test_every_field_of_the_document_is_documented(store: Store) -> None:
    text = GUIDE.read_text()
    section = text[text.index("\n## The export format\n") :]
    section = section[: section.index("\n## ", 1)]
    doc = export(store, "av-1")
    assert doc is not None
    missing = sorted(k for k in _keys(doc) if f"`{k}`" not in section and k not in ("elo", "trueskill"))
    assert not missing, f"docs/operators.md's export format lacks {missing}"


def secrets_of(live: LiveGame) -> list[str]:
    """What a spectator must not see of a game in progress: every direct message the
    referee sent, every answer line, each seat's role as the report would say it ("p1 is
    merlin (good)": the bots' own talk may well say "w2 is werewolf"), and the seed."""
    finished = hub_game_roles(live)
    told = [line for to, _seat, line in live.lines if to is not None]
    assert told and live.answers, "the game has no direct message or answer yet: a poor test"
    return [
        *told,
        *(a.line for a in live.answers),
        *(f"{nick} is {role} (" for nick, role in finished),
        *(f"{nick} is {word(role)} (" for nick, role in finished),
        str(live.seed),
    ]


def hub_game_roles(live: LiveGame) -> list[tuple[str, str]]:
    """Each seat's role, from the engine rebuilt from the journal (what the store knows)."""
    from arena.games import rebuild

    engine = rebuild(live.game, len(live.names), live.options, live.seed, live.deal, live.history)
    roles = [e.data["role"] for e in engine.events if e.kind == "role"]
    return list(zip(live.names, roles))


def outputs(path: Path, gid: str) -> dict[str, str]:
    """A game as every way of showing it shows it: the export (function and command), the
    report, and each page and document of the web view."""
    out = {}
    with Store(path) as s:
        out["export()"] = json.dumps(export(s, gid))
    out["arena export"] = run(path, "export", gid).output
    report = path.with_name("report.html")
    run(path, "report", gid, "-o", str(report))
    out["arena report"] = report.read_text()
    run(path, "report", "--all", "-o", str(report))
    out["arena report --all"] = report.read_text()
    client = create_app(str(path)).test_client()
    for url in ("/", "/all", f"/games/{gid}", f"/games/{gid}/body", f"/games/{gid}.json"):
        response = client.get(url)
        assert response.status_code == 200, url
        out[url] = response.get_data(as_text=True)
    return out


@pytest.mark.parametrize("game, stop_at", [("avalon", 8), ("werewolf", 30), ("tuvalon", 60), ("chaos", 40)])
def test_a_game_in_progress_tells_no_secret_anywhere(tmp_path: Path, game: str, stop_at: int) -> None:
    path = tmp_path / "results.db"
    with Store(path) as s:
        live = live_game(s, game, stop_at)
    doc = export_live(live)
    assert doc["status"] == LIVE and doc["seed"] is None and doc["actions"] == [] and doc["ratings"] == {}
    assert all(p["role"] is None and p["side"] is None for p in doc["players"])
    assert all(e["audience"] is None for e in doc["events"])
    assert all(line["to"] is None for line in doc["lines"]) and doc["lines"]
    secrets = secrets_of(live)
    for where, text in outputs(path, live.id).items():
        for secret in secrets:
            assert secret not in text, f"{where} shows {secret!r} of a game in progress"
        assert "ROLE " not in text, where
    for how in ([], ["--pretty"], ["--all"], ["--as", live.names[0]]):
        replayed = CliRunner().invoke(main, ["replay", live.id, *how], env={"ARENA_STORE_PATH": str(path)})
        assert replayed.exit_code == 1 and "is still being played: follow it with `arena watch" in replayed.output


def test_once_recorded_the_same_game_shows_everything(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store(path) as s:
        hub_game(s, "avalon", PacedJournal(s))
        doc = export(s, "g1")
        assert doc is not None and doc["status"] == FINISHED and s.live.all() == []
    page = outputs(path, "g1")["/games/g1"]
    for p in doc["players"]:
        assert p["role"] and f">{p['role']}<" in page
    assert "<script" not in page, "a finished game's page needs no script"


def test_a_report_needs_no_network(stored: Path, tmp_path: Path) -> None:
    for args in (["av-1"], ["ww-2"], ["--tournament", "av"], ["--all"]):
        out = tmp_path / "r.html"
        run(stored, "report", *args, "-o", str(out))
        html = out.read_text()
        assert "<script" not in html and not re.search(r"""(src|href)=["']?(https?:)?//""", html), args
        assert "<svg" in html if args[0] in ("--tournament", "--all") else True


def test_the_vote_grid_and_the_timeline(store: Store) -> None:
    doc = export(store, "av-1")
    assert doc is not None
    names = Names(tuple(p["nick"] for p in doc["players"]))
    view = avalon(doc, names)
    events = doc["events"]
    assert len(view.proposals) == sum(e["kind"] == "leader" for e in events)
    assert [q.result for q in view.quests if q.result] == [e["data"]["result"] for e in events if e["kind"] == "quest"]
    for row in view.proposals:
        assert row.passed is not None and len(row.votes) == len(doc["players"])
    ww = export(store, "ww-1")
    assert ww is not None
    phases = werewolf(ww, Names(tuple(p["nick"] for p in ww["players"])))
    nights = sum(e["kind"] == "night" for e in ww["events"])
    assert sum(p.night for p in phases) == nights
    assert phases[-1].title == "End"
    executed = [e["data"]["seat"] for e in ww["events"] if e["kind"] == "execution"]
    text = " ".join(i.text for p in phases for i in p.items)
    assert all(f"{ww['players'][s]['nick']} (" in text for s in executed)
    turns = [i for p in phases for i in p.items if i.kind == "speech"]
    assert turns and all((" speaks" in i.text) == bool(i.talk) for i in turns), "a speech without a word"
    assert any(" says nothing" in i.text for i in turns), "the rule bots spoke every turn: a poor test"
    nights = [i.text for p in phases if p.night for i in p.items]
    assert nights and not [t for t in nights if re.search(r"^[a-z ]+: night \d", t)], nights
    log = event_lines(ww, Names(tuple(p["nick"] for p in ww["players"])))
    assert [i.text for i in log if i.kind == "speech"] == [i.text for i in turns]


def test_web_view_pages(stored: Path) -> None:
    client = create_app(str(stored)).test_client()
    home = client.get("/").get_data(as_text=True)
    assert 'href="/games/av-1"' in home and 'href="/tournaments/ww"' in home
    assert client.get("/games/nope").status_code == 404
    assert client.get("/games/nope.json").status_code == 404
    assert client.get("/tournaments/nope").status_code == 404
    with Store(stored) as s:
        assert client.get("/games/ww-2.json").get_json() == export(s, "ww-2")
    body = client.get("/games/av-2/body")
    assert body.headers["X-Arena-Status"] == FINISHED
    assert "Tournament av" in client.get("/tournaments/av").get_data(as_text=True)


def test_commands(stored: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    run(stored, "export", "av-3", "--format", "json", "-o", str(out))
    with Store(stored) as s:
        assert json.loads(out.read_text()) == export(s, "av-3")
    from click.testing import CliRunner

    from arena.cli import main

    env = {"ARENA_STORE_PATH": str(stored)}
    for args in (["report", "-o", "x.html"], ["report", "av-1", "--all", "-o", "x.html"]):
        assert CliRunner().invoke(main, args, env=env).exit_code == 2
    missing = CliRunner().invoke(main, ["export", "nope"], env=env)
    assert missing.exit_code == 1 and "no game 'nope'" in missing.output
    nowhere = CliRunner().invoke(
        main, ["report", "--all", "-o", "x.html"], env={"ARENA_STORE_PATH": str(tmp_path / "no.db")}
    )
    assert nowhere.exit_code == 1 and "no results database" in nowhere.output


def test_web_says_where_it_listens_and_ends_on_ctrl_c_as_every_command(stored: Path, tmp_path: Path) -> None:
    """Its own port, when asked for any (0); Ctrl-C: the one line and status 130."""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "ARENA_STORE_PATH": str(stored),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--port", "0"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        found = re.fullmatch(r"arena web on http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line)
        assert found and found.group(1) != "0", line
        with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/", timeout=60) as page:
            assert 'href="/games/av-1"' in page.read().decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130 and err.splitlines()[-1] == "interrupted (Ctrl-C)", (proc.returncode, err)


def test_rating_history_and_tournament_stats(store: Store) -> None:
    for system in ("elo", "trueskill"):
        history = store.ratings.history("avalon", system, "av")
        board = store.ratings.leaderboard("avalon", system, tournament="av")
        assert {r.bot: (r.mu, r.sigma) for r in board} == {
            bot: (points[-1][1].mu, points[-1][1].sigma) for bot, points in history.items()
        }
        assert max(n for points in history.values() for n, _ in points) == 4
    stats = store.stats.bots("avalon", tournament="av")
    assert sum(s.overall.games for s in stats.values()) == 4 * 5
    assert store.stats.bots("avalon", tournament="ww") == {}


def test_a_long_rating_series_is_thinned_to_what_a_chart_can_show() -> None:
    from arena.report.charts import MAX_POINTS, Point, rating_chart

    series = {"a": [Point(n, 1500 + n % 7, 0) for n in range(1, 5001)], "b": [Point(1, 1500, 0)]}
    svg = str(rating_chart(series, "Elo", band=False))
    lines = re.findall(r'<polyline points="([^"]*)"', svg)
    assert [len(points.split()) for points in lines] == [MAX_POINTS, 1]
    assert "game 5000" in svg and "a 1502.0" in svg, "the last game is not kept"


def lab(colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` in CIELAB (D65), where distance is how different colours look."""

    def linear(c: int) -> float:
        u = c / 255
        return ((u + 0.055) / 1.055) ** 2.4 if u > 0.04045 else u / 12.92

    r, g, b = (linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    x, y, z = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


@pytest.mark.parametrize("bots", [12, 20, 24])
def test_every_bot_of_a_chart_has_a_line_of_its_own(bots: int) -> None:
    """Twenty bots: twenty colours no closer than the first ten are to each other; beyond,
    the colours come round again with another dash. The chart grows to hold the legend."""
    from arena.report.charts import Point, rating_chart

    series = {f"bot{i:02d}": [Point(1, 1500 + i, 0), Point(2, 1490 + i, 0)] for i in range(bots)}
    svg = str(rating_chart(series, "Elo", band=False))
    styles = re.findall(
        r'<polyline points="[^"]*" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="2"'
        r'(?: stroke-dasharray="([^"]*)")?/>',
        svg,
    )
    assert len(styles) == bots and len(set(styles)) == bots, styles
    colours = sorted({colour for colour, _ in styles})
    assert len(colours) == min(bots, 20)
    closest = min(math.dist(lab(a), lab(b)) for a, b in itertools.combinations(colours, 2))
    assert closest > 25, closest
    found = re.search(r'<svg [^>]*height="(\d+)"', svg)
    assert found is not None
    height = float(found.group(1))
    legend = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" fill="#', svg)]
    assert len(legend) == bots and max(legend) < height


def test_the_talk_is_under_the_speech_it_was_said_in(store: Store, tmp_path: Path) -> None:
    """Over the stored tournament's games (dealt at random) and one whose seer speaks."""
    from arena.report.views import talk_by_event

    with Store(tmp_path / "results.db") as mine:
        hub_game(mine, "werewolf", PacedJournal(mine))
        docs = [export(mine, "g1"), *(export(store, f"ww-{n}") for n in range(1, 5))]
    said = 0
    for doc in docs:
        assert doc is not None
        placed, unplaced = talk_by_event(doc)
        assert unplaced == [], "a finished game's talk all belongs to some turn"
        for index, talk in placed.items():
            event = doc["events"][index]
            seat = event["data"]["seat"]
            assert event["kind"] in ("speech", "candidacy") and not event["data"].get("passed")
            turns_before = sum(
                e["kind"] in ("speech", "candidacy") and e["data"]["seat"] == seat for e in doc["events"][:index]
            )
            nick = doc["players"][seat]["nick"]
            for t in talk:
                assert t["seat"] == seat
                ended = [
                    line
                    for line in doc["lines"][: t["after"]]
                    if line["to"] is None
                    and line["line"].split(" ")[0] in ("SPEECH", "CANDIDACY")
                    and f" player={nick} " in line["line"]
                ]
                assert len(ended) == turns_before, "talk placed under another turn of its speaker"
        assert sum(map(len, placed.values())) == len(doc["talk"])
        said += len(doc["talk"])
    assert said, "the rule bots said nothing: a poor test"


def test_every_werewolf_event_reads_as_words_with_nicks() -> None:
    """The chaos deck's events: roles as words, seats as nicks, no Python values."""
    names = Names(("ann", "ben", "cat", "dan"))
    said = [
        describe("detective_result", {"night": 1, "players": [0, 3], "same": False}, names),
        describe("masons", {"masons": [1, 2]}, names),
        describe("cult", {"night": 2, "leader": 0, "members": [0, 2], "new": 2}, names),
        describe("thief_cards", {"cards": ["wolf_seer", "villager"]}, names),
        describe("role", {"seat": 1, "role": "bus_driver", "team": "neutral"}, names),
        describe("dawn", {"day": 2, "dead": [3], "roles": ["cult_leader"]}, names),
        describe("lovers", {"lovers": [1, 3], "cupid": 0}, names),
        describe("hunter_shot", {"hunter": 2, "target": None}, names),
        describe("end", {"winner": "werewolf", "reason": "parity_or_majority"}, names),
        describe("leader", {"leader": None, "candidates": [], "counts": [], "abstentions": 0, "tie": False}, names),
        describe("order", {"start": 1, "direction": "clockwise", "speakers": [1, 2, 3, 1], "leader": 1}, names),
        describe("seer_result", {"night": 1, "target": 2, "team": "werewolf"}, names),
        describe("wolf_votes", {"night": 1, "votes": [[0, 2], [1, "abstain"]], "target": 2}, names),
        describe("wolf_target", {"night": 1, "target": None}, names),
        describe("watched", {"night": 1, "target": 1, "visitors": [0, 2, 3]}, names),
        describe("dealt", {"night": 1, "card": "vision", "player": 2, "side": "village"}, names),
        describe("speech", {"seat": 3, "purpose": "last_words", "passed": False}, names, said=False),
    ]
    assert said == [
        "the detective finds ann and dan on different sides",
        "the masons are ben and cat",
        "ann, the cult leader, recruits cat; the cult is ann and cat",
        "the cards left over are wolf seer and villager",
        "ben is bus driver (neutral)",
        "Day 2 dawns: dan (cult leader) died in the night",
        "ann, Cupid, makes ben and dan lovers",
        "cat, the hunter, shoots nobody",
        "werewolf wins (parity or majority)",
        "nobody stood for leader: the day has no leader",
        "speaking order: ben, cat, dan, then ben again, as leader",
        "the seer sees cat as werewolf",
        "the wolves vote (ann for cat, ben abstains): they attack cat",
        "the wolves attack nobody",
        "the watcher watches ben, visited by ann, cat and dan",
        "the dealer deals the vision card: cat is seen as village",
        "dan says nothing (last words)",
    ]


def test_watching_a_game_that_is_over_points_to_its_replay(stored: Path) -> None:
    result = CliRunner().invoke(main, ["watch", "av-1"], env={"ARENA_STORE_PATH": str(stored)})
    assert result.exit_code == 1 and "av-1 is over; told the same way: arena replay av-1 --pretty" in result.output


def test_avalon_and_tuvalon_talk_is_placed_by_proposal() -> None:
    doc = {
        "lines": [
            {"to": None, "line": "START g1 game=tuvalon"},
            {"to": None, "line": "ASK g1 1 team to=a deadline=30 options=a,b pick=2 quest=1 attempt=1"},
            {"to": "a", "line": "ROLE g1 role=merlin"},
            {"to": None, "line": "ASK g1 9 team to=b deadline=30 options=a,b pick=2 quest=1 attempt=2"},
        ],
        "talk": [
            {"nick": "a", "text": "hi", "after": 1},
            {"nick": "b", "text": "me!", "after": 2},
            {"nick": "a", "text": "no", "after": 4},
        ],
    }
    assert [(when, t["text"]) for when, t in talk_by_proposal(doc)] == [
        ("before quest 1", "hi"),
        ("1.1", "me!"),
        ("1.2", "no"),
    ]
