"""The IRC edge of the arena: client links and local test servers.

This package moves lines and nothing else: it knows no game and no protocol verb. ``link``
holds ``IrcLink`` (one client connection, rate limited, sanitised, reconnecting) and
``ReactorThread`` (one thread driving any number of links); ``servers`` starts throwaway IRC
servers on 127.0.0.1 for tests and local play.
"""

from .link import (
    IrcLink,
    IrcLinkError,
    JoinFailed,
    NickRejected,
    ReactorThread,
    SaslFailed,
    fit_utf8,
    run_in_thread,
    strip_controls,
)

__all__ = [
    "IrcLink",
    "IrcLinkError",
    "JoinFailed",
    "NickRejected",
    "ReactorThread",
    "SaslFailed",
    "fit_utf8",
    "run_in_thread",
    "strip_controls",
]
