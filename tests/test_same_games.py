"""Seeded games play byte for byte as they did: a guard for changes that must not change behaviour.

Local tournaments with a fixed secret key (so a fixed schedule, deals and bot streams) play
200 games of each game type, on the virtual clock, and every game's transcript (each line
with its audience), answers, talk, result and rating changes, and the final ratings, are
reduced to one digest per game. ``tests/golden/games.json`` holds the digests a trusted
revision gave; a structural change (a module moved, a class split) must leave every one
alone. A change meant to alter play (a rule, a line of the protocol, a bot's strategy)
rewrites the file on purpose, with the reason in its commit:

    python -m tests.test_same_games --write
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.config import parse_config
from arena.games import GAMES
from arena.store import Store
from arena.tournament.run import open_tournament, play_local
from arena.tournament.schedule import Settings

GOLDEN = Path(__file__).parent / "golden" / "games.json"
KEY = bytes(range(32))
"""The tournaments' master key, fixed here (a real one is drawn at random and kept secret)."""


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    game: str
    games: int
    players: int
    bots: tuple[str, ...]
    options: dict[str, Any]


def _bots(rule: str, rules: int, randoms: int) -> tuple[str, ...]:
    return tuple(f"rule{i}={rule}" for i in range(1, rules + 1)) + tuple(
        f"rand{i}=random" for i in range(1, randoms + 1)
    )


CASES = (
    Case("avalon-5", "avalon", 80, 5, _bots("avalon_rule", 4, 3), {}),
    Case("avalon-8", "avalon", 60, 8, _bots("avalon_rule", 6, 3), {"lancelot": 2}),
    Case(
        "avalon-10",
        "avalon",
        60,
        10,
        _bots("avalon_rule", 8, 3),
        {"percival": True, "morgana": True, "mordred": True, "oberon": True},
    ),
    Case("werewolf-classic", "werewolf", 70, 9, _bots("werewolf_rule", 8, 2), {"preset": "classic"}),
    Case("werewolf-chaos", "werewolf", 70, 14, _bots("werewolf_rule", 12, 3), {"preset": "chaos"}),
    Case("werewolf-default", "werewolf", 60, 7, _bots("werewolf_rule", 5, 3), {}),
    Case("tuvalon-rules", "tuvalon", 100, 7, _bots("tuvalon_rule", 7, 0), {}),
    Case("tuvalon-mixed", "tuvalon", 100, 7, _bots("tuvalon_rule", 6, 3), {}),
)
"""200 games of each game type, at small and large tables, with their usual options and more (Tuvalon seats seven)."""


def _plain(value: Any) -> Any:
    """Records by their fields, not their class names: a class may move or be renamed."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"no plain form for {value!r}")


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=_plain).encode()).hexdigest()[:16]


def play(case: Case, where: Path) -> list[str]:
    """The digest of every game of ``case``, in order, and last that of the final ratings."""
    cls = GAMES[case.game]
    options = cls.Options.from_mapping(case.options, game=case.game)
    settings = Settings(
        id=case.name,
        game=case.game,
        games=case.games,
        players=case.players,
        bots=case.bots,
        options=options.to_dict(),
        transport="local",
        keep=16,
    )
    path = where / f"{case.name}.db"
    config = parse_config({"store": {"path": str(path)}})
    with Store(path) as store:
        open_tournament(store, settings)
        store.conn.execute("UPDATE tournaments SET secret = ? WHERE id = ?", (KEY, case.name))
        play_local(settings, options, store, config)
        digests = []
        for index in range(1, case.games + 1):
            game = store.games.load(f"{case.name}-{index}")
            assert game is not None
            digests.append(
                _digest(
                    {
                        "seed": game.seed,
                        "roles": game.roles,
                        "sides": game.sides,
                        "winners": game.winners,
                        "forfeited": game.forfeited,
                        "transcript": game.transcript,
                        "history": game.history,
                        "talk": [(t.seat, t.text) for t in game.talk],
                        "outcomes": game.outcomes,
                        "changes": {k: list(v) for k, v in sorted(game.changes.items())},
                    }
                )
            )
        digests.append(
            _digest(
                {
                    system: dict(sorted(store.ratings.current(case.game, system).items()))
                    for system in ("elo", "trueskill")
                }
            )
        )
    return digests


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_seeded_games_play_as_they_did(case: Case, tmp_path: Path) -> None:
    wanted = json.loads(GOLDEN.read_text())[case.name]
    got = play(case, tmp_path)
    differ = [f"{case.name}-{i + 1}" for i, (a, b) in enumerate(zip(got[:-1], wanted[:-1])) if a != b]
    assert not differ, f"games that no longer play as they did: {', '.join(differ[:10])}"
    assert got[-1] == wanted[-1], "the ratings differ"
    assert len(got) == len(wanted)


def test_the_cases_play_200_games_of_each_game_type() -> None:
    played = {game: sum(c.games for c in CASES if c.game == game) for game in GAMES}
    assert played == {game: 200 for game in GAMES}, played


def _write() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        golden = {case.name: play(case, Path(where)) for case in CASES}
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    _write()
