"""A game defined here, outside the arena, and registered at run time plays like a built-in
one: in memory (a local tournament) and over a real IRC server, narrated, stored, rated,
exported and reported, with nothing of it in ``arena/``."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Iterator

import pytest

from arena.config import TimeoutConfig, parse_config
from arena.core import kit
from arena.irc.servers import LocalServer
from arena.narrate.narrator import Narrator, retell
from arena.protocol import Message, parse
from arena.sdk import GameView
from arena.report.build import game_html, store_html
from arena.store import Store
from arena.store.export import export
from arena.store.report import channel_lines
from arena.tournament import Settings, TournamentError, load_bot_class, play_local
from tests.irc.conftest import irc_server  # noqa: F401  (the fixture, for the IRC test)
from tests.irc.test_games import Arena

from .engine import CAUGHT, ESCAPED, OddOneGame, OddOneOptions
from .kit import KIT
from .sdk import GrudgeBot, OddOneBot, OddOneState

BOTS = ("g1=oddone_grudge", "g2=oddone_grudge", "r1=random", "r2=random")


@pytest.fixture
def oddone() -> Iterator[kit.Kit]:
    """The game registered for one test, and forgotten after it."""
    kit.register(KIT)
    try:
        yield KIT
    finally:
        kit.unregister(KIT.name)


def test_an_unregistered_game_is_unknown_everywhere() -> None:
    assert kit.get("oddone") is None
    with pytest.raises(TournamentError):
        load_bot_class("oddone_grudge")


def test_registering_a_taken_name_or_a_verb_of_another_arity_is_refused(oddone: kit.Kit) -> None:
    import dataclasses

    with pytest.raises(ValueError, match="registered already"):
        kit.register(dataclasses.replace(KIT))
    with pytest.raises(ValueError, match="different arities"):
        kit.register(dataclasses.replace(KIT, name="oddtwo", verbs={"TALLY": (0, 2)}))
    assert kit.get("oddtwo") is None
    kit.register(KIT)  # the same kit again changes nothing


def test_a_local_tournament_plays_stores_rates_narrates_exports_and_reports_it(oddone: kit.Kit, tmp_path: Path) -> None:
    config = parse_config({"store": {"path": str(tmp_path / "results.db")}})
    settings = Settings(
        id="odd",
        game="oddone",
        games=6,
        players=4,
        bots=BOTS,
        options=OddOneOptions().to_dict(),
        transport="local",
        keep=16,
    )
    with Store(config.store.path, config.ratings.systems()) as store:
        assert play_local(settings, OddOneOptions(), store, config) == 6
        games = store.games.find(game="oddone", limit=None)
        assert len(games) == 6
        reasons = {g.reason for g in games}
        assert reasons <= {CAUGHT, ESCAPED}
        # Rated: every bot has an Elo rating of this game, after six games each.
        board = store.ratings.leaderboard("oddone", "elo")
        assert {row.bot for row in board} == {"g1", "g2", "r1", "r2"} and all(row.games == 6 for row in board)
        # The kit's figure: the spy's escapes, among the games the spy played.
        spies = [s for s in (store.stats.bots("oddone", b).get(b) for b in ("g1", "g2", "r1", "r2")) if s is not None]
        assert any("spy_escape" in role.figures for s in spies for name, role in s.roles.items() if name == "spy")

        stored = store.games.load(games[0].id)
        assert stored is not None
        told = retell(channel_lines(stored))
        text = " ".join(s.plain() for s in told)
        assert "Round 1:" in text and "Game over" in text and "Roles:" in text
        assert ("tally", "1") in {fact[:2] for s in told for fact in s.facts}

        doc = export(store, games[0].id)
        assert doc is not None and doc["game"] == "oddone"
        assert any(e["kind"] == "tally" for e in doc["events"])
        page = game_html(store, games[0].id)
        assert page is not None and "<h2>Accusations</h2>" in page and "round 1:" in page
        assert "oddone" in store_html(store)


class Careful(GrudgeBot):
    """Keeps the state it read of each game, to check the SDK followed the game's lines."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.states: list[OddOneState] = []

    def on_end(self, game: GameView[OddOneState], msg: Message) -> None:
        self.states.append(game.state)


def test_it_plays_over_irc_narrated_and_stored(
    oddone: kit.Kit,
    irc_server: LocalServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    timeouts = TimeoutConfig(decision=5.0, grace=1.0, escalation=("warn", "default", "forfeit"))
    bots = [Careful(seed=1), Careful(seed=2), OddOneBot(seed=3), OddOneBot(seed=4)]
    with Arena(
        irc_server, 4, timeouts, game="oddone", options=OddOneOptions(rounds=3), store=tmp_path / "irc.db"
    ) as arena:
        for i, bot in enumerate(bots):
            arena.add_bot(f"odd{i}", bot).start()
        (match,) = arena.wait(1)
    assert isinstance(match.game, OddOneGame) and match.game.result is not None
    assert match.game.result.reason in (CAUGHT, ESCAPED)
    lines = arena.seen_from_start(match)
    assert any(line.startswith("TALLY ") for line in lines)
    # The SDK read the game's own lines into its state.
    tallies = sum(line.startswith("TALLY ") for line in lines)
    assert [len(s.accusations) for b in bots[:2] for s in b.states] == [tallies, tallies]  # type: ignore[attr-defined]
    # A spectator's narrator tells the game from the channel.
    narrator = Narrator(arena.config.server.channel, arena.referee)
    channel = f"{arena.config.server.channel}-{match.gid}"
    told = [s for line in lines for s in narrator.hear(arena.referee, channel, line)]
    assert any("is out" in s.plain() or "nobody is out" in s.plain() for s in told)
    assert any("Game over" in s.plain() for s in told)
    # Stored and rated like any game.
    (stored,) = arena.stored
    assert stored is not None and stored.summary.game == "oddone"
    ratings = parse(lines[-1])
    assert ratings.verb == "RATINGS" and {item.split(":")[0] for item in ratings.list("elo")} == {
        f"odd{i}" for i in range(4)
    }
