"""The Avalon rules engine: a pure, seeded state machine.

Decisions, in order: the leader proposes a ``team``; everyone casts a ``vote`` (approve or
reject, simultaneous, revealed together); the team plays ``quest`` cards (secret, only the
counts are told); after three successes with Merlin in play the assassin may ``assassinate``.

Events (audience in brackets): ``setup`` [all], ``role`` [the player: role, side, the seats
they see], ``loyalty_deck`` [all, Lancelot variant 2], ``loyalty`` [all, a Lancelot card
applied at the start of a quest], ``leader`` [all], ``team`` [all], ``votes`` [all],
``quest`` [all], ``assassination`` [all], ``end`` [all, with every role].
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...core.decisions import Decision
from ...core.events import Event
from ...core.game import ABORTED, FORFEIT, Game, Result
from .options import AvalonOptions
from .roles import LANCELOTS, Role, Side, seen_roles, starting_side
from .tables import MAX_PLAYERS, MAX_REJECTIONS, QUEST_SIZES, QUESTS_TO_WIN, fails_needed

APPROVE, REJECT = "approve", "reject"
SUCCESS, FAIL = "success", "fail"
BLANK, SWITCH = "blank", "switch"

VOTE_OPTIONS = (APPROVE, REJECT)
ONLY_SUCCESS = (SUCCESS,)
ONLY_FAIL = (FAIL,)
FREE_CARD = (SUCCESS, FAIL)

# End reasons.
THREE_SUCCESSES = "three_successes"
THREE_FAILS = "three_fails"
FIVE_REJECTIONS = "five_rejections"
ASSASSINATED_MERLIN = "assassinated_merlin"
MERLIN_SURVIVED = "merlin_survived"
END_REASONS = (THREE_SUCCESSES, MERLIN_SURVIVED, THREE_FAILS, FIVE_REJECTIONS, ASSASSINATED_MERLIN, FORFEIT, ABORTED)

GOOD, EVIL = Side.GOOD, Side.EVIL
"""The sides as plain names: an Enum member read from its class is a slow lookup on a hot path."""
SIDES = (GOOD.value, EVIL.value)
SIDE_NAMES = {side: side.value for side in Side}
"""Plain strings for the event log (an Enum's ``.value`` is a slow property on a hot path)."""
ROLE_NAMES = {role: role.value for role in Role}
STARTING = {role: starting_side(role) for role in Role}

# Decisions are immutable and every game asks the same few of them again and again, so they
# are built once per table size, already keyed by seat as rounds of decisions (which
# ``Game._open_round`` shares between games and never mutates).
_SEATS = {n: tuple(range(n)) for n in QUEST_SIZES}
_ONLY = tuple(frozenset((seat,)) for seat in range(MAX_PLAYERS))
"""The audience of a private event to one seat (frozensets are immutable, so events share them)."""
_VOTE_ROUNDS = {n: {s: Decision(s, "vote", VOTE_OPTIONS) for s in range(n)} for n in QUEST_SIZES}
_TEAM_ROUNDS = {
    n: {
        size: tuple({s: Decision(s, "team", _SEATS[n], size, targets=True)} for s in range(n))
        for size in set(QUEST_SIZES[n])
    }
    for n in QUEST_SIZES
}
"""``_TEAM_ROUNDS[players][size][leader]``: the leader's request for a team of ``size``."""
_QUEST_DECISIONS: dict[tuple[str, ...], tuple[Decision, ...]] = {
    cards: tuple(Decision(s, "quest", cards) for s in range(MAX_PLAYERS))
    for cards in (ONLY_SUCCESS, ONLY_FAIL, FREE_CARD)
}
"""``_QUEST_DECISIONS[cards][seat]``: a team member's request for a quest card."""


@dataclass(frozen=True)
class _Table:
    """What every game of one player count and rule set shares: the roles to deal, the
    setup numbers and who sees whom. Worked out once per (players, options) (both are
    immutable, and so are the tables the roles are checked against) and never mutated;
    event data is built afresh from it, so no two events share mutable data."""

    options: tuple[tuple[str, Any], ...]
    merlin: bool
    lancelot: int
    roles: tuple[Role, ...]
    """The roles to deal, unshuffled (``AvalonOptions.roles``)."""
    good: int
    evil: int
    fails_needed: tuple[int, ...]
    role_info: tuple[tuple[str, str], ...]
    """Per role of ``roles``, by its index there: its name and its starting side's name."""
    seen_by: tuple[tuple[int, ...], ...]
    """Per role of ``roles``, by its index there: the indices of the other roles that see it."""

    def setup_data(self, players: int) -> dict[str, Any]:
        """The ``setup`` event's data, a fresh copy every time."""
        return {
            "players": players,
            "options": dict(self.options),
            "good": self.good,
            "evil": self.evil,
            "quest_sizes": list(QUEST_SIZES[players]),
            "fails_needed": list(self.fails_needed),
        }


@functools.lru_cache(maxsize=256)
def _table(players: int, options: AvalonOptions) -> _Table:
    roles = tuple(options.roles(players))
    evil = options.evil_count(players)
    sees = [seen_roles(role, options.lancelot) for role in roles]
    return _Table(
        options=tuple(options.to_dict().items()),
        merlin=options.merlin,
        lancelot=options.lancelot,
        roles=roles,
        good=players - evil,
        evil=evil,
        fails_needed=tuple(fails_needed(players, q) for q in range(5)),
        role_info=tuple((ROLE_NAMES[role], SIDE_NAMES[STARTING[role]]) for role in roles),
        seen_by=tuple(
            tuple(other for other, seen in enumerate(sees) if role in seen and other != index)
            for index, role in enumerate(roles)
        ),
    )


class AvalonGame(Game):
    name: ClassVar[str] = "avalon"
    public_kinds: ClassVar[frozenset[str]] = frozenset({"team", "vote", "assassinate"})
    tallied_kinds: ClassVar[frozenset[str]] = frozenset({"vote", "quest"})
    reserved_words: ClassVar[frozenset[str]] = frozenset(VOTE_OPTIONS + FREE_CARD)
    """The words of votes and quest cards: a bot named ``approve`` would make a log of
    answers ambiguous, so no player may be called so."""
    role_names: ClassVar[Mapping[Role, str]] = ROLE_NAMES
    """How each role is named on the wire (a game built on these mechanics may rename one)."""
    Options = AvalonOptions
    options: AvalonOptions
    sides = SIDES
    end_reasons: ClassVar[tuple[str, ...]] = END_REASONS

    @classmethod
    def check_setup(cls, players: int, options: AvalonOptions) -> None:
        options.roles(players)

    def __init__(
        self, players: int, options: AvalonOptions | None = None, seed: int = 0, deal: Sequence[int] | None = None
    ) -> None:
        options = options or AvalonOptions()
        super().__init__(players, options, seed, deal)
        table = _table(players, options)
        order = self.deal_order(players)
        dealt = table.roles
        self._seat(
            [dealt[i] for i in order], self.rng.randrange(players), table.fails_needed, table.merlin, table.lancelot
        )
        self._deck: list[str] = self._loyalty_deck()

        events = self.events
        events.append(Event("setup", table.setup_data(players)))
        seen: list[list[int]] = [[] for _ in order]  # by role index: the seats it sees, added in seat order
        seen_by = table.seen_by
        for seat, index in enumerate(order):
            for viewer in seen_by[index]:
                seen[viewer].append(seat)
        info = table.role_info
        for seat, index in enumerate(order):
            name, side = info[index]
            events.append(Event("role", {"seat": seat, "role": name, "side": side, "sees": seen[index]}, _ONLY[seat]))
        if table.lancelot == 2:
            events.append(Event("loyalty_deck", {"cards": list(self._deck)}))
        self._start_quest()

    def _seat(self, roles: list[Role], leader: int, fails: tuple[int, ...], merlin: bool, lancelot: int) -> None:
        """The state every quest game starts from (Avalon and the games built on its
        mechanics, such as Tuvalon): the roles dealt, the first leader, the fail cards each
        quest needs, whether Merlin (and so the assassination) is in play, the Lancelot
        variant (0: none)."""
        players = self.players
        self.roles: list[Role] = roles
        self.sides_now: list[Side] = [STARTING[r] for r in roles]
        self.sizes = QUEST_SIZES[players]
        self.quest = 0
        self.attempt = 0
        self.rejections = 0
        self.results: list[bool] = []
        self.leader = leader
        self.team: tuple[int, ...] = ()
        self._fails_needed = fails
        self._merlin = merlin
        self._lancelot = lancelot
        self._deck = []
        self._vote_round = _VOTE_ROUNDS[players]
        self._team_rounds = _TEAM_ROUNDS[players]

    # -- Lancelot -------------------------------------------------------------------

    def _loyalty_deck(self) -> list[str]:
        if self._lancelot == 1:
            deck = [BLANK] * 3 + [SWITCH] * 2
        elif self._lancelot == 2:
            deck = [BLANK] * 5 + [SWITCH] * 2
        else:
            return []
        self.rng.shuffle(deck)
        return deck[:5]

    def _apply_loyalty(self) -> None:
        """Variant 1 turns a card from the third quest on; variant 2 applies card i at quest i."""
        variant = self._lancelot
        if variant == 1 and self.quest >= 2:
            card = self._deck[self.quest - 2]
        elif variant == 2:
            card = self._deck[self.quest]
        else:
            return
        if card == SWITCH:
            for seat, role in enumerate(self.roles):
                if role in LANCELOTS:
                    self.sides_now[seat] = EVIL if self.sides_now[seat] is GOOD else GOOD
        self.events.append(Event("loyalty", {"quest": self.quest + 1, "card": card}))

    # -- flow -----------------------------------------------------------------------

    def _start_quest(self) -> None:
        self.attempt = 0
        self._apply_loyalty()
        self._ask_for_team()

    def _ask_for_team(self) -> None:
        size = self.sizes[self.quest]
        self.events.append(
            Event(
                "leader",
                {
                    "quest": self.quest + 1,
                    "attempt": self.attempt + 1,
                    "leader": self.leader,
                    "size": size,
                    "rejections": self.rejections,
                },
            )
        )
        self._open_round(self._team_rounds[size][self.leader])

    def _on_team(self, seat: int, team: tuple[int, ...]) -> None:
        self.team = team
        self.events.append(Event("team", {"quest": self.quest + 1, "leader": seat, "team": list(team)}))
        self._open_round(self._vote_round)

    def _on_vote(self, seat: int, vote: str) -> None:
        """The last vote of a round (``tallied_kinds``): everyone's votes are revealed together.
        Every seat votes and nothing else is asked meanwhile, so the round's votes are the
        last ``players`` answers of the history."""
        approve: list[int] = []
        reject: list[int] = []
        for s, _, v in self.history[-self.players :]:
            if v == APPROVE:
                approve.append(s)
            else:
                reject.append(s)
        approve.sort()  # answered in any order; sorting the seats costs less than the answers
        reject.sort()
        passed = 2 * len(approve) > self.players
        self.rejections = 0 if passed else self.rejections + 1
        self.events.append(
            Event("votes", {"approve": approve, "reject": reject, "passed": passed, "rejections": self.rejections})
        )
        self.leader = (self.leader + 1) % self.players
        if passed:
            self._send_team()
        elif self.rejections >= MAX_REJECTIONS:
            self._end(EVIL, FIVE_REJECTIONS)
        else:
            self.attempt += 1
            self._ask_for_team()

    def _send_team(self) -> None:
        """The team goes on its quest: each member is asked for a card; a good one may only
        play success."""
        sides, asks = self.sides_now, {}
        for s in self.team:
            asks[s] = _QUEST_DECISIONS[ONLY_SUCCESS if sides[s] is GOOD else self._evil_cards(s)][s]
        self._open_round(asks)

    def _evil_cards(self, seat: int) -> tuple[str, ...]:
        """The cards an evil team member may play: a Lancelot of variant 2 only fail."""
        return ONLY_FAIL if self._lancelot == 2 and self.roles[seat] in LANCELOTS else FREE_CARD

    def _on_quest(self, seat: int, card: str) -> None:
        """The last card of a quest (``tallied_kinds``), so the cards are the last answers of
        the history, one per team member: only the count of fails is told."""
        fails = 0
        for _, _, card in self.history[-len(self.team) :]:
            if card == FAIL:
                fails += 1
        success = fails < self._fails_needed[self.quest]
        self.results.append(success)
        wins = sum(self.results)
        losses = len(self.results) - wins
        self.events.append(
            Event(
                "quest",
                {
                    "quest": self.quest + 1,
                    "team": list(self.team),
                    "fails": fails,
                    "result": SUCCESS if success else FAIL,
                    "successes": wins,
                    "failures": losses,
                },
            )
        )
        if losses == QUESTS_TO_WIN:
            self._end(EVIL, THREE_FAILS)
        elif wins == QUESTS_TO_WIN:
            if self._merlin:
                assassin = self.roles.index(Role.ASSASSIN)
                targets = tuple(s for s in range(self.players) if s != assassin)
                self.events.append(Event("assassination_phase", {"assassin": assassin}))
                self._open((Decision(assassin, "assassinate", targets, 1, targets=True),))
            else:
                self._end(GOOD, THREE_SUCCESSES)
        else:
            self.quest += 1
            self._start_quest()

    def _on_assassinate(self, seat: int, target: int) -> None:
        hit = self.roles[target] is Role.MERLIN
        self.events.append(Event("assassination", {"assassin": seat, "target": target, "hit": hit}))
        if hit:
            self._end(EVIL, ASSASSINATED_MERLIN)
        else:
            self._end(GOOD, MERLIN_SURVIVED)

    def _end(self, winner: Side, reason: str) -> None:
        winners = frozenset(s for s in range(self.players) if self.sides_now[s] is winner)
        name = SIDE_NAMES[winner]
        self.events.append(Event("end", {"winner": name, "reason": reason, **self._reveal()}))
        self._finish(Result(name, winners, reason))

    def _reveal(self) -> dict[str, Any]:
        names = self.role_names
        return {"roles": [names[r] for r in self.roles], "sides": [SIDE_NAMES[s] for s in self.sides_now]}

    def default_answer(self, decision: Decision) -> Any:
        """A silent leader sends themself and the next seats; a silent voter approves; a silent
        quester plays success; a silent assassin names the first seat they may choose."""
        if decision.kind == "team":
            return tuple(sorted((decision.seat + i) % self.players for i in range(decision.count)))
        return decision.options[0]

    handlers: ClassVar[dict[str, Any]] = {
        "team": _on_team,
        "vote": _on_vote,
        "quest": _on_quest,
        "assassinate": _on_assassinate,
    }
