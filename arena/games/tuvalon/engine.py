"""The Tuvalon rules engine: seven-player Avalon on a public map (tuvalon-rules.zh.md).

It is Avalon's quest game (``AvalonGame``: teams, votes revealed together, secret quest
cards, the assassination, the visibility table) with a fixed table and a longer round:
the leader proposes a ``team``; everyone ``speak``s in turn, from the leader in seat order,
heard by all (a turn at the floor); everyone ``move``s up to three steps, in the same
order, in public; everyone speaks again (``speak_near``), heard only by the players whose
hearing range holds the speaker; everyone votes, and a team goes on ≥ 4 approvals of 7.
After three rejections in a row the fourth leader's team goes without a vote.

Where the source is silent (rules README): players start on distinct random cells; a step
moves to an orthogonally adjacent free cell inside the map; hearing is a square around the
listener, Chebyshev radius 1, or 2 for Knights and Oberon.

Events beside Avalon's (audience: everyone): ``positions`` (every seat's starting cell),
``speech`` (a turn ended; a near one lists who heard it), ``move``, ``forced`` (the team
goes without a vote).
"""

from __future__ import annotations

from types import MappingProxyType
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...core.decisions import Decision
from ...core.errors import ErrorCode, IllegalAction, SetupError
from ..avalon.engine import END_REASONS, FREE_CARD, ROLE_NAMES, SIDE_NAMES, SIDES, STARTING, VOTE_OPTIONS, AvalonGame
from ..avalon.roles import Role, seen_roles
from . import board
from .board import Cell
from .options import TuvalonOptions

PLAYERS = 7
ROLES = (Role.MERLIN, Role.PERCIVAL, Role.SERVANT, Role.SERVANT, Role.MORGANA, Role.ASSASSIN, Role.OBERON)
"""The deal before shuffling: two Knights (Avalon's servants, named ``knight`` here)."""
FAILS_NEEDED = (1, 1, 2, 2, 1)
"""Quests 3 and 4 are protected: they fail only on two fail cards."""
FORCED_AFTER = 3
"""Rejections in a row after which the next leader's team goes without a vote."""
WIDE_HEARING = frozenset({Role.SERVANT, Role.OBERON})
DONE, PASS = "done", "pass"
TURN_OPTIONS = (DONE, PASS)
PUBLIC, NEAR = "public", "near"
"""The two discussions, as ``speech`` events name them."""

NAMES: Mapping[Role, str] = MappingProxyType({**ROLE_NAMES, Role.SERVANT: "knight"})


def hearing(role: Role) -> int:
    """The Chebyshev radius a player of ``role`` hears within."""
    return board.WIDE if role in WIDE_HEARING else board.NEAR


class MoveDecision(Decision):
    """A ``move``: the options are the cells the player can reach (its own first: staying).
    A refusal says what is wrong with the cell, in the wire's words (cells, not seats)."""

    __slots__ = ("here", "taken")
    explains = True

    def __init__(self, seat: int, here: Cell, reach: Mapping[Cell, int], taken: frozenset[Cell]) -> None:
        cells = sorted(reach, key=lambda c: (reach[c], c[1], c[0]))
        super().__init__(seat, "move", tuple(board.name(c) for c in cells))
        self.here = here
        self.taken = taken

    def check(self, value: Any) -> Any:
        if self._legal(value):
            return value
        cell = board.parse(value) if isinstance(value, str) else None
        if cell is None:
            why = f"{value!r} is not a cell: write a column a-i and a row 1-9, as e5"
        elif not board.on_map(cell):
            why = f"{value} is off the map (columns a-i, rows 1-9)"
        elif cell in self.taken:
            why = f"{value} is taken by another player"
        else:
            far = board.steps_to(self.here, self.taken, board.SIZE * board.SIZE).get(cell)
            around = (
                "" if far == sum(map(abs, (cell[0] - self.here[0], cell[1] - self.here[1]))) else " around the others"
            )
            why = (
                f"{value} is {far} steps away{around}: a move is at most {board.STEPS}"
                if far is not None
                else f"{value} cannot be reached: other players wall it in"
            )
        raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, f"move: {why}")


