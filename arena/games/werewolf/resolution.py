"""Night kills against protections, exactly as rules/werewolf.md §3.10.

Pure and role-agnostic: roles record ``Kill`` and ``Protection`` entries during the night and
this module decides who dies. The night's actions are a set: ``resolve`` puts them in one
canonical order before it looks at them, so the outcome never depends on the order the
answers arrived in (they are asked at once and come back in network order). Kills are taken
in the order of the night's steps (§3.2, ``Kill.step``: wolves, then vigilante and serial killer, then poison),
ties by actor seat then target. For each kill:

0. drawing: an ordinary kill aimed at a player a decoy lures for is drawn onto the
   decoy (the unused lure of the lowest seat): from then on the kill is aimed at the decoy,
   and the player it was aimed at is not attacked at all;
1. interception: an ordinary kill on a guarded target, not drawn, is taken by the
   bodyguard with the lowest seat among those still unused; the bodyguard becomes the
   victim. A kill changes victim once at most (protections do not chain). Poison
   and other effects are never intercepted, whatever the options;
2. blocking: an unused block (doctor, guardian angel, jail; a wolf guard's only
   against an ordinary kill) stops the kill, taken first among the blocks on the kill's
   *current* victim (the bodyguard who took it), then among those on its
   target, lowest protector seat first. Preferring the current victim keeps a block on the
   original target for a second kill of the same night: wolves and vigilante on A, a
   bodyguard on A, one doctor on A and one on the bodyguard: the bodyguard's doctor saves
   the bodyguard, A's doctor saves A, nobody dies;
3. warding: a warder's charm on the current victim stops the kill. It comes after the
   night's blocks so that a charm, which lasts until it is spent, is kept while a block
   that works tonight only can do the work;
4. otherwise the kill lands: one death event on the victim.

Then healing: each heal, lowest witch seat first, cancels one landed, healable death
event on its own target (the witch's chosen original target) and nothing else; it fails if
that target has none. A victim with a death event left dies. Every protection works at most
once. A kill that is not ``stoppable`` (poison by default; the vigilante's
shot without ``protectAgainstVigilante``) lands whatever protects its target. A blocked
actor's kills and protections never reach this module (§3.3: the engine drops them when
their step settles, mechanics/blocks.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable

DRAW = "draw"
INTERCEPT = "intercept"
BLOCK = "block"
GUARD = "guard"
"""A block against ordinary kills only (the wolf guard's): never poison, whatever the options."""
WARD = "ward"
HEAL = "heal"


@dataclass(frozen=True)
class Kill:
    """A lethal event aimed at ``target``; ``cause`` says where it came from (``wolves``,
    ``vigilante``, ``poison``...)."""

    target: int
    cause: str
    actor: int | None = None
    step: float = 0
    """The step (§3.2) of the action that made it: kills are taken in this order."""
    ordinary: bool = True
    """An ordinary kill (wolves, vigilante, serial killer), which a bodyguard may intercept;
    False for poison and other effects, which no bodyguard intercepts (§3.10)."""
    stoppable: bool = True
    """Whether protections and heals apply at all (false for poison by default, §3.10)."""

    def order(self) -> tuple[float, int, int, str]:
        return (self.step, -1 if self.actor is None else self.actor, self.target, self.cause)


@dataclass(frozen=True)
class Protection:
    protector: int
    target: int
    mode: str
    """DRAW (decoy), INTERCEPT (bodyguard), BLOCK (doctor, guardian angel, jail), GUARD (wolf
    guard), WARD (warder's charm) or HEAL (witch)."""
    status: str | None = None
    """The status that carries this protection from night to night (the warder's charm),
    lifted once the protection takes effect (the engine does it: this module is pure)."""

    def order(self) -> tuple[int, int, str]:
        return (self.protector, self.target, self.mode)


@dataclass
class Outcome:
    deaths: dict[int, list[str]] = field(default_factory=dict)
    """Who dies, in the order their first death event landed, with every cause that landed."""
    killers: dict[int, list[int]] = field(default_factory=dict)
    """For each of the dead, the actors of the kills that landed on them (a bomb's due)."""
    used: list[Protection] = field(default_factory=list)
    """Protections that took effect, in order."""


def resolve(kills: Iterable[Kill], protections: Iterable[Protection]) -> Outcome:
    """Who dies tonight; the same for any order of ``kills`` and ``protections``."""
    kills = sorted(kills, key=Kill.order)
    protections = sorted(protections, key=Protection.order)
    unused = list(protections)
    outcome = Outcome()
    landed: list[tuple[int, Kill]] = []

    def take(modes: tuple[str, ...], target: int) -> Protection | None:
        for p in unused:
            if p.mode in modes and p.target == target:
                unused.remove(p)
                outcome.used.append(p)
                return p
        return None

    for kill in kills:
        target = victim = kill.target
        if kill.stoppable:
            blocks = (BLOCK, GUARD) if kill.ordinary else (BLOCK,)
            if kill.ordinary:
                decoy = take((DRAW,), target)
                guard = take((INTERCEPT,), target) if decoy is None else None
                if decoy is not None:
                    target = victim = decoy.protector
                elif guard is not None:
                    victim = guard.protector
            if (
                take(blocks, victim) is not None
                or (victim != target and take(blocks, target) is not None)
                or take((WARD,), victim) is not None
            ):
                continue
        landed.append((victim, kill))

    for heal in [p for p in protections if p.mode == HEAL]:
        for i, (victim, kill) in enumerate(landed):
            if victim == heal.target and kill.stoppable:
                del landed[i]
                outcome.used.append(heal)
                break

    for victim, kill in landed:
        outcome.deaths.setdefault(victim, []).append(kill.cause)
        if kill.actor is not None:
            outcome.killers.setdefault(victim, []).append(kill.actor)
    return outcome
