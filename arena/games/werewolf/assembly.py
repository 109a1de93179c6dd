"""The village's assembly in the day (rules/werewolf.md §4): the leader election (step 1),
the speaking order and turns (step 5, last words of §4.1), the vote and its runoff (step 6).

Every decision here is public and asked one player at a time, in the day's order; the pure
parts (the order round the table, the count, who gets last words) are day.py's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from ...core.errors import ErrorCode
from .choice import ABSTAIN, CLOCKWISE, COUNTERCLOCKWISE, DECLINE, DONE, PASS, STAND, Choice, Refusal
from .day import STEP, last_words_order, speaking_order, tally
from .mechanics import statuses
from .phases import DAY_DISCUSSION, DAY_VOTE

if TYPE_CHECKING:
    from .engine import WerewolfGame

SPEECH_KINDS = ("candidacy", "speak", "last_words")


def _pairs(counts: dict[int, int]) -> list[list[int]]:
    """Vote counts as [seat, votes] pairs by seat (JSON keeps them as they are)."""
    return [[seat, n] for seat, n in sorted(counts.items())]


class Assembly:
    """The day's order, who is still to be asked in it, and the votes of the round."""

    def __init__(self) -> None:
        self.order: list[int] = []
        """Today's living players round the table, from where the day's turns start."""
        self.queue: list[int] = []
        """Who is still to be asked, in turn."""
        self.votes: dict[int, Any] = {}
        self.candidates: list[int] = []
        """Leader candidates on day 1."""
        self.runoff: list[int] = []
        """The tied of a first day vote."""
        self.vote_round = 1
        """1 for the day's vote, 2 for the runoff between the tied."""
        self._purpose = ""
        self._start: int | None = None
        self._fixed: dict[tuple[int, str], Choice] = {}
        """Decisions whose options never change (speaking turns), built once."""

    @property
    def purpose(self) -> str:
        """What the current speaking turns are for: discussion, runoff or last_words."""
        return self._purpose or "discussion"

    def _fixed_choice(self, seat: int, kind: str, options: tuple[str, ...]) -> Choice:
        key = (seat, kind)
        found = self._fixed.get(key)
        if found is None:
            found = self._fixed[key] = Choice(seat, kind, options)
        return found

    # -- leader election (§4, step 1) ------------------------------------------------

    def elect_leader(self, game: WerewolfGame, _: Any) -> None:
        living = game.living()
        start = living[game.rng.randrange(len(living))]
        self.order = speaking_order(game.alive, start, COUNTERCLOCKWISE)
        self.candidates = []
        self.queue = [s for s in self.order if self.may_speak(game, s)]
        game._then(("candidacy", None))

    def ask_candidacy(self, game: WerewolfGame, _: Any) -> None:
        seat = self.queue.pop(0)
        game._then(("candidacy", None) if self.queue else ("leader_votes", None))
        game._open((self._fixed_choice(seat, "candidacy", (STAND, DECLINE)),))

    def on_candidacy(self, game: WerewolfGame, seat: int, value: str) -> None:
        if value == STAND:
            self.candidates.append(seat)
        game.tell("candidacy", {"seat": seat, "stand": value == STAND})
        game._advance()

    def leader_votes(self, game: WerewolfGame, _: Any) -> None:
        self.votes = {}
        if len(self.candidates) > 1:
            self.queue = [s for s in self.order if s not in self.candidates]
            if self.queue:
                game._then(("leader_ballot", None))
                return
        self.leader_result(game, None)

    def ask_leader_vote(self, game: WerewolfGame, _: Any) -> None:
        seat = self.queue.pop(0)
        game._then(("leader_ballot", None) if self.queue else ("leader_result", None))
        game._open(
            (Choice(seat, "leader_vote", (*self.candidates, ABSTAIN), refusals=self._vote_refusals(game, seat)),)
        )

    def on_leader_vote(self, game: WerewolfGame, seat: int, value: Any) -> None:
        self.votes[seat] = value
        game.tell("leader_vote", {"seat": seat, "vote": value})
        game._advance()

    def leader_result(self, game: WerewolfGame, _: Any) -> None:
        counts, abstentions, top = tally(self.votes, majority=False)
        tied = top or list(self.candidates)
        if not tied:
            game.leader = None
        elif len(tied) == 1:
            game.leader = tied[0]
        else:
            game.leader = tied[game.rng.randrange(len(tied))]
        game.tell(
            "leader",
            {
                "leader": game.leader,
                "candidates": sorted(self.candidates),
                "counts": _pairs(counts),
                "abstentions": abstentions,
                "tie": len(tied) > 1,
            },
        )

    # -- discussion order (§4, step 5) ------------------------------------------------

    def leader_alive(self, game: WerewolfGame) -> bool:
        return game.options.leaderEnabled and game.leader is not None and game.alive[game.leader]

    def choose_order(self, game: WerewolfGame, _: Any) -> None:
        game.phase = DAY_DISCUSSION
        victims = sorted(game.victims)
        if self.leader_alive(game):
            assert game.leader is not None
            self._start = None
            if victims:  # asked even with one dead to start from: every decision is asked (protocol.md, section 4)
                game._then(("order_direction", None))
                game._open((Choice(game.leader, "order_start", tuple(victims)),))
            else:
                self.ask_direction(game, None)
            return
        if victims:
            start = victims[game.rng.randrange(len(victims))]
        else:
            living = game.living()
            start = living[game.rng.randrange(len(living))]
        self._set_order(game, start, COUNTERCLOCKWISE, None)

    def on_order_start(self, game: WerewolfGame, seat: int, value: int) -> None:
        self._start = value
        game._advance()

    def ask_direction(self, game: WerewolfGame, _: Any) -> None:
        assert game.leader is not None
        game._open((self._fixed_choice(game.leader, "order_direction", (CLOCKWISE, COUNTERCLOCKWISE)),))

    def on_order_direction(self, game: WerewolfGame, seat: int, value: str) -> None:
        start = self._start if self._start is not None else (seat + STEP.get(value, -1)) % game.players
        self._set_order(game, start, value, seat)
        game._advance()

    def _set_order(self, game: WerewolfGame, start: int, direction: str, leader: int | None) -> None:
        self.order = speaking_order(game.alive, start, direction)
        speakers = [s for s in self.order if self.may_speak(game, s)]
        if leader is not None and self.may_speak(game, leader) and speakers and speakers[-1] != leader:
            speakers.append(leader)
        self.queue = list(speakers)
        game.tell("order", {"start": start, "direction": direction, "speakers": speakers, "leader": leader})

    # -- speaking turns ----------------------------------------------------------------

    def may_speak(self, game: WerewolfGame, seat: int) -> bool:
        """Whether ``seat`` gets turns at the floor today (a silenced player does not)."""
        return not statuses.has(game, statuses.SILENCED, seat)

    def speeches(self, game: WerewolfGame, purpose: str) -> None:
        if not self.queue:
            return
        seat = self.queue.pop(0)
        self._purpose = purpose
        if self.queue:
            game._then(("speeches", purpose))
        kind = "last_words" if purpose == "last_words" else "speak"
        game._open((self._fixed_choice(seat, kind, (DONE, PASS)),))

    def on_speak(self, game: WerewolfGame, seat: int, value: str) -> None:
        game.tell("speech", {"seat": seat, "purpose": self._purpose, "passed": value == PASS})
        game._advance()

    def last_words(self, game: WerewolfGame, eligible: list[int]) -> None:
        eligible = [s for s in eligible if self.may_speak(game, s)]
        chosen = last_words_order(eligible, game.last_words_left, game.options.lastWordsOrder, game.players, game.rng)
        if game.last_words_left is not None:
            game.last_words_left -= len(chosen)
        self.queue = chosen
        game._then(("speeches", "last_words"))

    # -- votes (§4, step 6) -----------------------------------------------------------

    def may_vote(self, game: WerewolfGame, seat: int) -> bool:
        """Whether ``seat`` votes on executions today (a revealed idiot, a punished voter do not)."""
        return not game.state[seat].get("no_vote") and not statuses.has(game, statuses.VOTELESS, seat)

    def voters_against(self, game: WerewolfGame, seat: int) -> list[int]:
        """The living players who voted for ``seat`` in the round that just executed them."""
        return sorted(s for s, vote in self.votes.items() if vote == seat and game.alive[s])

    def _vote_refusals(self, game: WerewolfGame, seat: int) -> dict[Any, Refusal]:
        refusals = game.dead_refusals()
        refusals[seat] = (ErrorCode.CANNOT_SELF_TARGET, "you cannot vote for yourself")
        return refusals

    def vote(self, game: WerewolfGame, round_: int) -> None:
        game.phase = DAY_VOTE
        self.votes = {}
        self.queue = [
            s for s in self.order if game.alive[s] and self.may_vote(game, s) and (round_ == 1 or s not in self.runoff)
        ]
        self.vote_round = round_
        game._then(("ballot", round_) if self.queue else ("count", round_))

    def ask_vote(self, game: WerewolfGame, round_: int) -> None:
        seat = self.queue.pop(0)
        game._then(("ballot", round_) if self.queue else ("count", round_))
        refusals = self._vote_refusals(game, seat)
        if round_ == 1:
            targets = tuple(s for s in range(game.players) if s not in refusals)
        else:
            for s in range(game.players):
                if s not in self.runoff:
                    refusals.setdefault(s, (ErrorCode.TARGET_INVALID, f"seat {s} is not in the runoff"))
            targets = tuple(self.runoff)
        game._open((Choice(seat, "vote", (*targets, ABSTAIN), refusals=refusals),))

    def on_vote(self, game: WerewolfGame, seat: int, value: Any) -> None:
        self.votes[seat] = value
        game.tell("vote", {"seat": seat, "vote": value, "round": self.vote_round})
        game._advance()

    def count(self, game: WerewolfGame, round_: int) -> None:
        counts, abstentions, top = tally(self.votes, game.options.dayVoteMajority)
        if len(top) == 1:
            outcome = "execution"
        elif len(top) > 1 and round_ == 1:
            outcome = "runoff"
        else:
            outcome = "none"
        game.tell(
            "vote_result",
            {
                "round": round_,
                "counts": _pairs(counts),
                "abstentions": abstentions,
                "outcome": outcome,
                "target": top[0] if outcome == "execution" else None,
                "candidates": top if outcome == "runoff" else [],
            },
        )
        self.runoff = top if outcome == "runoff" else []
        if outcome == "execution":
            game._then(("execute", top[0]))
        elif outcome == "runoff":
            self.queue = [s for s in self.order if s in top and self.may_speak(game, s)]
            game._then(("speeches", "runoff"), ("vote", 2))
        else:
            game._then(("night", None))

    answers: ClassVar[dict[str, Callable[[Assembly, WerewolfGame, int, Any], None]]] = {
        "candidacy": on_candidacy,
        "leader_vote": on_leader_vote,
        "order_start": on_order_start,
        "order_direction": on_order_direction,
        "speak": on_speak,
        "last_words": on_speak,
        "vote": on_vote,
    }
    """The handler of each decision kind asked here (``WerewolfGame.handlers``)."""
