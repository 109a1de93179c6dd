"""A referee's place (its server and lobby), held under a lease in the results store.

``arena serve`` holds its place before it connects: a second one started with the same
configuration (on this host or another sharing the store, a standby) waits until the
first stops renewing its lease for ``timeouts.failover`` seconds (killed, its host gone, cut
off from the store) or leaves (or, on this host, is found no longer running: a referee
restarted after a crash need not wait), then takes the place over with the games in progress there,
and takes them up as a restarted referee does (``RESUME``). A referee that finds its place
taken (its renewal, or a write for one of its games, refused: ``Fenced``) stops at once,
sending nothing more: what it held back was never stored, and what another referee now
runs is not its to tell.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable

from ..store import Store
from ..store.referees import Fenced
from .pause import failure, unwritable

log = logging.getLogger(__name__)

RENEWALS = 3
"""Renewals per lease: a referee renews every ``failover / RENEWALS`` seconds, so a store
that answers slowly once costs it nothing."""
STANDBY_POLL = 1.0
"""Seconds between a standby's looks at the lease it waits for."""


def _running(pid: int) -> bool:
    """Whether process ``pid`` of this host runs (a referee killed here need not be waited for)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Place:
    def __init__(self, store: Store, owner: str, place: str, nick: str, failover: float, shared: bool = False) -> None:
        self.store = store
        self.shared = shared
        """A lobby shared with other referees: only one under the same nick holds the place."""
        self.owner = owner
        """This run's id: the owner of the games it writes."""
        self.place = place
        self.nick = nick
        self.failover = failover
        self.renew_every = failover / RENEWALS
        self.host = socket.gethostname()

    def hold(self, sleep: Callable[[float], None] = time.sleep) -> None:
        """Take the place, waiting as a standby while another referee holds it."""
        said = False
        while True:
            try:
                holder = self.store.referees.hold(
                    self.owner, self.place, self.nick, self.host, os.getpid(), self.failover, self.shared
                )
                if holder is not None and holder.host == self.host and not _running(holder.pid):
                    log.warning(
                        "the referee of %s before this one (process %d) is gone: taking over", self.place, holder.pid
                    )
                    self.store.referees.leave(holder.id)
                    continue
            except Exception as exc:
                if not unwritable(exc):
                    raise
                log.error(
                    "cannot take the place %s: the results store cannot be written (%s)", self.place, failure(exc)
                )
                sleep(STANDBY_POLL)
                continue
            if holder is None:
                if said:
                    log.warning("took the place %s over: its referee stopped renewing its lease", self.place)
                return
            if not said:
                log.warning(
                    "standby: the referee %s on %s holds %s; taking over when it leaves or has not renewed its "
                    "lease for %.0f s (timeouts.failover)",
                    holder.nick,
                    holder.host,
                    self.place,
                    self.failover,
                )
                said = True
            sleep(min(STANDBY_POLL, max(holder.left, 0.05)))

    def renew(self) -> None:
        """Hold the place longer; ``Fenced`` if another referee took it. A store that cannot
        be written is logged and tried at the next renewal (the lease may run out meanwhile:
        a standby then takes over, and the next renewal says so)."""
        try:
            self.store.referees.renew(self.owner, self.failover)
        except Fenced:
            raise
        except Exception as exc:
            if not unwritable(exc):
                raise
            log.error("could not renew the lease on %s (%s); trying again", self.place, failure(exc))

    def leave(self) -> None:
        """Give the place up (a referee that stops): a standby takes it over at once."""
        try:
            self.store.referees.leave(self.owner)
        except Exception as exc:
            log.warning(
                "could not give the place %s up (%s): a standby takes it when the lease runs out",
                self.place,
                failure(exc),
            )
