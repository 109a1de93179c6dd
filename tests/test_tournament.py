"""Tournaments: the schedule, storing every game with its ratings, resuming after an
interruption without losing or repeating a game, and the results commands."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import scramp
import yaml
from click.testing import CliRunner

from arena.cli import main
from arena.config import Config, parse_config
from arena.games import GAMES
from arena.games.avalon.options import AvalonOptions
from arena.protocol import RATINGS, Reassembler, parse
from arena.ratings.model import BOT, Change, Rating
from arena.referee.recorder import ratings_message
from arena.store import Store
from arena.tournament import Progress, Schedule, Settings, TournamentError, load_bot_class, play_local
from arena.tournament.progress import Pace
from arena.tournament.workers import BATCH

KEY = bytes(range(32))

BOTS = ("rule1=avalon_rule", "rule2=avalon_rule", "rand1=random", "rand2=random", "rand3=random")


def settings(**overrides: Any) -> Settings:
    base: dict[str, Any] = dict(
        id="t1",
        game="avalon",
        games=12,
        players=5,
        bots=BOTS,
        options=AvalonOptions().to_dict(),
        transport="local",
        keep=16,
    )
    base.update(overrides)
    return Settings(**base)


def config_for(tmp_path: Path) -> Config:
    return parse_config({"store": {"path": str(tmp_path / "results.db")}})


# -- schedule ------------------------------------------------------------------------------------


def test_schedule_keeps_seats_for_a_block_and_follows_the_key() -> None:
    schedule = Schedule(settings(games=40), KEY)
    tables = [schedule.table(i) for i in range(40)]
    assert len({t.seats for t in tables[:16]}) == 1 and tables[16].seats != tables[15].seats
    assert [t.gid for t in tables[:3]] == ["t1-1", "t1-2", "t1-3"]
    assert len({t.seed for t in tables}) == 40
    assert [Schedule(settings(games=40), KEY).table(i) for i in range(40)] == tables
    other = [Schedule(settings(games=40), bytes(32)).table(i) for i in range(40)]
    assert {t.seed for t in other}.isdisjoint(t.seed for t in tables)
    assert [t.seats for t in other] != [t.seats for t in tables]
    assert all(str(t.seed) not in repr(t) for t in tables)  # a printed table shows no secret


def test_with_more_bots_than_seats_everyone_plays_equally() -> None:
    bots = tuple(f"b{i}=random" for i in range(7))
    schedule = Schedule(settings(bots=bots, players=5, keep=4), KEY)
    played = Counter(n for i in range(7 * 4 * 5) for n in schedule.table(i).seats)
    assert set(played) == {f"b{i}" for i in range(7)}
    assert max(played.values()) - min(played.values()) <= 4


@pytest.mark.parametrize(
    "bots,players,message",
    [
        (("a=random", "A=random", "b=random", "c=random", "d=random"), 5, "its own nick"),
        (BOTS, 6, "only 5 bots"),
    ],
)
def test_bad_schedules_are_clear_errors(bots: tuple[str, ...], players: int, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        Schedule(settings(bots=bots, players=players), KEY)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nonsense", "expected one of random, avalon_rule, werewolf_rule"),
        ("no_such_module_x:Bot", "No module named"),
        ("arena.config:Config", "not a subclass of arena.sdk.Bot"),
    ],
)
def test_bot_specs_that_do_not_load_say_why(spec: str, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        load_bot_class(spec)


def test_a_bot_class_loads_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text("from arena.sdk import Bot\nclass Mine(Bot):\n    name = 'mine'\n")
    assert getattr(load_bot_class(f"{path}:Mine"), "name") == "mine"


# -- playing and storing -------------------------------------------------------------------------


def test_a_local_tournament_stores_every_game_and_its_ratings(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    s = settings()
    with Store(config.store.path, config.ratings.systems()) as store:
        assert play_local(s, AvalonOptions(), store, config) == 12
        games = store.games.find(limit=100)
        assert sorted(g.id for g in games) == sorted(f"t1-{i}" for i in range(1, 13))
        progress = store.tournaments.get("t1")
        assert progress is not None and progress[1] == 12
        board = store.ratings.leaderboard("avalon", "elo")
        assert {r.bot for r in board} == {"rule1", "rule2", "rand1", "rand2", "rand3"}
        assert all(r.games == 12 for r in board)
        stored = store.games.load("t1-5")
        assert stored is not None
        assert stored.seed == Schedule(s, store.tournaments.key("t1")).table(4).seed and stored.deal is None
        assert stored.replay().events == list(stored.events)
        # The game's lines were kept as sent, the END last before the ratings.
        assert parse(stored.transcript[0][1]).verb == "START"
        assert parse(stored.transcript[-1][1]).verb == "END"
        # A second run finds everything stored and plays nothing.
        assert play_local(s, AvalonOptions(), store, config) == 0
        assert store.ratings.rebuild().exact


@pytest.mark.parametrize(
    "game, bots",
    [
        ("werewolf", ("wolf=werewolf_rule", "knight=avalon_rule", *(f"r{i}=random" for i in range(6)))),
        ("avalon", ("tuv=tuvalon_rule", *BOTS[1:])),
    ],
)
def test_a_bot_of_another_game_is_refused_before_anything_is_stored(
    tmp_path: Path, game: str, bots: tuple[str, ...]
) -> None:
    config = config_for(tmp_path)
    s = settings(game=game, bots=bots, players=len(bots), options=GAMES[game].Options().to_dict())
    with Store(config.store.path, config.ratings.systems()) as store:
        with pytest.raises(TournamentError) as refused:
            play_local(s, GAMES[game].Options(), store, config)
        assert store.tournaments.get("t1") is None and store.games.find() == []
    (spec,) = [b for b in bots if not b.startswith(("wolf=", "r"))]
    assert (
        str(refused.value) == f"{spec} is written for {load_bot_class(spec.split('=')[1]).plays}; "
        f"this tournament plays {game}"
    )


def test_a_bot_that_raises_is_summed_up_when_the_tournament_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "buggy.py"
    path.write_text(
        "from arena.sdk import AvalonBot\nclass Buggy(AvalonBot):\n"
        "    def vote(self, game, ask):\n        raise KeyError('oops')\n"
    )
    config = config_for(tmp_path)
    s = settings(games=3, bots=(f"bug={path}:Buggy", *BOTS[:4]))
    with caplog.at_level("WARNING", logger="arena.sdk"), Store(config.store.path, config.ratings.systems()) as store:
        assert play_local(s, AvalonOptions(), store, config) == 3
    messages = [r.getMessage() for r in caplog.records]
    per_game = [m for m in messages if m.startswith("Buggy raised") and " in game t1-" in m]
    assert len(per_game) == 3
    (run,) = [m for m in messages if m.startswith("bug: Buggy raised")]
    total = sum(int(m.split(" raised ")[1].split()[0]) for m in per_game)
    assert f"raised {total} exception(s): vote x{total} (first of each: vote: KeyError: 'oops')" in run


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    with Store(config.store.path, config.ratings.systems()) as store:
        play_local(settings(games=2), AvalonOptions(), store, config)
        with pytest.raises(TournamentError, match="keep differ"):
            play_local(settings(games=2, keep=8), AvalonOptions(), store, config)
        assert play_local(settings(games=4), AvalonOptions(), store, config) == 2  # more games: resumes


def test_a_tournament_from_before_secret_keys_resumes_with_a_key_of_its_own(tmp_path: Path) -> None:
    """Its stored settings hold the public seed it was created with and it has no key."""
    config = config_for(tmp_path)
    s = settings(games=3)
    with Store(config.store.path, config.ratings.systems()) as store:
        store.conn.execute(
            "INSERT INTO tournaments (id, settings, games_done, created, updated) VALUES (?,?,0,0,0)",
            (s.id, json.dumps({**s.to_dict(), "seed": 3})),
        )
        assert play_local(s, AvalonOptions(), store, config) == 3
        key = store.tournaments.key(s.id)
        assert len(key) == 32 and store.tournaments.key(s.id) == key


def test_rating_changes_are_one_protocol_message_continued_when_long() -> None:
    short = {
        "elo": (Change((BOT, "alice"), Rating(1500), Rating(1516)), Change((BOT, "bob"), Rating(1500), Rating(1484))),
        "trueskill": (Change((BOT, "alice"), Rating(25, 8), Rating(27, 7.5)),),
    }
    msg = ratings_message("g1", short, ["alice", "bob"])
    assert msg is not None
    assert msg.format() == "RATINGS g1 elo=alice:1516:+16,bob:1484:-16 trueskill=alice:27.0:+2.0"
    assert parse(msg.format()).verb == RATINGS
    long = {
        system: tuple(Change((BOT, f"{'x' * 15}{i}"), Rating(25, 8), Rating(26, 7)) for i in range(10))
        for system in ("elo", "trueskill")
    }
    whole = ratings_message("g1", long, [])
    assert whole is not None
    lines = whole.lines()
    assert len(lines) == 2 and all(len(line.encode()) <= 400 for line in lines)
    parts = Reassembler()
    assert [m for line in lines for m in parts.add(parse(line))] == [whole]


# -- the commands --------------------------------------------------------------------------------


def write_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text("store:\n  path: results.db\ntournament:\n  games: 6\n")
    return path


def test_tournament_then_every_results_command(tmp_path: Path) -> None:
    cfg = str(write_config(tmp_path))
    runner = CliRunner()
    out = runner.invoke(main, ["--config", cfg, "tournament"])
    assert out.exit_code == 0, out.output
    assert "tournament t1 has 6 games stored" in out.output
    board = runner.invoke(main, ["--config", cfg, "leaderboard", "--format", "json"])
    data = json.loads(board.output)
    assert data["system"] == "elo" and len(data["bots"]) == 5 and data["bots"][0]["rank"] == 1
    csv_out = runner.invoke(main, ["--config", cfg, "leaderboard", "--system", "trueskill", "--format", "csv"])
    assert csv_out.output.splitlines()[0].startswith("rank,bot,owner,version,rating,mu,sigma")
    table = runner.invoke(main, ["--config", cfg, "leaderboard"]).output
    assert "win rate" in table
    listing = runner.invoke(main, ["--config", cfg, "games"]).output
    assert listing.splitlines()[0].split()[0] == "id" and listing.splitlines()[1].startswith("t1-6 ")
    public = runner.invoke(main, ["--config", cfg, "replay", "t1-1"]).output.splitlines()
    assert public[0].startswith("#     START t1-1") and public[-1].startswith("#     RATINGS t1-1")
    assert not any(line.startswith(">") for line in public)
    nick = parse(public[0][6:]).list("seats")[0]
    mine = runner.invoke(main, ["--config", cfg, "replay", "t1-1", "--as", nick]).output.splitlines()
    dms = [line for line in mine if line.startswith(">")]
    assert dms and "ROLE" in dms[0]
    everything = runner.invoke(main, ["--config", cfg, "replay", "t1-1", "--all"]).output
    assert everything.count("ROLE t1-1") == 5
    assert runner.invoke(main, ["--config", cfg, "replay", "nope"]).exit_code != 0
    stats = runner.invoke(main, ["--config", cfg, "stats", "rule1"])
    assert stats.exit_code == 0 and "rule1" in stats.output
    rebuild = runner.invoke(main, ["--config", cfg, "ratings", "rebuild"])
    assert rebuild.exit_code == 0 and "matches exactly" in rebuild.output


def test_a_tournaments_own_standings_and_the_fewest_games_shown(tmp_path: Path) -> None:
    """``--tournament`` rates a tournament's games alone, afresh: a second tournament's
    games move the overall board, not the first one's standings."""
    cfg = str(write_config(tmp_path))
    runner = CliRunner()
    assert runner.invoke(main, ["--config", cfg, "tournament"]).exit_code == 0

    def board(*args: str) -> list[dict[str, Any]]:
        out = runner.invoke(main, ["--config", cfg, "leaderboard", "--format", "json", *args])
        assert out.exit_code == 0, out.output
        bots: list[dict[str, Any]] = json.loads(out.output)["bots"]
        return bots

    first = board("--tournament", "t1")
    assert first == board(), "one tournament: its standings are the board"
    assert {b["owner"] for b in first} == {"arena", "anonymous"}, "bots keep the owner they registered with"
    out = runner.invoke(
        main,
        [
            "--config",
            cfg,
            "tournament",
            "--id",
            "t2",
            "--games",
            "4",
            "--bot",
            "rule1=random",
            "--bot",
            "newbie=random",
            "--bot",
            "rule2=random",
            "--bot",
            "rule3=random",
            "--bot",
            "random1=random",
        ],
    )
    assert out.exit_code == 0, out.output
    rows = out.output.split("tournament t2 leaderboard", 1)[1].splitlines()[2:]
    assert {row.split()[1] for row in rows if row.strip()} == {"rule1", "newbie", "rule2", "rule3", "random1"}, (
        "a tournament ends with its own standings"
    )
    assert all(row.split()[4] == "4" for row in rows if row.strip()), "its games alone"
    standing = ("bot", "rating", "mu", "sigma", "games", "wins")
    assert [{k: b[k] for k in standing} for b in board("--tournament", "t1")] == [
        {k: b[k] for k in standing} for b in first
    ]
    assert board() != first and "newbie" in {b["bot"] for b in board()}
    assert {b["bot"] for b in board("--tournament", "t2")} == {"rule1", "newbie", "rule2", "rule3", "random1"}
    assert all(b["games"] >= 5 for b in board("--min-games", "5")) and "newbie" not in {
        b["bot"] for b in board("--min-games", "5")
    }
    missing = runner.invoke(main, ["--config", cfg, "leaderboard", "--tournament", "nope"])
    assert missing.exit_code != 0 and "no tournament 'nope'" in missing.output


