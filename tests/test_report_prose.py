"""Every kind of event each game's engine emits reads as prose in the report, not as a dump
of its fields: seeded games deal every Werewolf role, and play Avalon with every optional
role and the Lancelots, and Tuvalon."""

from __future__ import annotations

import pytest

from arena.report.prose import PROSE, describe, fields
from arena.report.views import Names

from .seeded import games


@pytest.mark.parametrize("name", ["avalon", "tuvalon", "werewolf"])
def test_every_event_kind_of_a_game_has_prose(name: str) -> None:
    kinds: dict[str, dict[str, object]] = {}
    for game in games(name):
        for event in game.events:
            kinds.setdefault(event.kind, event.data)
    missing = sorted(set(kinds) - set(PROSE))
    assert not missing, f"{name} events with no prose in the report: {', '.join(missing)}"
    names = Names(tuple(f"p{i}" for i in range(20)))
    for kind, data in kinds.items():
        text = describe(kind, data, names)
        assert text != fields(kind, data, names) and "{" not in text and "None" not in text, (kind, text)


def test_a_tuvalon_turn_names_its_speaker() -> None:
    names = Names(("ann", "ben"))
    assert (
        describe("speech", {"player": 1, "purpose": "near", "passed": False}, names, said=True)
        == "ben speaks (second discussion)"
    )
