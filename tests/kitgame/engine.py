"""Odd one out, the engine: one spy hides among citizens; every round each player still in
accuses another at once, in secret; the most accused (a tie: nobody) is out. The citizens
win when the spy is out; the spy wins when the rounds run out or two players are left."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from arena.core.decisions import Decision
from arena.core.errors import SetupError
from arena.core.game import ABORTED, FORFEIT, Game, Result
from arena.core.options import Options, option

SPY, CITIZEN = "spy", "citizen"
SPIES, CITIZENS = "spy", "citizens"
CAUGHT, ESCAPED = "spy_caught", "spy_escaped"
MIN_PLAYERS, MAX_PLAYERS = 3, 8


class OddOneOptions(Options):
    rounds: int = option(2, choices=(1, 2, 3), help="rounds of accusations before the spy escapes")


class OddOneGame(Game):
    name: ClassVar[str] = "oddone"
    Options = OddOneOptions
    options: OddOneOptions
    sides: ClassVar[tuple[str, ...]] = (CITIZENS, SPIES)
    end_reasons: ClassVar[tuple[str, ...]] = (CAUGHT, ESCAPED, FORFEIT, ABORTED)
    tallied_kinds: ClassVar[frozenset[str]] = frozenset({"accuse"})
    default_players: ClassVar[int] = 4

    @classmethod
    def check_setup(cls, players: int, options: OddOneOptions) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError(f"odd one out needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")

    def __init__(
        self, players: int, options: OddOneOptions | None = None, seed: int = 0, deal: Sequence[int] | None = None
    ) -> None:
        options = options or OddOneOptions()
        self.check_setup(players, options)
        super().__init__(players, options, seed, deal)
        self.roles: list[str] = self.deal_roles([SPY] + [CITIZEN] * (players - 1))
        self.sides_now = [SPIES if role == SPY else CITIZENS for role in self.roles]
        self.out: list[int] = []
        self.tallies = 0
        self._emit("setup", {"players": players, "options": options.to_dict()})
        for seat, role in enumerate(self.roles):
            self._emit("role", {"seat": seat, "role": role, "side": self.sides_now[seat]}, [seat])
        self._accuse()

    def _in(self) -> list[int]:
        return [seat for seat in range(self.players) if seat not in self.out]

    def _accuse(self) -> None:
        left = self._in()
        self._open(Decision(seat, "accuse", tuple(s for s in left if s != seat), targets=True) for seat in left)

    def _tally(self, seat: int, value: Any) -> None:
        votes: list[int | None] = [None] * self.players
        for voter, _, target in self.round_answers():
            votes[voter] = target
        counts = Counter(v for v in votes if v is not None).most_common()
        out = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else None
        if out is not None:
            self.out.append(out)
        self.tallies += 1
        self._emit("tally", {"round": self.tallies, "votes": votes, "out": out})
        if out is not None and self.roles[out] == SPY:
            self._end(CITIZENS, CAUGHT)
        elif self.tallies == self.options.rounds or len(self._in()) <= 2:
            self._end(SPIES, ESCAPED)
        else:
            self._accuse()

    handlers = {"accuse": _tally}

    def is_out(self, seat: int) -> bool:
        return seat in self.out

    def default_answer(self, decision: Decision) -> Any:
        return decision.options[0]

    def _end(self, winner: str, reason: str) -> None:
        self._emit("end", {"winner": winner, "reason": reason, **self._reveal()})
        winners = frozenset(s for s in range(self.players) if self.sides_now[s] == winner)
        self._finish(Result(winner, winners, reason))

    def _reveal(self) -> dict[str, Any]:
        return {"roles": list(self.roles), "sides": list(self.sides_now)}
