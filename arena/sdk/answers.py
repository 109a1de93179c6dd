"""A session's answers: the ``ANSWER`` lines it sends, and the requests it keeps open so
that a refused or late answer gets another.

The referee refuses an answer it cannot use (``ERROR``) and warns of a deadline about to
pass (``WARN``); either way the seat would lose its turn, so the session answers the open
request again at once, at random: legal by construction, so a retry cannot loop.
"""

from __future__ import annotations

import functools
import logging
from typing import TypeAlias

from ..protocol import ANSWER, WARN, Message
from .bot import Answer, Bot
from .view import Ask

log = logging.getLogger(__name__)

Reply: TypeAlias = tuple[str, Message | None]
"""A line for the referee, with the message it carries if the SDK built one (``Session.replies``)."""


def value_of(choice: Answer) -> str:
    """An answer's value on the wire: a list of choices is comma-separated."""
    return choice if isinstance(choice, str) else ",".join(choice)


@functools.lru_cache(maxsize=64)
def answer_reply(gid: str, rid: str, value: str, fallback: str | None) -> Reply:
    """``ANSWER gid rid value [fallback=...]``, checked by the grammar, with its message.
    Bots that share a process (a local table) answer a round with the same few lines (ten
    votes are two texts): each is formatted once. A pure function of its arguments, and
    nobody changes a message once made, so sharing it changes nothing."""
    msg = Message(ANSWER, (gid, rid, value), {} if fallback is None else {"fallback": fallback})
    return msg.format(), msg


class Requests:
    """The latest request addressed to one bot in each of its games, until it is answered
    again after a refusal or a warning, or its game pauses, is replayed or ends."""

    def __init__(self, bot: Bot, at_once: bool) -> None:
        self.open: dict[str, Ask] = {}
        """The request, by game id; the session files each one as it asks the bot."""
        self._bot = bot
        """Whose stream draws the random answers (the bot's ``rng``, read at each retry)."""
        self._at_once = at_once
        """Whether the bot answers in the call that gives it the request (no transport
        decides off the calling thread): then the answer reached the referee in order."""

    def drop(self, gid: str) -> None:
        """Game ``gid``'s request needs no other answer (the game paused, is replayed or ended)."""
        self.open.pop(gid, None)

    def retry(self, verb: str, gid: str, rid: str) -> list[Reply]:
        """A refused answer (``ERROR``) or a passed deadline (``WARN``) on request ``rid`` of
        game ``gid``: a random legal answer if that request is the open one."""
        ask = self.open.get(gid)
        if ask is None or ask.rid != rid:
            return []
        if verb == WARN and ask.answered and self._at_once:
            # Answered in the referee's process (a local table), where no line is lost: our
            # answer crossed the warning (on the wall clock a warning reaches a bot that was
            # thinking only once it has answered), and a second one would be refused. Over a
            # network the warning may mean the answer was lost, and gets a new one.
            return []
        del self.open[gid]
        log.warning("retrying request %s of %s with a random legal answer after %s", rid, gid, verb)
        return [answer_reply(ask.game, ask.rid, value_of(ask.random(self._bot.rng)), None)]
