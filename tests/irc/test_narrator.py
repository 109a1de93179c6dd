"""The narrated spectators' channel over a real IRC server: the referee and the narrator
each on a connection of its own, rule bots playing, a person's client reading the
spectators' channel; and ``arena watch`` following a game from the command line."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import threading
from pathlib import Path


import pytest
import yaml

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import LobbyConfig, NarratorConfig
from arena.irc.link import IrcLink, LinkSettings, ReactorThread
from arena.irc.servers import LocalServer
from arena.narrate.sentence import END, PLAY, SETUP, Sentence
from arena.spectate.service import NarratorService
from arena.protocol import topic_referees
from arena.sdk import Ask, AvalonView, Bot, Player, Talk, TeamAsk, WerewolfView
from arena.sdk.runner import BotRunner

from ..test_narration_facts import facts, public_facts
from .conftest import Recorder, until
from .test_games import FAST, Arena

ROOT = Path(__file__).resolve().parents[2]
LIVE = "#arena-live"
HANG = 300.0
"""Seconds after which a wait here fails: only against a hang (every wait ends on an event),
so the tests pass on a machine as busy as it gets."""
FORMATTING = re.compile(r"\x02|\x03\d{0,2}")


class Chatty(WerewolfRuleBot):
    """A rule bot that always says something when it has the floor."""

    def speech(self, game: WerewolfView, ask: Ask) -> Talk:
        return super().speech(game, ask) or f"{game.me} here, on day {game.state.day}"


def narrated(irc_server: LocalServer, game: str, players: int, bot: type[Bot], per_game: bool = False) -> None:
    arena = Arena(irc_server, players, FAST, game=game, watchers=["arena-tv"])
    for i in range(players):
        arena.add_bot(f"{game[0]}{i}", bot(seed=i))
    own = ReactorThread(tick=0.02, name="narrator")  # its own, as in its own process
    narrator = NarratorService(
        arena.config.server, NarratorConfig(channel=LIVE, lines_per_second=0, per_game=per_game), reactor=own.reactor
    )
    person = Recorder()

    def listen(sender: str, target: str, text: str) -> None:
        person.on_message(sender, target, text)
        found = re.match(r"New \w+ game (\w+) in ", FORMATTING.sub("", text))
        if per_game and found:  # as a person would: to the game's own channel
            reader.join(f"{LIVE}-{found.group(1)}")

    reader = IrcLink(
        irc_server.host,
        irc_server.address.port,
        "person",
        LinkSettings(lines_per_second=0),
        channels=[LIVE],
        reactor=own.reactor,
        on_message=listen,
    )
    with own:
        reader.connect()
        narrator.start()  # in the lobby before the table, which it must hear
        assert reader.wait_ready(HANG) and narrator.link.wait_ready(HANG)
        with arena:
            (match,) = arena.wait(timeout=HANG)
        until(lambda: any(s.plain().startswith("Roles:") for _, s in narrator.said), timeout=HANG)
        live = f"{LIVE}-{match.gid}" if per_game else LIVE
        # The person reads to the end (joining a game's own channel, it may miss its first lines).
        person.wait(lambda: any(m[1] == live and m[2].startswith("Roles:") for m in person.messages), timeout=HANG)
        narrator.close()
        reader.close()
    result = match.game.result
    assert result is not None
    said = [s for _, s in narrator.said if s.gid == match.gid]
    # What the person read is the narration, formatted (names bold), nothing else.
    read = [text for sender, target, text in person.messages if target == live]
    assert all(sender == narrator.link.nick for sender, _, _ in person.messages)
    assert any("\x02" in text for text in read)
    plain = [FORMATTING.sub("", text) for text in read]
    assert any(line.startswith("Game over") for line in plain)
    assert any(line.startswith("Roles:") for line in plain)
    if per_game:  # the game in its own channel, its table and end in the main one too
        main = [FORMATTING.sub("", text) for _, target, text in person.messages if target == LIVE]
        assert main[0].startswith(f"New {game} game {match.gid}") and main[1].startswith("Game over")
        assert any(line.startswith("<") and " here, on day " in line for line in plain), "talk is relayed"
    else:
        assert plain[0].startswith(f"New {game} game {match.gid}")
    # Facts: nothing that the public events do not say, no role before END unless revealed.
    end = next(i for i, s in enumerate(said) if any(f[0] == "winner" for f in s.facts))
    before, at_end = public_facts(game, match.game.events, match.names, result.winners)
    assert facts(said[:end]) - {f for f in facts(said[:end]) if f[0] == "table"} <= before
    assert facts(said[end:]) <= before | at_end
    assert ("winner", result.winner or "none") in facts(said)
    assert any(f[0] == "seats" for f in facts(said)), "told from its START: the game waited for the narrator"


def test_avalon_is_narrated_in_the_spectators_channel(irc_server: LocalServer) -> None:
    narrated(irc_server, "avalon", 5, RuleBot)


def test_werewolf_is_narrated_with_the_players_talk(irc_server: LocalServer) -> None:
    narrated(irc_server, "werewolf", 8, Chatty, per_game=True)


def test_arena_watch_follows_one_game(irc_server: LocalServer, tmp_path: Path) -> None:
    arena = Arena(irc_server, 5, dataclasses.replace(FAST), game="avalon")
    for i in range(5):
        arena.add_bot(f"a{i}", RuleBot(seed=i))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"server": {"host": irc_server.host, "port": irc_server.port}}))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    watcher = subprocess.Popen(
        [sys.executable, "-m", "arena", "--config", str(config), "watch", "g1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert watcher.stderr is not None
        assert watcher.stderr.readline().startswith("watching g1 of #arena")  # it is in the lobby
        with arena:
            arena.wait(timeout=HANG)
            out, err = watcher.communicate(timeout=HANG)
    finally:
        watcher.kill()
    assert watcher.returncode == 0, err
    lines = out.splitlines()
    assert "\x1b" not in out  # plain text into a pipe
    assert lines[0].startswith("New avalon game g1 in #arena-g1: ")
    assert any(line.startswith("Approved ") or line.startswith("Rejected ") for line in lines)
    assert any(line.startswith("Game over") for line in lines)
    assert lines[-1].startswith("Elo ratings") or lines[-1].startswith("Roles:")


@pytest.mark.parametrize("rate,per_game", [(0, False), (2, True)], ids=["unlimited", "2-lines-per-second"])
def test_three_tables_at_once_each_game_is_told_from_its_setup_to_its_end(
    irc_server: LocalServer, rate: float, per_game: bool
) -> None:
    """Three games at once: the narrator joins each game's channel at once however much it
    has yet to say, the referee waits for it there, and a narration that falls behind skips
    the play of games, saying how much, never a game's table, deal or end."""
    lobby = LobbyConfig(
        min_players=5, max_players=5, auto_start=False, join_timeout=HANG, topic_interval=0.1, operators=("watcher",)
    )
    arena = Arena(irc_server, 15, FAST, games=3, lobby=lobby, watchers=["arena-tv"])
    waiting = threading.Event()
    arena.spectator.on_topic = lambda channel, text: waiting.set() if " | waiting 15: " in text else None
    for i in range(15):
        arena.add_bot(f"a{i}", RuleBot(seed=i))
    own = ReactorThread(tick=0.02, name="narrator")  # its own, as in its own process
    narrator = NarratorService(
        arena.config.server,
        NarratorConfig(channel=LIVE, lines_per_second=rate, burst=3, backlog=6, per_game=per_game),
        reactor=own.reactor,
    )
    heard: list[Sentence] = []
    post = narrator.spectator.on_sentence

    def hear(sentence: Sentence) -> None:
        heard.append(sentence)
        post(sentence)

    narrator.spectator.on_sentence = hear
    person = Recorder()
    reader = IrcLink(
        irc_server.host,
        irc_server.address.port,
        "person",
        LinkSettings(lines_per_second=0),
        channels=[LIVE],
        reactor=own.reactor,
        on_message=person.on_message,
    )
    with own:
        reader.connect()
        narrator.start()  # in the lobby before the first table
        assert reader.wait_ready(HANG) and narrator.link.wait_ready(HANG)
        with arena:
            assert waiting.wait(HANG)
            arena.spectator.send("#arena", "!start")  # three tables at once
            matches = arena.wait(games=3, timeout=HANG)
        gids = {match.gid for match in matches}

        def ended(gid: str) -> bool:
            return any(s.gid == gid and s.plain().startswith("Roles:") for _, s in narrator.said)

        until(lambda: all(ended(gid) for gid in gids), timeout=HANG)
        person.wait(
            lambda: sum(FORMATTING.sub("", m[2]).startswith("Game over") for m in person.messages) >= 3, timeout=HANG
        )
        narrator.close()
        reader.close()
    tables = [i for i, s in enumerate(heard) if any(f[0] == "table" for f in s.facts)]
    assert len(gids) == 3 and len(tables) == 3
    assert tables[2] < min(i for i, s in enumerate(heard) if s.stage == END), "three tables at once"
    said = [sentence for _, sentence in narrator.said]
    for gid in sorted(gids):
        mine = [s for s in heard if s.gid == gid]
        assert any(("seats",) == f[:1] for s in mine for f in s.facts), f"{gid}: its START was heard"
        told = [s for s in said if s.gid == gid]
        assert [s for s in told if s.stage != PLAY] == [s for s in mine if s.stage != PLAY], gid
        assert [s.stage for s in told[:2]] == [SETUP, SETUP] and told[-1].plain().startswith("Roles:"), gid
        notices = [s.plain() for s in told if s.plain().startswith("(narration is behind")]
        dropped = [s for s in mine if s not in told]
        assert all(s.stage == PLAY for s in dropped), gid
        assert bool(dropped) == bool(notices), (gid, notices)  # it says so when it skips, and only then
        lobby_lines = [FORMATTING.sub("", text) for _, target, text in person.messages if target == LIVE]
        assert any(line.startswith(f"New avalon game {gid} in ") for line in lobby_lines), gid
    if rate:
        assert any(s.plain().startswith("(narration is behind: ") for s in said), "three games outrun 2 lines/s"


