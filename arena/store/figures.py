"""Role-specific figures, as each game's kit declares them (``arena.core.kit.Figure``).

A figure is a rate over the games a bot played in one role: among the games whose end
reason is in ``counted``, the share whose reason is in ``success``. The generic stats
query only counts (bot, role, result, reason); a game's figures are read from its kit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..core import kit as kits
from ..core.kit import Figure

__all__ = ["FIGURES", "Figure"]


class _Figures(Mapping[str, tuple[Figure, ...]]):
    """Every registered game's figures, by game name."""

    def __getitem__(self, game: str) -> tuple[Figure, ...]:
        return kits.find(game).figures

    def __iter__(self) -> Iterator[str]:
        return iter(kits.names())

    def __len__(self) -> int:
        return len(kits.names())


FIGURES: Mapping[str, tuple[Figure, ...]] = _Figures()
