"""The ``arena`` commands about results: tournaments, leaderboards, stored games, replays,
per-bot statistics and rating rebuilds. Registered on the main group by ``arena.cli``."""

from __future__ import annotations

import csv
import io
import json
import logging
import sys
import time
from contextlib import contextmanager
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from .bots import builtin_bots
from .core.errors import SetupError
from .core.words import counted
from .core.options import OptionError
from .games import GAMES
from .referee.clocks import CLOCKS
from .store import Store
from .store import ParametersChanged
from .store.dialect import shown
from .store.report import channel_lines, games_lines, leaderboard_lines, replay_lines, stats_lines

if TYPE_CHECKING:
    from .config import Config

SYSTEMS = ("elo", "trueskill")

CLOCK_HELP = (
    "virtual: bots decide in no time and are never late; the same command plays the same games. "
    "wall: the real time a bot takes to decide counts against its deadlines, as over IRC (warn, "
    "default, forfeit: timeouts.escalation); each bot's deadlines count its own thinking only; "
    "not reproducible."
)
"""The ``--clock`` option's help, shared by ``simulate`` and ``tournament``."""

JOBS_HELP = (
    "Worker processes that play the games (default: one per core, for runs long enough to pay "
    "for starting them). The results do not depend on it: game i is the same game in any process."
)
"""The ``--jobs`` option's help, shared by ``simulate`` and ``tournament``."""


@contextmanager
def open_store(config: Config, *, check: bool = True, create: bool = True) -> Iterator[Store]:
    """The configured results database; a clear error instead of a traceback when it cannot
    be used. ``create=False`` (commands that only read): a database that does not exist is
    an error naming where it was looked for, not a new empty file left behind."""
    where = config.store.location
    if not create and not config.store.made():
        raise click.ClickException(
            f"no results database at {where}: nothing is stored there yet "
            "(arena serve, arena tournament and arena bots add create it; "
            "--config, ARENA_STORE_PATH or ARENA_STORE_URL point to another)"
        )
    try:
        store = Store(where, config.ratings.systems())
    except Exception as exc:  # sqlite3 or psycopg errors, a newer schema than this arena knows, ...
        raise click.ClickException(f"cannot open the results database {shown(where)}: {exc}") from None
    try:
        if check:
            try:
                store.ratings.check_parameters()
            except ParametersChanged as exc:
                raise click.ClickException(str(exc)) from None
        yield store
    finally:
        store.close()


def newest_game(store: Store) -> str:
    """The type of the newest stored game (Avalon in an empty store): what ``--game``
    means when left out, so a store of one game type needs no ``--game`` at all."""
    newest = store.games.find(limit=1)
    return newest[0].game if newest else "avalon"


def game_of(store: Store, game: str | None, tournament: str | None) -> str:
    """The game type a results command shows: ``game`` if given, else ``tournament``'s
    game, else the newest stored game's. A tournament that is not stored, or one of another
    game than ``game``, is an error: its standings in another game would be empty."""
    if tournament is None:
        return game or newest_game(store)
    found = store.tournaments.get(tournament)
    if found is None:
        raise click.ClickException(f"no tournament {tournament!r} is stored")
    played = str(found[0].get("game", "avalon"))
    if game is not None and game != played:
        raise click.ClickException(f"tournament {tournament} plays {played}, not {game}")
    return played