class Held(RuleBot):
    """A rule bot that proposes no team until the test has seen what it waits for."""

    def __init__(self, seed: int, release: threading.Event) -> None:
        super().__init__(seed)
        self.release = release

    def team(self, game: AvalonView, ask: TeamAsk) -> list[Player]:
        self.release.wait(HANG)
        return super().team(game, ask)


def test_the_lobby_topic_says_who_waits_and_what_runs(irc_server: LocalServer) -> None:
    """Bound by events: the game starts when an operator says so, once the topic has shown
    the five bots waiting, and it runs until the topic has shown it running."""
    lobby = LobbyConfig(
        min_players=5, max_players=6, auto_start=False, join_timeout=HANG, topic_interval=0.1, operators=("watcher",)
    )
    running = threading.Event()
    arena = Arena(irc_server, 5, dataclasses.replace(FAST, decision=HANG), lobby=lobby)
    for i in range(5):
        arena.add_bot(f"a{i}", Held(i, running))
    topics: list[str] = []
    seen = threading.Condition()

    def on_topic(channel: str, text: str) -> None:
        with seen:
            topics.append(text)
            seen.notify_all()
        if text.endswith("waiting 0; running: g1 avalon"):
            running.set()

    arena.spectator.on_topic = on_topic
    with arena:
        with seen:
            assert seen.wait_for(lambda: any(" | waiting 5: " in t for t in topics), HANG)
        arena.spectator.send("#arena", "!start")
        assert running.wait(HANG)
        arena.wait(timeout=HANG)
    assert all(topic_referees(t) == ["arena"] for t in topics)
    assert any(t.startswith("arena referee: arena | waiting 5: a") and t.endswith("; no game running") for t in topics)
    assert any(t.endswith("waiting 0; running: g1 avalon") for t in topics)
    statuses = [t for t in topics if " | " in t]
    assert all(a != b for a, b in zip(statuses, statuses[1:]))  # set only when it changed


