"""Deaths and what they set off (rules/werewolf.md §4): a lover's grief, the execution of §4,
step 7, and the death-triggered decisions of §4.2 (the hunter's shot, the scapegoat's
punishment), asked in the day after the deaths that owe them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.errors import ErrorCode
from ...core.game import Result
from .choice import NONE, Choice, Refusal
from .phases import DAY_EXECUTION
from .roles import DIES, SPARED, Action, Role

if TYPE_CHECKING:
    from .engine import WerewolfGame


class Deaths:
    """Who died, for the refusals of later decisions; the deaths of the batch being
    resolved (a dawn's, an execution's); who owes a death-triggered decision."""

    def __init__(self, in_play: list[type[Role]]) -> None:
        self.refusals: dict[Any, Refusal] = {}
        """TARGET_ALREADY_DEAD refusals, kept current by ``die`` and copied by decisions."""
        self.batch: list[int] = []
        """Deaths of the batch being resolved, in order."""
        self.owed: list[tuple[int, type[Action] | None]] = []
        """Who owes a death-triggered decision; with roles hidden every dead seat (None: a
        cover request, see ``ask_hidden``)."""
        self.trigger_kind = min((a.kind for r in in_play for a in r.actions if a.step is None), default=None)
        """A death trigger dealt (the hunter's shot, the scapegoat's punishment), if any: what
        the cover requests look like (the same kind in every game with the same deal)."""

    def take(self, game: WerewolfGame, deaths: dict[int, list[str]]) -> list[int]:
        """Let each of ``deaths`` die of its causes, unless a lover's grief took them first
        in this batch; the batch's dead (lovers included) in the order they died."""
        self.batch = []
        for seat, causes in deaths.items():
            if game.alive[seat]:
                self.die(game, seat, causes, announce=False)
        return list(self.batch)

    def die(self, game: WerewolfGame, seat: int, causes: list[str], announce: bool) -> None:
        game.alive[seat] = False
        self.refusals[seat] = (ErrorCode.TARGET_ALREADY_DEAD, f"seat {seat} is dead")
        self.batch.append(seat)
        if announce:
            self.announce(game, seat)
        trigger = game.seat_roles[seat].on_death(game, seat, causes)
        if trigger is not None or (self.trigger_kind is not None and not game.options.revealRolesOnDeath):
            self.owed.append((seat, trigger))
        partner = game.links.get(seat)
        if partner is not None and game.alive[partner]:
            self.die(game, partner, ["heartbreak"], announce)

    def announce(self, game: WerewolfGame, seat: int) -> None:
        """A death in the day (``death``), with the role when roles are revealed."""
        data: dict[str, Any] = {"seat": seat, "day": game.day}
        if game.options.revealRolesOnDeath:
            data["role"] = game.roles[seat]
        game.tell("death", data)

    def execute(self, game: WerewolfGame, seat: int) -> None:
        """The day's vote names ``seat``: their role decides (an idiot is spared, a jester
        wins); the executed speak their last words, then their triggers, then the win check."""
        game.phase = DAY_EXECUTION
        outcome = game.seat_roles[seat].on_executed(game, seat)
        spared = outcome == SPARED
        data: dict[str, Any] = {"day": game.day, "seat": seat, "spared": spared}
        if game.options.revealRolesOnDeath and not spared:
            data["role"] = game.roles[seat]
        game.tell("execution", data)
        if spared:
            game._then(("night", None))
            return
        for lover in self.take(game, {seat: ["execution"]})[1:]:  # a lover dying of grief
            self.announce(game, lover)
        if isinstance(outcome, Result):
            game._end(outcome)
            return
        assert outcome == DIES
        game._then(("last_words", [seat]), ("triggers", None), ("check", None), ("night", None))

    def ask_triggers(self, game: WerewolfGame, _: Any) -> None:
        """Ask the death-triggered decisions owed, one at a time when roles are revealed."""
        if not game.options.revealRolesOnDeath:
            self.ask_hidden(game)
            return
        while self.owed:
            seat, action = self.owed.pop(0)
            assert action is not None
            decision = action.decision(game, seat)
            if decision is not None:
                game._then(("triggers", None))
                game._open((decision,))
                return

    def ask_hidden(self, game: WerewolfGame) -> None:
        """With roles hidden, ask every player who died at once, each by the same kind of
        request (a non-hunter, or a hunter with no one to shoot, gets ``none`` alone): asking
        only the hunter would name them by the pause it makes in the day."""
        batch, self.owed = self.owed, []
        if not batch:
            return
        kind = self.trigger_kind
        assert kind is not None
        decisions = []
        for seat, action in batch:
            decision = None if action is None else action.decision(game, seat)
            decisions.append(decision or Choice(seat, kind, (NONE,)))
        game._then(("triggers", None))
        game._open(decisions)