def _fmt_eta(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def register(main: click.Group) -> None:
    """Add the results commands to ``main``."""

    @main.command()
    @click.option(
        "--id", "tid", default=None, help="Tournament id; an existing id resumes it.  [config: tournament.id]"
    )
    @click.option("--game", type=click.Choice(sorted(GAMES)), default=None, help="[config: tournament.game]")
    @click.option("--games", "count", type=click.IntRange(min=1), default=None, help="[config: tournament.games]")
    @click.option(
        "--players",
        type=click.IntRange(min=1),
        default=None,
        help="Seats per game (default: every bot plays).  [config: tournament.players]",
    )
    @click.option(
        "--bot",
        "bots",
        multiple=True,
        metavar="NICK=BOT",
        help=f"A player, repeatable: BOT is {', '.join(builtin_bots())}, module:Class or file.py:Class; "
        "over IRC just NICK.  [config: tournament.bots]",
    )
    @click.option("--option", "pairs", multiple=True, metavar="NAME=VALUE", help="A game option; repeatable.")
    @click.option(
        "--transport",
        type=click.Choice(["local", "irc"]),
        default=None,
        help="local: bots run in this process; irc: they connect to the server.  [config: tournament.transport]",
    )
    @click.option(
        "--clock",
        type=click.Choice(sorted(CLOCKS)),
        default="virtual",
        show_default=True,
        help=f"Local tournaments only. {CLOCK_HELP} A tournament resumes only on the clock it started with.",
    )
    @click.option(
        "--jobs",
        type=click.IntRange(min=1),
        default=None,
        help=f"Local tournaments only. {JOBS_HELP} The games are stored and rated in their order, "
        "a few at a time in one transaction, by this process.",
    )
    @click.pass_obj
    def tournament(
        obj: Any,
        tid: str | None,
        game: str | None,
        count: int | None,
        players: int | None,
        bots: tuple[str, ...],
        pairs: tuple[str, ...],
        transport: str | None,
        clock: str,
        jobs: int | None,
    ) -> None:
        """Play a series of games between chosen bots, storing and rating each one.

        Interrupt it at any time (Ctrl-C, or a killed process) and run the same command
        again: it resumes after the last stored game. It ends with the leaderboard. Seeds,
        seat orders and deals derive from a secret key the tournament keeps in the store.
        On the virtual clock (the default) a resumed tournament plays exactly the games an
        uninterrupted one would; with --clock wall the bots' real thinking time decides who
        is late, so no run repeats another.
        """
        import re

        from .parallel import settle
        from .tournament import Settings, TournamentError, play_irc, play_local

        config: Config = obj.config
        t = config.tournament
        tid = tid or t.id
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,11}", tid):
            raise click.UsageError("--id must be 1 to 12 letters, digits or _, starting with a letter")
        game = game or t.game
        entries = bots or t.bots
        game_cls = GAMES[game]
        n_players = players or t.players or len(entries)
        try:
            options = game_cls.Options.from_pairs(pairs, base=config.games[game].options.to_dict(), game=game)
            game_cls.check_setup(n_players, options)
        except (OptionError, SetupError) as exc:
            raise click.UsageError(str(exc)) from None
        transport = transport or t.transport
        if clock != "virtual" and transport != "local":
            raise click.UsageError(f"--clock {clock} is for --transport local: over IRC every clock is real")
        if jobs is not None and transport != "local":
            raise click.UsageError("--jobs is for --transport local: over IRC each bot is a process of its own")
        settings = Settings(
            id=tid,
            game=game,
            games=count or t.games,
            players=n_players,
            bots=tuple(entries),
            options=options.to_dict(),
            transport=transport,
            keep=config.seating.games_per_order,
            clock=clock,
        )
        workers = "one per core" if jobs is None else "this process" if jobs == 1 else f"{jobs} worker processes"
        where = (
            f"in memory ({workers}), {clock} clock"
            if settings.transport == "local"
            else f"on {config.server.host}:{config.server.port} (bots must connect and register)"
        )
        click.echo(
            f"tournament {tid}: {counted(settings.games, f'{game} game')} of {n_players} players, "
            f"{counted(len(entries), 'bot')}, {where}; Ctrl-C stops, the same command resumes"
        )

        tty = sys.stderr.isatty()
        shown = [0.0]

        def report(p: Any) -> None:
            """One status line: rewritten in place on a terminal, else at most every 2 s."""
            now = time.monotonic()
            if p.done < p.total and now - shown[0] < (0.2 if tty else 2.0):
                return
            shown[0] = now
            leaders = ", ".join(f"{bot} {score:.0f}" for bot, score in p.leaders)
            line = (
                f"{p.done}/{counted(p.total, 'game')}, {p.rate:.1f} games/s, eta {_fmt_eta(p.eta)}; "
                f"elo leaders: {leaders}"
            )
            click.echo(f"\r\x1b[K{line}" if tty else line, err=True, nl=not tty or p.done == p.total)

        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
        settle()
        with open_store(config) as store:
            try:
                if settings.transport == "local":
                    played = play_local(settings, options, store, config, report, jobs=jobs)
                else:
                    played = play_irc(settings, options, store, config, report)
            except TournamentError as exc:
                raise click.ClickException(str(exc)) from None
            except KeyboardInterrupt:
                found = store.tournaments.get(tid)
                done = found[1] if found else 0
                click.echo(
                    f"interrupted after {done} of {counted(settings.games, 'game')}; run the same command to resume"
                )
                sys.exit(130)
            found = store.tournaments.get(tid)
            done = found[1] if found else played
            click.echo(f"played {counted(played, 'game')} now; tournament {tid} has {counted(done, 'game')} stored")
            # Its own standings, as its progress lines: the store's other games would mix in
            # bots that did not play it (`arena leaderboard` shows those).
            click.echo(
                f"tournament {tid} leaderboard (elo, its {counted(done, 'game')} rated afresh; "
                f"every stored game: arena leaderboard --game {game}):"
            )
            for line in leaderboard_lines(store.ratings.leaderboard(game, "elo", tournament=tid), "elo"):
                click.echo(line)

    @main.command()
    @click.option(
        "--game",
        type=click.Choice(sorted(GAMES)),
        default=None,
        help="Default: the tournament's game, else the game of the newest stored game.",
    )
    @click.option("--system", type=click.Choice(SYSTEMS), default="elo", show_default=True)
    @click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
    @click.option("--limit", type=click.IntRange(min=1), default=None, help="Show only the top N bots.")
    @click.option("--tournament", default=None, help="Standings of this tournament alone: its games, rated afresh.")
    @click.option(
        "--min-games",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Leave out bots with fewer rated games.",
    )
    @click.pass_obj
    def leaderboard(
        obj: Any, game: str | None, system: str, fmt: str, limit: int | None, tournament: str | None, min_games: int
    ) -> None:
        """The bots by rating, with owner, games played and win rate (95% Wilson interval)."""
        with open_store(obj.config, check=False, create=False) as store:
            game = game_of(store, game, tournament)
            rows = store.ratings.leaderboard(game, system, limit=limit, min_games=min_games, tournament=tournament)
        if fmt == "table":
            if not rows:
                click.echo(f"no rated {game} games yet" + (f" in tournament {tournament}" if tournament else ""))
            for line in leaderboard_lines(rows, system):
                click.echo(line)
            return
        records = [
            {
                "rank": r.rank,
                "bot": r.bot,
                "owner": r.owner,
                "version": r.version,
                "rating": round(r.score, 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
                "wins": r.wins,
                "win_rate": None if r.win_rate.rate is None else round(r.win_rate.rate, 4),
                "win_rate_low": round(r.win_rate.low, 4),
                "win_rate_high": round(r.win_rate.high, 4),
            }
            for r in rows
        ]
        if fmt == "json":
            click.echo(json.dumps({"game": game, "system": system, "tournament": tournament, "bots": records}))
            return
        out = io.StringIO()
        writer = csv.DictWriter(
            out,
            fieldnames=[
                "rank",
                "bot",
                "owner",
                "version",
                "rating",
                "mu",
                "sigma",
                "games",
                "wins",
                "win_rate",
                "win_rate_low",
                "win_rate_high",
            ],
            lineterminator="\n",
        )
        writer.writeheader()
        writer.writerows(records)
        click.echo(out.getvalue(), nl=False)

    @main.command()
    @click.option("--game", type=click.Choice(sorted(GAMES)), default=None, help="Only games of this type.")
    @click.option("--bot", default=None, help="Only games this bot played.")
    @click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
    @click.pass_obj
    def games(obj: Any, game: str | None, bot: str | None, limit: int) -> None:
        """The stored games, newest first: id, time (UTC), game, result, seats."""
        with open_store(obj.config, check=False, create=False) as store:
            found = store.games.find(game=game, bot=bot, limit=limit)
        if not found:
            click.echo("no games stored yet")
        for line in games_lines(found):
            click.echo(line)

    @main.command()
    @click.argument("game_id")
    @click.option(
        "--as",
        "nick",
        default=None,
        help="As this player (bot name or nick) saw it: the channel, its direct messages and its own "
        "answers, with their latency and what was refused.",
    )
    @click.option(
        "--all",
        "everything",
        is_flag=True,
        help="Everything: every line the referee sent, to everyone, and every answer.",
    )
    @click.option(
        "--pretty",
        is_flag=True,
        help="Told in sentences, as the narrated spectators' channel tells it "
        "(colours on a terminal), with what players said in private "
        "(wolves' talk, Tuvalon's second discussion) at its place.",
    )
    @click.pass_obj
    def replay(obj: Any, game_id: str, nick: str | None, everything: bool, pretty: bool) -> None:
        """Print a stored game as the channel showed it, with the players' talk (default), as
        one player saw it, all of it, or told in sentences."""
        if sum((nick is not None, everything, pretty)) > 1:
            raise click.UsageError("--as, --all and --pretty exclude each other")
        with open_store(obj.config, check=False, create=False) as store:
            game = store.games.load(game_id)
            playing = game is None and bool(store.live.all(game_id))
        if playing:
            raise click.ClickException(
                f"{game_id} is still being played: follow it with `arena watch {game_id}` or "
                "`arena web`; its replay is stored when it ends"
            )
        if game is None:
            raise click.ClickException(f"no game {game_id!r} is stored (see `arena games`)")
        from .referee.recorder import ratings_message

        nicks, bots = game.summary.nicks, game.summary.bots
        seat = None
        if nick is not None:
            seat = next(
                (i for i, (n, b) in enumerate(zip(nicks, bots)) if nick.lower() in (n.lower(), b.lower())), None
            )
            if seat is None:
                raise click.UsageError(f"{nick} did not play {game_id} (players: {', '.join(bots)})")
        ratings = ratings_message(game_id, game.changes, bots, nicks)
        after = ratings.lines() if ratings else []
        if pretty:
            from .narrate.narrator import retell

            color = sys.stdout.isatty()
            for sentence in retell(
                channel_lines(game, after, private=True), game.summary.started, game.summary.finished
            ):
                click.echo(sentence.ansi() if color else sentence.plain())
            return
        for line in replay_lines(game, seat, everything, after):
            click.echo(line)

    @main.command()
    @click.argument("bot", required=False)
    @click.option(
        "--game",
        type=click.Choice(sorted(GAMES)),
        default=None,
        help="Default: the tournament's game, else the game of the newest stored game.",
    )
    @click.option("--tournament", default=None, help="This tournament's games alone.")
    @click.pass_obj
    def stats(obj: Any, bot: str | None, game: str | None, tournament: str | None) -> None:
        """Per bot and per role: games, wins, win rate (95% Wilson interval) and role figures."""
        with open_store(obj.config, check=False, create=False) as store:
            game = game_of(store, game, tournament)
            found = store.stats.bots(game, bot, tournament=tournament)
        if not found:
            raise click.ClickException(
                f"no {game} games stored"
                + (f" for {bot}" if bot else "")
                + (f" in tournament {tournament}" if tournament else "")
            )
        for i, name in enumerate(sorted(found)):
            if i:
                click.echo("")
            for line in stats_lines(found[name]):
                click.echo(line)

    @main.group()
    def ratings() -> None:
        """Rating maintenance."""

    @ratings.command("rebuild")
    @click.option("--write", is_flag=True, help="Store the recomputed values (after changing ratings: settings).")
    @click.option(
        "--jobs",
        type=click.IntRange(min=1),
        default=None,
        help="Processes: 1 rates everything in this one; 2 (the most it uses) rates the tournaments' standings in"
        " a worker meanwhile. Default: 2 on a machine of two cores or more, for 5,000 tournament games or more.",
    )
    @click.pass_obj
    def rebuild(obj: Any, write: bool, jobs: int | None) -> None:
        """Recompute every rating from the stored games, in order, and compare with the stored values
        (the changes, the current ratings and each tournament's standings)."""
        with open_store(obj.config, check=False, create=write) as store:
            report = store.ratings.rebuild(write=write, jobs=jobs)
        click.echo(
            f"{counted(report.games, 'game')}, {counted(report.changes_checked, 'rating change')}, "
            f"{counted(report.ratings_checked, 'current rating')} and "
            f"{counted(report.standings_checked, 'tournament standing')} recomputed"
        )
        if report.exact:
            click.echo("every stored value matches exactly")
            return
        for m in report.mismatches[:10]:
            click.echo(f"  {m.where}: stored {m.stored}, computed {m.computed}")
        if write:
            click.echo(f"{counted(report.differences, 'difference')}; the recomputed values are now stored")
            return
        differ = "differs" if report.differences == 1 else "differ"
        raise click.ClickException(
            f"{counted(report.differences, 'stored value')} {differ}; "
            "`arena ratings rebuild --write` stores the recomputed ones"
        )
