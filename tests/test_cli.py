"""The ``arena`` command line: simulate (JSON and readable), options, errors, config.

Every command runs in a fresh temporary folder, so the repository's config.yaml is only
read where a test writes one on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import pytest
import yaml
from click.testing import CliRunner, Result

from arena.cli import main
from arena.games.avalon.engine import END_REASONS

KEYS = ["game", "players", "games", "seed", "options", "wins", "end_reasons", "seconds"]


Run = Callable[..., Result]
"""What ``run`` gives: ``arena`` with these arguments, its result."""


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)  # an empty folder: no config.yaml, the built-in defaults
    assert not Path("config.yaml").exists()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), catch_exceptions=False)

    yield invoke


def summary(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    text = result.stdout.strip()
    assert text.count("\n") == 0, f"expected one line of JSON, got {result.stdout!r}"
    data = json.loads(text)
    assert isinstance(data, dict)
    return data


def check_summary(data: dict[str, Any], players: int, games: int, seed: int) -> None:
    assert list(data) == KEYS
    assert (data["game"], data["players"], data["games"], data["seed"]) == ("avalon", players, games, seed)
    assert set(data["wins"]) == {"good", "evil"}
    assert sum(data["wins"].values()) == games
    assert set(data["end_reasons"]) <= set(END_REASONS)
    assert sum(data["end_reasons"].values()) == games
    assert all(isinstance(n, int) and n > 0 for n in data["end_reasons"].values())
    assert isinstance(data["seconds"], float) and data["seconds"] >= 0
    assert data["options"]["merlin"] is True


def test_simulate_json(run: Run) -> None:
    data = summary(run("simulate", "--players", "10", "--games", "200", "--seed", "5", "--json"))
    check_summary(data, 10, 200, 5)
    # Good wins only through Merlin surviving the assassin; evil's three ways add up.
    assert data["wins"]["good"] == data["end_reasons"].get("merlin_survived", 0)


def test_simulate_json_is_reproducible(run: Run) -> None:
    args = ("simulate", "--players", "10", "--games", "200", "--seed", "5", "--json")
    first, second = summary(run(*args)), summary(run(*args))
    first.pop("seconds"), second.pop("seconds")
    assert first == second
    other = summary(run("simulate", "--players", "10", "--games", "200", "--seed", "6", "--json"))
    other.pop("seconds")
    assert other != first, "the seed changes nothing"


def test_simulate_over_the_protocol(run: Run) -> None:
    args = ("simulate", "--players", "10", "--games", "20", "--seed", "5", "--json", "--transport", "protocol")
    data = summary(run(*args))
    check_summary(data, 10, 20, 5)
    assert "forfeit" not in data["end_reasons"]
    again = summary(run(*args))
    data.pop("seconds"), again.pop("seconds")
    assert data == again


@pytest.mark.parametrize("transport", ["engine", "protocol"])
def test_simulate_gives_the_same_summary_with_any_number_of_workers(run: Run, transport: str) -> None:
    args = ("simulate", "--players", "7", "--games", "40", "--seed", "3", "--json", "--transport", transport)
    one, two = summary(run(*args, "--jobs", "1")), summary(run(*args, "--jobs", "2"))
    one.pop("seconds"), two.pop("seconds")
    assert one == two and one["games"] == 40


def test_jobs_are_for_local_tournaments_and_documented(run: Run) -> None:
    irc = run("tournament", "--id", "i", "--transport", "irc", "--jobs", "2", *(f"--bot=b{i}" for i in range(5)))
    assert irc.exit_code == 2 and "--jobs is for --transport local" in irc.output
    for command in ("tournament", "simulate"):
        text = " ".join(run(command, "--help").output.split())
        assert "--jobs INTEGER RANGE" in text and "The results do not depend on it" in text


def test_readable_summary(run: Run) -> None:
    result = run("simulate", "--players", "7", "--games", "50", "--seed", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "wins:" in out and "end reasons:" in out
    assert "50 games of 7 players, seed 1" in out
    assert "good" in out and "evil" in out
    assert "Traceback" not in result.output


def test_options_at_eight_players(run: Run) -> None:
    data = summary(
        run(
            "simulate",
            "--players",
            "8",
            "--games",
            "50",
            "--json",
            "--option",
            "lancelot=2",
            "--option",
            "percival=true",
        )
    )
    check_summary(data, 8, 50, 0)
    assert data["options"]["lancelot"] == 2 and data["options"]["percival"] is True
    assert data["options"]["morgana"] is False


def usage_error(result: Result, *names: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    for name in names:
        assert name in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize(
    "args,names",
    [
        (("--option", "foo=1"), ("foo",)),
        (("--option", "lancelot=7"), ("lancelot", "7")),
        (("--option", "percival=maybe"), ("percival", "maybe")),
        (("--option", "evil_at_nine=5"), ("evil_at_nine",)),
        (("--option", "percival"), ("percival", "NAME=VALUE")),
        (
            ("--players", "5", "--option", "morgana=true", "--option", "mordred=true", "--option", "oberon=true"),
            ("morgana", "mordred", "oberon"),
        ),
        (("--players", "4"), ("5 to 10", "4")),
        (("--players", "11"), ("11",)),
        (("--option", "merlin=false", "--option", "percival=true"), ("merlin", "percival")),
    ],
)
def test_bad_options_are_usage_errors(run: Run, args: tuple[str, ...], names: tuple[str, ...]) -> None:
    usage_error(run("simulate", "--games", "1", "--json", *args), *names)


def test_config_prints_the_defaults_as_yaml(run: Run) -> None:
    result = run("config")
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    assert list(data) == [
        "server",
        "flood",
        "timeouts",
        "seating",
        "identity",
        "lobby",
        "narrator",
        "store",
        "ratings",
        "tournament",
        "games",
    ]
    assert data["timeouts"] == {
        "decision": 30.0,
        "grace": 10.0,
        "escalation": ["warn", "default", "forfeit"],
        "secret_minimum": 0.0,
        "resume": 60.0,
        "failover": 10.0,
        "night_step": None,
    }
    assert data["flood"] == {"reply_burst": 10, "reply_interval": 5.0, "reply_queue": 50, "command_interval": 5.0}
    assert data["games"]["avalon"]["players"] == 5
    assert data["games"]["avalon"]["options"]["merlin"] is True
    assert Path(data["store"]["path"]).is_absolute()


def test_config_file_is_read_when_given_or_present(run: Run) -> None:
    Path("mine.yaml").write_text("timeouts:\n  decision: 5\ngames:\n  avalon:\n    players: 7\n")
    data = yaml.safe_load(run("--config", "mine.yaml", "config").stdout)
    assert data["timeouts"]["decision"] == 5 and data["games"]["avalon"]["players"] == 7
    # Without --config, ./config.yaml is used when present...
    assert summary(run("simulate", "--games", "3", "--json"))["players"] == 5
    Path("config.yaml").write_text("games:\n  avalon:\n    players: 9\n")
    assert summary(run("simulate", "--games", "3", "--json"))["players"] == 9
    # ...and --players still wins over it.
    assert summary(run("simulate", "--games", "3", "--json", "--players", "6"))["players"] == 6


def test_missing_config_file_is_a_clear_error(run: Run) -> None:
    result = run("--config", "missing.yaml", "config")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "missing.yaml" in errors[0] and "no such configuration file" in errors[0], result.output
    # The same for a command that needs the configuration.
    result = run("--config", "missing.yaml", "simulate", "--games", "1")
    assert result.exit_code == 1 and "missing.yaml" in result.output


def test_bad_config_file_is_a_clear_error(run: Run) -> None:
    Path("bad.yaml").write_text("timeouts:\n  decision: -1\n")
    result = run("--config", "bad.yaml", "config")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "bad.yaml" in result.output and "timeouts.decision" in result.output


def test_help_lists_the_game_options(run: Run) -> None:
    result = run("simulate", "--help")
    assert result.exit_code == 0
    for name in ("merlin", "percival", "lancelot", "evil_at_nine"):
        assert name in result.output


def test_config_hides_passwords_and_names_its_source(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    Path("config.yaml").write_text("server:\n  password: hunter2\n")
    monkeypatch.setenv("ARENA_SERVER_SASL_ACCOUNT", "ref")
    Path("sasl.txt").write_text("s3cret\n")
    monkeypatch.setenv("ARENA_SERVER_SASL_PASSWORD_FILE", "sasl.txt")
    monkeypatch.setenv("ARENA_SERVER_PORT", "7000")
    result = run("config")
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output and "s3cret" not in result.output
    assert result.output.startswith("# read from: config.yaml\n# overridden by the environment: ")
    data = yaml.safe_load(result.stdout)
    assert data["server"]["password"] == data["server"]["sasl_password"] == "***"
    assert data["server"]["port"] == 7000 and data["server"]["sasl_account"] == "ref"
    Path("config.yaml").unlink()
    for name in ("ARENA_SERVER_SASL_ACCOUNT", "ARENA_SERVER_SASL_PASSWORD_FILE", "ARENA_SERVER_PORT"):
        monkeypatch.delenv(name)
    assert run("config").output.startswith("# read from: built-in defaults\nserver:")


@pytest.mark.parametrize(
    "args",
    [
        ["leaderboard"],
        ["games"],
        ["replay", "g1"],
        ["stats"],
        ["bots", "list"],
        ["bots", "rekey", "x"],
        ["ratings", "rebuild"],
    ],
)
def test_read_only_commands_never_create_a_database(run: Run, args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 1
    assert "no results database at " in result.output and "nothing is stored there yet" in result.output
    assert list(Path().iterdir()) == []


def test_ctrl_c_is_one_line_and_exit_130(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> NoReturn:
        raise KeyboardInterrupt

    monkeypatch.setattr("arena.simulate.simulate", interrupted)
    result = run("simulate", "--games", "3", "--json")
    assert result.exit_code == 130
    assert result.output == "interrupted (Ctrl-C)\n"


def test_options_come_from_the_environment(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SIMULATE_SEED", "4")
    assert summary(run("simulate", "--games", "2", "--json"))["seed"] == 4


@pytest.mark.parametrize(
    "extra, shown, hidden",
    [
        ((), "enabledRoles=villager,werewolf,seer,doctor,hunter,witch roleCounts= ", "preset="),
        (("--option", "preset=chaos"), "options: preset=chaos ", "enabledRoles="),
        (("--option", "preset=chaos", "--option", "roleCounts=werewolf:3"), "roleCounts=werewolf:3 ", "preset="),
    ],
)
def test_simulate_names_the_options_that_deal_the_deck(
    run: Run, extra: tuple[str, ...], shown: str, hidden: str
) -> None:
    """A preset's deck owes nothing to enabledRoles, and given counts win over a preset: the
    readable summary lists only what decided the game (the JSON keeps every option)."""
    result = run("simulate", "--game", "werewolf", "--players", "12", "--games", "3", *extra)
    assert result.exit_code == 0, result.output
    options = next(line for line in result.stdout.splitlines() if line.startswith("options: "))
    assert shown in options + " " and hidden not in options, options
    data = summary(run("simulate", "--game", "werewolf", "--players", "12", "--games", "3", "--json", *extra))
    assert {"enabledRoles", "roleCounts", "preset"} <= set(data["options"])
