"""The example bots play legal games (chaos Werewolf too) and the rule-based one beats random
play clearly."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.random_bot import RandomBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.seating import Seating
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import parse
from arena.referee.local import LocalHub
from arena.sdk import Bot

from .scripted import scripted
from .test_sdk_bots import kinds_of


def win_rates(players: int, games: int, options: AvalonOptions) -> tuple[dict[str, float], int]:
    hub = LocalHub(TimeoutConfig())
    rule = [f"rule{i}" for i in range((players + 1) // 2)]
    rand = [f"rand{i}" for i in range(players // 2)]
    for i, nick in enumerate(rule):
        hub.connect(nick, RuleBot(seed=i))
    for i, nick in enumerate(rand):
        hub.connect(nick, Bot(seed=100 + i))
    seating = Seating(rule + rand, 16, seed=3)
    wins = {"rule": 0, "rand": 0}
    seats = {"rule": 0, "rand": 0}
    errors = 0
    for g in range(games):
        match = hub.play("avalon", list(seating.order(g)), options, g)
        result = match.game.result
        assert result is not None and result.forfeited is None
        errors += sum(1 for _, line in match.transcript if line.startswith("ERROR"))
        for seat, nick in enumerate(match.names):
            kind = nick[:4]
            seats[kind] += 1
            wins[kind] += seat in result.winners
    return {k: wins[k] / seats[k] for k in wins}, errors


def test_rule_bot_beats_random_bots_over_200_games() -> None:
    rates, errors = win_rates(5, 200, AvalonOptions())
    assert errors == 0, "the rule bot sent answers the referee refused"
    assert rates["rule"] - rates["rand"] >= 0.15, rates


def test_rule_bot_plays_legally_with_every_role() -> None:
    options = AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=2)
    rates, errors = win_rates(10, 200, options)  # every role in play: a noisier game, more games
    assert errors == 0
    assert rates["rule"] > rates["rand"], rates


def test_random_and_rule_bots_play_chaos_werewolf_at_every_table_size() -> None:
    """Eighty games at decks drawn from every role, 6 to 20 seats, the example bots mixed:
    between them every request kind is asked, the referee refuses no answer and no bot's
    code raises (the SDK would play on at random, hiding it)."""
    hub = LocalHub(TimeoutConfig())
    nicks = [f"rule{i}" for i in range(10)] + [f"rand{i}" for i in range(10)]
    sessions = [
        hub.connect(nick, WerewolfRuleBot(seed=i) if i < 10 else RandomBot(seed=i)) for i, nick in enumerate(nicks)
    ]
    asked = set()
    for g in range(80):
        seats = (nicks[g % 20 :] + nicks[: g % 20])[: 6 + g % 15]
        match = hub.play("werewolf", seats, WerewolfOptions(preset="chaos"), g)
        assert match.game.result is not None and match.game.result.forfeited is None
        assert [line for _, line in match.transcript if line.startswith("ERROR")] == []
        asked |= {parse(line).args[2] for _, line in match.transcript if line.startswith("ASK")}
    assert not any(s.faults.counts for s in sessions), [s.faults.summary() for s in sessions]
    assert asked == kinds_of("werewolf"), kinds_of("werewolf") - asked


def test_plain_bot_joins_a_continued_request_before_answering() -> None:
    """The socket bot, talked to by a scripted server on 127.0.0.1: a request cut in two
    parts is answered once, from every option of both parts."""
    plain = Path(__file__).resolve().parents[1] / "bots" / "plain_bot.py"
    with scripted([sys.executable, str(plain), "--nick", "plain"]) as peer:
        assert peer.said().startswith("NICK") and peer.said().startswith("USER")
        peer.send(b":srv 001 plain :welcome\r\n")
        assert peer.said() == "JOIN #arena"
        # An impostor holds the referee's nick: the lobby's topic names the real one, so
        # the bot does not register (its key would go to the impostor) until it names ours.
        peer.send(
            b":srv 332 plain #arena :arena referee: arena_ (arena is NOT the referee)\r\n"
            b":srv 366 plain #arena :End of NAMES list\r\n"
        )
        peer.quiet()  # nothing said: the bot waits
        peer.send(b":arena_!a@h TOPIC #arena :arena referee: arena\r\n")
        assert peer.said() == "PRIVMSG arena :REGISTER 1 name=plain owner=arena version=1.0"
        peer.send(b":arena!a@h PRIVMSG #arena :ASK g1 4 team to=all deadline=30 options=alice,bob pick=2\r\n")
        peer.quiet()  # not registered yet: the referee's nick is not obeyed
        peer.send(b":arena!a@h PRIVMSG plain :WELCOME plain protocol=1 name=plain\r\n")
        peer.send(
            b":arena!a@h PRIVMSG #arena :ASK g1 5 team to=all deadline=30 options=alice,bob more=true\r\n"
            b":arena!a@h PRIVMSG #arena :ASK g1 5 team options=carol,dave pick=4\r\n"
        )
        answer = peer.said()
        assert answer.startswith("PRIVMSG arena :ANSWER g1 5 ")
        assert sorted(answer.rsplit(" ", 1)[1].split(",")) == ["alice", "bob", "carol", "dave"]


KEY = "K3yK3yK3yK3yK3yK3yK3yK3yK3yK3yK3"


def test_plain_bot_proves_its_key_and_obeys_only_a_referee_that_proves_it_too() -> None:
    """The socket bot never sends its key: it proves it by SCRAM, and a WELCOME without the
    referee's signature (a squatter's) leaves it unregistered, deaf to tables and requests."""
    plain = Path(__file__).resolve().parents[1] / "bots" / "plain_bot.py"
    with scripted([sys.executable, str(plain), "--nick", "plain", "--key", KEY]) as peer:
        assert peer.said().startswith("NICK") and peer.said().startswith("USER")
        peer.send(b":srv 001 plain :welcome\r\n")
        assert peer.said() == "JOIN #arena"
        peer.send(b":srv 366 plain #arena :End of NAMES list\r\n")
        register = peer.said()
        assert KEY not in register and " scram=" in register and " key=" not in register
        assert KEY not in peer.welcome(register, KEY, signed=False)
        peer.send(
            b":arena!a@h PRIVMSG #arena :TABLE g1 game=avalon channel=#fake seats=plain,b,c,d,e\r\n"
            b":arena!a@h PRIVMSG plain :ASK g1 1 vote to=plain deadline=30 options=approve,reject\r\n"
        )
        peer.quiet()  # no JOIN #fake, no ANSWER
        peer.send(b":arena!a@h QUIT :gone\r\n:arena!r@h JOIN #arena\r\n")  # the real referee comes
        peer.welcome(peer.said(), KEY)
        peer.send(b":arena!a@h PRIVMSG #arena :TABLE g2 game=avalon channel=#arena-g2 seats=plain,b,c,d,e\r\n")
        assert peer.said() == "JOIN #arena-g2"


NODE = shutil.which("node") or shutil.which("nodejs")
BOTS = Path(__file__).resolve().parents[1] / "bots"


@pytest.mark.parametrize("program", ["plain_bot.py", "plain_bot.js"])
def test_plain_bots_follow_each_game_to_the_referee_that_runs_it(program: str) -> None:
    """Two referees share the lobby (protocol.md, section 4, "Several referees"): the socket
    bots obey the one the WELCOME lists, each game only from the referee it names, answer
    each game to its referee, follow a game that another referee takes up, and drop a
    referee whose nick quits, without registering again."""
    if program.endswith(".js") and NODE is None:
        pytest.skip("node is not installed")
    command = [sys.executable if program.endswith(".py") else str(NODE), str(BOTS / program), "--nick", "plain"]
    with scripted(command) as peer:
        assert peer.said().startswith("NICK") and peer.said().startswith("USER")
        peer.send(b":srv 001 plain :welcome\r\n")
        assert peer.said() == "JOIN #arena"
        peer.send(b":srv 366 plain #arena :End of NAMES list\r\n")
        assert peer.said().startswith("PRIVMSG arena :REGISTER ")
        peer.send(b":arena!a@h PRIVMSG plain :WELCOME plain protocol=1 name=plain referees=arena,arena2\r\n")
        table = "TABLE g1 game=avalon channel=#arena-g1 seats=plain,b,c,d,e referee={}\r\n"
        peer.send(
            f":mallory!m@h PRIVMSG #arena :{table.format('mallory')}"
            f":arena!a@h PRIVMSG #arena :{table.format('arena2')}"  # not its own name
            f":arena3!a@h PRIVMSG #arena :{table.format('arena3')}".encode()  # not a referee of the set
        )
        peer.quiet()
        peer.send(f":arena2!a@h PRIVMSG #arena :{table.format('arena2')}".encode())
        assert peer.said() == "JOIN #arena-g1"
        ask = "ASK g1 {} vote to=all deadline=30 options=approve,reject\r\n"
        peer.send(f":arena!a@h PRIVMSG #arena-g1 :{ask.format(1)}".encode())
        peer.quiet()  # the configured referee does not run g1
        peer.send(f":arena2!a@h PRIVMSG #arena-g1 :{ask.format(2)}".encode())
        assert peer.said().startswith("PRIVMSG arena2 :ANSWER g1 2 ")
        resume = "RESUME g1 game=avalon channel=#arena-g1-r1 seats=plain,b,c,d,e wait=60 referee=arena3\r\n"
        peer.send(
            f":arena3!a@h PRIVMSG #arena :{resume}"  # not yet a referee of the set
            ":arena!a@h PRIVMSG plain :REFEREES nicks=arena,arena2,arena3\r\n"
            f":arena3!a@h PRIVMSG #arena :{resume}".encode()
        )
        assert (peer.said(), peer.said()) == ("PART #arena-g1", "JOIN #arena-g1-r1")
        peer.send(
            f":arena2!a@h PRIVMSG #arena-g1-r1 :{ask.format(3)}"  # the game moved: not its referee any more
            f":arena3!a@h PRIVMSG #arena-g1-r1 :{ask.format(4)}".encode()
        )
        assert peer.said().startswith("PRIVMSG arena3 :ANSWER g1 4 ")
        peer.send(f":arena3!a@h QUIT :gone\r\n:arena3!x@h PRIVMSG #arena-g1-r1 :{ask.format(5)}".encode())
        peer.quiet()  # a stranger under arena3's nick; and no new registration
        peer.send(b":arena2!a@h PRIVMSG #arena :TABLE g2 game=avalon channel=#arena-g2 seats=plain referee=arena2\r\n")
        assert peer.said() == "JOIN #arena-g2"
