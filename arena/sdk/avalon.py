"""Avalon for bots: ``AvalonBot`` (one method per decision), its requests, and
``AvalonState`` (the quest track, every proposal and vote), kept up to date by the SDK.

protocol.md, section 5, is the wire side of all of this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from ..games.avalon import messages as m
from ..games.wire import typed
from ..protocol import END, Message
from .bot import GameBot
from .fields import Player, number, player, players
from .view import Ask, GameSpec, GameState, GameView, register

# -- requests ------------------------------------------------------------------------


class TeamAsk(Ask):
    """``team``: you lead. ``options`` is every player; pick ``pick`` of them (yourself
    included, if you like)."""

    quest = number("The quest (1-5) the team is for.")
    attempt = number("Which proposal for this quest this is, from 1.")
    rejections = number("Proposals rejected in a row before this one: a fifth rejection gives evil the game.")


class VoteAsk(Ask):
    """``vote``: everyone approves or rejects the leader's team (``options``: ``approve``,
    ``reject``); the votes are revealed together (``VOTES``)."""

    quest = number("The quest (1-5) the team is for.")
    leader = player("Who proposed the team.")
    team = players("The proposed team.")
    rejections = number(
        "Proposals rejected in a row before this one: if this one is rejected too and it is the fifth, evil wins."
    )


class QuestAsk(Ask):
    """``quest``: you are on the team; play a card. ``options`` is ``success`` and, for an
    evil player, ``fail`` (``success`` alone for the good, ``fail`` alone for an evil
    Lancelot under variant 2)."""

    quest = number("The quest (1-5) being played.")
    team = players("Everyone on the quest.")


class AssassinateAsk(Ask):
    """``assassinate``: good won three quests; you, the assassin, name Merlin among
    ``options`` (the players you may name)."""


# -- state -----------------------------------------------------------------------------


@dataclass
class Quest:
    """One of the five quests."""

    number: int
    size: int
    """How many players go on it."""
    fails_needed: int
    """Fail cards that sink it (two on the fourth quest at 7 or more players)."""
    team: list[Player] = field(default_factory=list)
    """Who went (or goes) on it: the approved team; empty before one is approved."""
    result: str | None = None
    """``success`` or ``fail`` once played."""
    fails: int = 0
    """Fail cards played on it."""


@dataclass
class Proposal:
    """A team a leader proposed, and the vote on it."""

    quest: int
    attempt: int
    leader: Player
    team: list[Player]
    approve: list[Player] = field(default_factory=list)
    reject: list[Player] = field(default_factory=list)
    approved: bool | None = None
    """Whether a majority approved; None while the vote is open."""


@dataclass
class AvalonState(GameState):
    """An Avalon game as its lines told it to this bot: the quest track, every proposal
    and vote, and what your role sees (``sees``)."""

    good: int = 0
    evil: int = 0
    quests: list[Quest] = field(default_factory=list)
    """The quest track: all five, with their sizes from the start and results as played."""
    quest: int = 1
    """The quest being played now (the last one, once the game is decided)."""
    attempt: int = 1
    """The proposal for the current quest, from 1."""
    leader: Player | None = None
    """The current leader: the player asked for a team last."""
    rejections: int = 0
    """Proposals rejected in a row (five give evil the game)."""
    proposals: list[Proposal] = field(default_factory=list)
    """Every proposal so far, with its votes, oldest first."""
    deck: list[str] = field(default_factory=list)
    """Lancelot variant 2: the loyalty cards shown at the start, in the order they apply."""
    loyalty: list[str] = field(default_factory=list)
    """Lancelot: the loyalty cards turned so far (``blank``, ``switch``)."""
    assassin: Player | None = None
    """The assassin, once asked to name Merlin."""
    assassinated: Player | None = None
    """Whom the assassin named."""
    lancelots: dict[Player, str] = field(default_factory=dict)
    """The Lancelots' final sides, told at the end."""

    @property
    def successes(self) -> int:
        return sum(q.result == "success" for q in self.quests)

    @property
    def failures(self) -> int:
        return sum(q.result == "fail" for q in self.quests)

    @property
    def current(self) -> Quest:
        """The quest being played now."""
        return self.quests[self.quest - 1]

    @property
    def proposal(self) -> Proposal | None:
        """The latest proposal (the one being voted on, while a vote is open)."""
        return self.proposals[-1] if self.proposals else None

    @property
    def switched(self) -> bool:
        """Whether the Lancelots have swapped sides (an odd number of ``switch`` cards)."""
        return self.loyalty.count("switch") % 2 == 1

    def __str__(self) -> str:
        track = " ".join(
            f"{q.number}:{q.result or '?'}({q.size}{'*' if q.fails_needed > 1 else ''})" for q in self.quests
        )
        lines = [f"quests {track}  leader {self.leader}  rejections {self.rejections}"]
        for p in self.proposals:
            verdict = "open" if p.approved is None else "approved" if p.approved else "rejected"
            lines.append(
                f"  quest {p.quest}.{p.attempt} {p.leader}: {','.join(p.team)} {verdict}"
                f"{' by ' + ','.join(p.approve) if p.approved is not None else ''}"
            )
        return "\n".join(lines)

    # -- readers (see GameState.READERS) ---------------------------------------------

    def _start(self, msg: m.Start) -> None:
        self.good, self.evil = msg.good, msg.evil
        self.quests = [
            Quest(n, size, msg.fails[n - 1] if n <= len(msg.fails) else 1) for n, size in enumerate(msg.quests, 1)
        ]

    # Every bot of a table reads the requests of every round: these readers take the
    # fields as ``Message.int`` and ``Message.list`` would, without a call for each.

    def _team(self, msg: Message) -> None:
        fields = msg.fields
        self.leader = fields.get("to")
        quest, attempt, rejections = fields.get("quest"), fields.get("attempt"), fields.get("rejections")
        if quest is not None:
            self.quest = int(quest)
        if attempt is not None:
            self.attempt = int(attempt)
        if rejections is not None:
            self.rejections = int(rejections)

    def _vote(self, msg: Message) -> None:
        fields = msg.fields
        quest = fields.get("quest")
        if quest is not None:
            self.quest = int(quest)
        self.leader = fields.get("leader", self.leader or "")
        team = fields.get("team")
        self.proposals.append(Proposal(self.quest, self.attempt, self.leader, team.split(",") if team else []))

    def _votes(self, msg: m.Votes) -> None:
        self.rejections = msg.rejections
        if not self.proposals:
            return
        proposal = self.proposals[-1]
        proposal.approve, proposal.reject = list(msg.approve), list(msg.reject)
        proposal.approved = msg.result == "approved"
        if proposal.approved:
            self.quests[proposal.quest - 1].team = proposal.team

    def _quest(self, msg: m.Quest) -> None:
        quest = self.quests[msg.quest - 1]
        quest.team, quest.result, quest.fails = list(msg.team), msg.result, msg.fails

    def _deck(self, msg: m.Deck) -> None:
        self.deck = list(msg.cards)

    def _loyalty(self, msg: m.Loyalty) -> None:
        self.loyalty.append(msg.card)

    def _assassinate(self, msg: Message) -> None:
        self.assassin = msg.get("to")

    def _assassination(self, msg: m.Assassination) -> None:
        self.assassin, self.assassinated = msg.assassin, msg.target

    def _end(self, msg: Message) -> None:
        super()._end(msg)
        self.lancelots = dict(m.End.parse(msg).lancelots or {})

    READERS = {
        **GameState.READERS,
        **typed(
            {
                m.Start: _start,
                m.Votes: _votes,
                m.Quest: _quest,
                m.Deck: _deck,
                m.Loyalty: _loyalty,
                m.Assassination: _assassination,
            }
        ),
        "ASK team": _team,
        "ASK vote": _vote,
        "ASK assassinate": _assassinate,
        END: _end,
    }


