"""An 8-player Werewolf game over a real IRC server: speaking turns in the channel (none
lost to the server, none longer than the floor allows), wolf talk relayed by the referee,
and nobody (player or spectator) ever hearing the wolves' talk or a night action that was
not theirs."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.irc.servers import LocalServer
from arena.protocol import FLOOR_LINES, parse
from arena.sdk import Ask, GameView
from arena.sdk.runner import BotRunner
from arena.sdk.speech import lines_of

from ..werewolf.helpers import werewolf
from .test_games import FAST, Arena

NIGHT_VERBS = {"SEER", "WOLF_VOTES", "WOLF_TARGET", "WOLVES", "LOVERS", "CHARMED", "TEAM", "ROLE"}


class Talker(WerewolfRuleBot):
    """A rule bot that speaks at every turn as soon as it is asked, talks to its pack, and
    once a game blurts a line into the channel at night (out of turn: the referee must
    refuse it). The first Talker at the floor in a game says two lines past the cap (past
    the SDK, which would not say them)."""

    def __init__(self, seed: int, long: set[str]) -> None:
        super().__init__(seed)
        self.blurt: Tap | None = None
        self.blurted: set[str] = set()
        self.chat_heard: list[tuple[str, str]] = []
        self.long = long
        """Games where a Talker made its long speech already (shared by the table)."""
        self.spoken: list[list[str]] = []
        self.over: list[str] = []
        """Games where this bot's speech filled its turn, and two lines more are due."""

    def on_chat(self, game: GameView[Any], nick: str, text: str) -> None:
        self.chat_heard.append((nick, text))
        super().on_chat(game, nick, text)

    def speech(self, game: GameView[Any], ask: Ask) -> list[str]:
        lines = [f"{game.me} has the floor ({ask.kind}, turn {len(self.spoken)})", *lines_of(super().speech(game, ask))]
        if game.gid not in self.long:
            self.long.add(game.gid)
            lines += [f"{game.me} speaks on, line {i}" for i in range(len(lines) + 1, FLOOR_LINES + 1)]
            self.over.append(game.gid)
        self.spoken.append(lines)
        return lines

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        """After a speech of a whole turn, two lines more, said past the SDK (which would
        cut them): the server and the referee must keep them out of the record."""
        if ask.floor and game.gid in self.over and self.blurt is not None:
            self.over.remove(game.gid)
            extra = [f"{game.me} speaks on, line {i}" for i in (FLOOR_LINES + 1, FLOOR_LINES + 2)]
            for line in extra:
                self.blurt.say_now(game.gid, line)
            self.spoken[-1] += extra
        return super().decide(game, ask)

    def team_talk(self, game: GameView[Any], ask: Ask) -> list[str]:
        if self.blurt is not None and game.gid not in self.blurted:
            self.blurted.add(game.gid)
            self.blurt.say_now(game.gid, f"{game.me} out of turn at night")
        return [f"pack secret from {game.me}"] if ask.kind == "wolf_vote" else []