def test_arena_serve_runs_the_narrator_when_configured(irc_server: LocalServer, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "server": {"host": irc_server.host, "port": irc_server.port, "lines_per_second": 0},
                "identity": {"require_key": False},
                "lobby": {"min_players": 5, "max_players": 5, "countdown": 0.2},
                "narrator": {"channel": LIVE, "lines_per_second": 0},
                "store": {"path": str(tmp_path / "results.db")},
            }
        )
    )
    person = Recorder()
    reactor = ReactorThread(tick=0.02).start()
    reader = IrcLink(
        irc_server.host,
        irc_server.address.port,
        "person",
        LinkSettings(lines_per_second=0),
        channels=[LIVE],
        reactor=reactor.reactor,
        on_message=person.on_message,
    )
    reader.connect()
    assert reader.wait_ready(HANG)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena", "--config", str(config), "serve", "--games", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    runners = [
        BotRunner(
            RuleBot(seed=i),
            irc_server.host,
            irc_server.address.port,
            f"s{i}",
            lines_per_second=0,
            reactor=reactor.reactor,
        )
        for i in range(5)
    ]
    try:
        until(lambda: "arena-tv" in reader.members(LIVE), timeout=HANG)  # the narrator is up before the bots
        for runner in runners:
            runner.start()
        person.wait(lambda: any(m[2].startswith("Roles:") for m in person.messages), timeout=HANG)
        out, err = serve.communicate(timeout=HANG)
    finally:
        serve.kill()
        for runner in runners:
            runner.link.close()
        reader.close()
        reactor.stop()
    assert serve.returncode == 0, err
    assert "narrator arena-tv tells the games in #arena-live" in out
    plain = [FORMATTING.sub("", text) for sender, _, text in person.messages if sender == "arena-tv"]
    assert plain[0].startswith("New avalon game ") and any(line.startswith("Game over") for line in plain)
