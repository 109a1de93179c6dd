"""The game state the SDK keeps for every bot agrees with the engine's own record of the
game, for every role and option: what it says is what happened, seen from that seat."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from arena.config import TimeoutConfig
from arena.core.events import Event
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.sdk import Ask, AvalonState, Bot, GameView, Talk, WerewolfState

from .test_doc_coverage import AVALON_SETS, NICKS, WEREWOLF_SETS


class Keeper(Bot):
    """A random bot that talks (two lines at the floor, one to the pack) and keeps the state
    it had at the end of each game, and the state it saw at its first decision."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.final: list[Any] = []
        self.looked = 0

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        if self.rng.random() < 0.2:
            _ = game.state  # reading the state now and then: it must catch up from any point
            self.looked += 1
        return super().decide(game, ask)

    def speech(self, game: GameView[Any], ask: Ask) -> Talk:
        return f"{game.me} opens\n{game.me} closes"

    def team_talk(self, game: GameView[Any], ask: Ask) -> Talk:
        return f"{game.me} hunts" if ask.kind == "wolf_vote" else []

    def on_end(self, game: GameView[Any], msg: Any) -> None:
        self.final.append(game.state)


def play(game: str, players: int, options: Any, seeds: range) -> list[tuple[Match, dict[str, Any]]]:
    hub = LocalHub(TimeoutConfig())
    nicks = NICKS[:players]
    bots = {nick: Keeper(seed=i) for i, nick in enumerate(nicks)}
    for nick, bot in bots.items():
        hub.connect(nick, bot)
    out = []
    for seed in seeds:
        match = hub.play(game, nicks, options, seed)
        out.append((match, {nick: bot.final[-1] for nick, bot in bots.items()}))
    return out


def events(match: Match, kind: str, seat: int | None = None) -> list[Event]:
    return [e for e in match.game.events if e.kind == kind and e.visible_to(seat)]


@pytest.mark.parametrize("players,options", AVALON_SETS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(AVALON_SETS)])
def test_avalon_state_is_the_game_as_played(
    players: int, options: AvalonOptions, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="arena.sdk"):
        played = play("avalon", players, options, range(6))
    assert not caplog.records, "the state failed to follow a line"
    for match, states in played:
        game: Any = match.game
        names = match.names
        result = game.result
        for nick in names:
            state = states[nick]
            assert isinstance(state, AvalonState)
            role = events(match, "role", names.index(nick))[0].data
            assert (state.role, state.side, state.sees) == (
                role["role"],
                role["side"],
                [names[s] for s in role["sees"]],
            )
            assert [q.size for q in state.quests] == list(game.sizes)
            assert [q.result for q in state.quests if q.result] == ["success" if r else "fail" for r in game.results]
            setup = events(match, "setup")[0].data
            assert (state.good, state.evil) == (setup["good"], setup["evil"])
            assert [q.fails_needed for q in state.quests] == setup["fails_needed"]
            teams = [[names[s] for s in e.data["team"]] for e in events(match, "team")]
            assert [p.team for p in state.proposals] == teams
            votes = events(match, "votes")
            assert [p.approve for p in state.proposals if p.approved is not None] == [
                [names[s] for s in e.data["approve"]] for e in votes
            ]
            assert [p.approved for p in state.proposals if p.approved is not None] == [e.data["passed"] for e in votes]
            assert state.rejections == game.rejections
            assert state.successes + state.failures == len(game.results)
            assert state.winner == (result.winner or "none") and state.reason == result.reason
            assert state.roles == dict(zip(names, events(match, "end")[0].data["roles"]))
            played_quests = [q for q in state.quests if q.result]
            assert all(len(q.team) == q.size for q in played_quests)
            if options.lancelot:
                assert state.lancelots and all(
                    state.lancelots[n] == game.sides_now[names.index(n)].value for n in state.lancelots
                )
                assert state.loyalty == [e.data["card"] for e in events(match, "loyalty")]
            assert state.leader == (names[events(match, "leader")[-1].data["leader"]])


@pytest.mark.parametrize("players,options", WEREWOLF_SETS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(WEREWOLF_SETS)])
def test_werewolf_state_is_the_game_as_played(
    players: int, options: WerewolfOptions, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="arena.sdk"):
        played = play("werewolf", players, options, range(4))
    assert not caplog.records, "the state failed to follow a line"
    for match, states in played:
        game: Any = match.game
        names = match.names
        result = game.result
        dead = [names[s] for s, alive in enumerate(game.alive) if not alive]
        said = [(t.nick, t.text) for t in match.talk]
        for seat, nick in enumerate(names):
            state = states[nick]
            assert isinstance(state, WerewolfState)
            assert (state.role, state.side) == (game.roles[seat], events(match, "role", seat)[-1].data["team"])
            assert state.winner == (result.winner or "none") and state.reason == result.reason
            assert state.roles == dict(zip(names, game.roles))
            assert state.alive == [names[s] for s, alive in enumerate(game.alive) if alive]
            assert sorted(state.dead) == sorted(dead)
            assert state.leader is None or state.leader in state.alive, "a dead leader's title is not passed on"
            if options.revealRolesOnDeath:
                assert all(d.role == game.roles[names.index(d.player)] for d in state.deaths)
            ballots = events(match, "vote")
            assert [(b.player, b.vote or "abstain", b.round) for b in state.ballots] == [
                (
                    names[e.data["seat"]],
                    names[e.data["vote"]] if isinstance(e.data["vote"], int) else e.data["vote"],
                    e.data["round"],
                )
                for e in ballots
            ]
            assert len(state.results) == len(events(match, "vote_result"))
            # Every speech, with its lines as the referee recorded them, in order.
            assert [(s.player, line) for s in state.speeches for line in s.lines] == said
            assert len(state.speeches) == len(events(match, "speech")) + len(events(match, "candidacy"))
            assert all(s.over for s in state.speeches)
            # Private news: only the seat that was told has it.
            wolf = bool(events(match, "wolves", seat))
            assert bool(state.wolves) == wolf
            assert all(line.player in state.wolves for line in state.team_talk)
            assert (not state.team_talk) or wolf
            seen = events(match, "seer_result", seat)
            assert [(r.player, r.side) for r in state.seer] == [(names[e.data["target"]], e.data["team"]) for e in seen]
            assert len(state.pack_votes) == len(events(match, "wolf_votes", seat))
            assert len(state.wolf_targets) == len(events(match, "wolf_target", seat))
    assert any(match.talk for match, _ in played), "the bots talk at the floor"


def test_reading_the_state_costs_nothing_until_a_bot_looks() -> None:
    """The state reads the lines when asked for, all of them in order, once."""
    ((match, states),) = play("avalon", 5, AvalonOptions(), range(1))
    view: Any = None

    class Look(Bot):
        def on_start(self, game: GameView[Any]) -> None:
            nonlocal view
            view = game

    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(NICKS[:5]):
        hub.connect(nick, Look(i) if i == 0 else Bot(i))
    hub.play("avalon", NICKS[:5], AvalonOptions(), 0)
    assert view._applied == 0 < len(view.messages), "nobody looked: nothing was read"
    state = view.state
    assert view._applied == len(view.messages)
    assert state.winner is not None and len(state.proposals) >= 3
    assert view.state is state and view._applied == len(view.messages)
