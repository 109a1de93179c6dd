"""The operator's configuration: defaults, the shipped config.yaml, and every kind of bad input."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
import yaml

from arena.config import Config, ConfigError, GameDefaults, load_config, parse_config
from arena.games import GAMES
from arena.games.avalon.options import AvalonOptions

SHIPPED = Path(__file__).resolve().parent.parent / "config.yaml"


def write(tmp_path: Path, text: str, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- defaults ------------------------------------------------------------------------------


def test_no_path_and_no_file_gives_builtin_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config.server.host == "127.0.0.1"
    assert config.server.port == 6667
    assert config.server.tls is False
    assert config.server.nick == "arena"
    assert config.server.channel == "#arena"
    assert config.server.password is None and config.server.sasl_account is None
    assert config.server.lines_per_second == 2.0 and config.server.burst == 5
    assert config.timeouts.decision == 30.0 and config.timeouts.grace == 10.0
    assert config.timeouts.escalation == ("warn", "default", "forfeit")
    assert config.seating.games_per_order == 16
    assert (config.flood.reply_burst, config.flood.reply_interval) == (10, 5.0)
    assert (config.flood.reply_queue, config.flood.command_interval) == (50, 5.0)
    assert config.store.path == str(tmp_path / "arena.db")
    assert config.games["avalon"] == GameDefaults(5, AvalonOptions())
    # The same as the dataclass defaults, apart from the store path being made absolute.
    assert config == dataclasses.replace(Config(), store=config.store)


def test_no_path_reads_config_yaml_in_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "server:\n  port: 7000\n")
    monkeypatch.chdir(tmp_path)
    assert load_config().server.port == 7000


def test_empty_file_and_empty_sections_are_defaults(tmp_path: Path) -> None:
    empty = load_config(write(tmp_path, ""))
    assert empty == load_config(write(tmp_path, "# only a comment\n", "comment.yaml"))
    sections = "server:\ntimeouts:\nseating:\nstore:\ngames:\n  avalon:\n    options:\n"
    assert load_config(write(tmp_path, sections, "sections.yaml")) == empty
    assert load_config(write(tmp_path, "games: {}\n", "no-games.yaml")) == empty


def test_every_game_has_legal_defaults() -> None:
    config = Config()
    assert set(config.games) == set(GAMES)
    for name, defaults in config.games.items():
        assert isinstance(defaults.options, GAMES[name].Options)
        GAMES[name].check_setup(defaults.players, defaults.options)


def test_dataclass_defaults_pass_their_own_checks() -> None:
    assert parse_config(Config().to_dict()) == parse_config({})


# -- the shipped config.yaml -----------------------------------------------------------------


def test_shipped_config_equals_builtin_defaults(tmp_path: Path) -> None:
    # Both files in the same folder, so even the resolved store paths must agree.
    shipped = tmp_path / "config.yaml"
    shutil.copyfile(SHIPPED, shipped)
    from_file = load_config(shipped)
    assert from_file.to_dict() == load_config(write(tmp_path, "", "empty.yaml")).to_dict()
    assert from_file == load_config(write(tmp_path, "", "empty.yaml"))
    # The repository's own copy loads where it is and only differs in the store path's folder.
    in_repo = load_config(SHIPPED)
    assert in_repo.store.path == str(SHIPPED.parent / "arena.db")
    assert dataclasses.replace(in_repo, store=from_file.store) == from_file


def _keys(value: object, prefix: str = "") -> set[str]:
    if not isinstance(value, dict):
        return set()
    keys = set()
    for key, item in value.items():
        keys.add(prefix + key)
        keys |= _keys(item, f"{prefix}{key}.")
    return keys


def test_shipped_config_spells_out_every_key() -> None:
    raw = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    assert _keys(raw) == _keys(Config().to_dict())
    assert set(raw["games"]["avalon"]["options"]) == set(AvalonOptions.model_fields)


def test_shipped_config_comments_every_key() -> None:
    for line in SHIPPED.read_text(encoding="utf-8").splitlines():
        if re.match(r"\s*\w+:", line):
            assert re.search(r"\s#\s\S", line.split(":", 1)[1]), f"no comment on {line!r}"


def test_shipped_config_names_every_choice_of_a_key_that_has_choices() -> None:
    """A key limited to some values (``lobby.game``: every game there is) says them all in
    its comment, so an operator never has to guess that one is allowed."""
    comments: dict[tuple[str, str], str] = {}
    section = ""
    for line in SHIPPED.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"(\w+):", line):
            section = match.group(1)
        elif match := re.match(r"  (\w+):[^#]*#(.*)", line):
            comments[(section, match.group(1))] = match.group(2)
    checked = 0
    config = Config()
    for part in dataclasses.fields(Config):
        value = getattr(config, part.name)
        if not dataclasses.is_dataclass(value):
            continue  # games: options per game, checked above
        for key in dataclasses.fields(value):
            choices = key.metadata.get("choices")
            if choices:
                comment = comments[(part.name, key.name)]
                assert all(re.search(rf"\b{choice}\b", comment) for choice in choices), (part.name, key.name, comment)
                checked += 1
    assert checked >= 3


# -- good non-default values -------------------------------------------------------------------


def test_non_default_values_are_read(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            """
server:
  host: irc.example.org
  port: 6697
  tls: true
  password: "12345"
  nick: "[ref]`_"
  channel: "&lobby"
  sasl_account: arena
  sasl_password: s3cret
  lines_per_second: 1