class Tap(BotRunner):
    """A bot runner that keeps every IRC message its bot's connection received."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.heard: list[tuple[str, str, str]] = []
        self.heard_lock = threading.Lock()
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _on_message(self, sender: str, target: str, text: str) -> None:
        with self.heard_lock:
            self.heard.append((sender, target, text))
        super()._on_message(sender, target, text)

    def say_now(self, gid: str, text: str) -> None:
        self._say(gid, text)


def test_werewolf_game_keeps_wolf_talk_and_night_actions_secret(irc_server: LocalServer) -> None:
    # Nights held to a minimum length: the service must wake up when the hold ends.
    arena = Arena(irc_server, 8, dataclasses.replace(FAST, secret_minimum=0.3), game="werewolf")
    taps: dict[str, Tap] = {}
    long: set[str] = set()
    for i in range(8):
        nick = f"w{i}"
        bot = Talker(seed=i, long=long)
        tap = Tap(bot, irc_server.host, irc_server.port, nick, lines_per_second=0, reactor=arena.bots.reactor)
        bot.blurt = tap
        taps[nick] = tap
        arena.runners.append(tap)
    with arena:
        (match,) = arena.wait(timeout=60)
    game = werewolf(match.game)
    result = game.result
    assert result is not None and result.forfeited is None
    wolves = {match.names[s] for s, r in enumerate(game.roles) if r == "werewolf"}
    channel = f"#arena-{match.gid}"

    # The spectator saw the public game only: no night line, no pack talk, no blurt.
    public = arena.seen_from_start(match)
    assert public[-1].startswith("END")
    for line in public:
        msg = parse(line)
        assert msg.verb not in NIGHT_VERBS
        assert not (msg.verb == "ASK" and msg.args[2] in game.secret_kinds)
    everything = [text for _, target, text in arena.spectator_log.messages if target == channel]
    assert not any("pack secret" in t for t in everything)
    said = [(s, t) for s, target, t in arena.spectator_log.messages if target == channel and s != "arena"]
    assert any("has the floor" in t for _, t in said), "speakers talk in the channel"

    # The wolves' talk reached living wolves only, relayed by the referee.
    relayed = [(to, parse(line)) for to, line in match.transcript if line.startswith("TEAM")]
    assert relayed and all(to in wolves and m.get("from") in wolves for to, m in relayed)

    # Each player heard only its own night: no TEAM unless a wolf, no one else's secret request.
    for nick, tap in taps.items():
        with tap.heard_lock:
            heard = list(tap.heard)
        for sender, target, text in heard:
            assert "pack secret" not in text or (nick in wolves and sender == "arena")
            if sender != "arena":
                continue
            ref_msg = parse(text) if text[:1].isupper() else None
            if ref_msg is None:
                continue
            if ref_msg.verb == "ASK" and ref_msg.args[2] in game.secret_kinds:
                assert ref_msg.get("to") == nick and target == nick
            if ref_msg.verb in ("WOLF_VOTES", "WOLVES", "TEAM"):
                assert nick in wolves
            if ref_msg.verb == "SEER":
                assert game.roles[match.names.index(nick)] == "seer"

    # Out-of-turn lines were refused by the referee (and on ngircd never even reached the channel).
    assert any(isinstance(t.session.bot, Talker) and t.session.bot.blurted for t in taps.values())
    refused = [to for to, line in match.transcript if line.startswith(f"ERROR NOT_YOUR_TURN {match.gid}")]
    blurts = [t for _, t in said if "out of turn" in t]
    assert not any("out of turn" in t for t in (said.text for said in match.talk))
    if irc_server.kind == "ngircd":
        assert blurts == [], "the moderated channel must drop lines from players without the floor"
    else:
        assert refused, "the embedded server enforces no modes: the referee refuses the blurts"
    # Every speech reached the record whole, up to the cap (the floor is voiced before it is
    # announced, so the server refused none of it); the lines past the cap did not.
    talkers = {nick: tap.session.bot for nick, tap in taps.items()}
    speeches = [(nick, lines) for nick, bot in talkers.items() if isinstance(bot, Talker) for lines in bot.spoken]
    assert any(len(lines) > FLOOR_LINES for _, lines in speeches)
    recorded = {(t.nick, t.text) for t in match.talk}
    assert all((nick, line) in recorded for nick, lines in speeches for line in lines[:FLOOR_LINES])
    assert not any((nick, line) in recorded for nick, lines in speeches for line in lines[FLOOR_LINES:])
    assert len(match.talk) == sum(min(len(lines), FLOOR_LINES) for _, lines in speeches)

    # Bots heard at the floor only the floor holder: never a blurt.
    for tap in taps.values():
        listener = tap.session.bot
        assert isinstance(listener, Talker)
        assert listener.chat_heard and all("out of turn" not in text for _, text in listener.chat_heard)
