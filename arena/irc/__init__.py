"""The IRC edge of the arena: client links and a local server for the demo.

This package moves lines and nothing else: it knows no game and no protocol verb. ``link``
holds ``IrcLink`` (one client connection, rate limited, sanitised, reconnecting), made of
``connection`` (dialling, keepalive, reconnection), ``outbox`` (queues, token bucket),
``roster`` (members, accounts, topics) and ``nick`` (keeping and regaining our nick);
``reactor`` holds ``ReactorThread`` (one thread driving any number of links); ``servers``
starts throwaway IRC servers on 127.0.0.1 for ``arena demo`` and local play, and ``network``
links several of them into one IRC network, for tests of several referees.
"""

from .link import IrcLink
from .reactor import ReactorThread, run_in_thread
from .settings import IrcLinkError, JoinFailed, LinkSettings, NickRejected, SaslFailed
from .text import fit_utf8, strip_controls

__all__ = [
    "IrcLink",
    "IrcLinkError",
    "JoinFailed",
    "LinkSettings",
    "NickRejected",
    "ReactorThread",
    "SaslFailed",
    "fit_utf8",
    "run_in_thread",
    "strip_controls",
]
