"""Werewolf options: every option of rules/werewolf.md §6, under its own name, plus two of our own.

Role counts read the same on a command line and in YAML::

    --option roleCounts=werewolf:2,seer:1,witch:1,hunter:1
    roleCounts: "werewolf:2,seer:1,witch:1"      # or a YAML mapping {werewolf: 2, seer: 1}

Villagers fill the seats the counts leave free. A role outside ``enabledRoles`` may not be
dealt (the spec's pair of options), so P1 roles need both, e.g.
``enabledRoles=villager,werewolf,seer,bodyguard roleCounts=werewolf:2,bodyguard:1``.

Without ``roleCounts`` the deck is the ``preset``'s for the table size (presets.py), whose
roles need no ``enabledRoles``; with neither, the spec's default ``werewolf:2,seer:1,doctor:1``.
Given counts win over a preset: a configured preset stays the default of every run, and one
run may still deal a deck of its own.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import field_validator, model_validator

from ...core.errors import SetupError
from ...core.options import OptionError, Options, option
from .presets import FILLER, PRESETS, preset_counts
from .roles import REGISTRY, Team

MIN_PLAYERS = 6
MAX_PLAYERS = 20
DEFAULT_COUNTS = "werewolf:2,seer:1,doctor:1"
"""The spec's default deal (rules/werewolf.md §1), dealt with neither ``roleCounts`` nor a preset."""

_ITEM = re.compile(r"^([a-z_]+)\s*[:=]\s*(\d+)$")


def parse_counts(text: str) -> dict[str, int]:
    """``werewolf:2,seer:1`` (or a mapping printed by Python/YAML) to a dict; OptionError if malformed."""
    body = re.sub(r"[{}\[\]'\"\s]", "", text)
    counts: dict[str, int] = {}
    for item in filter(None, body.split(",")):
        m = _ITEM.match(item)
        if not m:
            raise OptionError(
                f"option roleCounts is written role:count,role:count (e.g. werewolf:2,seer:1), got {text!r}"
            )
        counts[m.group(1)] = counts.get(m.group(1), 0) + int(m.group(2))
    return counts


def parse_names(text: str) -> tuple[str, ...]:
    body = re.sub(r"[\[\]'\"\s]", "", text)
    names = tuple(dict.fromkeys(filter(None, body.split(","))))
    for name in names:
        if not re.fullmatch(r"[a-z_]+", name):
            raise OptionError(f"option enabledRoles is a comma-separated list of role ids, got {text!r}")
    return names


