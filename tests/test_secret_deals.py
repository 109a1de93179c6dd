"""Hidden roles stay hidden: no one who reads every public line of earlier games (``START
seats=``, ``END roles=``), the code and the settings predicts a deal better than chance,
and the secret key a store keeps replays a series exactly without ever being shown.

The statistical test scores named predictors, each built from earlier public lines only,
against the chance rate with an exact one-sided binomial test. Each predictor guesses one
seat per game (seat ``g mod players``, chosen before the deal): the seats of one deal are
not independent (it is a permutation), the games are, so the trials of the test are too.
The keys are fixed, so the test passes or fails the same way on every run.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import random
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.config import Config, LobbyConfig, parse_config
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import END, START, parse
from arena.referee.lobby import Lobby
from arena.store import Store
from arena.tournament import Settings, play_local

ALPHA = 0.001
"""A predictor that beats chance with p below this fails the test."""


@dataclass(frozen=True)
class PublicGame:
    """What anyone saw of a finished game: the seat order (START) and the roles (END)."""

    seats: tuple[str, ...]
    roles: tuple[str, ...]


History = Sequence[PublicGame]
Predictor = Callable[[History, tuple[str, ...], int], "str | None"]
"""(earlier games, this game's seats, a seat) -> the role guessed for that seat, or None."""


def public_games(store: Store, tid: str, count: int) -> list[PublicGame]:
    """The public START and END lines of games ``tid-1`` .. ``tid-count``, in order."""
    games = []
    for i in range(1, count + 1):
        stored = store.games.load(f"{tid}-{i}")
        assert stored is not None
        channel = [parse(line) for target, line in stored.transcript if target is None]
        start = next(m for m in channel if m.verb == START)
        end = next(m for m in channel if m.verb == END)
        # Avalon says nick:role, Werewolf the roles alone, both in seat order.
        roles = tuple(r.rpartition(":")[2] for r in end.list("roles"))
        games.append(PublicGame(tuple(start.list("seats")), roles))
    return games


def rotated(k: int) -> Predictor:
    """The previous deal, by seat, turned by ``k`` seats (the old rotating deal is k = 1)."""

    def predict(history: History, seats: tuple[str, ...], seat: int) -> str | None:
        if not history or len(history[-1].roles) != len(seats):
            return None
        return history[-1].roles[(seat + k) % len(seats)]

    return predict


def bot_previous(history: History, seats: tuple[str, ...], seat: int) -> str | None:
    """The role the bot in this seat had in its previous game."""
    for game in reversed(history):
        if seats[seat] in game.seats:
            return game.roles[game.seats.index(seats[seat])]
    return None


def _ranked(counts: Counter[str]) -> list[str]:
    """Roles by how often they came, most first; ties by name, so a guess is deterministic."""
    return sorted(counts, key=lambda role: (-counts[role], role))


def seat_most(history: History, seats: tuple[str, ...], seat: int) -> str | None:
    """The role this seat (by number) held most often so far."""
    counts = Counter(g.roles[seat] for g in history if seat < len(g.roles))
    return _ranked(counts)[0] if counts else None


def _bot_roles(history: History, bot: str) -> Counter[str]:
    return Counter(g.roles[g.seats.index(bot)] for g in history if bot in g.seats)


def bot_most(history: History, seats: tuple[str, ...], seat: int) -> str | None:
    """The role the bot in this seat held most often so far."""
    counts = _bot_roles(history, seats[seat])
    return _ranked(counts)[0] if counts else None


def bot_least(history: History, seats: tuple[str, ...], seat: int) -> str | None:
    """The role the bot held least often relative to its share of the deals so far: what a
    deal that balances role exposure would give it next."""
    counts = _bot_roles(history, seats[seat])
    dealt = Counter(r for g in history if seats[seat] in g.seats for r in g.roles)
    if not counts:
        return None
    return min(dealt, key=lambda role: (counts[role] / dealt[role], role))


def predictors(players: int) -> dict[str, Predictor]:
    named: dict[str, Predictor] = {f"previous deal rotated by {k}": rotated(k) for k in range(players)}
    named.update(
        {
            "bot's previous role": bot_previous,
            "seat's most frequent role": seat_most,
            "bot's most frequent role": bot_most,
            "bot's least frequent role": bot_least,
        }
    )
    return named


def binomial_tail(n: int, k: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


@dataclass(frozen=True)
class Score:
    trials: int
    hits: int
    expected: float
    """Hits a guesser with no information scores on average (the sum of per-trial chances)."""

    @property
    def p_value(self) -> float:
        """One-sided: as many hits or more by chance. The trials' chances differ (a servant
        is dealt twice as often as Merlin); Binomial(n, mean chance) has the heavier upper
        tail of the two (Hoeffding 1956), so this p-value errs on the safe side."""
        return binomial_tail(self.trials, self.hits, self.expected / self.trials) if self.trials else 1.0


def score(games: Sequence[PublicGame], predict: Predictor) -> Score:
    """One guess per game, at seat ``g mod players``; its chance is the share of that role in
    the game's deal, which is public before the game (the role counts)."""
    trials = hits = 0
    expected = 0.0
    for g, game in enumerate(games):
        seat = g % len(game.seats)
        guess = predict(games[:g], game.seats, seat)
        if guess is None:
            continue
        trials += 1
        hits += guess == game.roles[seat]
        expected += game.roles.count(guess) / len(game.roles)
    return Score(trials, hits, expected)


# -- the predictors would catch a guessable deal -------------------------------------------------


def rotating_series(games: int, keep: int = 16) -> list[PublicGame]:
    """Deals as the arena made them before secret keys: a permutation per seat-order block,
    turned by one seat per game."""
    roles = ("merlin", "assassin", "servant", "servant", "minion")
    seats = tuple(f"b{i}" for i in range(5))
    series = []
    for g in range(games):
        base = list(range(5))
        random.Random(g // keep).shuffle(base)
        shift = g % keep
        series.append(PublicGame(seats, tuple(roles[base[(s + shift) % 5]] for s in range(5))))
    return series


def balancing_series(games: int) -> list[PublicGame]:
    """Deals that even out role exposure: each bot in turn (random seats) takes, of the
    roles left, the one it has had least so far."""
    rng = random.Random(1)
    bots = [f"b{i}" for i in range(7)]
    series: list[PublicGame] = []
    for _ in range(games):
        seats = tuple(rng.sample(bots, 5))
        left = ["merlin", "assassin", "servant", "servant", "minion"]
        roles = []
        for bot in seats:
            had = _bot_roles(series, bot)
            role = min(left, key=lambda r: (had[r] / (2 if r == "servant" else 1), rng.random()))
            left.remove(role)
            roles.append(role)
        series.append(PublicGame(seats, tuple(roles)))
    return series


def test_the_predictors_catch_the_old_rotating_deal() -> None:
    rotation = score(rotating_series(320), predictors(5)["previous deal rotated by 1"])
    assert rotation.hits >= 0.9 * rotation.trials and rotation.p_value < 1e-50, rotation


def test_the_predictors_catch_a_deal_that_balances_role_exposure() -> None:
    least = score(balancing_series(320), bot_least)
    assert least.p_value < 1e-6, least


def test_the_binomial_tail_is_exact() -> None:
    assert binomial_tail(3, 0, 0.3) == pytest.approx(1.0)
    assert binomial_tail(3, 3, 0.5) == pytest.approx(0.125)
    assert binomial_tail(4, 2, 0.5) == pytest.approx(11 / 16)


# -- real tournaments: no predictor beats chance ---------------------------------------------------


def config_for(path: Path) -> Config:
    return parse_config({"store": {"path": str(path)}})


def play(path: Path, settings: Settings, options: Any, key: bytes | None = None) -> None:
    """Play a local tournament; ``key`` replaces the one drawn at creation (a fixed key
    makes a statistical test deterministic)."""
    config = config_for(path)
    with Store(config.store.path, config.ratings.systems()) as store:
        if key is not None:
            store.tournaments.start(settings.id, settings.to_dict(), 0.0)
            store.conn.execute("UPDATE tournaments SET secret = ? WHERE id = ?", (key, settings.id))
        play_local(settings, options, store, config)


def settings_for(game: str, options: Any, players: int, bots: int, games: int) -> Settings:
    nicks = tuple(f"b{i}=random" for i in range(bots))
    return Settings(
        id="s",
        game=game,
        games=games,
        players=players,
        bots=nicks,
        options=options.to_dict(),
        transport="local",
        keep=16,
    )


@pytest.mark.parametrize(
    "game,options,players,bots,games",
    [
        ("avalon", AvalonOptions(), 5, 5, 320),
        ("avalon", AvalonOptions(percival=True, morgana=True), 7, 9, 240),
        ("werewolf", WerewolfOptions(), 8, 9, 240),
    ],
)
def test_no_predictor_from_public_lines_beats_chance(
    tmp_path: Path, game: str, options: Any, players: int, bots: int, games: int
) -> None:
    settings = settings_for(game, options, players, bots, games)
    play(tmp_path / "r.db", settings, options, key=bytes(range(32)))
    with Store(tmp_path / "r.db") as store:
        series = public_games(store, settings.id, games)
    assert len({g.seats for g in series}) >= games // 16  # several seat orders
    failures = []
    for name, predict in predictors(players).items():
        s = score(series, predict)
        assert s.trials >= games - 16, (name, s)
        if s.p_value < ALPHA:
            failures.append(f"{name}: {s.hits} hits of {s.trials}, {s.expected:.1f} expected, p = {s.p_value:.2g}")
    assert not failures, failures


# -- one stored key, one series ------------------------------------------------------------------


def finished(path: Path, settings: Settings) -> tuple[list[tuple[Any, ...]], dict[str, float]]:
    """Per game: seats, seed, roles, winner, reason; and the final Elo ratings."""
    with Store(path) as store:
        found = store.tournaments.get(settings.id)
        assert found is not None
        games: list[tuple[Any, ...]] = []
        for i in range(1, found[1] + 1):
            g = store.games.load(f"{settings.id}-{i}")
            assert g is not None
            games.append((g.summary.nicks, g.seed, g.roles, g.summary.winner, g.summary.reason))
        return games, {r.bot: r.score for r in store.ratings.leaderboard(settings.game, "elo")}


MIXED = (
    "rule1=werewolf_rule",
    "rule2=werewolf_rule",
    "rule3=werewolf_rule",
    "r1=random",
    "r2=random",
    "r3=random",
    "r4=random",
    "r5=random",
    "r6=random",
)


def test_the_same_stored_key_replays_the_same_series_even_when_resumed(tmp_path: Path) -> None:
    options = WerewolfOptions()
    settings = Settings(
        id="rep",
        game="werewolf",
        games=40,
        players=8,
        bots=MIXED,
        options=options.to_dict(),
        transport="local",
        keep=16,
    )
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    play(first, dataclasses.replace(settings, games=1), options)
    shutil.copy(first, second)  # closed: the WAL is checkpointed into the file
    play(first, settings, options)
    for games in (13, 29, 40):  # interrupted twice, resumed with the same key
        play(second, dataclasses.replace(settings, games=games), options)
    a, b = finished(first, settings), finished(second, settings)
    assert len(a[0]) == 40 and a == b
    assert len({roles for _, _, roles, _, _ in a[0]}) > 20


def test_two_tournaments_with_the_same_settings_deal_differently(tmp_path: Path) -> None:
    options = AvalonOptions()
    settings = settings_for("avalon", options, 5, 5, 20)
    for name in ("a.db", "b.db"):
        play(tmp_path / name, settings, options)
    a, b = finished(tmp_path / "a.db", settings)[0], finished(tmp_path / "b.db", settings)[0]
    assert {seed for _, seed, *_ in a}.isdisjoint(seed for _, seed, *_ in b)
    assert [roles for *_, roles, _, _ in a] != [roles for *_, roles, _, _ in b]
    assert [seats for seats, *_ in a] != [seats for seats, *_ in b]


# -- keys are never shown ----------------------------------------------------------------------------


def shown_forms(key: bytes) -> list[str]:
    """Ways a key could leak into text: its hex (either case), repr and base64."""
    return [key.hex(), key.hex().upper(), repr(key)[2:-1], base64.b64encode(key).decode()]


def test_no_command_prints_a_key(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("store:\n  path: results.db\ntournament:\n  games: 3\n")
    runner = CliRunner()
    outputs = [runner.invoke(main, ["--config", str(cfg), "tournament"])]
    outputs += [
        runner.invoke(main, ["--config", str(cfg), *args])
        for args in (
            ["games"],
            ["config"],
            ["leaderboard"],
            ["stats"],
            *(["replay", f"t1-{i}", "--all"] for i in range(1, 4)),
        )
    ]
    assert all(out.exit_code == 0 for out in outputs), [out.output for out in outputs]
    with Store(tmp_path / "results.db") as store:
        key = store.tournaments.key("t1")
        stored = json.loads(store.conn.execute("SELECT settings FROM tournaments").fetchone()[0])
    text = "".join(out.output for out in outputs)
    assert "ROLE t1-3" in text  # the replays were printed
    for form in shown_forms(key):
        assert form not in text
    assert "seed" not in stored  # nothing public fixes the deals


# -- arena serve ---------------------------------------------------------------------------------


def test_the_serve_key_is_kept_in_the_store_and_seats_the_lobby(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        key = store.secrets.get("serve")
    with Store(tmp_path / "a.db") as store:
        assert store.secrets.get("serve") == key and len(key) == 32
    with Store(tmp_path / "b.db") as store:
        assert store.secrets.get("serve") != key

    def orders(key: bytes) -> list[list[str]]:
        lobby = Lobby(LobbyConfig(min_players=5, max_players=5, auto_start=False), AvalonOptions(), 1, key)
        seated = []
        for _ in range(8):
            for i in range(5):
                lobby.add(f"b{i}", 0.0)
            table = lobby.take(5)
            assert table is not None and table.seed is None  # the service derives it from the key
            seated.append(table.seats)
        return seated

    assert orders(key) == orders(key) != orders(bytes(32))
