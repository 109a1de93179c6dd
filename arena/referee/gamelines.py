"""The lines bots send about a game (``ANSWER``, ``TEAM``): each goes to the match it names,
from the bot that plays a seat there, or is refused here, in the wire's words.

This is the referee's per-answer path: it keeps its own references to the maps it reads
(the games, the registered connections, the paused games) and does one lookup per map.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

from ..core.errors import ErrorCode
from ..protocol import ANSWER, TEAM, Message, ProtocolError, game_id, valid_id, valid_request_id
from .floor import game_over, not_playing
from .match import Match
from .pause import STORE_DOWN, Pause
from .registry import BotInfo

ENDED_MEMORY = 500
"""Ended games whose ids the referee still knows (the oldest is forgotten first): a late answer to
one gets GAME_OVER, not UNKNOWN_GAME, and the memory stays bounded however long it runs."""

_IDS = {ANSWER: 2, TEAM: 1}
"""How many ids (game, request) open each game line a bot sends."""


def leading_ids(verb: str, args: Sequence[str]) -> tuple[str, ...]:
    """The game and request ids that open a game line, as far as they read as ids (a game
    id, then a request id: protocol.md, section 6): an ERROR names them, so the bot knows
    which answer failed, and never echoes a token that could make the ERROR itself too
    long or not an id."""
    ids: list[str] = []
    for token, valid in zip(args[: _IDS.get(verb, 0)], (valid_id, valid_request_id)):
        if not valid(token):
            break
        ids.append(token)
    return tuple(ids)


def line_ids(line: str) -> tuple[str, ...]:
    """``leading_ids`` of a line the grammar refused."""
    tokens = line.split(" ", 3)
    return leading_ids(tokens[0], tokens[1:])


class GameLines:
    """Game lines to their matches, and the games that ended lately, whose late lines are
    told GAME_OVER (or NOT_A_PLAYER) rather than UNKNOWN_GAME."""

    def __init__(
        self,
        matches: Mapping[str, Match],
        bots: dict[str, BotInfo],
        bot_of: Callable[[str, str | None], BotInfo | None],
        paused: dict[str, Pause],
        error: Callable[..., None],
    ) -> None:
        self.matches = matches
        """The referee's games by id (read only)."""
        self.bots = bots
        """The registered connections by folded nick (``Registry.bots``, read only)."""
        self.bot_of = bot_of
        self.paused = paused
        """The games paused because the store cannot be written (``WriteAhead.paused``, read
        only): a line about one is refused."""
        self.error = error
        """Answers a nick with an ``ERROR`` (code, reason, ids)."""
        self._ended: OrderedDict[str, frozenset[str]] = OrderedDict()
        """The last ``ENDED_MEMORY`` ended games: id to the folded names of their bots."""

    def ended(self, match: Match) -> None:
        """Remember that ``match`` ended, and who played it."""
        ended = self._ended
        ended[match.gid] = frozenset(name.lower() for name in match.bots or match.names)
        if len(ended) > ENDED_MEMORY:
            ended.popitem(last=False)

    def _player(self, sender: str, msg: Message, account: str | None) -> tuple[BotInfo, Match] | None:
        """The registered bot behind a game line and its game, or None after an ERROR. A
        game id that is not an id breaks the grammar: MALFORMED, whoever sends it (every
        later ERROR echoes it); the id of a running game is one, and needs no check."""
        gid = msg.args[0]
        match = self.matches.get(gid)
        if match is None:
            try:
                game_id(gid)
            except ProtocolError as exc:
                self.error(sender, exc.code, exc.reason, *leading_ids(msg.verb, msg.args))
                return None
        # ``bot_of``, called only for a bot bound to an account (this runs for every answer)
        info = self.bots.get(sender.lower())
        if info is not None and info.account is not None:
            info = self.bot_of(sender, account)
        if info is None:
            self.error(
                sender, ErrorCode.NOT_REGISTERED, "register first: REGISTER 1 name=NAME (protocol.md section 3)", gid
            )
            return None
        if match is None:
            seated = self._ended.get(gid)
            if seated is None:
                self.error(sender, ErrorCode.UNKNOWN_GAME, f"no game {gid!r} is running", gid)
            else:
                refusal = game_over(gid) if info.name.lower() in seated else not_playing(gid)
                self.error(sender, refusal.code, refusal.reason, *leading_ids(msg.verb, msg.args))
            return None
        return info, match

    def answer(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        args = msg.args
        # The usual answer first, with no call: a running game, a bot bound to no account
        # (``_player`` would find them both and nothing to refuse), no game paused.
        match = self.matches.get(args[0])
        info = self.bots.get(sender.lower())
        if match is None or info is None or info.account is not None or self.paused:
            found = self._player(sender, msg, account)
            if found is None or self._refused_paused(sender, msg, ErrorCode.STALE_REQUEST):
                return
            info, match = found
        match.answer(info.name, args[1], args[2], now, sender, line, msg.fields.get("fallback"))

    def team(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        found = self._player(sender, msg, account)
        if found is not None and not self._refused_paused(sender, msg, ErrorCode.INVALID_PHASE):
            found[1].team(found[0].name, msg, sender, now)

    def _refused_paused(self, sender: str, msg: Message, code: ErrorCode) -> bool:
        """Refuse a game line for a paused game, outside its record (nothing of it can be
        stored now): no request is open while it is paused (its pending ones are asked
        again when it goes on), and nobody hears a TEAM line."""
        gid = msg.args[0]
        if not self.paused or gid not in self.paused:
            return False
        self.error(
            sender,
            code,
            f"game {gid} is paused: {STORE_DOWN}; it goes on, asking its open requests again, "
            "once the store can be written",
            *leading_ids(msg.verb, msg.args),
        )
        return True

    def refuse(self, sender: str, account: str | None, code: ErrorCode, reason: str, ids: tuple[str, ...]) -> None:
        """Refuse a line that never reached a game's own checks (it broke the grammar): through
        the game its ids name when its sender plays a seat there, so that the game's record
        keeps the refusal as it keeps every other (``arena stats`` counts them), else
        straight back to the sender."""
        match = self.matches.get(ids[0]) if ids else None
        if match is not None and not match.over:
            info = self.bot_of(sender, account)
            if info is not None and match.refuse_bot(info.name, sender, code, reason, *ids[1:]):
                return
        self.error(sender, code, reason, *ids)
