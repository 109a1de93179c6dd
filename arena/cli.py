"""The ``arena`` command line: the operator's and the bot author's entry point.

A command imports what it runs when it runs (the referee, the IRC client, tournaments,
the reports), not when the command line is built: ``arena leaderboard`` or ``arena stats``
starts in the time it takes to load the store and the games, not the whole arena
(``tests/test_startup.py``)."""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from .core.errors import SetupError
from .core.words import counted
from .core.options import OptionError
from .games import GAMES
from .cli_bots import register as register_bots
from .cli_results import CLOCK_HELP, JOBS_HELP, open_store, register as register_results
from .cli_store import register as register_store
from .cli_watch import register as register_watch
from .referee.clocks import CLOCKS
from .store.dialect import shown

if TYPE_CHECKING:
    from .config import Config


def _options_help() -> str:
    lines = []
    for name, game in GAMES.items():
        lines.append(f"Options of {name} (--option NAME=VALUE):")
        lines.extend(f"  {line}" for line in game.Options.describe())
    return "\n".join(lines)


class _Context:
    """Loads the configuration once, on first use, so commands that need none never fail on it."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            from .config import ConfigError, load_config

            try:
                self._config = load_config(self.path)
            except ConfigError as exc:
                raise click.ClickException(str(exc)) from None
        return self._config


INTERRUPTED = 130
"""The exit status of every command stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


