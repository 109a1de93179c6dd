"""After every game: store it with its rating changes (one transaction), then say the
changes in the game's channel.

The recorder sits between the referee and the store, so the same code records games played
over IRC (``arena serve``, tournaments) and in memory (local tournaments).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from ..core.game import ABORTED
from ..protocol import RATINGS, Message
from ..ratings.model import BOT, Change
from ..store import GameRecord, Store, record_from_game
from .match import Match
from .pause import unwritable
from .referee import Referee

log = logging.getLogger(__name__)


def _entry(name: str, change: Change) -> str:
    after, delta = change.after, change.delta
    if after.sigma:  # TrueSkill: the mean, one decimal
        return f"{name}:{after.mu:.1f}:{delta:+.1f}"
    return f"{name}:{after.mu:.0f}:{delta:+.0f}"


def ratings_message(
    gid: str, changes: Mapping[str, Sequence[Change]], bots: Sequence[str], names: Sequence[str] | None = None
) -> Message | None:
    """``RATINGS g1 elo=alice:1516:+16,... trueskill=alice:27.0:+2.0,...``: the rating of
    each seat's bot, in seat order under the seat's name in ``START`` (``names``; default:
    the bots) (continued over several lines when long nicks do not fit in one); None when
    nothing was rated. Side terms are left out: they rate the sides, not the bots."""
    names = bots if names is None else names
    seat = {bot: i for i, bot in enumerate(bots)}
    fields = {
        system: ",".join(
            _entry(names[seat[c.entity[1]]] if c.entity[1] in seat else c.entity[1], c)
            for c in sorted(items, key=lambda c: seat.get(c.entity[1], len(seat)))
            if c.entity[0] == BOT
        )
        for system, items in changes.items()
    }
    fields = {system: entries for system, entries in fields.items() if entries}
    return Message(RATINGS, (gid,), fields) if fields else None


def game_record(match: Match, started: float, finished: float, tournament: str | None) -> GameRecord:
    """What the store keeps of a finished match (``started`` and ``finished``: wall times)."""
    result = match.game.result
    why = None
    if result is not None and result.reason == ABORTED:
        end = next(e for e in reversed(match.game.events) if e.kind == "end")
        why = end.data.get("why") or ABORTED
    return record_from_game(
        match.gid,
        match.game,
        match.names,
        started=started,
        finished=finished,
        tournament=tournament,
        transcript=match.transcript,
        bots=match.bots,
        aborted_reason=why,
        talk=match.talk,
        answers=match.answers,
    )


class Recorder:
    """Subscribes to a referee's game starts and ends.

    A write the store refuses for now (``pause.unwritable``: a full disk) is raised: a
    referee with a journal pauses the game, its END held back, and records it once the
    store can be written; a local tournament stops, and plays that game again when resumed.
    Any other failure (a bug) is raised too with ``strict`` (a tournament must stop and
    resume that game later); otherwise it is logged and the referee plays on (``arena
    serve``): the game is then missing from the store, never half written.
    """

    def __init__(
        self,
        store: Store,
        *,
        tournament: str | None = None,
        strict: bool = False,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tournament = tournament
        self.strict = strict
        self.wall = wall
        self.recorded: list[str] = []
        """Ids of the games written, in order."""
        self._started: dict[str, float] = {}

    def attach(self, referee: Referee) -> None:
        """Subscribe first, so the changes are said before anyone leaves the game's channel."""
        referee.on_game_start.append(self.started)
        referee.on_game_end.insert(0, self.ended)

    def started(self, match: Match) -> None:
        self._started[match.gid] = self.wall() if match.started is None else match.started

    def ended(self, match: Match) -> None:
        if self.store.games.has(match.gid):
            return  # recorded by an earlier run, which died before its end went out: told again, not rated again
        finished = self.wall()
        started = self._started.get(match.gid, finished)
        try:
            record = game_record(match, started, finished, self.tournament)
            changes = self.store.games.record(record)
        except Exception as exc:
            if self.strict or unwritable(exc):
                raise
            self._started.pop(match.gid, None)
            log.exception("game %s could not be stored; it is not rated", match.gid)
            return
        self._started.pop(match.gid, None)
        self.recorded.append(match.gid)
        msg = ratings_message(match.gid, changes, match.bots or match.names, match.names)
        if msg is not None:
            match.announce(msg)
