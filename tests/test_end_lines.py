"""Every way a game can end reads under the grammar: each game × each end reason × each
cause of an abort or a forfeit gives an END that formats, splits into lines and reads back
as it was sent. (An aborted Tuvalon game once put the operator's free text into one token:
the referee raised instead of saying END, and did so again on every restart.)"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.core.game import ABORTED, FORFEIT, Game
from arena.games import GAMES, LINES
from arena.protocol import END, Message, Reassembler, parse

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)

# What the referee itself writes as an abort's cause, beside anything an operator's nick holds.
ABORT_CAUSES = st.one_of(
    st.sampled_from(["stopped by op1", "the referee restarted and b3, b4 did not come back within 60 s", ""]),
    st.text(max_size=80),
)
FORFEIT_CAUSES = ("timeout", "speech_budget")
NICKS = [f"bot{i}" for i in range(20)]


def _table(name: str, rng: random.Random) -> Game:
    cls = GAMES[name]
    options: dict[str, str] = {}
    if name == "avalon":
        players = rng.randint(5, 10)
    elif name == "werewolf":
        players = rng.randint(6, 16)
        options = {"preset": rng.choice(["classic", "chaos"])}
    else:
        players = cls.default_players
    return cls(players, cls.Options.from_mapping(options, game=name), rng.getrandbits(32))


def _play(game: Game, rng: random.Random, actions: int | None) -> None:
    """Random legal answers until the end, or until ``actions`` were taken."""
    taken = 0
    while game.result is None and (actions is None or taken < actions):
        pending = game.pending()
        decision = pending[rng.randrange(len(pending))]
        game.apply(decision.seat, decision.kind, decision.random_choice(rng))
        taken += 1
        assert taken < 5000, "the game did not end"


def _read_back(game: Game, name: str) -> Message:
    """The END the referee would send, through its own formatting and a bot's reading."""
    nicks = NICKS[: game.players]
    ends = [e for e in game.events if e.kind == "end"]
    assert len(ends) == 1
    msg = LINES[name].event_message(ends[0], "g1", nicks)
    assert isinstance(msg, Message) and msg.verb == END
    joined, reader = [], Reassembler()
    for line in msg.lines():
        joined += reader.add(parse(line))
    assert joined == [msg]
    return msg


@SETTINGS
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_every_natural_end_reads_back(name: str, seed: int) -> None:
    rng = random.Random(seed)
    game = _table(name, rng)
    _play(game, rng, None)
    msg = _read_back(game, name)
    assert msg.get("reason") == game.result.reason  # type: ignore[union-attr]
    assert msg.get("reason") in type(game).end_reasons


@SETTINGS
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1), at=st.integers(0, 400), cause=ABORT_CAUSES)
def test_an_abort_at_any_point_for_any_cause_reads_back(name: str, seed: int, at: int, cause: str) -> None:
    rng = random.Random(seed)
    game = _table(name, rng)
    _play(game, rng, at)
    if game.result is not None:
        return  # over before the operator's stop: nothing to abort
    game.abort(cause)
    msg = _read_back(game, name)
    assert (msg.get("winner"), msg.get("reason"), msg.get("why")) == ("none", ABORTED, None)
    assert len(msg.list("roles")) == game.players


@SETTINGS
@given(
    name=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**32 - 1),
    at=st.integers(0, 400),
    cause=st.sampled_from(FORFEIT_CAUSES),
    seat=st.integers(0, 19),
)
def test_a_forfeit_at_any_point_for_any_cause_reads_back(name: str, seed: int, at: int, cause: str, seat: int) -> None:
    rng = random.Random(seed)
    game = _table(name, rng)
    _play(game, rng, at)
    if game.result is not None:
        return
    game.forfeit(seat % game.players, cause)
    msg = _read_back(game, name)
    assert (msg.get("winner"), msg.get("reason"), msg.get("forfeit")) == ("none", FORFEIT, NICKS[seat % game.players])
    # Tuvalon tells the cause (protocol.md, Tuvalon's END); the other games do not.
    assert msg.get("why") == (cause if name == "tuvalon" else None)