def test_a_tournaments_board_and_stats_are_of_its_own_game_and_games(tmp_path: Path) -> None:
    """A newer game of another type does not hide a tournament's standings (``--game`` left
    out means the tournament's game), and ``stats --tournament`` counts its games alone."""
    cfg = str(write_config(tmp_path))
    runner = CliRunner()
    assert runner.invoke(main, ["--config", cfg, "tournament"]).exit_code == 0  # t1: 6 avalon games
    assert runner.invoke(main, ["--config", cfg, "tournament", "--id", "t0", "--games", "2"]).exit_code == 0
    wolves = [f"--bot=w{i}=werewolf_rule" for i in range(8)]
    assert (
        runner.invoke(
            main, ["--config", cfg, "tournament", "--id", "ww", "--game", "werewolf", "--games", "1", *wolves]
        ).exit_code
        == 0
    )
    board = runner.invoke(main, ["--config", cfg, "leaderboard", "--tournament", "t1", "--format", "json"])
    assert board.exit_code == 0, board.output
    data = json.loads(board.output)
    assert data["game"] == "avalon" and len(data["bots"]) == 5 and all(b["games"] == 6 for b in data["bots"])
    stats = runner.invoke(main, ["--config", cfg, "stats", "--tournament", "t1"])
    assert stats.exit_code == 0, stats.output
    heads = [line for line in stats.output.splitlines() if line and not line.startswith(" ")]
    assert len(heads) == 5 and all(" (avalon): 6 games," in line for line in heads), heads
    one = runner.invoke(main, ["--config", cfg, "stats", "rule1", "--tournament", "t0"])
    assert one.exit_code == 0 and one.output.startswith("rule1 (avalon): 2 games,"), one.output
    newest = runner.invoke(main, ["--config", cfg, "stats", "rule1"])  # the newest game's type: werewolf
    assert newest.exit_code == 1 and "no werewolf games stored for rule1" in newest.output
    other = runner.invoke(main, ["--config", cfg, "leaderboard", "--tournament", "t1", "--game", "werewolf"])
    assert other.exit_code == 1 and "tournament t1 plays avalon, not werewolf" in other.output
    missing = runner.invoke(main, ["--config", cfg, "stats", "--tournament", "nope"])
    assert missing.exit_code == 1 and "no tournament 'nope'" in missing.output