class _Arena(click.Group):
    """The ``arena`` group: one way to end on Ctrl-C, and a quiet end when the reader of
    the output goes away (``arena demo | head``), whatever the command."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted (Ctrl-C)", err=True)
            ctx.exit(INTERRUPTED)
        except BrokenPipeError:
            # Nobody reads stdout any more: point it at /dev/null, so flushing it at exit
            # raises nothing either, and end without a word.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(0)


@click.group(cls=_Arena, context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "ARENA"})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Configuration file (default: ./config.yaml if present, else built-in defaults). Every option of every "
    "command can also come from ARENA_<COMMAND>_<PARAMETER> (e.g. ARENA_SIMULATE_SEED), and every setting from "
    "ARENA_<SECTION>_<KEY> (e.g. ARENA_SERVER_PASSWORD, or ARENA_SERVER_PASSWORD_FILE naming a file).",
)
@click.version_option(package_name="arena")
@click.pass_context
def main(ctx: click.Context, config_path: str | None) -> None:
    """Run AI bots against each other at Avalon, Werewolf and Tuvalon over IRC, and rate them."""
    ctx.obj = _Context(config_path)


@main.command("config")
@click.pass_obj
def show_config(obj: _Context) -> None:
    """Validate the configuration and print the effective settings (passwords as ***)."""
    import yaml

    from .config import SECRETS, config_source, env_overrides

    data = obj.config.to_dict()
    for section, key in SECRETS:
        if data[section][key] is not None:
            data[section][key] = "***"
    data["store"]["url"] = shown(data["store"]["url"])
    click.echo(f"# read from: {config_source(obj.path)}")
    overrides = sorted(f"ARENA_{section}_{key}".upper() for section, key in env_overrides())
    if overrides:
        click.echo(f"# overridden by the environment: {', '.join(overrides)}")
    click.echo(yaml.safe_dump(data, sort_keys=False), nl=False)


@main.command("simulate", epilog=_options_help())
@click.option("--game", type=click.Choice(sorted(GAMES)), default="avalon", show_default=True)
@click.option("--players", type=int, default=None, help="Players per game (default: from the configuration).")
@click.option("--games", "count", type=click.IntRange(min=1), default=1000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Root seed: same arguments, same games.")
@click.option("--option", "pairs", multiple=True, metavar="NAME=VALUE", help="A game option; repeatable.")
@click.option(
    "--transport",
    type=click.Choice(["engine", "protocol"]),
    default="engine",
    show_default=True,
    help="engine: call the rules engine directly; protocol: referee and SDK bots exchange protocol lines in memory.",
)
@click.option(
    "--clock",
    type=click.Choice(sorted(CLOCKS)),
    default="virtual",
    show_default=True,
    help=f"With --transport protocol only. {CLOCK_HELP}",
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help=JOBS_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.pass_obj
def simulate_cmd(
    obj: _Context,
    game: str,
    players: int | None,
    count: int,
    seed: int,
    pairs: tuple[str, ...],
    transport: str,
    clock: str,
    jobs: int | None,
    as_json: bool,
) -> None:
    """Play many games in memory between random legal players.

    Game i of a seed is the same game whatever the number of --jobs: the summary does not
    depend on it."""
    from .parallel import settle
    from .simulate import simulate

    settle()
    defaults = obj.config.games[game]
    players = defaults.players if players is None else players
    game_cls = GAMES[game]
    try:
        options = game_cls.Options.from_pairs(pairs, base=defaults.options.to_dict(), game=game)
        game_cls.check_setup(players, options)
    except (OptionError, SetupError) as exc:
        raise click.UsageError(str(exc)) from None
    if clock != "virtual" and transport != "protocol":
        raise click.UsageError(f"--clock {clock} needs --transport protocol: the engine alone keeps no deadlines")
    if as_json:
        summary = simulate(
            game,
            players,
            count,
            seed,
            options,
            transport=transport,
            timeouts=obj.config.timeouts,
            clock=clock,
            jobs=jobs,
        )
        click.echo(json.dumps(summary.to_dict(), sort_keys=False))
        return
    with click.progressbar(length=count, label=f"{game}, {players} players", file=sys.stderr) as bar:
        summary = simulate(
            game,
            players,
            count,
            seed,
            options,
            progress=bar.update,
            transport=transport,
            timeouts=obj.config.timeouts,
            clock=clock,
            jobs=jobs,
        )
    _print_summary(summary.to_dict(), options.in_effect())


@main.command()
@click.option(
    "--games",
    "count",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many games (default: run until Ctrl-C).",
)
@click.option("-v", "--verbose", is_flag=True, help="Log connection events.")
@click.pass_obj
def serve(obj: _Context, count: int | None, verbose: bool) -> None:
    """Run the referee on the IRC server of the configuration.

    Seat orders and game seeds (hence deals) derive from a secret key kept in the results
    store, so no player can compute them."""
    from .referee.service import RefereeService

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(message)s")
    from .referee.recorder import Recorder

    from .spectate.service import narrating
    from .parallel import settle

    settle()
    config = obj.config
    with open_store(config) as store, narrating(config.server, config.narrator) as narrator:
        service = RefereeService(
            config,
            max_games=count,
            key=store.secrets.get("serve"),
            recorder=Recorder(store),
            on_game_end=lambda m: click.echo(_result_line(m)),
            watchers=[config.narrator.nick_for(config.server.nick)] if narrator else [],
        )
        click.echo(
            f"referee {config.server.nick} on {config.server.host}:{config.server.port} "
            f"{config.server.channel}, results in {shown(config.store.location)} (Ctrl-C stops)"
        )
        if narrator is not None:
            click.echo(
                f"narrator {config.narrator.nick_for(config.server.nick)} tells the games in "
                f"{config.narrator.channel}" + (" (and one channel per game)" if config.narrator.per_game else "")
            )
        service.serve()  # Ctrl-C: the link says goodbye on its way out, the group reports it
    if service.fatal:
        raise click.ClickException(service.fatal)


@main.command()
@click.argument("game_id", required=False)
@click.option("--nick", default="spectator", show_default=True, help="The nick to watch under (suffixed if taken).")
@click.pass_obj
def watch(obj: _Context, game_id: str | None, nick: str) -> None:
    """Follow the games on the IRC server of the configuration, told in sentences as they are
    played (colours on a terminal); with GAME_ID that game alone, until it ends."""
    from .spectate.watch import watch as run_watch

    server = obj.config.server
    if game_id is not None and obj.config.store.made():
        with open_store(obj.config, check=False, create=False) as store:
            over = store.games.load(game_id) is not None
        if over:  # its channel is gone: nothing would ever come
            raise click.ClickException(f"{game_id} is over; told the same way: arena replay {game_id} --pretty")

    def ready() -> None:
        click.echo(
            f"watching {game_id or 'every game'} of {server.channel} on {server.host}:{server.port}"
            + ("" if game_id else " (Ctrl-C stops)"),
            err=True,
        )

    try:
        run_watch(server, click.echo, gid=game_id, color=sys.stdout.isatty(), nick=nick, ready=ready)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), default="avalon", show_default=True)
@click.option("--games", "count", type=click.IntRange(min=1), default=3, show_default=True)
@click.option(
    "--players",
    type=click.IntRange(5, 20),
    default=None,
    help="Players per game (default: from the configuration; 5 for Avalon, 8 for Werewolf; Tuvalon: 7, always).",
)
@click.option(
    "--server",
    "server_kind",
    type=click.Choice(["embedded", "ngircd"]),
    default="embedded",
    show_default=True,
    help="The local IRC server to start.",
)
@click.option("--raw", is_flag=True, help="Show the channels' lines as the bots read them, not the narration.")
@click.pass_obj
def demo(obj: _Context, game: str, count: int, players: int | None, server_kind: str, raw: bool) -> None:
    """Start a local IRC server, the referee and sample bots, and show a few games, narrated."""
    from .referee.demo import run_demo, summary

    defaults = obj.config.games[game]
    players = defaults.players if players is None else players
    try:
        GAMES[game].check_setup(players, defaults.options)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--players") from None
    article = "an" if server_kind[0] in "aeiou" else "a"
    click.echo(f"starting {article} {server_kind} IRC server on 127.0.0.1, the referee and {players} bots...")
    try:
        matches = run_demo(
            obj.config, count, players, server_kind, click.echo, game=game, raw=raw, color=sys.stdout.isatty()
        )
    except BrokenPipeError:
        raise  # nobody reads on: the group ends quietly
    except (RuntimeError, TimeoutError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo("")
    for line in summary(matches):
        click.echo(line)


def _result_line(match: Any) -> str:
    result = match.game.result
    return f"{match.gid}: {result.winner or 'nobody'} won ({result.reason}); seats {', '.join(match.names)}"


def _print_summary(s: dict[str, Any], options: dict[str, Any]) -> None:
    games = s["games"]
    opts = " ".join(f"{k}={str(v).lower()}" for k, v in options.items())
    click.echo(f"{s['game']}: {counted(games, 'game')} of {s['players']} players, seed {s['seed']}")
    click.echo(f"options: {opts}")
    click.echo("wins:")
    for side, n in s["wins"].items():
        click.echo(f"  {side:<22}{n:>8}  {100 * n / games:5.1f}%")
    click.echo("end reasons:")
    for reason, n in s["end_reasons"].items():
        click.echo(f"  {reason:<22}{n:>8}  {100 * n / games:5.1f}%")
    rate = games / s["seconds"] if s["seconds"] else float("inf")
    click.echo(f"{s['seconds']:.2f} s, {rate:,.0f} games/s")


register_results(main)
register_bots(main)
register_watch(main)
register_store(main)
