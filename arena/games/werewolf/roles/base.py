"""What a role module declares: its team, its actions (when, on whom, how often) and hooks.

Roles are classes used as namespaces (never instantiated): a role's per-seat memory lives in
``game.state[seat]`` (the spec's ``roleState``) so the whole game pickles and replays. The
engine asks roles; it never names one.

An ``Action`` is one kind of decision. A night action has ``step``, its priority in the
order of rules/werewolf.md §3.2: the engine asks every night action at the start of the night, except one that
``needs`` another's result, and calls ``finish`` once a step's answers are all in (the wolves
count their votes there); effects are resolved at dawn in step order, whatever order the
answers came in. An action without ``step`` is a trigger: a hook such as ``Role.on_death``
queues it and the engine asks for it in the day.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from ....core.errors import ErrorCode
from ....core.game import Result
from ..choice import ABSTAIN, NONE, Choice, Refusal
from ..mechanics import redirects
from ..resolution import Kill, Protection

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class Team(str, Enum):
    VILLAGE = "village"
    WEREWOLF = "werewolf"
    NEUTRAL = "neutral"


DIES = "dies"
SPARED = "spared"
"""What an execution does to a player (``Role.on_executed``), besides ending the game."""


class Action:
    kind: ClassVar[str]
    step: ClassVar[float | None] = None
    """The priority of a night action (§3.2); None for a triggered action."""
    first_night_only: ClassVar[bool] = False
    needs: ClassVar[str | None] = None
    """The kind whose step must have finished before this action is asked (the witch heals
    the wolves' target): asked at the start of the night, it would lack what it acts on."""
    controls: ClassVar[bool] = False
    """Its effect changes what later steps do (a block): no later step settles before it."""
    ordered: ClassVar[bool] = False
    """Its effect reads what earlier steps did (the little girl the pack's target, the
    priest the night's charms and silences): it settles only after every earlier step."""
    visits: ClassVar[bool] = True
    """Whether its answer visits the players it names (mechanics/visits.py)."""

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        """What ``seat`` may choose now, or None when there is nothing to decide; by
        default, what most night actions offer while not ``exhausted``: another living
        player, or nobody."""
        return None if cls.exhausted(game, seat) else target_choice(game, seat, cls.kind)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """Give effect to a checked answer: a night action's when its step settles (its
        kills and protections then wait for dawn, see resolution.py), a trigger's at once."""
        raise NotImplementedError

    @classmethod
    def copy(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """Give effect to ``value`` as ``seat``'s own, ``seat`` being a follower who copies
        the action (mechanics/copies.py). The action itself by default; an action that
        spends a use overrides it, since a copy spends none."""
        cls.apply(game, seat, value)

    @classmethod
    def finish(cls, game: WerewolfGame) -> None:
        """Called once after every decision of this action's step was answered."""

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        """Called at dawn, once the whole night has settled and before its deaths: what a
        role learns from the night as a whole (the tracker's visits)."""

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        """Whether the uses per game are spent (RESOURCE_EXHAUSTED)."""
        return False

    @classmethod
    def default(cls, decision: Choice) -> Any:
        """The timeout answer: no action, or abstain."""
        for word in (NONE, ABSTAIN):
            if word in decision.options:
                return word
        return decision.options[0]

    @classmethod
    def handle(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if cls.step is None:
            cls.apply(game, seat, value)
        else:
            game.night.record(game, seat, cls, value)
        game._advance()


class Trigger(Action):
    """A death-triggered decision (the hunter's shot, the scapegoat's punishment). With
    roles hidden every player who died is asked at once, each by their own trigger or by a
    cover request of the dealt trigger's kind (``Deaths.ask_hidden``, deaths.py); the round is
    handled together, in seat order, each answer by the action of its own kind."""

    @classmethod
    def handle(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        from .registry import ACTIONS  # the registry imports this module

        for actor, kind, answer in sorted(game.round_answers()):
            ACTIONS[kind].apply(game, actor, answer)
        game._advance()


class NightKill(Action):
    """A night kill a role makes while it has uses left (the vigilante's shots, the witch's
    poison; the serial killer's, without a limit): offered against any other living player,
    each use spent, and stopped by protections and heals exactly when ``stoppable`` says so
    (a game option for the vigilante and the poison)."""

    cause: ClassVar[str]
    ordinary: ClassVar[bool] = True
    """An ordinary kill (§3.10), which a bodyguard may intercept; poison is not."""

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            cls.spend(game, seat)
        cls.copy(game, seat, value)

    @classmethod
    def copy(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """The kill itself, which spends nothing (a follower's copy, or the use ``apply`` spent)."""
        if value != NONE:
            assert cls.step is not None, "a night kill has its 4.2 step"
            game.plan.kills.append(Kill(value, cls.cause, seat, cls.step, cls.ordinary, cls.stoppable(game)))

    @classmethod
    def spend(cls, game: WerewolfGame, seat: int) -> None:
        """Use up one use (a kill without a limit spends nothing)."""

    @classmethod
    def stoppable(cls, game: WerewolfGame) -> bool:
        """Whether protections and heals apply to it (an ordinary kill's always do)."""
        return True


class Role:
    id: ClassVar[str]
    team: ClassVar[Team]
    priority: ClassVar[str]
    """P0..P3, the specification's tiers (rules/werewolf.md §2 plays them all)."""
    max_count: ClassVar[int | None] = None
    chaos_copies: ClassVar[int] = 1
    """Cards of this role the ``chaos`` preset deals when it draws it (the masons come as a
    pair); 0 keeps the role out of chaos's draw (presets.py)."""
    extra_cards: ClassVar[int] = 0
    """Cards this role adds to the deck beyond one per player (the thief's two)."""
    actions: ClassVar[tuple[type[Action], ...]] = ()
    learns_wolf_target: ClassVar[bool] = False
    """Told the wolves' final target each night (§3.8: doctor and witch)."""
    win_side: ClassVar[str | None] = None
    """The side this role's own win is announced as (``Result.winner``), if it has one."""
    win_reason: ClassVar[str | None] = None
    """The end reason of that win."""
    win_order: ClassVar[int] = 100
    """Order in which ``special_win`` hooks are asked (lower first)."""
    hostile: ClassVar[bool] = False
    """A neutral threat to both teams (the serial killer, the arsonist, the cult leader):
    while one lives, neither the village nor the wolves have won."""
    retaliation: ClassVar[str | None] = None
    """Killed at night, takes its killers along (the bomb), who die at the same dawn of this
    cause."""
    survivor: ClassVar[bool] = False
    """A neutral without a win of its own (the roleblocker, the bomb, the exile, the
    dealer): it wins alongside the winning side if it is alive at the end."""

    @classmethod
    def seen_as(cls) -> str:
        """What a seer learns about this role (§2: village or werewolf)."""
        return Team.WEREWOLF.value if cls.team is Team.WEREWOLF else Team.VILLAGE.value

    @classmethod
    def initial_state(cls, game: WerewolfGame) -> dict[str, Any]:
        return {}

    @classmethod
    def on_deal(cls, game: WerewolfGame, seats: list[int]) -> None:
        """At the start, with every seat dealt this role: what its holders learn together
        (the masons learn each other); again, with them all, when a player takes the role
        during the game (a thief takes its card)."""

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> type[Action] | None:
        """A triggered action the dead player now owes (the hunter's shot), if any."""
        return None

    @classmethod
    def on_executed(cls, game: WerewolfGame, seat: int) -> str | Result:
        """DIES, SPARED (and stays alive), or a Result that ends the game at once."""
        return DIES

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        """An own win condition checked before the teams' (§5), for roles in play."""
        return None

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        """Called once per role in play at dawn, after the actions' ``dawn`` and before the
        night is resolved: what the role does without being asked (an avenger's vengeance),
        dead holders included."""


def last_standing(game: WerewolfGame, role: type[Role]) -> Result | None:
    """The lone killer's win (serial killer, arsonist): a holder of ``role`` is alive with at
    most one other living player. One against one, no vote can pass (nobody votes for
    themself) and the killer strikes at night: as in Mafia, the game is over."""
    living = game.living()
    holders = [s for s in living if game.role_of(s) is role]
    if holders and len(living) <= 2:
        assert role.win_side is not None and role.win_reason is not None
        return Result(role.win_side, frozenset(holders), role.win_reason)
    return None


def target_choice(
    game: WerewolfGame,
    seat: int,
    kind: str,
    *,
    self_ok: bool = False,
    skip: str = NONE,
    exclude: dict[int, Refusal] | None = None,
) -> Choice:
    """Any living player (not ``seat`` unless ``self_ok``, not the ``exclude`` seats), or ``skip``."""
    refusals: dict[Any, Refusal] = game.dead_refusals()
    if not self_ok:
        refusals[seat] = (ErrorCode.CANNOT_SELF_TARGET, "you cannot choose yourself")
    if exclude:
        refusals.update(exclude)
    options = tuple(s for s in range(game.players) if s not in refusals) + (skip,)
    return Choice(seat, kind, options, refusals=refusals)


def protect_choice(
    game: WerewolfGame, seat: int, kind: str, *, self_ok: bool, exclude: dict[int, Refusal] | None = None
) -> Choice:
    """A protection: no repeat of last night's target unless allowRepeatedProtect (REPEATED_PROTECT)."""
    exclude = dict(exclude or {})
    last = game.state[seat].get("last_protect")
    if last is not None and last[0] == game.day - 1 and not game.options.allowRepeatedProtect:
        exclude[last[1]] = (ErrorCode.REPEATED_PROTECT, f"you protected seat {last[1]} last night")
    return target_choice(game, seat, kind, self_ok=self_ok, exclude=exclude)


def protect(game: WerewolfGame, seat: int, value: Any, mode: str, step: float) -> None:
    """Record tonight's protection at ``step`` and plan it: the protector remembers whom
    they chose (what ``protect_choice`` checks tomorrow), the protection goes where it
    landed (mechanics/redirects.py)."""
    game.state[seat]["last_protect"] = None if value == NONE else (game.day, redirects.aimed(game, step, value))
    if value != NONE:
        game.plan.protections.append(Protection(seat, value, mode))


def beside(decision: Choice) -> tuple[Any, Any]:
    """The timeout answer of a two-player choice that includes its player: themself and
    the next seat offered (a silent Cupid links them, a silent bus driver swaps them)."""
    seats = decision.options
    i = seats.index(decision.seat)
    return decision.seat, seats[(i + 1) % len(seats)]
