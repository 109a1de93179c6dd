"""Plain text for the CLI: tables (``arena leaderboard``, ``arena games``, ``arena stats``,
``arena bots list``) and replays (``arena replay``).

Pure formatting of what the store returns, so the commands stay thin and the output is
testable without a terminal. Columns are laid out here, by the width a terminal gives each
character (two cells for the wide ones of East Asian scripts, none for a combining accent),
so they align whatever the names and figures; the result is plain text (no colour codes, no
box-drawing characters, no wrapping) so that ``cut``, ``grep`` and ``sort`` keep working on
it. (Here rather than by a layout library: for ``arena stats`` over 40 bots, that library
took as long to lay the tables out as the store to count them, and as long again to import.)
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.said import FALLBACKS, Answer, Talk
from ..core.words import counted
from ..protocol import TEAM, ProtocolError, parse
from .records import BotRecord, BotStats, GameSummary, LeaderRow, RateStat, StoredGame

if TYPE_CHECKING:
    from ..narrate.narrator import Heard

GAP = "  "
"""Between two columns."""


@dataclass
class _Table:
    """A header line and rows of cells, in borderless columns; the columns in ``right``
    hold numbers and align right, headers included."""

    headers: tuple[str, ...]
    right: tuple[bool, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)


def _table(*headers: str, right: Sequence[str] = ()) -> _Table:
    return _Table(headers, tuple(head in right for head in headers))


def _row(table: _Table, *cells: object) -> None:
    """Each cell on one line: a control character (a tab, a line break) shows as a space."""
    table.rows.append(tuple(map(_text, cells)))


def _text(cell: object) -> str:
    text = str(cell)
    if text.isprintable():
        return text
    return "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)


def _cells(text: str) -> int:
    """The columns ``text`` takes on a terminal."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _lines(table: _Table, indent: str = "") -> list[str]:
    rows = [table.headers, *table.rows]
    widths = [max(_cells(row[i]) for row in rows) for i in range(len(table.headers))]

    def line(row: tuple[str, ...]) -> str:
        pads = (" " * (width - _cells(cell)) for cell, width in zip(row, widths))
        shown = (pad + cell if right else cell + pad for cell, pad, right in zip(row, pads, table.right))
        return (indent + GAP.join(shown)).rstrip()

    return [line(row) for row in rows]


def _pct(stat: RateStat) -> str:
    if stat.rate is None:
        return "-"
    return f"{stat.rate * 100:5.1f}% [{stat.low * 100:4.1f}-{stat.high * 100:5.1f}]"


def leaderboard_lines(rows: Sequence[LeaderRow], system: str) -> list[str]:
    """Rank, bot, owner, rating (TrueSkill: mu ± sigma and the sorted-by mu - 3 sigma), games, win rate."""
    if system == "trueskill":
        table = _table(
            "#",
            "bot",
            "owner",
            "score",
            "mu",
            "sigma",
            "games",
            "win rate [95% CI]",
            right=("#", "score", "mu", "sigma", "games"),
        )
        for r in rows:
            _row(
                table,
                r.rank,
                r.bot,
                r.owner,
                f"{r.score:.2f}",
                f"{r.mu:.2f}",
                f"{r.sigma:.2f}",
                r.games,
                _pct(r.win_rate),
            )
    else:
        table = _table("#", "bot", "owner", system, "games", "win rate [95% CI]", right=("#", system, "games"))
        for r in rows:
            _row(table, r.rank, r.bot, r.owner, f"{r.score:.1f}", r.games, _pct(r.win_rate))
    return _lines(table)


def games_lines(games: Iterable[GameSummary]) -> list[str]:
    """A header, then one line per game: id, finish time (UTC), type, players, how it ended, who played."""
    table = _table("id", "finished (UTC)", "game", "players", "result", "bots", right=("players",))
    for g in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished))
        end = g.kind if g.kind != "ranked" else f"{g.winner} ({g.reason})"
        _row(table, g.id, when, g.game, g.players, end, " ".join(g.bots))
    return _lines(table)


def stats_lines(stats: BotStats) -> list[str]:
    """A bot's record overall, a table of its roles with their figures, and its conduct."""
    o = stats.overall
    tally = ", ".join(
        [
            counted(o.games, "game"),
            counted(o.wins, "win"),
            counted(o.losses, "loss", "losses"),
            counted(o.draws, "draw"),
            counted(o.forfeits, "forfeit"),
        ]
    )
    lines = [f"{stats.bot} ({stats.game}): {tally}, {o.aborted} aborted; win rate {_pct(o.win_rate)}"]
    table = _table("role", "games", "win rate [95% CI]", "figures", right=("games",))
    for role, r in stats.roles.items():
        figures = "; ".join(f"{name} {_pct(f)} of {f.trials}" for name, f in r.figures.items())
        _row(table, role, r.games, _pct(r.win_rate), figures)
    lines += _lines(table, indent="  ")
    c = stats.conduct
    codes = ", ".join(f"{code} {n}" for code, n in c.refused.items())
    lines.append(
        f"  lines refused: {sum(c.refused.values())}{f' ({codes})' if codes else ''}; "
        f"late: {c.warnings} warned, {c.defaults} answered by default, {c.forfeits} forfeited"
    )
    kinds = ", ".join(
        f"{marker} {c.fallbacks.get(marker, 0)}" for marker in FALLBACKS if marker != "own" or c.fallbacks.get(marker)
    )  # a bot's own fallbacks are rarer
    lines.append(f"  fallbacks: {sum(c.fallbacks.values())} ({kinds})")
    return lines


