"""The night (rules/werewolf.md §3): who is asked when, how the answers settle, and dawn.

Every living player whose role acts is asked at once (§3.1): none of these choices depends
on another's, and asking them in turn would let each learn from the delay who before them
is alive. Only an action that ``needs`` another's result waits (the witch, for the wolves'
target). Each step settles once its answers are in, in the order of §3.2, whatever order
they arrived in; dawn resolves kills and protections as §3.10 (resolution.py) and opens
the day of §4.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.decisions import Decision
from ...core.errors import ErrorCode
from .choice import ABSTAIN, NONE, Cover
from .mechanics import copies, redirects, statuses
from .mechanics.blocks import aimed_at_absent, is_blocked
from .mechanics.visits import Visit, visit
from .phases import DAY_ANNOUNCE
from .resolution import Kill, Protection, resolve
from .roles import ACTIONS, Action, Role

if TYPE_CHECKING:
    from .engine import WerewolfGame


@dataclass
class NightPlan:
    """What the night's actions recorded, resolved at dawn (the specification's nightActions)."""

    answers: list[tuple[float, int, str, Any]] = field(default_factory=list)
    """Tonight's answers not settled yet: step, seat, kind, value (see ``Night.settle``)."""
    kills: list[Kill] = field(default_factory=list)
    """Tonight's kills, each with the step (§3.2) of its action (``resolve`` orders them)."""
    protections: list[Protection] = field(default_factory=list)
    blocked: dict[int, float] = field(default_factory=dict)
    """Who cannot act tonight, with the step from which (mechanics/blocks.py)."""
    absent: dict[int, float] = field(default_factory=dict)
    """Who is out of tonight, beyond every action's reach, from which step (the exile's)."""
    visits: list[Visit] = field(default_factory=list)
    """Who visited whom tonight (mechanics/visits.py)."""
    swaps: list[tuple[float, int, int]] = field(default_factory=list)
    """Tonight's swaps of targets, each with its step (mechanics/redirects.py)."""
    follows: dict[int, tuple[int, float]] = field(default_factory=dict)
    """Who copies whose actions tonight, and from which step (mechanics/copies.py)."""
    wolf_target: int | None = None
    killers: dict[int, list[int]] = field(default_factory=dict)
    """At dawn, for each of the night's dead, who carried out the kills that took them (an
    avenger's due, read by ``Role.on_death``)."""
    notes: dict[str, Any] = field(default_factory=dict)
    covers: set[tuple[int, str]] = field(default_factory=set)
    """Tonight's requests (seat, kind) asked with nothing to decide (``Night.cover``)."""


