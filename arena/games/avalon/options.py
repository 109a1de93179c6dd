"""Avalon's optional rules and the role list they produce."""

from __future__ import annotations

from ...core.errors import SetupError
from ...core.options import Options, option
from .roles import Role
from .tables import EVIL_COUNT, MAX_PLAYERS, MIN_PLAYERS


class AvalonOptions(Options):
    merlin: bool = option(True, help="the root rule: Merlin and the Assassin; off means plain good vs evil")
    percival: bool = option(False, help="Percival (good) sees Merlin and Morgana")
    morgana: bool = option(False, help="Morgana (evil) appears to Percival as Merlin")
    mordred: bool = option(False, help="Mordred (evil) is hidden from Merlin")
    oberon: bool = option(False, help="Oberon (evil) sees no one and is unseen by evil")
    lancelot: int = option(0, choices=(0, 1, 2, 3), help="Lancelots and their variant (0 = none)")
    evil_at_nine: int = option(3, choices=(3, 4), help="evil seats in a 9-player game")

    def evil_count(self, players: int) -> int:
        return self.evil_at_nine if players == 9 else EVIL_COUNT[players]

    def roles(self, players: int) -> list[Role]:
        """The roles to deal (unshuffled), or SetupError saying why the game cannot start.

        ``AvalonGame.check_setup`` calls this for every setup it is asked about, so the list
        of chosen extras that only an error message needs is made only for that message."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError(f"Avalon needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")
        if not self.merlin:
            extras = [n for n in ("percival", "morgana", "mordred", "oberon") if getattr(self, n)]
            if self.lancelot:
                extras.append(f"lancelot={self.lancelot}")
            if extras:
                raise SetupError(
                    "without the Merlin/Assassin root rule (merlin=false) no other optional role may be chosen; "
                    f"turn off: {', '.join(extras)}"
                )
            n_evil = self.evil_count(players)
            return [Role.SERVANT] * (players - n_evil) + [Role.MINION] * n_evil
        good = [Role.MERLIN]
        evil = [Role.ASSASSIN]
        if self.percival:
            good.append(Role.PERCIVAL)
        if self.lancelot:
            good.append(Role.GOOD_LANCELOT)
            evil.append(Role.EVIL_LANCELOT)
        for flag, role in ((self.morgana, Role.MORGANA), (self.mordred, Role.MORDRED), (self.oberon, Role.OBERON)):
            if flag:
                evil.append(role)
        n_evil = self.evil_count(players)
        n_good = players - n_evil
        if len(good) > n_good:
            raise SetupError(
                f"{len(good)} special good roles ({', '.join(good)}) but only {n_good} good seats at {players} players"
            )
        if len(evil) > n_evil:
            raise SetupError(
                f"{len(evil)} special evil roles ({', '.join(evil)}) but only {n_evil} evil seats at {players} players"
            )
        return good + [Role.SERVANT] * (n_good - len(good)) + evil + [Role.MINION] * (n_evil - len(evil))
