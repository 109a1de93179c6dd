"""Tuvalon over a real IRC server: the second discussion is relayed by DM to exactly the
players in range, each line once, and nothing of it reaches the game channel (watched by a
spectator) before END.

Three games here; the long form plays as many as ``ARENA_TUVALON_GAMES`` says:
``ARENA_TUVALON_GAMES=300 python -m pytest tests/irc/test_tuvalon.py`` (some 0.4 to 0.7 s a
game: 300 games took 194 s on ngircd and 187 s on the embedded server on a busy machine)."""

from __future__ import annotations

import os
from collections import defaultdict

from arena.irc.servers import LocalServer
from arena.protocol import parse, unbundle

from ..tuvalon.relay import Whisperer, expected_relays
from .test_games import FAST, Arena
from .test_werewolf import Tap

NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]


def test_near_speech_reaches_exactly_the_players_in_range(irc_server: LocalServer) -> None:
    games = int(os.environ.get("ARENA_TUVALON_GAMES", "3"))
    arena = Arena(irc_server, 7, FAST, games=games, game="tuvalon")
    taps: dict[str, Tap] = {}
    whisperers = [Whisperer(seed=i) for i in range(len(NICKS))]
    for i, nick in enumerate(NICKS):
        tap = Tap(whisperers[i], irc_server.host, irc_server.port, nick, lines_per_second=0, reactor=arena.bots.reactor)
        taps[nick] = tap
        arena.runners.append(tap)
    with arena:
        matches = arena.wait(games, timeout=120 + games)
    relays = 0
    # every line each bot's connection received from the referee, and every line the spectator
    # read, grouped by game once (the long form checks hundreds of games)
    received: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for nick, tap in taps.items():
        with tap.heard_lock:
            for sender, target, text in tap.heard:
                if sender == "arena" and text.startswith("TEAM "):
                    received[(nick, target, text.split(" ", 2)[1])].append(text)
    channels: dict[str, list[str]] = defaultdict(list)
    for sender, target, text in list(arena.spectator_log.messages):
        if sender == arena.referee:
            channels[target].extend(unbundle(text))  # one message at a time
    for match in matches:
        result = match.game.result
        assert result is not None and result.forfeited is None
        expected, relayed = expected_relays(match.transcript, match.gid, (t for b in whisperers for t in b.said))
        assert relayed == expected
        relays += sum(relayed.values())
        # what each bot's connection really received from the referee: its own relays, once each
        for seat, nick in enumerate(match.names):
            got = [parse(t) for t in received[(match.nicks[seat], nick, match.gid)]]
            mine = {(listener, text): n for (listener, text), n in expected.items() if listener == nick}
            assert sorted((nick, m.text or "") for m in got) == sorted(k for k, n in mine.items() for _ in range(n))
        # the spectator, in the game channel, read the referee's lines to END, and no line of
        # the second discussion; it joins on TABLE, as the players do, so on a busy machine it
        # may miss the game's first lines, but never a second discussion
        said = [line for target, line in match.transcript if target is None]
        seen = channels[f"{arena.config.server.channel}-{match.gid}"]
        assert said[-1].startswith(("END", "RATINGS")) and seen == said[len(said) - len(seen) :]
        first_near = next(
            i for i, line in enumerate(said) if line.startswith(f"ASK {match.gid} ") and " speak_near " in line
        )
        assert len(said) - len(seen) <= first_near, "the spectator missed a second discussion"
        assert not any("psst" in text for text in seen)
    assert relays >= 50 * games, "a game relays some 130 to 800 lines: too few reached anyone"
