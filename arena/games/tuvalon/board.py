"""The 9×9 map: cell names, steps, and who hears whom.

Cells are written as on a chessboard: a column letter ``a``–``i`` (west to east) and a
row number ``1``–``9`` (south to north), ``a1`` the south-west corner. A step moves to an
orthogonally adjacent free cell inside the map; hearing is a square around the listener
(Chebyshev radius 1, or 2 for the roles with wide hearing).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable

SIZE = 9
STEPS = 3
"""Steps a player may take in one move."""
NEAR, WIDE = 1, 2
"""Hearing radius: 3×3 around the listener, or 5×5 (Knights and Oberon)."""

Cell = tuple[int, int]
"""(column, row), both from 0."""

_CELL = re.compile(r"([a-z])(\d{1,3})")


def name(cell: Cell) -> str:
    return f"{chr(ord('a') + cell[0])}{cell[1] + 1}"


def parse(text: str) -> Cell | None:
    """The cell ``text`` names, on the map or off it (``j5``, ``a0``); None if it names none."""
    m = _CELL.fullmatch(text) if isinstance(text, str) else None
    return None if m is None else (ord(m.group(1)) - ord("a"), int(m.group(2)) - 1)


def on_map(cell: Cell) -> bool:
    return 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def distance(a: Cell, b: Cell) -> int:
    """Chebyshev distance: the hearing range is a square."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def steps_to(start: Cell, occupied: Iterable[Cell], limit: int = STEPS) -> dict[Cell, int]:
    """Every cell reachable from ``start`` in at most ``limit`` orthogonal steps through free
    cells, with the fewest steps it takes (``start`` itself: 0)."""
    blocked = set(occupied)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        n = seen[here]
        if n == limit:
            continue
        x, y = here
        for nxt in ((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)):
            if nxt not in seen and nxt not in blocked and on_map(nxt):
                seen[nxt] = n + 1
                queue.append(nxt)
    return seen


ALL_CELLS: tuple[Cell, ...] = tuple((x, y) for y in range(SIZE) for x in range(SIZE))
