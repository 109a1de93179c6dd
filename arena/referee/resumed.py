"""The games an earlier run of the referee left in progress, taken up again.

Each goes on in a channel of its own run (the old one may be moderated, and a referee that
comes back is no operator there), announced by ``RESUME`` in the lobby and there; it waits
``timeouts.resume`` seconds for its bots, which are resynced as they register, then goes
on, or ends aborted naming who did not come back.
"""

from __future__ import annotations

import logging

from ..config import Config
from ..protocol import RESUME, Message
from ..store import LiveGame
from .journal import Journal
from .port import Port
from .referee import Referee

log = logging.getLogger(__name__)


class Resumed:
    """The games taken up that wait for their bots, and those told again."""

    def __init__(self, config: Config, referee: Referee, port: Port, journal: Journal | None) -> None:
        self.config = config
        self.referee = referee
        self.port = port
        self.journal = journal
        self.channel = config.server.channel
        self.waiting: dict[str, float] = {}
        """Games taken up that wait for their bots: gid -> until when."""
        self.shared = False
        """Whether other referees share the lobby: a ``RESUME`` names the referee that runs the game now."""
        self.told_again: set[str] = set()
        """Games taken up that an earlier run had recorded (their end maybe never sent): told
        again to their bots, not counted again."""

    def take_up(self, now: float) -> list[str]:
        """Take up every game the journal holds; the ids of those taken up."""
        if self.journal is None:
            return []
        taken = []
        for live in self.journal.unfinished():
            if live.id in self.referee.matches:
                continue  # (running here: an inherited game is taken up once)
            try:
                self._resume(live, now)
                taken.append(live.id)
            except Exception:
                log.exception("game %s could not be taken up; it stays in the store", live.id)
        return taken

    def _resume(self, live: LiveGame, now: float) -> None:
        channel = f"{self.channel}-{live.id}-r{live.resumes + 1}"
        self.port.join(channel)
        wait = self.config.timeouts.resume
        named = {"referee": self.referee.nick} if self.shared else {}
        resume = Message.make(
            RESUME, live.id, game=live.game, channel=channel, seats=list(live.names), wait=int(wait), **named
        )
        for line in resume.lines():
            self.port.send(self.channel, line)
        if live.recorded:
            self.told_again.add(live.id)
        self.referee.resume_game(live, channel, now, announce=resume)
        self.waiting[live.id] = now + wait
        log.warning(
            "game %s taken up after a restart: waiting up to %.0f s for %s", live.id, wait, ", ".join(live.bots)
        )

    def missing(self, gid: str) -> list[str]:
        """The bots of a resumed game that are not back: not registered, or not in its
        channel (for a game that was over, registered is enough: its resync tells the end;
        in a shared lobby not even that: the registrations outlive a referee, so a bot still
        registered had its resync when the game was taken up, and one that is not has left
        the lobby, and will not come back for a game whose result is stored)."""
        match = self.referee.matches[gid]
        assert match.channel is not None and match.bots is not None
        if match.over and self.shared:
            return []
        present = {self.port.fold(n) for n in self.port.members(match.channel)}
        return [
            bot
            for bot in match.bots
            if (info := self.referee.bot_named(bot)) is None
            or not match.over
            and self.port.fold(info.nick) not in present
        ]

    def due(self, now: float) -> None:
        """Resumed games whose bots are all back go on; those whose wait is over end
        aborted, naming who did not come back."""
        for gid, until in list(self.waiting.items()):
            if gid not in self.referee.matches:
                del self.waiting[gid]
                continue
            missing = self.missing(gid)
            if missing and now < until:
                continue
            del self.waiting[gid]
            if missing and not self.referee.matches[gid].over:
                wait = self.config.timeouts.resume
                self.referee.abort_game(
                    gid, f"the referee restarted and {', '.join(missing)} did not come back within {wait:.0f} s", now
                )
            else:
                self.referee.go_on(gid, now)

    def ended(self, gid: str) -> bool:
        """``gid`` is over here: True if it was told again (an earlier run counted it)."""
        self.waiting.pop(gid, None)
        again = gid in self.told_again
        self.told_again.discard(gid)
        return again