class TuvalonGame(AvalonGame):
    name: ClassVar[str] = "tuvalon"
    public_kinds: ClassVar[frozenset[str]] = frozenset({"team", "speak", "move", "speak_near", "vote", "assassinate"})
    floor_kinds: ClassVar[frozenset[str]] = frozenset({"speak"})
    reserved_words: ClassVar[frozenset[str]] = frozenset(VOTE_OPTIONS + FREE_CARD + TURN_OPTIONS)
    escalation: ClassVar[tuple[str, ...] | None] = ("forfeit",)
    """The abnormal end: a missed deadline forfeits at once, whatever the referee's setting."""
    role_names: ClassVar[Mapping[Role, str]] = NAMES
    Options = TuvalonOptions  # type: ignore[assignment]
    options: TuvalonOptions  # type: ignore[assignment]
    sides = SIDES
    end_reasons = tuple(r for r in END_REASONS if r not in ("three_successes", "five_rejections"))
    default_players: ClassVar[int] = PLAYERS

    @classmethod
    def check_setup(cls, players: int, options: TuvalonOptions) -> None:  # type: ignore[override]
        if players != PLAYERS:
            raise SetupError(f"Tuvalon is played by {PLAYERS} players, got {players}")
        if options.speech_budget < 0:
            raise SetupError("speech_budget is a number of bytes, 0 or more")

    def __init__(
        self,
        players: int = PLAYERS,
        options: TuvalonOptions | None = None,
        seed: int = 0,
        deal: Sequence[int] | None = None,
    ) -> None:
        options = options or TuvalonOptions()
        self.check_setup(players, options)
        super(AvalonGame, self).__init__(players, options, seed, deal)
        roles = self.deal_roles(ROLES)
        self._seat(roles, 0, FAILS_NEEDED, True, 0)
        self.cells: list[Cell] = [board.ALL_CELLS[i] for i in self.rng.sample(range(len(board.ALL_CELLS)), players)]
        self.radius = [hearing(r) for r in roles]
        self.forced = False
        self._order: list[int] = []
        self.turn = 0
        """Whose turn it is in the current stretch of turns: an index into the order from the leader."""
        emit = self._emit
        emit(
            "setup",
            {
                "players": players,
                "options": options.to_dict(),
                "good": 4,
                "evil": 3,
                "quest_sizes": list(self.sizes),
                "fails_needed": list(FAILS_NEEDED),
                "map": board.SIZE,
            },
        )
        for seat, role in enumerate(roles):
            sees = seen_roles(role, 0)
            seen = [s for s in range(players) if s != seat and roles[s] in sees]
            emit(
                "role",
                {
                    "seat": seat,
                    "role": NAMES[role],
                    "side": SIDE_NAMES[STARTING[role]],
                    "sees": seen,
                    "hearing": self.radius[seat],
                },
                (seat,),
            )
        emit("positions", {"cells": [board.name(c) for c in self.cells]})
        self._start_quest()

    # -- geometry -----------------------------------------------------------------------

    def hearers(self, speaker: int) -> list[int]:
        """The seats that hear ``speaker`` in the second discussion, where everyone stands now."""
        here, cells, radius = self.cells[speaker], self.cells, self.radius
        return [s for s in range(self.players) if s != speaker and board.distance(cells[s], here) <= radius[s]]

    def speech_budget(self) -> int | None:
        return self.options.speech_budget or None

    def talks_in_private(self, seat: int) -> bool:
        """A player speaks in private during its own ``speak_near`` turn, heard or not."""
        decision = self._pending.get(seat)
        return decision is not None and decision.kind == "speak_near"

    def team_talk(self, seat: int) -> tuple[int, ...]:
        """During its ``speak_near`` turn a player is heard by those in range (the referee
        relays its lines to them alone); at any other time nobody hears it in private."""
        return tuple(self.hearers(seat)) if self.talks_in_private(seat) else ()

    # -- the round -----------------------------------------------------------------------

    def _on_team(self, seat: int, team: tuple[int, ...]) -> None:
        self.team = team
        self.forced = self.rejections >= FORCED_AFTER
        self._emit("team", {"quest": self.quest + 1, "leader": seat, "team": list(team), "forced": self.forced})
        self._order = [(seat + i) % self.players for i in range(self.players)]
        self._next_turn("speak", 0)

    def _next_turn(self, kind: str, turn: int) -> None:
        self.turn = turn
        seat = self._order[turn]
        if kind == "move":
            here = self.cells[seat]
            taken = frozenset(c for s, c in enumerate(self.cells) if s != seat)
            self._open((MoveDecision(seat, here, board.steps_to(here, taken), taken),))
        else:
            self._open((Decision(seat, kind, TURN_OPTIONS),))

    def _on_speak(self, seat: int, value: str) -> None:
        self._emit("speech", {"player": seat, "purpose": PUBLIC, "passed": value == PASS})
        if self.turn + 1 < self.players:
            self._next_turn("speak", self.turn + 1)
        else:
            self._next_turn("move", 0)

    def _on_move(self, seat: int, cell: str) -> None:
        before = self.cells[seat]
        after = board.parse(cell)
        assert after is not None
        self.cells[seat] = after
        self._emit("move", {"player": seat, "from": board.name(before), "to": cell})
        if self.turn + 1 < self.players:
            self._next_turn("move", self.turn + 1)
        else:
            self._next_turn("speak_near", 0)

    def _on_speak_near(self, seat: int, value: str) -> None:
        self._emit("speech", {"player": seat, "purpose": NEAR, "passed": value == PASS, "heard_by": self.hearers(seat)})
        if self.turn + 1 < self.players:
            self._next_turn("speak_near", self.turn + 1)
        elif self.forced:
            self._emit("forced", {"quest": self.quest + 1, "leader": self._order[0], "team": list(self.team)})
            self.rejections = 0
            self.leader = (self.leader + 1) % self.players
            self._send_team()
        else:
            self._open_round(self._vote_round)

    def default_answer(self, decision: Decision) -> Any:
        """As Avalon (a silent leader sends themself and the next seats, a silent voter
        approves, ...); a silent speaker is ``done``, a silent mover stays. Tuvalon's
        deadlines forfeit (``escalation``), so these apply only where an operator made them."""
        if decision.kind in ("speak", "speak_near", "move"):
            return decision.options[0]
        return super().default_answer(decision)

    handlers: ClassVar[dict[str, Any]] = {
        **AvalonGame.handlers,
        "team": _on_team,
        "speak": _on_speak,
        "move": _on_move,
        "speak_near": _on_speak_near,
    }