def bots_lines(bots: Iterable[BotRecord]) -> list[str]:
    """Every bot: owner, version, how it proves who it is, when it last registered (UTC)."""
    table = _table("bot", "owner", "version", "proven by", "last seen (UTC)")
    for b in bots:
        proof = " + ".join(
            p
            for p, on in (
                ("key", b.verifier),
                (f"old key: rekey {b.name}", b.old_key),
                (f"account {b.account}", b.account),
            )
            if on
        )
        seen = time.strftime("%Y-%m-%d %H:%M", time.gmtime(b.seen)) if b.seen else "never"
        _row(table, b.name, b.owner, b.version, proof or "name only", seen)
    return _lines(table)


def replay_lines(
    game: StoredGame, seat: int | None = None, everything: bool = False, after: Sequence[str] = ()
) -> list[str]:
    """A stored game as the channel showed it: the referee's channel lines (``#``) with the
    players' talk at its place (``<nick> text``), then ``after`` (lines said after the
    game, e.g. its ratings). With ``seat``, also what that seat was told (``>``) and its own
    answers (``<``, with their latency and, if refused, the code; the ERROR that follows
    says why). With ``everything``, every line to and from every seat, named by nick."""
    names = game.summary.nicks
    nick = None if seat is None else names[seat].lower()  # its private lines went to its nick at the start
    shown: list[Talk | Answer] = [*game.talk, *(a for a in game.answers if everything or a.seat == seat)]
    said: dict[int, list[Talk | Answer]] = {}
    """What players said, by how many referee lines came before it, in the order it came."""
    for item in shown:
        said.setdefault(item.after, []).append(item)
    for items in said.values():
        items.sort(key=lambda item: item.at)
    out: list[str] = []

    def heard(i: int) -> None:
        for item in said.get(i, ()):
            if isinstance(item, Talk):
                out.append(f"#     <{item.nick}> {item.text}")
                continue
            how = "no open request" if item.latency is None else f"{item.latency:.2f} s"
            if item.error is not None:
                how += f"; refused: {item.error}"
            out.append(f"< {names[item.seat]:<5} {item.line}  ({how})" if everything else f"<     {item.line}  ({how})")

    for i, (target, line) in enumerate(game.transcript):
        heard(i)
        if target is None:
            out.append(f"#     {line}")
        elif everything:
            out.append(f"> {target:<5} {line}")
        elif nick is not None and target.lower() == nick:
            out.append(f">     {line}")
    heard(len(game.transcript))
    out.extend(f"#     {line}" for line in after)
    return out


def channel_lines(game: StoredGame, after: Sequence[str] = (), private: bool = False) -> list[Heard]:
    """What a spectator of the game's channel heard, in order: ``(None, line)`` for each of
    the referee's lines, ``(nick, text)`` for the players' talk at its place, then ``after``
    (e.g. the ratings). The narrator's input for a stored game (``arena replay --pretty``).
    ``private`` adds, at its place, what players said in private once the game is over to
    reveal it (the wolves' talk, Tuvalon's second discussion): ``(nick, text, hearers)``,
    one item for a line the referee relayed to several players."""
    talk: dict[int, list[Talk]] = {}
    for item in game.talk:
        talk.setdefault(item.after, []).append(item)
    out: list[Heard] = []
    relayed: tuple[str, str] | None = None
    for i, (target, line) in enumerate(game.transcript):
        out += [(item.nick, item.text) for item in sorted(talk.get(i, ()), key=lambda item: item.at)]
        if target is None:
            out.append((None, line))
            relayed = None
            continue
        said = _relayed_talk(line) if private else None
        if said is None:
            relayed = None
        elif said == relayed and len(out[-1]) == 3:
            out[-1] = (*said, (*out[-1][2], target))
        else:
            relayed = said
            out.append((*said, (target,)))
    out += [(item.nick, item.text) for item in sorted(talk.get(len(game.transcript), ()), key=lambda item: item.at)]
    return out + [(None, line) for line in after]


def _relayed_talk(line: str) -> tuple[str, str] | None:
    """``(speaker, text)`` of a ``TEAM`` line the referee relayed, else None."""
    try:
        msg = parse(line)
    except ProtocolError:
        return None
    return (msg.get("from", "?"), msg.text or "") if msg.verb == TEAM and msg.text else None
