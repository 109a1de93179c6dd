"""Odd one out's part of a game's report page: each round's accusations (``oddone.html``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.report.views import Names


def page(doc: Mapping[str, Any], names: Names) -> Mapping[str, Any]:
    rounds = [
        {
            "round": e["data"]["round"],
            "out": names.of(e["data"]["out"]) if e["data"]["out"] is not None else None,
            "votes": [
                (names.of(voter), names.of(target))
                for voter, target in enumerate(e["data"]["votes"])
                if target is not None
            ],
        }
        for e in doc["events"]
        if e["kind"] == "tally"
    ]
    return {"oddone_rounds": rounds}