AvalonView: TypeAlias = GameView[AvalonState]
"""What an ``AvalonBot``'s decisions get as ``game``: ``game.state`` is an ``AvalonState``."""

AVALON = register(
    GameSpec(
        "avalon",
        AvalonState,
        {
            "team": TeamAsk,
            "vote": VoteAsk,
            "quest": QuestAsk,
            "assassinate": AssassinateAsk,
        },
    )
)


# -- the bot ------------------------------------------------------------------------


class AvalonBot(GameBot):
    """An Avalon bot: override the decisions you care about; each one you leave alone
    answers with a random legal choice. ``game.state`` (an ``AvalonState``) is the game so
    far; ``ask`` carries the request's fields, typed. Rules: protocol.md, section 5."""

    plays = "avalon"

    def team(self, game: AvalonView, ask: TeamAsk) -> list[Player]:
        """You lead: return ``ask.pick`` distinct players from ``ask.options`` (you may
        include yourself), in any order. Default: a random team."""
        return self._some_at_random(ask)

    def vote(self, game: AvalonView, ask: VoteAsk) -> str:
        """Return ``"approve"`` or ``"reject"`` for ``ask.team``, proposed by
        ``ask.leader``. A team goes when a strict majority approves. Default: at random."""
        return self._at_random(ask)

    def quest(self, game: AvalonView, ask: QuestAsk) -> str:
        """You are on the quest: return ``"success"`` or ``"fail"``, one of ``ask.options``
        (a good player is offered ``success`` only). Default: at random among them."""
        return self._at_random(ask)

    def assassinate(self, game: AvalonView, ask: AssassinateAsk) -> Player:
        """You are the assassin and good won three quests: return the player of
        ``ask.options`` you take for Merlin; naming Merlin wins the game for evil.
        Default: a random player."""
        return self._at_random(ask)
