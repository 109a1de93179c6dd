"""Night kills against protections, exactly as section 10.4 of the rules.

Pure and role-agnostic: roles record ``Kill`` and ``Protection`` entries during the night and
this module decides who dies. Kills are processed in the order they arrived (the 4.2
priority order: wolves, then vigilante, then the witch's poison). For each kill:

1. interception (10.4.4): the first unused bodyguard-like protection on the kill's target
   takes the kill; the protector becomes the victim;
2. blocking (10.4.5): the first unused doctor-like protection on the kill's original target
   *or* on its current victim stops it (example 3: the doctor of A saves A's bodyguard);
3. otherwise the kill lands: one death event on the victim.

Then healing (10.4.6): each heal cancels one landed, healable death event on its own target
(the witch's chosen original target) and nothing else; it fails if that target has none.
A victim with a death event left dies. Every protection works at most once (10.4.3).
Poison is neither protectable nor healable (10.4.8) unless the game says otherwise; kills
and protections of a role-blocked actor never happen (example 11).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

INTERCEPT = "intercept"
BLOCK = "block"
HEAL = "heal"


@dataclass(frozen=True)
class Kill:
    """A lethal event aimed at ``target``; ``cause`` says where it came from (``wolves``,
    ``vigilante``, ``poison``...)."""

    target: int
    cause: str
    actor: int | None = None
    protectable: bool = True
    """Whether interception and blocking apply (false for poison by default)."""
    healable: bool = True
    """Whether a heal can cancel the death it causes (false for poison by default)."""


@dataclass(frozen=True)
class Protection:
    protector: int
    target: int
    mode: str
    """INTERCEPT (bodyguard), BLOCK (doctor, guardian angel) or HEAL (witch)."""


@dataclass
class Outcome:
    deaths: dict[int, list[str]] = field(default_factory=dict)
    """Who dies, in the order their first death event landed, with every cause that landed."""
    used: list[Protection] = field(default_factory=list)
    """Protections that took effect, in order."""


def resolve(kills: Iterable[Kill], protections: Iterable[Protection], blocked: Iterable[int] = ()) -> Outcome:
    blocked = frozenset(blocked)
    kills = [k for k in kills if k.actor is None or k.actor not in blocked]
    protections = [p for p in protections if p.protector not in blocked]
    unused = list(protections)
    outcome = Outcome()
    landed: list[tuple[int, Kill]] = []

    def take(mode: str, *targets: int) -> Protection | None:
        for p in unused:
            if p.mode == mode and p.target in targets:
                unused.remove(p)
                outcome.used.append(p)
                return p
        return None

    for kill in kills:
        victim = kill.target
        if kill.protectable:
            guard = take(INTERCEPT, victim)
            if guard is not None:
                victim = guard.protector
            if take(BLOCK, kill.target, victim) is not None:
                continue
        landed.append((victim, kill))

    for heal in [p for p in protections if p.mode == HEAL]:
        for i, (victim, kill) in enumerate(landed):
            if victim == heal.target and kill.healable:
                del landed[i]
                outcome.used.append(heal)
                break

    for victim, kill in landed:
        outcome.deaths.setdefault(victim, []).append(kill.cause)
    return outcome