class WerewolfOptions(Options):
    enabledRoles: str = option(
        "villager,werewolf,seer,doctor,hunter,witch", help="roles that may be dealt (comma-separated ids)"
    )
    roleCounts: str = option(
        "",
        help=f"role:count,... to deal, villagers filling the rest; wins over preset; "
        f"empty: the preset's deck, or {DEFAULT_COUNTS}",
    )
    preset: str = option(
        "none",
        choices=PRESETS,
        help="a ready-made deck for the table size (none, classic: the "
        "spec's section 8, advanced: with P1/P2 roles, chaos: drawn "
        "from every role each game); see rules/werewolf.md",
    )
    revealRolesOnDeath: bool = option(True, help="a dead player's role is announced")
    allowDoctorSelfProtect: bool = option(True, help="the doctor may protect themself")
    allowRepeatedProtect: bool = option(False, help="doctor/bodyguard may protect the same player two nights running")
    hunterShootOnPoison: bool = option(False, help="a poisoned hunter may still shoot")
    dayVoteMajority: bool = option(True, help="only votes strictly above the abstentions can execute (5.3.4)")
    leaderEnabled: bool = option(True, help="a leader is elected on day 1 and orders the debate (5.3.3)")
    lastWordsMode: str = option(
        "limit_by_initial_wolves",
        choices=("none", "all", "limit_by_initial_wolves"),
        help="how many last words in the game (10.5)",
    )
    protectAgainstPoison: bool = option(False, help="protections and heals also stop the witch's poison")
    protectAgainstVigilante: bool = option(True, help="protections and heals stop the vigilante's shot")
    witchCanSaveSelf: bool = option(True, help="the witch may heal herself")
    witchSaveFirstNightOnly: bool = option(False, help="the witch may heal only on the first night")
    nightActionTime: int = option(30, help="seconds for a night action (for the referee)")
    discussionTime: int = option(300, help="seconds for a whole day's discussion (for the referee)")
    voteTime: int = option(30, help="seconds for a vote (for the referee)")
    lastWordsTime: int = option(30, help="seconds for last words (for the referee)")
    lastWordsScope: str = option("day_only", choices=("day_only", "day_and_night"), help="who gets last words (10.5)")
    lastWordsOrder: str = option(
        "seating_order", choices=("seating_order", "death_resolution"), help="order of last words (10.5)"
    )
    vigilanteShots: int = option(1, help="shots a vigilante has for the whole game (not in the spec)")
    littleGirlCaughtPercent: int = option(
        20, help="chance in percent that a little girl's peek is caught (not in the spec)"
    )
    protectAgainstFire: bool = option(
        False, help="protections and heals also stop the arsonist's fire (not in the spec)"
    )
    maxDays: int = option(50, help="after this many days the game ends in a draw; 0 = never (not in the spec)")
    scapegoatPunishment: str = option(
        "lose_vote",
        choices=("lose_vote", "death"),
        help="what the executed scapegoat's chosen voter suffers: no vote the next day, or death (not in the spec)",
    )

    @field_validator("roleCounts", mode="before")
    @classmethod
    def _canonical_counts(cls, value: Any) -> str:
        """One spelling, so that to_dict() and the setup event show the same text; a YAML
        mapping is read as the text Python prints for it."""
        return ",".join(f"{r}:{n}" for r, n in parse_counts(str(value)).items())

    @field_validator("enabledRoles", mode="before")
    @classmethod
    def _canonical_names(cls, value: Any) -> str:
        return ",".join(parse_names(str(value)))

    @model_validator(mode="after")
    def _in_range(self) -> WerewolfOptions:
        for name in ("nightActionTime", "discussionTime", "voteTime", "lastWordsTime", "vigilanteShots", "maxDays"):
            if getattr(self, name) < 0:
                raise OptionError(f"option {name} must not be negative, got {getattr(self, name)}")
        if not 0 <= self.littleGirlCaughtPercent <= 100:
            raise OptionError(
                f"option littleGirlCaughtPercent is a percentage (0 to 100), got {self.littleGirlCaughtPercent}"
            )
        return self

    def counts(self) -> dict[str, int]:
        return parse_counts(self.roleCounts)

    def in_effect(self) -> dict[str, Any]:
        """Given counts win over a preset, and a preset's deck ignores ``enabledRoles``."""
        shown = self.to_dict()
        if self.preset == "none" or self.roleCounts:
            del shown["preset"]
        else:
            del shown["enabledRoles"], shown["roleCounts"]
        return shown

    def deal(self, players: int, rng: random.Random | None = None) -> list[str]:
        """The cards to deal (unshuffled): one per player, and the extra cards some roles add
        (the thief's two), dealt to nobody; or SetupError saying why the game cannot start.
        ``rng`` (the game's) draws a chaos deck; without one a sample deck is checked."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            preset = f" (preset {self.preset} included)" if self.preset != "none" else ""
            raise SetupError(f"Werewolf needs {MIN_PLAYERS} to {MAX_PLAYERS} players{preset}, got {players}")
        counts = {r: n for r, n in self.counts().items() if n > 0}
        enabled = parse_names(self.enabledRoles)
        if not counts and self.preset != "none":
            counts = preset_counts(self.preset, players, rng or random.Random(players))
            enabled = (*counts, FILLER)
        elif not counts:
            counts = parse_counts(DEFAULT_COUNTS)
        for role in (*enabled, *counts):
            if role not in REGISTRY:
                raise SetupError(f"unknown role {role!r} (known: {', '.join(REGISTRY)})")
        refused = [r for r in counts if r not in enabled]
        if refused:
            raise SetupError(
                f"roleCounts deals {', '.join(refused)}, not in enabledRoles ({', '.join(enabled)}); add them there"
            )
        for role, n in counts.items():
            most = REGISTRY[role].max_count
            if most is not None and n > most:
                raise SetupError(f"at most {most} {role} per game, got {n}")
        cards = players + sum(REGISTRY[r].extra_cards * n for r, n in counts.items())
        total = sum(counts.values())
        if total > cards:
            deck = f"{cards} cards for {players} players" if cards > players else f"{players} players"
            raise SetupError(f"roleCounts deals {total} roles but there are only {deck}")
        if total < cards:
            if FILLER not in enabled:
                raise SetupError(
                    f"roleCounts deals {total} roles for {cards} cards and villager is not enabled to fill the rest"
                )
            counts[FILLER] = counts.get(FILLER, 0) + cards - total
        wolves = sum(n for r, n in counts.items() if REGISTRY[r].team is Team.WEREWOLF)
        village = sum(n for r, n in counts.items() if REGISTRY[r].team is Team.VILLAGE)
        if wolves == 0:
            raise SetupError("a game needs at least one werewolf")
        if cards > players and wolves < 2:
            raise SetupError("with extra cards (a thief) a game needs two werewolves: one could be left out")
        if wolves >= village:
            raise SetupError(
                f"{wolves} werewolves against {village} villagers: the wolves would win before the first night"
            )
        return [r for r, n in counts.items() for _ in range(n)]
