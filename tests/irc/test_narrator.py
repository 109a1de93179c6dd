"""The narrated spectators' channel over a real IRC server: the referee and the narrator
each on a connection of its own, rule bots playing, a person's client reading the
spectators' channel; and ``arena watch`` following a game from the command line."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import time

import yaml

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import LobbyConfig, NarratorConfig
from arena.irc.link import IrcLink, ReactorThread
from arena.irc.servers import LocalServer
from arena.narrate.service import NarratorService
from arena.protocol import topic_referee
from arena.sdk import Ask, AvalonView, Bot, Player, TeamAsk
from arena.sdk.runner import BotRunner
from arena.sdk.werewolf import Talk, WerewolfView

from ..test_narration_facts import facts, public_facts
from .conftest import Recorder, until
from .test_games import FAST, Arena

ROOT = Path(__file__).resolve().parents[2]
LIVE = "#arena-live"
FORMATTING = re.compile(r"\x02|\x03\d{0,2}")


class Chatty(WerewolfRuleBot):
    """A rule bot that always says something when it has the floor."""

    def speech(self, game: WerewolfView, ask: Ask) -> Talk:
        return super().speech(game, ask) or f"{game.me} here, on day {game.state.day}"


def narrated(irc_server: LocalServer, game: str, players: int, bot: type[Bot], per_game: bool = False) -> None:
    arena = Arena(irc_server, players, FAST, game=game)
    for i in range(players):
        arena.add_bot(f"{game[0]}{i}", bot(seed=i))
    narrator = NarratorService(arena.config.server, NarratorConfig(channel=LIVE, lines_per_second=0,
                                                                   per_game=per_game), reactor=arena.bots.reactor)
    person = Recorder()

    def listen(sender: str, target: str, text: str) -> None:
        person.on_message(sender, target, text)
        found = re.match(r"New \w+ game (\w+) in ", FORMATTING.sub("", text))
        if per_game and found:  # as a person would: to the game's own channel
            reader.join(f"{LIVE}-{found.group(1)}")

    reader = IrcLink(irc_server.host, irc_server.port, "person", channels=[LIVE], lines_per_second=0,
                     reactor=arena.bots.reactor, on_message=listen)
    with arena:
        reader.connect()
        narrator.start()
        assert reader.wait_ready(5) and narrator.link.wait_ready(5)
        (match,) = arena.wait(timeout=60)
        until(lambda: any(s.plain().startswith("Roles:") for _, s in narrator.said), timeout=10)
        live = f"{LIVE}-{match.gid}" if per_game else LIVE
        # The person reads to the end (joining a game's own channel, it may miss its first lines).
        person.wait(lambda: any(m[1] == live and m[2].startswith("Roles:") for m in person.messages), timeout=10)
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
    watcher = subprocess.Popen([sys.executable, "-m", "arena", "--config", str(config), "watch", "g1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert watcher.stderr is not None
        assert watcher.stderr.readline().startswith("watching g1 of #arena")  # it is in the lobby
        with arena:
            arena.wait(timeout=60)
            out, err = watcher.communicate(timeout=20)
    finally:
        watcher.kill()
    assert watcher.returncode == 0, err
    lines = out.splitlines()
    assert "\x1b" not in out  # plain text into a pipe
    assert lines[0].startswith("New avalon game g1 in #arena-g1: ")
    assert any(line.startswith("Approved ") or line.startswith("Rejected ") for line in lines)
    assert any(line.startswith("Game over") for line in lines)
    assert lines[-1].startswith("Elo ratings") or lines[-1].startswith("Roles:")


class Slow(RuleBot):
    """A rule bot that takes its time to lead, so the game is seen running."""

    def team(self, game: AvalonView, ask: TeamAsk) -> list[Player]:
        time.sleep(0.15)
        return super().team(game, ask)


def test_the_lobby_topic_says_who_waits_and_what_runs(irc_server: LocalServer) -> None:
    lobby = LobbyConfig(min_players=5, max_players=6, countdown=0.5, join_timeout=5.0, topic_interval=0.1)
    arena = Arena(irc_server, 5, FAST, lobby=lobby)
    for i in range(5):
        arena.add_bot(f"a{i}", Slow(seed=i))
    topics: list[str] = []
    arena.spectator.on_topic = lambda channel, text: topics.append(text)
    with arena:
        arena.wait(timeout=60)
    assert all(topic_referee(t) == "arena" for t in topics)
    assert any(t.startswith("arena referee: arena | waiting 5: a") and t.endswith("; no game running") for t in topics)
    assert any(t.endswith("waiting 0; running: g1 avalon") for t in topics)
    statuses = [t for t in topics if " | " in t]
    assert all(a != b for a, b in zip(statuses, statuses[1:]))  # set only when it changed


def test_arena_serve_runs_the_narrator_when_configured(irc_server: LocalServer, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "server": {"host": irc_server.host, "port": irc_server.port, "lines_per_second": 0},
        "identity": {"require_key": False},
        "lobby": {"min_players": 5, "max_players": 5, "countdown": 0.2},
        "narrator": {"channel": LIVE, "lines_per_second": 0},
        "store": {"path": str(tmp_path / "results.db")},
    }))
    person = Recorder()
    reactor = ReactorThread(tick=0.02).start()
    reader = IrcLink(irc_server.host, irc_server.port, "person", channels=[LIVE], lines_per_second=0,
                     reactor=reactor.reactor, on_message=person.on_message)
    reader.connect()
    assert reader.wait_ready(5)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    serve = subprocess.Popen([sys.executable, "-m", "arena", "--config", str(config), "serve", "--games", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    runners = [BotRunner(RuleBot(seed=i), irc_server.host, irc_server.port, f"s{i}", lines_per_second=0,
                         reactor=reactor.reactor) for i in range(5)]
    try:
        until(lambda: "arena-tv" in reader.members(LIVE), timeout=15)  # the narrator is up before the bots
        for runner in runners:
            runner.start()
        person.wait(lambda: any(m[2].startswith("Roles:") for m in person.messages), timeout=30)
        out, err = serve.communicate(timeout=20)
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