def test_one_game_is_counted_in_the_singular(tmp_path: Path) -> None:
    """No "1 games" in what the commands print: a one-game tournament, its stats, a rebuild
    and a one-game simulation."""
    cfg = str(write_config(tmp_path))
    runner = CliRunner()
    out = runner.invoke(main, ["--config", cfg, "tournament", "--games", "1"])
    assert out.exit_code == 0, out.output
    assert "tournament t1: 1 avalon game of 5 players, 5 bots," in out.output
    assert "played 1 game now; tournament t1 has 1 game stored" in out.output
    assert "tournament t1 leaderboard (elo, its 1 game rated afresh;" in out.output
    stats = runner.invoke(main, ["--config", cfg, "stats"]).output
    heads = [line for line in stats.splitlines() if line and not line.startswith(" ")]
    assert len(heads) == 5 and all(
        re.search(
            r": 1 game, (1 win, 0 losses|0 wins, 1 loss), 0 draws, 0 forfeits, 0 "
            r"aborted;",
            line,
        )
        for line in heads
    ), heads
    rebuild = runner.invoke(main, ["--config", cfg, "ratings", "rebuild"]).output
    assert rebuild.startswith("1 game, "), rebuild
    simulated = runner.invoke(main, ["--config", cfg, "simulate", "--games", "1"]).output
    assert "avalon: 1 game of 5 players, seed 0" in simulated
    assert " 1 games" not in "".join((out.output, stats, rebuild, simulated))