class Night:
    """The game's nights: which requests are open, which steps are still to settle, and the
    results held back for a seat still answering. The night's facts (kills, blocks,
    visits...) are ``game.plan``, which roles and mechanics read and write."""

    def __init__(self, in_play: list[type[Role]]) -> None:
        self.actions = sorted(
            {a for r in in_play for a in r.actions if a.step is not None}, key=lambda a: (a.step, a.kind)
        )
        """The night actions dealt, in the order of §3.2 (their ``dawn`` hooks run in this order)."""
        self.by_step: dict[float, list[type[Action]]] = {}
        """The night actions dealt, by step."""
        for action in self.actions:
            assert action.step is not None
            self.by_step.setdefault(action.step, []).append(action)
        self.paced = any(a.needs for r in in_play for a in r.actions)
        """A role that acts on another's result was dealt (the witch): nights are paced."""
        self.tonight: list[tuple[type[Action], int]] = []
        """Tonight's actions not asked yet, in the order of §3.2, with their actors."""
        self.unfinished: list[float] = []
        """Tonight's steps whose ``finish`` has not run yet."""
        self.held_tells: list[tuple[int, str, dict[str, Any]]] = []
        """Private results for a seat still answering its own night request (``tell_when_free``)."""

    def begin(self, game: WerewolfGame) -> None:
        """Ask tonight's actions of the living (first-night ones on night 1 only), dawn next."""
        acting = [
            (a, s)
            for s in game.living()
            for a in game.seat_roles[s].actions
            if a.step is not None and (game.day == 1 or not a.first_night_only)
        ]
        self.tonight = sorted(acting, key=lambda pair: (pair[0].step, pair[1]))
        self.unfinished = sorted({a.step for a, _ in acting if a.step is not None})
        game._then(("dawn", None))
        self.next(game)

    def join(self, seat: int, role: type[Role], after: float) -> None:
        """``seat`` took ``role`` at step ``after`` (the thief): its later actions are asked tonight."""
        later = [(a, seat) for a in role.actions if a.step is not None and a.step > after]
        self.tonight = sorted(self.tonight + later, key=lambda pair: (pair[0].step, pair[1]))
        self.unfinished = sorted({*self.unfinished, *(a.step for a, _ in later if a.step is not None)})

    def tell_when_free(self, game: WerewolfGame, kind: str, data: dict[str, Any], audience: Iterable[int]) -> None:
        """Emit an event to ``audience`` now, except to the seats still answering a request:
        they get it once they have answered, so a night result never reaches a role before
        it made its own choice (the doctor protects before learning the wolves' target)."""
        pending = game._pending
        free = [s for s in audience if s not in pending]
        self.held_tells += [(s, kind, data) for s in audience if s in pending]
        if free:
            game.tell(kind, data, free)

    def next(self, game: WerewolfGame) -> None:
        """Ask every night action that can be asked now, and finish each step whose answers
        are all in, until nothing moves.

        An action is asked unless its step ``needs`` an unfinished one, or its player is
        still answering (or yet to be asked) an earlier action: at the start of the night
        that is everyone but the witch, who is asked once the wolves are done. A player
        blocked by then (mechanics/blocks.py), or with nothing to decide, is asked all the
        same, with nothing to choose (``cover``). Steps settle in the order of §3.2:
        one whose answers are all in settles, unless an earlier step that ``controls``
        others (a block) is still open, or it is ``ordered`` and any earlier step is; see
        ``settle``.
        """
        for seat, kind, data in [t for t in self.held_tells if t[0] not in game._pending]:
            game.tell(kind, data, (seat,))
        self.held_tells = [t for t in self.held_tells if t[0] in game._pending]
        moved = True
        while moved:
            moved = False
            busy = set(game._pending)
            opened: list[Decision] = []
            for pair in list(self.tonight):
                action, seat = pair
                needs = action.needs
                if seat in busy or (needs is not None and ACTIONS[needs].step in self.unfinished):
                    busy.add(seat)
                    continue
                self.tonight.remove(pair)
                moved = True
                decision = action.decision(game, seat)
                blocked = is_blocked(game, seat, action.step)
                if decision is None or blocked:
                    decision = self.cover(game, seat, action, decision, blocked)
                opened.append(decision)
                busy.add(seat)
            if opened:
                game._extend(opened)
            steps = list(self.unfinished)
            for step in steps:
                actions = self.by_step.get(step, [])
                if any(a in actions for a, _ in self.tonight) or any(
                    ACTIONS.get(d.kind) in actions for d in game._pending.values()
                ):
                    if any(a.controls for a in actions):
                        break
                    continue
                if any(a.ordered for a in actions) and self.unfinished[0] < step:
                    continue
                self.unfinished.remove(step)
                moved = True
                self.settle(game, step, actions)
                if not set(self.unfinished) <= set(steps):
                    break  # a thief's new role added steps (a jail): look again from the first

    def cover(
        self, game: WerewolfGame, seat: int, action: type[Action], decision: Decision | None, blocked: bool
    ) -> Cover:
        """The request of an actor with nothing to decide tonight (potions spent, shots
        used, no one left to charm, or ``blocked`` from its ``decision``): a ``Cover``, whose
        answer does nothing. Skipping the request would end the night sooner, or ask the
        actor's next action sooner, than when it is used: how long a night lasts would tell
        that a role is out of uses, or blocked."""
        game.plan.covers.add((seat, action.kind))
        word = ABSTAIN if decision is not None and ABSTAIN in decision.options else NONE
        if blocked:
            why = (ErrorCode.ACTION_NOT_ALLOWED, "you are blocked tonight")
        elif action.exhausted(game, seat):
            why = (ErrorCode.RESOURCE_EXHAUSTED, "already used up")
        else:
            why = (ErrorCode.ACTION_NOT_ALLOWED, "nothing to decide tonight")
        return Cover(seat, action.kind, word, why)

    def settle(self, game: WerewolfGame, step: float, actions: list[type[Action]]) -> None:
        """Give effect to a step's answers, by seat, whatever order they arrived in: each
        unblocked answer aimed at players lands where tonight's swaps send it
        (mechanics/redirects.py), and takes no effect if it lands on an absent player
        (mechanics/blocks.py); else it is applied, then copied by whoever follows its player
        (mechanics/copies.py), each time visiting the players it lands on; then the step's
        ``finish`` runs (the wolves count their votes)."""
        plan = game.plan
        answers = sorted(a for a in plan.answers if a[0] == step)
        plan.answers = [a for a in plan.answers if a[0] != step]
        for _, seat, kind, value in answers:
            if is_blocked(game, seat, step):
                continue
            action = ACTIONS[kind]
            if action.visits:
                value = redirects.land(game, step, value)
                if aimed_at_absent(game, value, step):
                    continue
            acts = [(seat, action.apply)] + [(f, action.copy) for f in copies.followers(game, seat, action)]
            for actor, act in acts:
                act(game, actor, value)
                if action.visits:
                    for target in value if isinstance(value, tuple) else (value,):
                        if type(target) is int:
                            visit(game, actor, target, kind, step)
        for action in actions:
            action.finish(game)

    def record(self, game: WerewolfGame, seat: int, action: type[Action], value: Any) -> None:
        """Keep a night answer until its step settles (``settle``); a cover's (``cover``) does nothing."""
        assert action.step is not None
        plan = game.plan
        if (seat, action.kind) in plan.covers:
            return
        plan.answers.append((action.step, seat, action.kind, value))

    def dawn(self, game: WerewolfGame, _: Any) -> None:
        """Resolve the night (§3.10), announce its dead, and lay out the day of §4."""
        game.phase = DAY_ANNOUNCE
        for action in self.actions:
            action.dawn(game)
        for role in game.in_play:
            role.dawn(game)
        absent = game.plan.absent
        outcome = resolve(
            [k for k in game.plan.kills if k.target not in absent],
            [p for p in game.plan.protections if p.target not in absent],
        )
        for used in outcome.used:
            if used.status is not None:
                statuses.remove(game, used.target, (used.status,))
        deaths = dict(outcome.deaths)
        killers = {seat: list(actors) for seat, actors in outcome.killers.items()}
        for seat in outcome.deaths:
            cause = game.seat_roles[seat].retaliation
            if cause is not None:
                for killer in outcome.killers.get(seat, ()):
                    deaths.setdefault(killer, []).append(cause)
                    killers.setdefault(killer, []).append(seat)
        game.plan.killers = killers
        game.victims = game.deaths.take(game, deaths)
        dead = sorted(game.victims)
        data: dict[str, Any] = {"day": game.day, "dead": dead}
        if game.options.revealRolesOnDeath:
            data["roles"] = [game.roles[s] for s in dead]
        game.tell("dawn", data)
        # A leader who died at this dawn leads nobody: the day names no leader then.
        game.tell(
            "day",
            {
                "day": game.day,
                "alive": game.living(),
                "leader": game.leader if game.assembly.leader_alive(game) else None,
            },
        )
        silent = [s for s in statuses.holders(game, statuses.SILENCED) if game.alive[s]]
        if silent:
            game.tell("silenced", {"day": game.day, "players": silent})
        # §4 in every case, a night that decided the game too: the day-1 election, the
        # victims' last words, their death-triggered abilities, then the win check.
        steps: list[tuple[str, Any]] = []
        if game.day == 1 and game.options.leaderEnabled:
            steps.append(("leader", None))
        if game.options.lastWordsScope == "day_and_night":
            steps.append(("last_words", list(game.victims)))
        steps += [("triggers", None), ("check", None), ("order", None), ("speeches", "discussion"), ("vote", 1)]
        game._then(*steps)
