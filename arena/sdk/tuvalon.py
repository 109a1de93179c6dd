"""Tuvalon for bots: ``TuvalonBot`` (one method per decision), its requests, and
``TuvalonState`` (Avalon's quest track and proposals, plus the map, the moves and what
this bot heard in both discussions), kept up to date by the SDK.

protocol.md, section 10, is the wire side of all of this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..games.tuvalon import board
from ..games.tuvalon import messages as m
from ..games.wire import Team, typed
from ..protocol import ROLE, Message
from .avalon import AssassinateAsk, AvalonBot, AvalonState, Proposal, QuestAsk, TeamAsk, VoteAsk
from .fields import Player, number, word
from .speech import Talk
from .view import Ask, GameSpec, GameView, register

# -- requests ------------------------------------------------------------------------


class TurnAsk(Ask):
    """``speak`` (the first discussion: you have the floor, everyone hears you) or
    ``speak_near`` (the second: your ``TEAM`` lines go only to the players in range):
    answer ``done`` (or ``pass``) once you have said your lines."""

    quest = number("The quest (1-5) the proposed team is for.")
    turn = number("Your place in this round's order, from 1 (the leader).")


class MoveAsk(Ask):
    """``move``: ``options`` are the cells you can reach in at most three steps through free
    cells, your own (``at``: staying) first, then by distance."""

    quest = number("The quest (1-5) the proposed team is for.")
    turn = number("Your place in this round's order, from 1 (the leader).")
    at = word("The cell you stand on.")


# -- state -----------------------------------------------------------------------------


@dataclass
class Line:
    """A line of speech this bot heard (or said)."""

    quest: int
    player: Player
    text: str
    near: bool
    """Said in the second discussion (heard only within range), not to everyone."""


@dataclass
class TuvalonState(AvalonState):
    """A Tuvalon game as its lines told it to this bot: the quest track and proposals (as
    Avalon's), where everyone stands (``cells``), and every line it heard."""

    cells: dict[Player, str] = field(default_factory=dict)
    """Where each player stands now (cells as ``e5``: column a-i, row 1-9)."""
    hearing: int = 1
    """Your hearing range: in the second discussion you hear the players at most this many
    cells away (``distance``): 1, or 2 for Knights and Oberon."""
    heard: list[Line] = field(default_factory=list)
    """Every line of speech you heard (your own too), oldest first."""
    moves: list[tuple[int, Player, str, str]] = field(default_factory=list)
    """Every move: (quest, player, from, to)."""
    forced: bool = False
    """Whether the current team goes without a vote (three rejections in a row)."""

    def where(self, player: Player) -> tuple[int, int]:
        """``player``'s cell as (column, row), from 0."""
        cell = board.parse(self.cells[player])
        assert cell is not None
        return cell

    def distance(self, a: Player, b: Player) -> int:
        """How far apart two players stand: the hearing range is a square, so the larger
        of the column and row differences."""
        return board.distance(self.where(a), self.where(b))

    def said(self, player: Player, text: str) -> None:
        self.heard.append(Line(self.quest, player, text, False))

    def _role(self, msg: Message) -> None:
        super()._role(msg)
        self.hearing = m.Role.parse(msg).hearing

    def _map(self, msg: m.Map) -> None:
        self.cells = dict(msg.cells)

    def _proposed(self, msg: m.TeamProposed) -> None:
        self.quest, self.leader, self.forced = msg.quest, msg.leader, msg.forced
        self.proposals.append(Proposal(self.quest, self.attempt, self.leader, list(msg.team)))

    def _vote(self, msg: Message) -> None:
        """The proposal was recorded at ``TEAM_PROPOSED``."""

    def _move(self, msg: m.Move) -> None:
        self.moves.append((self.quest, msg.player, msg.from_, msg.to))
        self.cells[msg.player] = msg.to

    def _team_line(self, msg: Team) -> None:
        self.heard.append(Line(self.quest, msg.from_, msg.text, True))

    def _forced(self, msg: m.Forced) -> None:
        self.rejections = 0
        self.quests[msg.quest - 1].team = list(msg.team)

    READERS = {
        **AvalonState.READERS,
        ROLE: _role,
        "ASK vote": _vote,
        **typed({m.Map: _map, m.TeamProposed: _proposed, m.Move: _move, Team: _team_line, m.Forced: _forced}),
    }


TuvalonView: TypeAlias = GameView[TuvalonState]
"""What a ``TuvalonBot``'s decisions get as ``game``: ``game.state`` is a ``TuvalonState``."""

TUVALON = register(
    GameSpec(
        "tuvalon",
        TuvalonState,
        {
            "team": TeamAsk,
            "speak": TurnAsk,
            "move": MoveAsk,
            "speak_near": TurnAsk,
            "vote": VoteAsk,
            "quest": QuestAsk,
            "assassinate": AssassinateAsk,
        },
    )
)


# -- the bot ------------------------------------------------------------------------


class TuvalonBot(AvalonBot):
    """A Tuvalon bot: Avalon's decisions (``team``, ``vote``, ``quest``, ``assassinate``,
    inherited from ``AvalonBot``), and Tuvalon's turns: ``speech`` (what you say to everyone
    at ``speak``), ``move``, ``near_speech`` (what you say at ``speak_near``, heard only
    within range). Each one you leave alone answers with a random legal choice or says
    nothing. Rules: protocol.md, section 10."""

    plays = "tuvalon"

    def speak(self, game: TuvalonView, ask: TurnAsk) -> str:
        """Return ``done`` (or ``pass``) to end your turn in the first discussion, once
        ``speech`` has said your lines. Default: ``done``."""
        return "done"

    def speak_near(self, game: TuvalonView, ask: TurnAsk) -> str:
        """Return ``done`` (or ``pass``) to end your turn in the second discussion, once
        ``near_speech`` has said your lines. Default: ``done``."""
        return "done"

    def move(self, game: TuvalonView, ask: MoveAsk) -> str:
        """Return the cell to move to, one of ``ask.options`` (``ask.at``: stay).
        Default: a random one."""
        return self._at_random(ask)

    def near_speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:
        """What you say in the second discussion: the referee relays it to the players
        whose hearing range holds you (``game.state.cells``, ``game.state.distance``), and
        to nobody else. Cut into lines as ``speech``. Default: nothing."""
        return []

    def team_talk(self, game: GameView[Any], ask: Ask) -> Talk:
        """Tuvalon's private speech is the second discussion: ``near_speech``."""
        if ask.kind == "speak_near":
            return self.near_speech(game, ask)  # type: ignore[arg-type]
        return []