def test_bots_are_added_with_a_key_shown_once_and_kept_only_as_a_scram_verifier(tmp_path: Path) -> None:
    cfg = str(write_config(tmp_path))
    runner = CliRunner()
    added = runner.invoke(main, ["--config", cfg, "bots", "add", "alice", "--owner", "bob"])
    assert added.exit_code == 0, added.output
    key = added.output.splitlines()[-1]
    assert len(key) == 32 and key.isalnum()
    assert runner.invoke(main, ["--config", cfg, "bots", "add", "ALICE"]).exit_code != 0, "names ignore case"
    assert runner.invoke(main, ["--config", cfg, "bots", "add", "9bad"]).exit_code != 0
    assert runner.invoke(main, ["--config", cfg, "bots", "add", "carol", "--no-key"]).exit_code != 0
    carol = runner.invoke(main, ["--config", cfg, "bots", "add", "carol", "--account", "carolacct", "--no-key"])
    assert carol.exit_code == 0 and "carolacct" in carol.output
    listing = runner.invoke(main, ["--config", cfg, "bots", "list"]).output
    head, alice, carol_line = listing.splitlines()
    assert head.split() == ["bot", "owner", "version", "proven", "by", "last", "seen", "(UTC)"]
    assert alice.split()[:2] == ["alice", "bob"] and " key " in alice and "account carolacct" in carol_line
    assert head.index("proven by") == alice.index("key") == carol_line.index("account"), "columns align"
    assert "\x1b" not in listing, "plain text for pipes"
    assert key not in listing
    rekeyed = runner.invoke(main, ["--config", cfg, "bots", "rekey", "alice"])
    new = rekeyed.output.splitlines()[-1]
    assert rekeyed.exit_code == 0 and new != key
    assert runner.invoke(main, ["--config", cfg, "bots", "rekey", "zed"]).exit_code != 0
    with Store(tmp_path / "results.db") as store:
        record = store.bots.get("alice")
        assert record is not None
        stored = record.verifier
        raw = b"".join(v for row in store.conn.execute("SELECT * FROM bots") for v in row if isinstance(v, bytes))
    assert key.encode() not in raw and new.encode() not in raw

    def proves(secret: str) -> bool:
        assert stored is not None
        _, stored_key, _, _ = scramp.ScramMechanism().make_auth_info(secret, stored.iterations, stored.salt)
        proved: bool = stored_key == stored.stored_key
        return proved

    assert proves(new) and not proves(key)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_tournament_resumes_without_losing_or_repeating_games(
    tmp_path: Path, how: signal.Signals
) -> None:
    cfg = write_config(tmp_path)
    command = [sys.executable, "-m", "arena", "--config", str(cfg), "tournament", "--games", "100000"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    db = tmp_path / "results.db"
    deadline = time.monotonic() + 60
    while True:  # wait until some games are stored
        time.sleep(0.3)
        if db.exists():
            with Store(db) as store:
                found = store.tournaments.get("t1")
                if found and found[1] >= 20:
                    break
        assert proc.stdout is not None
        assert time.monotonic() < deadline, proc.stdout.read() if proc.poll() is not None else "no progress"
    proc.send_signal(how)
    out, _ = proc.communicate(timeout=30)
    if how == signal.SIGINT:
        assert proc.returncode == 130 and "run the same command to resume" in out, out
    with Store(db) as store:
        progress = store.tournaments.get("t1")
        assert progress is not None
        done = progress[1]
        assert len(store.games.find(limit=10**6)) == done
    resumed = subprocess.run([*command[:-1], str(done + 5)], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "played 5 games now" in resumed.stdout
    with Store(db) as store:
        ids = [g.id for g in store.games.find(limit=10**6)]
        assert sorted(ids, key=lambda i: int(i.split("-")[1])) == [f"t1-{i}" for i in range(1, done + 6)]
        assert store.ratings.rebuild().exact


def test_an_aborted_game_is_stored_without_rating_changes(tmp_path: Path) -> None:
    from arena.config import TimeoutConfig
    from arena.referee.local import LocalHub
    from arena.referee.recorder import Recorder
    from arena.sdk import Bot

    with Store(tmp_path / "r.db") as store:
        hub = LocalHub(TimeoutConfig())
        Recorder(store).attach(hub.referee)
        nicks = [f"b{i}" for i in range(5)]
        for i, nick in enumerate(nicks):
            hub.connect(nick, Bot(seed=i))
        match = hub.referee.start_game("avalon", nicks, AvalonOptions(), 1, hub.channel, 0.0)
        match.abort("stopped by boss", 0.0)
        hub.run()
        end = parse(hub.channel_log[-1])
        assert end.verb == "END" and end.get("reason") == "aborted" and end.get("winner") == "none"
        stored = store.games.load(match.gid)
        assert stored is not None
        assert stored.summary.kind == "aborted"
        assert {o.result for o in stored.outcomes} == {"aborted"}
        assert all(c.delta == 0 for items in stored.changes.values() for c in items)
        assert not any(line.startswith(RATINGS) for line in hub.channel_log)


def test_a_werewolf_tournament_counts_a_neutral_role_s_own_wins(tmp_path: Path) -> None:
    from arena.games.werewolf.options import WerewolfOptions

    config = config_for(tmp_path)
    options = WerewolfOptions.from_pairs(
        ["enabledRoles=villager,werewolf,seer,jester", "roleCounts=werewolf:2,seer:1,jester:1"]
    )
    bots = tuple(f"w{i}=werewolf_rule" for i in range(4)) + tuple(f"r{i}=random" for i in range(4))
    s = settings(game="werewolf", players=8, bots=bots, options=options.to_dict(), games=16)
    with Store(config.store.path, config.ratings.systems()) as store:
        assert play_local(s, options, store, config) == 16
        stats = store.stats.bots("werewolf")
        jester_games = sum(b.roles["jester"].games for b in stats.values() if "jester" in b.roles)
        assert jester_games == 16  # one jester per game
        figures = [b.roles["jester"].figures["jester_own_win"] for b in stats.values() if "jester" in b.roles]
        assert sum(f.trials for f in figures) == 16
        assert store.ratings.rebuild().exact
    # A store of Werewolf games alone needs no --game: it defaults to the newest game's type.
    cfg = str(tmp_path / "config.yaml")
    Path(cfg).write_text(yaml.safe_dump({"store": {"path": config.store.path}}))
    runner = CliRunner()
    shown = runner.invoke(main, ["--config", cfg, "stats", "w0"])
    assert shown.exit_code == 0 and shown.output.startswith("w0 (werewolf): 16 games"), shown.output
    board = json.loads(runner.invoke(main, ["--config", cfg, "leaderboard", "--format", "json"]).output)
    assert board["game"] == "werewolf" and len(board["bots"]) == 8


def test_progress_shows_the_leaders_of_this_tournament_only(tmp_path: Path) -> None:
    """A store that holds other tournaments: each progress line names this one's bots."""
    config = config_for(tmp_path)
    with Store(config.store.path) as store:
        play_local(settings(id="old", games=3), AvalonOptions(), store, config)
        other = ("x1=avalon_rule", "x2=avalon_rule", "x3=random", "x4=random", "x5=random")
        seen: list[set[str]] = []
        play_local(
            settings(id="new", games=3, bots=other),
            AvalonOptions(),
            store,
            config,
            report=lambda progress: seen.append({bot for bot, _ in progress.leaders}),
        )
    assert len(seen) == 3 and all(leaders and leaders <= {"x1", "x2", "x3", "x4", "x5"} for leaders in seen)


def test_an_interrupted_local_tournament_keeps_the_standings_of_one_run(tmp_path: Path) -> None:
    """Stopped at its 5th game and resumed, a tournament's kept standings are its games
    rated afresh (``rebuild`` compares them bit for bit), and the progress lines of the
    resumed run read them. Games are stored a batch at a time, before their progress is
    told: the stop keeps the fifth game's batch, whole."""
    config = config_for(tmp_path)

    def stop(progress: Progress) -> None:
        if progress.done == 5:
            raise KeyboardInterrupt

    with Store(config.store.path) as store:
        with pytest.raises(KeyboardInterrupt):
            play_local(settings(games=20), AvalonOptions(), store, config, report=stop)
        found = store.tournaments.get("t1")
        assert found is not None and found[1] == BATCH
        seen: list[Progress] = []
        assert play_local(settings(games=20), AvalonOptions(), store, config, report=seen.append) == 20 - BATCH
        report = store.ratings.rebuild()
        assert report.exact and report.standings_checked > 0
        board = store.ratings.leaderboard("avalon", "elo", tournament="t1")
        assert seen[-1].leaders == [(r.bot, r.score) for r in board[:3]]
        assert [p.done for p in seen] == list(range(BATCH + 1, 21))
        assert all(0 < p.recent_games <= p.played_now for p in seen)


def test_the_rate_and_eta_follow_the_last_games_not_the_whole_run() -> None:
    pace = Pace(0.0, games=10, seconds=1000.0)
    now = 0.0
    for _ in range(10):  # slow games first
        now += 1.0
        pace.finished(now)
    for _ in range(10):
        now += 0.1
        recent = pace.finished(now)
    assert recent == (10, pytest.approx(1.0))
    windowed = Progress(20, 120, 20, now, [], *recent)
    assert windowed.rate == pytest.approx(10.0) and windowed.eta == pytest.approx(10.0)
    since_start = Progress(20, 120, 20, now, [])
    assert since_start.rate == pytest.approx(20 / 11) and since_start.eta == pytest.approx(55.0)
    assert Progress(0, 10, 0, 0.0, []).eta is None


def test_the_window_forgets_games_older_than_its_seconds_but_keeps_the_last() -> None:
    pace = Pace(0.0, games=100, seconds=5.0)
    for now in (1.0, 2.0, 3.0, 4.0):
        pace.finished(now)
    assert pace.finished(8.0) == (3, 6.0), "the games that ended at 3, 4 and 8 s (within 5 s), counted from 2 s"
    assert pace.finished(100.0) == (1, 92.0), "a slow game is the window alone"
