"""Whole games over a real IRC server on 127.0.0.1: the referee service, SDK bots, raw
clients that misbehave, and a spectator who must never learn a secret early."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any

import pytest


from arena.bots.avalon_rules_bot import RuleBot
from arena.config import Config, GameDefaults, IdentityConfig, LobbyConfig, ServerConfig, TimeoutConfig
from arena.core.options import Options
from arena.irc.link import IrcLink, LinkSettings, ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import parse, unbundle
from arena.referee.match import Match
from arena.referee.recorder import Recorder as GameRecorder
from arena.referee.service import RefereeService
from arena.sdk import Bot, GameView, VoteAsk
from arena.sdk.runner import BotRunner
from arena.store import Store
from arena.store.records import StoredGame

from ..services.servers import ServicesServer
from .conftest import RawClient, Recorder, until

ROOT = Path(__file__).resolve().parents[2]
GAME_WAIT = 30.0
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def table_channel(table: bytes) -> bytes:
    """The channel a TABLE line (as a raw client reads it) invites to."""
    found = re.search(rb"channel=(\S+)", table)
    assert found is not None, table
    return found.group(1)


class Arena:
    """A referee service on its own thread plus bots and a spectator on another.

    ``identity`` and ``server`` (extra ``ServerConfig`` fields: the referee's nick, SASL)
    let a test attack an arena configured as in production; with ``store`` (a database
    path) games are recorded, and the service is built on its own thread, since a Store
    is used only by the thread that opened it (``stored`` then holds the games read back).
    ``lobby`` replaces the lobby of exactly ``players`` seats, ``options`` the game's default
    options; ``peak`` is the most games that ran at once; ``watchers`` the nicks of spectators
    a new game waits for (the narrator)."""

    def __init__(
        self,
        server: LocalServer | ServicesServer,
        players: int,
        timeouts: TimeoutConfig,
        games: int = 1,
        game: str = "avalon",
        *,
        identity: IdentityConfig = IdentityConfig(require_key=False),
        server_options: Mapping[str, Any] | None = None,
        store: Path | None = None,
        lobby: LobbyConfig | None = None,
        options: Options | None = None,
        watchers: Sequence[str] = (),
    ) -> None:
        self.server = server
        defaults = dict(Config().games)
        if options is not None:
            defaults[game] = GameDefaults(players, options)
        self.config = Config(
            identity=identity,
            server=ServerConfig(
                host=server.host,
                port=server.address.port,
                lines_per_second=0,
                max_targets=server.max_targets,
                **(server_options or {}),
            ),
            timeouts=timeouts,
            lobby=lobby
            or LobbyConfig(game=game, min_players=players, max_players=players, countdown=0.2, join_timeout=5.0),
            games=defaults,
        )
        self.referee = self.config.server.nick
        self.games = games
        self.finished: list[Match] = []
        self.peak = 0
        self.store = store
        self.watchers = watchers
        self.stored: list[StoredGame | None] = []
        self._built = threading.Event()
        if store is None:
            self.service = self._service(None)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.bots = ReactorThread(tick=0.02)
        self.spectator_log = Recorder()
        self.spectator = IrcLink(
            server.host,
            server.address.port,
            "watcher",
            LinkSettings(lines_per_second=0),
            channels=[self.config.server.channel],
            reactor=self.bots.reactor,
            on_message=self._watch,
        )
        self.runners: list[BotRunner] = []
        self.raw: list[RawClient] = []

    def _service(self, recorder: GameRecorder | None) -> RefereeService:
        service = RefereeService(
            self.config,
            max_games=self.games,
            key=b"k" * 32,
            on_game_end=self.finished.append,
            recorder=recorder,
            watchers=self.watchers,
        )
        service.referee.on_game_start.append(lambda _: self._count_running(service))
        self.service = service
        self._built.set()
        return service

    def _count_running(self, service: RefereeService) -> None:
        self.peak = max(self.peak, len(service.referee.matches))

    def _serve(self) -> None:
        if self.store is None:
            self.service.serve()
            return
        with Store(self.store) as store:
            self._service(GameRecorder(store)).serve()
            self.stored = [store.games.load(m.gid) for m in self.finished]

    def _watch(self, sender: str, target: str, text: str) -> None:
        self.spectator_log.on_message(sender, target, text)
        if sender == self.referee and text.startswith("TABLE"):
            self.spectator.join(parse(text).fields["channel"])

    def add_bot(self, nick: str, bot: Bot, **options: Any) -> BotRunner:
        """An SDK bot (``options``: more of BotRunner's, e.g. its ``key``), started on entry."""
        runner = BotRunner(
            bot,
            self.server.host,
            self.server.address.port,
            nick,
            lines_per_second=0,
            reactor=self.bots.reactor,
            **options,
        )
        self.runners.append(runner)
        return runner

    def add_raw(self, nick: str) -> RawClient:
        client = RawClient(self.server, nick)
        client.send(b"JOIN #arena\r\nPRIVMSG arena :REGISTER 1 owner=test version=0\r\n")
        self.raw.append(client)
        return client

    def __enter__(self) -> Arena:
        self.bots.start()
        self.spectator.connect()
        assert self.spectator.wait_ready(5)
        self.thread.start()
        assert self._built.wait(5), "the referee service was not built"
        # Raw clients talk to the referee at once: it must be on the server first, or their
        # lines go to a nick that does not exist yet.
        assert self.service.link.wait_ready(5), "the referee did not come up"
        for runner in self.runners:
            runner.start()
        return self

    def wait(self, games: int = 1, timeout: float = GAME_WAIT) -> list[Match]:
        """Until ``games`` games have ended and the spectator has read each one's END line
        (the referee is done before its last line has crossed the server)."""
        end = time.monotonic() + timeout

        def ended_for_spectator(match: Match) -> bool:
            return any(line.startswith("END") for line in self.public_lines(match.gid))

        while len(self.finished) < games or not all(ended_for_spectator(m) for m in self.finished):
            assert time.monotonic() < end, f"games not finished; channel saw: {self.spectator_log.texts()[-10:]}"
            time.sleep(0.02)
        return self.finished

    def __exit__(self, *exc: object) -> None:
        for runner in self.runners:
            runner.link.close()
        self.spectator.close()
        for client in self.raw:
            client.close()
        if self._built.is_set():
            self.service.room.max_games = 0
        self.thread.join(5)
        self.bots.stop()

    def public_lines(self, gid: str) -> list[str]:
        """The game's channel messages as the spectator read them, one by one (a line of
        several, protocol 2's bundles, split)."""
        return [
            message
            for s, target, t in self.spectator_log.messages
            if target == f"{self.config.server.channel}-{gid}" and s == self.referee
            for message in unbundle(t)
        ]

    def seen_from_start(self, match: Match) -> list[str]:
        """The game's channel lines as the spectator read them, checked to be the referee's
        own channel lines, from START to the last one. The spectator joins when it reads
        TABLE, like the players, so on a slow machine it may come in after START: it must
        then have read everything after it. The game's last lines (its ratings) may still be
        on their way when it is reported over: first the spectator sees the referee leave its
        channel, which it does behind them."""
        channel = f"{self.config.server.channel}-{match.gid}"
        until(lambda: self.referee not in {n.lower() for n in self.spectator.members(channel)}, GAME_WAIT)
        said = [line for target, line in match.transcript if target is None]
        seen = self.public_lines(match.gid)
        assert said[0].startswith("START") and seen and seen == said[len(said) - len(seen) :]
        assert len(seen) >= len(said) - 1, "the spectator missed more than START"
        return said


class DMRecorder(RuleBot):
    """A rule bot that also keeps every protocol line it was sent privately."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.roles: list[Any] = []

    def on_role(self, game: GameView[Any]) -> None:
        self.roles.append((game.gid, game.role, sorted(game.sees)))


FAST = TimeoutConfig(decision=5.0, grace=1.0, escalation=("warn", "default", "forfeit"))


def test_full_game_keeps_secrets_and_tells_each_bot_its_view(irc_server: LocalServer) -> None:
    arena = Arena(irc_server, 5, FAST)
    bots = {f"p{i}": DMRecorder(seed=i) for i in range(5)}
    for nick, bot in bots.items():
        arena.add_bot(nick, bot)
    with arena:
        (match,) = arena.wait()
    result = match.game.result
    assert result is not None and result.forfeited is None
    public = arena.seen_from_start(match)
    end_at = next(i for i, line in enumerate(public) if line.startswith("END"))
    assert end_at == len(public) - 1
    before_end = public[:end_at]
    for line in before_end:
        msg = parse(line)
        assert msg.verb != "ROLE" and "role=" not in line and "roles=" not in line
        assert not (msg.verb == "ASK" and msg.args[2] == "quest"), "quest requests are private"
    # Each bot was told exactly its row of the visibility table, by name.
    for event in match.game.events:
        if event.kind == "role":
            nick = match.names[event.data["seat"]]
            expected = sorted(match.names[s] for s in event.data["sees"])
            assert bots[nick].roles == [(match.gid, event.data["role"], expected)]


def test_silent_player_is_warned_then_defaulted_then_forfeits(irc_server: LocalServer) -> None:
    # Deadlines long enough that only the silent bot misses them, even on a busy machine.
    timeouts = TimeoutConfig(decision=1.0, grace=0.5, escalation=("warn", "default", "forfeit"))
    arena = Arena(irc_server, 5, timeouts)
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        silent = arena.add_raw("mute")
        table = silent.expect(b"TABLE")
        channel = table_channel(table)
        silent.send(b"JOIN " + channel + b"\r\n")
        (match,) = arena.wait()
        warn = silent.expect(b"WARN")
    result = match.game.result
    assert result is not None
    seat = match.names.index("mute")
    assert result.reason == "forfeit" and result.forfeited == seat and result.winner is None
    public = arena.public_lines(match.gid)
    timeouts_seen = [line for line in public if line.startswith("TIMEOUT")]
    assert [parse(t).get("action") for t in timeouts_seen] == ["default", "forfeit"]
    assert all(parse(t).get("player") == "mute" for t in timeouts_seen)
    assert parse(public[-1]).get("forfeit") == "mute"
    assert b"PRIVMSG mute :WARN" in warn


def test_player_who_quits_gets_defaults_and_the_game_ends(irc_server: LocalServer) -> None:
    timeouts = TimeoutConfig(decision=0.3, grace=0.1, escalation=("default",))
    arena = Arena(irc_server, 5, timeouts)
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        leaver = arena.add_raw("leaver")
        table = leaver.expect(b"TABLE")
        leaver.send(b"JOIN " + table_channel(table) + b"\r\n")
        leaver.expect(b"START")
        leaver.send(b"QUIT :bye\r\n")
        (match,) = arena.wait()
    result = match.game.result
    assert result is not None
    assert result.forfeited is None and result.winner in ("good", "evil")
    assert any(line.startswith("TIMEOUT") and "player=leaver" in line for line in arena.public_lines(match.gid))


class Clumsy(RuleBot):
    """Answers its first vote with nonsense; the SDK's retry then sends a legal one."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.errors: list[str] = []
        self.fumbled = False

    def vote(self, game: GameView[Any], ask: VoteAsk) -> str:
        if not self.fumbled:
            self.fumbled = True
            return "maybe"
        return super().vote(game, ask)

    def on_error(self, msg: Any) -> None:
        self.errors.append(msg.format())


def test_malformed_and_illegal_lines_get_errors_and_the_game_finishes(irc_server: LocalServer) -> None:
    arena = Arena(irc_server, 5, FAST)
    clumsy = Clumsy(seed=1)
    arena.add_bot("clumsy", clumsy)
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        outsider = RawClient(irc_server, "outsider")
        arena.raw.append(outsider)
        outsider.send(b"PRIVMSG arena :VOTE yes please\r\n")
        assert b"ERROR UNKNOWN_COMMAND" in outsider.expect(b"ERROR")
        outsider.send(b"PRIVMSG arena :ANSWER g1 notanumber approve\r\n")
        reply = outsider.expect(b"ERROR")
        assert b"ERROR NOT_REGISTERED" in reply, "a stranger who never registered plays no seat"
        (match,) = arena.wait()
    assert match.game.result is not None
    assert match.game.result.forfeited is None
    assert any(e.startswith("ERROR ACTION_NOT_ALLOWED") for e in clumsy.errors), clumsy.errors


def test_control_characters_cannot_inject_or_reach_the_channel(irc_server: LocalServer) -> None:
    # A full table would start at once, and five rule bots may finish their game (and the
    # referee leave) before evil's second line: a sixth seat makes the lobby count down.
    lobby = LobbyConfig(min_players=5, max_players=6, countdown=0.5, join_timeout=5.0)
    arena = Arena(irc_server, 5, FAST, lobby=lobby)
    for i in range(5):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        evil = RawClient(irc_server, "evil")
        arena.raw.append(evil)
        evil.send(b"JOIN #arena\r\n")
        # Colour, bold and CTCP quoting reach the referee as sent; it refuses them.
        evil.send(b"PRIVMSG arena :REGISTER 2 name=\x034red\x02 owner=\x01ACTION\x01\r\n")
        errors = [evil.expect(b"ERROR")]
        # A \r splits the line at the server: the tail is the sender's own QUIT, not the referee's.
        evil.send(b"PRIVMSG arena :ANSWER g1 1 \x1fp1\x0f\rPRIVMSG #arena :fake\r\n")
        errors.append(evil.expect(b"ERROR"))
        (match,) = arena.wait()
    assert match.game.result is not None
    assert match.game.result.forfeited is None
    for line in errors:
        assert not CONTROL.search(line.decode().split(" :", 1)[1]), line
    referee_lines = [t for s, _, t in arena.spectator_log.messages if s == "arena"]
    assert referee_lines and not any(CONTROL.search(t) for t in referee_lines)
    for text in referee_lines:
        for message in unbundle(text):
            parse(message)  # every channel message of the referee is valid protocol
    assert "evil" not in match.names


def test_formatting_tabs_and_ctcp_in_a_direct_line_are_malformed(irc_server: LocalServer) -> None:
    arena = Arena(irc_server, 5, FAST)
    for i in range(5):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        sender = RawClient(irc_server, "sender")
        arena.raw.append(sender)
        for dirty in (
            b"ANSWER g1 1 \x02approve\x02",
            b"ANSWER\tg1 1 approve",
            b"ANSWER g1 1 \x034approve",
            b"\x01ANSWER g1 1 approve\x01",
            b"\x01ACTION waves\x01",
            b"ANSWER g1 1 appr\xe9ve",
            b"REGISTER 1 name=m\xffllory",
        ):
            sender.send(b"PRIVMSG arena :" + dirty + b"\r\n")
            assert b"ERROR MALFORMED" in sender.expect(b"ERROR"), dirty
        (match,) = arena.wait()
    assert match.game.result is not None
    assert match.game.result.forfeited is None


def test_every_refused_line_of_a_seated_bot_is_counted_by_stats(irc_server: LocalServer, tmp_path: Path) -> None:
    """Lines the grammar refuses (control characters, bytes that are not UTF-8, a missing
    choice) count in ``arena stats`` as every other refusal does: the game's record keeps
    them for the seat that sent them."""
    store = tmp_path / "arena.db"
    lobby = LobbyConfig(min_players=5, max_players=5, countdown=0.2, join_timeout=5.0, operators=("sloppy",))
    arena = Arena(irc_server, 5, FAST, store=store, lobby=lobby)
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    bad = (
        b"ANSWER g1 1 \x02approve\x02",
        b"ANSWER g1 1 appr\xe9ve",
        b"ANSWER g1 1",
        b"ANSWER g1 1234567890 approve",
        b"ANSWER g1 999 approve",
    )
    with arena:
        sloppy = arena.add_raw("sloppy")
        table = sloppy.expect(b"TABLE")
        sloppy.send(b"JOIN " + table_channel(table) + b"\r\n")
        sloppy.expect(b"START g1")
        replies = []
        for line in bad:
            sloppy.send(b"PRIVMSG arena :" + line + b"\r\n")
            replies.append(sloppy.expect(b"ERROR").split(b" :", 2)[1])  # the ERROR up to its text
        sloppy.send(b"PRIVMSG #arena :!stop g1\r\n")  # nobody at fault: the game is stored all the same
        (match,) = arena.wait()
    assert replies == [b"ERROR MALFORMED g1 1"] * 3 + [b"ERROR MALFORMED g1", b"ERROR STALE_REQUEST g1 999"]
    with Store(store) as db:
        assert db.stats.bots("avalon")["sloppy"].conduct.refused == {"MALFORMED": 4, "STALE_REQUEST": 1}


def test_ratings_are_the_referees_next_line_after_end_before_it_leaves(irc_server: LocalServer, tmp_path: Path) -> None:
    """protocol.md, section 4: nothing to wait for after END: RATINGS comes next, then the
    referee leaves the channel. (The onlooker is a spectator the game waits for, as for the
    operator's narrator: a fast game on a busy machine could otherwise be over before it
    joins.)"""
    arena = Arena(irc_server, 5, FAST, store=tmp_path / "arena.db", watchers=("onlooker",))
    for i in range(5):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    watcher = RawClient(irc_server, "onlooker")  # in the lobby before any bot: it hears the TABLE
    arena.raw.append(watcher)
    watcher.send(b"JOIN #arena\r\n")
    watcher.expect(b"JOIN")
    with arena:
        table = watcher.expect(b"TABLE", timeout=GAME_WAIT)
        channel = table_channel(table)
        watcher.send(b"JOIN " + channel + b"\r\n")
        seen = watcher.lines_until(b"PART " + channel, timeout=GAME_WAIT)
        while not seen[-1].startswith(b":arena!"):  # a player that left first
            seen += watcher.lines_until(b"PART " + channel, timeout=GAME_WAIT)
        arena.wait()
    told = [
        message.split(" ")[0]
        for line in seen
        if line.startswith(b":arena!") and b" PRIVMSG " + channel + b" :" in line
        for message in unbundle(line.decode().split(" :", 1)[1])
    ]
    assert told[-2:] == ["END", "RATINGS"] and seen[-1].startswith(b":arena!")


class Slow(RuleBot):
    """Thinks for a second over its first vote, so the game is surely live meanwhile."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.first = True

    def vote(self, game: GameView[Any], ask: VoteAsk) -> str:
        if self.first:
            self.first = False
            time.sleep(1.0)
        return super().vote(game, ask)


def test_fake_referee_lines_in_the_channel_fool_nobody(irc_server: LocalServer) -> None:
    arena = Arena(irc_server, 5, FAST)
    arena.add_bot("slow", Slow(seed=9))
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    # In the lobby before any bot registers, so the TABLE line cannot pass it by.
    faker = RawClient(irc_server, "arena_")
    arena.raw.append(faker)
    faker.send(b"JOIN #arena\r\n")
    faker.expect(b"JOIN")
    with arena:
        table = faker.expect(b"TABLE")
        channel = table_channel(table)
        faker.send(b"JOIN " + channel + b"\r\n")
        faker.expect(b" 366 arena_ " + channel)  # end of NAMES: in the game's channel (its START may have gone by)
        deadline = time.monotonic() + 10
        while "g1" not in arena.service.referee.matches:  # and the game is running
            assert time.monotonic() < deadline, "the game did not start"
            time.sleep(0.02)
        faker.send(b"PRIVMSG " + channel + b" :ASK g1 999 vote to=all deadline=30 options=approve,reject\r\n")
        faker.send(b"PRIVMSG " + channel + b" :END g1 winner=evil reason=three_fails roles=\r\n")
        time.sleep(0.3)
        assert not arena.finished, "the game should still be waiting for the slow bot"
        assert all("g1" in r.session.games for r in arena.runners), "a bot believed the fake END"
        (match,) = arena.wait()
        end = time.monotonic() + 5
        while not all(r.session.finished == 1 for r in arena.runners) and time.monotonic() < end:
            time.sleep(0.02)
    assert match.game.result is not None
    assert match.game.result.forfeited is None
    stale = [line for _, line in match.transcript if "999" in line]
    assert stale == [], "a bot answered the fake request"
    assert all(r.session.finished == 1 for r in arena.runners)


def test_plain_socket_bot_plays_a_full_game(irc_server: LocalServer) -> None:
    arena = Arena(irc_server, 5, FAST)
    for i in range(4):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    with arena:
        plain = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bots" / "plain_bot.py"),
                "--server",
                f"{irc_server.host}:{irc_server.port}",
                "--nick",
                "plain",
                "--games",
                "1",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            (match,) = arena.wait()
            out, _ = plain.communicate(timeout=10)
        finally:
            if plain.poll() is None:
                plain.kill()
    assert "plain" in match.names
    assert match.game.result is not None
    assert match.game.result.forfeited is None
    assert not [line for line in match.transcript if line[1].startswith("TIMEOUT")]
    assert plain.returncode == 0, out


@pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)
def test_thirty_bots_keep_three_tables_of_ten_playing_at_once(irc_server: LocalServer) -> None:
    """The lobby opens a table whenever ten bots wait, not one game at a time; anyone may
    ask it who waits and what runs."""
    # Only full tables: a remainder's countdown (here a guard never reached) would seat the
    # bots that registered so far at a smaller table, on a machine too busy to register
    # thirty at once; a game starts as soon as its bots are in.
    lobby = LobbyConfig(min_players=5, max_players=10, countdown=120.0, join_timeout=60.0)
    arena = Arena(irc_server, 10, FAST, games=3, lobby=lobby)
    for i in range(30):
        arena.add_bot(f"p{i}", Bot(seed=i))
    with arena:
        until(lambda: arena.peak >= 3 or arena.finished, GAME_WAIT)
        arena.spectator.send(arena.config.server.channel, "!status")
        arena.spectator_log.wait(lambda: any(" running " in t for _, _, t in arena.spectator_log.messages))
        finished = arena.wait(3)
    assert arena.peak >= 3, f"at most {arena.peak} games ran at once"
    assert all(m.game.result is not None and m.game.result.forfeited is None for m in finished)
    assert len({bot for m in finished for bot in m.bots or ()}) == 30