flood:
  reply_burst: 2
  reply_interval: 0
  reply_queue: 500
  command_interval: 30
timeouts:
  grace: 0
  escalation: [forfeit]
games:
  avalon:
    players: 7
    options: {percival: true, morgana: true, lancelot: 2}
""",
        )
    )
    assert config.server.host == "irc.example.org"
    assert config.server.port == 6697 and config.server.tls is True
    assert config.server.password == "12345"
    assert config.server.nick == "[ref]`_"
    assert config.server.channel == "&lobby"
    assert (config.server.sasl_account, config.server.sasl_password) == ("arena", "s3cret")
    assert config.server.lines_per_second == 1.0 and isinstance(config.server.lines_per_second, float)
    assert config.timeouts.grace == 0.0 and isinstance(config.timeouts.grace, float)
    assert (config.flood.reply_burst, config.flood.reply_queue) == (2, 500)
    assert config.flood.reply_interval == 0.0 and isinstance(config.flood.reply_interval, float)
    assert config.flood.command_interval == 30.0
    assert config.timeouts.escalation == ("forfeit",)
    assert config.games["avalon"] == GameDefaults(7, AvalonOptions(percival=True, morgana=True, lancelot=2))


def test_to_dict_is_plain_yaml_that_reads_back_the_same(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            "timeouts: {escalation: [warn, forfeit]}\ngames: {avalon: {players: 9, options: {evil_at_nine: 4}}}\n",
        )
    )
    data = config.to_dict()
    assert data["timeouts"]["escalation"] == ["warn", "forfeit"]
    assert data["games"]["avalon"] == {"players": 9, "options": AvalonOptions(evil_at_nine=4).to_dict()}
    assert load_config(write(tmp_path, yaml.safe_dump(data), "dumped.yaml")) == config


def test_config_is_immutable() -> None:
    config = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.server.port = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.games["avalon"] = GameDefaults(6, AvalonOptions())  # type: ignore[index]


# -- bad input ---------------------------------------------------------------------------------

BAD = [
    ("server: {port: abc}", "server.port must be a whole number from 1 to 65535, got 'abc'"),
    ("server: {port: 0}", "server.port must be a whole number from 1 to 65535, got 0"),
    ("server: {port: 65536}", "server.port must be a whole number from 1 to 65535, got 65536"),
    ("server: {port: 6667.5}", "server.port must be a whole number from 1 to 65535, got 6667.5"),
    ("server: {port: true}", "server.port must be a whole number from 1 to 65535, got true"),
    ("server: {tls: 'yes'}", "server.tls must be true or false, got 'yes'"),
    ("server: {tls: 1}", "server.tls must be true or false, got 1"),
    ("server: {host: ''}", "server.host must be a non-empty host name or address without spaces, got ''"),
    (
        "sever: {}",
        "unknown key 'sever' (known: server, flood, timeouts, seating, identity, lobby, "
        "narrator, store, ratings, tournament, games)",
    ),
    ("server: {hots: x}", "unknown key 'server.hots' (known: host, port, tls, password, nick, channel, "),
    (
        "timeouts: {decison: 3}",
        "unknown key 'timeouts.decison' (known: decision, grace, escalation, secret_minimum, resume, failover,"
        " night_step)",
    ),
    ("server: 5", "server must be a mapping of keys to values, got 5"),
    ("server: {channel: arena}", 'server.channel must be a channel name in quotes such as "#arena"'),
    ("server: {channel: '#a b'}", 'server.channel must be a channel name in quotes such as "#arena"'),
    ("server: {channel: '#a,b'}", "server.channel must be a channel name"),
    ("server: {channel: '#'}", "server.channel must be a channel name"),
    ("server: {channel: '#" + "a" * 50 + "'}", "server.channel must be a channel name"),
    ("server:\n  channel: #arena\n", 'server.channel must be a channel name in quotes such as "#arena": '),
    ("server: {nick: 1bot}", "server.nick must be an IRC nick of 1 to 30 characters: a letter or one of"),
    ("server: {nick: 'bot!'}", "server.nick must be an IRC nick"),
    ("server: {nick: ''}", "server.nick must be an IRC nick"),
    ("server: {nick: " + "a" * 31 + "}", "server.nick must be an IRC nick"),
    (
        "server: {password: 12345}",
        "server.password must be a non-empty string without line breaks, or null, got 12345; put it in quotes",
    ),
    ('server: {password: "a\\r\\nQUIT"}', "server.password must be a non-empty string without line breaks, or null"),
    ("server: {sasl_account: arena}", "server.sasl_password must be set (a non-empty string) when sasl_account is set"),
    ("server: {sasl_password: pw}", "server.sasl_account must be set (a non-empty string) when sasl_password is set"),
    ("server: {lines_per_second: -1}", "server.lines_per_second must be a number of at least 0, got -1"),
    ("server: {lines_per_second: fast}", "server.lines_per_second must be a number of at least 0, got 'fast'"),
    ("flood: {reply_burst: 0}", "flood.reply_burst must be a whole number of at least 1, got 0"),
    ("flood: {reply_burst: 2.5}", "flood.reply_burst must be a whole number of at least 1, got 2.5"),
    ("flood: {reply_interval: -1}", "flood.reply_interval must be a number of at least 0, got -1"),
    ("flood: {reply_interval: soon}", "flood.reply_interval must be a number of at least 0, got 'soon'"),
    ("flood: {reply_queue: 0}", "flood.reply_queue must be a whole number of at least 1, got 0"),
    ("flood: {command_interval: -5}", "flood.command_interval must be a number of at least 0, got -5"),
    ("1: x", "unknown key '1' (known: server, flood, timeouts, "),
    ("server: {~: 1}", "unknown key 'server.None' (known: host, port, "),
    ("games: {avalon: {1: 2}}", "unknown key 'games.avalon.1' (known: players, options)"),
    (
        "flood: {burst: 3}",
        "unknown key 'flood.burst' (known: reply_burst, reply_interval, reply_queue, command_interval)",
    ),
    ("lobby: {min_players: 6, max_players: 5}", "lobby.max_players must be at least min_players (6), got 5"),
    ("lobby: {game: chess}", "lobby.game must be one of avalon, werewolf, tuvalon, got 'chess'"),
    ("server: {burst: 0}", "server.burst must be a whole number of at least 1, got 0"),
    (
        "timeouts: {escalation: [warn, kick]}",
        "timeouts.escalation[1] must be one of warn, default, forfeit, got 'kick'",
    ),
    (
        "timeouts: {escalation: []}",
        "timeouts.escalation must be a non-empty list of warn, default, forfeit, got a list []",
    ),
    (
        "timeouts: {escalation: warn}",
        "timeouts.escalation must be a non-empty list of warn, default, forfeit, got 'warn'",
    ),
    ("timeouts: {decision: -1}", "timeouts.decision must be a number greater than 0, got -1"),
    ("timeouts: {decision: .inf}", "timeouts.decision must be a number greater than 0, got inf"),
    ("timeouts: {grace: -0.5}", "timeouts.grace must be a number of at least 0, got -0.5"),
    ("seating: {games_per_order: 0}", "seating.games_per_order must be a whole number of at least 1, got 0"),
    ("store: {path: ''}", "store.path must be a non-empty file path, got ''"),
    ("games: {chess: {}}", "games: unknown game 'chess' (known: avalon, werewolf, tuvalon)"),
    ("games: [avalon]", "games must be a mapping of keys to values"),
    ("games: {avalon: {player: 5}}", "unknown key 'games.avalon.player' (known: players, options)"),
    ("games: {avalon: {players: five}}", "games.avalon.players must be a whole number of at least 1, got 'five'"),
    ("games: {avalon: {options: [percival]}}", "games.avalon.options must be a mapping of keys to values"),
    (
        "games: {avalon: {options: {percivel: true}}}",
        "games.avalon.options: unknown option 'percivel' for avalon (known: merlin, percival, ",
    ),
    (
        "games: {avalon: {options: {lancelot: 5}}}",
        "games.avalon.options: option lancelot must be one of 0, 1, 2, 3, got 5",
    ),
    (
        "games: {avalon: {options: {evil_at_nine: '4'}}}",
        "games.avalon.options.evil_at_nine must be a whole number, got '4'",
    ),
    ("games: {avalon: {options: {percival: 'yes'}}}", "games.avalon.options.percival must be true or false, got 'yes'"),
    (
        "games: {avalon: {players: 5, options: {mordred: true, morgana: true}}}",
        "games.avalon: cannot start with players: 5 and these options: 3 special evil roles",
    ),
    (
        "games: {avalon: {players: 11}}",
        "games.avalon: cannot start with players: 11 and these options: Avalon needs 5 to 10 players, got 11",
    ),
    (
        "games: {avalon: {options: {merlin: false, percival: true}}}",
        "games.avalon: cannot start with players: 5 and these options: without the Merlin",
    ),
    ("server:\n  host: x\n   port: 1\n", "YAML syntax error at line 3, column 8: mapping values are not allowed here"),
    ("server: {port: [1, 2}\n", "YAML syntax error at line 1"),
    (
        "server:\n  port: 1\n  port: 2\n",
        "YAML syntax error at line 3, column 3: key 'port' appears twice in one mapping",
    ),
    (
        "- server\n- games\n",
        "the top level must be a mapping of sections (server, flood, timeouts, seating, "
        "identity, lobby, narrator, store, ratings, tournament, games), got a list",
    ),
    (
        "hello",
        "the top level must be a mapping of sections (server, flood, timeouts, seating, "
        "identity, lobby, narrator, store, ratings, tournament, games), got 'hello'",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[b[0].replace("\n", "/")[:60] for b in BAD])
def test_bad_input_names_file_key_and_form(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: {message}")
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no chained traceback


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    text = "server:\n  <<: {port: 7000, tls: true}\n  port: 7001\n"
    config = load_config(write(tmp_path, text))
    assert (config.server.port, config.server.tls) == (7001, True)


def test_explicit_missing_path_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=re.escape(f"{missing}: no such configuration file")):
        load_config(missing)


def test_directory_as_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration file"):
        load_config(tmp_path)


# -- the store path ------------------------------------------------------------------------------


def test_relative_store_path_starts_at_the_config_files_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "store:\n  path: data/results.db\n", "etc/arena.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(tmp_path / "etc" / "arena.yaml").store.path == str(tmp_path / "etc" / "data" / "results.db")
    monkeypatch.chdir(tmp_path)
    assert load_config("etc/arena.yaml").store.path == str(tmp_path / "etc" / "data" / "results.db")


def test_absolute_store_path_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "abs" / "arena.db"
    path = write(tmp_path, f"store: {{path: {str(target)!r}}}\n", "sub/config.yaml")
    assert load_config(path).store.path == str(target)


def test_default_store_path_is_next_to_the_config_file(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "", "sub/config.yaml")).store.path == str(tmp_path / "sub" / "arena.db")


def test_store_path_expands_the_home_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = write(tmp_path, "store: {path: ~/arena.db}\n", "sub/config.yaml")
    assert load_config(path).store.path == str(tmp_path / "home" / "arena.db")
    unknown = write(tmp_path, "store: {path: ~nosuchuser-xyz/arena.db}\n", "other/config.yaml")
    assert load_config(unknown).store.path == str(tmp_path / "other" / "~nosuchuser-xyz" / "arena.db")


@pytest.mark.parametrize(
    "text,message",
    [
        ("tournament: {bots: ['a b']}", "tournament.bots[0] is not valid, got 'a b'"),
        ("tournament: {bots: []}", "tournament.bots must be a non-empty list of NICK=BOT entries"),
        ("tournament: {id: '9x'}", "tournament.id must be 1 to 12 letters"),
        ("tournament: {transport: tcp}", "tournament.transport must be one of local, irc"),
        ("lobby: {operators: ['#chan']}", "lobby.operators[0] is not valid, got '#chan'"),
        ("ratings: {elo_k: 0}", "ratings.elo_k must be a number greater than 0"),
    ],
)
def test_tournament_and_ratings_sections_are_checked(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(yaml.safe_load(text))
    assert str(info.value).startswith(message), str(info.value)


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "server:\n  port: 6667\n  password: old\n")
    (tmp_path / "pw").write_text("from-file\n")
    environ = {
        "ARENA_SERVER_PORT": "6697",
        "ARENA_SERVER_PASSWORD_FILE": str(tmp_path / "pw"),
        "ARENA_TIMEOUTS_DECISION": "5",
        "ARENA_UNRELATED": "x",
    }
    config = load_config(path, environ)
    assert (config.server.port, config.server.password, config.timeouts.decision) == (6697, "from-file", 5.0)
    assert load_config(path, {"ARENA_SERVER_PASSWORD": "123"}).server.password == "123"  # a secret stays text
    flood = load_config(path, {"ARENA_FLOOD_REPLY_BURST": "3", "ARENA_FLOOD_REPLY_INTERVAL": "1.5"}).flood
    assert (flood.reply_burst, flood.reply_interval, flood.reply_queue) == (3, 1.5, 50)
    with pytest.raises(ConfigError, match="ARENA_\\* environment.*flood.reply_queue must be a whole number"):
        load_config(path, {"ARENA_FLOOD_REPLY_QUEUE": "0"})
    with pytest.raises(ConfigError, match="ARENA_\\* environment.*server.port"):
        load_config(path, {"ARENA_SERVER_PORT": "abc"})


def test_a_shared_lobby_needs_a_postgresql_store(tmp_path: Path) -> None:
    shared = "server:\n  network: example\n  nick: arena2\n"
    with pytest.raises(ConfigError, match="server.network is set .* store.url is empty"):
        load_config(write(tmp_path, shared))
    config = load_config(write(tmp_path, shared + "store:\n  url: postgresql://arena@db.example/arena\n"))
    assert config.server.network == "example" and config.store.location.startswith("postgresql://")
    with pytest.raises(ConfigError, match="network"):
        load_config(write(tmp_path, "server:\n  network: two words\n"))
