"""Who may speak in a game, and what they say: turns at the floor in its channel (Werewolf's
and Tuvalon's speeches), free chat where the game has no turns (Avalon), private talk
(``TEAM``: wolves at night, Tuvalon's second discussion), and the speech budget.

The referee's word is what counts: a server may enforce no channel modes, so a line said
out of turn is refused here and left out of the game, voiced or not.
"""

from __future__ import annotations

from ..core.errors import ErrorCode, IllegalAction
from ..core.game import Game
from ..core.said import Talk
from ..protocol import FLOOR_LINES, MAX_TEXT_BYTES, TEAM, Message, ProtocolError, text_fault
from .record import Knowledge, Record

CHAT_KEPT = 100
"""Lines of free chat (a game without turns at the floor: Avalon) kept per seat: enough for
any conversation, few enough that a bot flooding its channel cannot grow the record."""


def not_playing(gid: str) -> IllegalAction:
    """The refusal of a line about a game its sender has no seat in (running or ended)."""
    return IllegalAction(ErrorCode.NOT_A_PLAYER, f"you are not playing game {gid}")


def game_over(gid: str) -> IllegalAction:
    """The refusal of a player's line about a game that has ended: the same words from the
    match and, once the match is gone, from the referee that remembers the game."""
    return IllegalAction(ErrorCode.GAME_OVER, f"game {gid} is over")


class Floor:
    """The floor of one game: whose turn it is to speak, how much each seat has said, and
    the voice its transport gives the speaker (``on_floor``).

    A seat that goes over its speech budget is left in ``overspent`` for the match to end
    its game: the floor holds no way back to the match, so that a finished game is freed as
    soon as nothing refers to it, not later by the cyclic garbage collector."""

    def __init__(
        self,
        game: Game,
        record: Record,
        knowledge: Knowledge,
        private_talk: str,
        private_lines: int | None,
    ) -> None:
        self.game = game
        self.record = record
        self.knowledge = knowledge
        self.private_talk = private_talk
        """Why a ``TEAM`` line is refused when its sender may not talk in private now."""
        self.private_lines = private_lines
        """Lines a turn of private speech holds (Tuvalon's second discussion); None: no cap."""
        self.overspent: int | None = None
        """A seat whose last line went over its speech budget: it forfeits (``Match``)."""
        self.spoken = [0] * game.players
        """Bytes each seat has said (its speeches and private lines), for the speech budget."""
        self._holder: int | None = None
        """The seat whose turn at the floor is open, as last passed (``pass_floor``)."""
        self._holder_said = 0
        """Lines the holder has said in its turn: a turn holds ``FLOOR_LINES``."""
        self._voiced: str | None = None
        """The nick that ``on_floor`` voiced last and has not devoiced."""
        self._private_turn: tuple[int, int] | None = None
        """The seat that talked in private last, and in which engine round."""
        self._private_said = 0
        """Lines said in private by the seat in the engine round of ``_private_turn``: a turn
        of private speech (Tuvalon's second discussion) holds ``private_lines``."""

    def holder(self) -> int | None:
        """The seat that has the floor now (a speaking turn is open for it), if any."""
        kinds = self.game.floor_kinds
        if kinds and self.game.result is None:
            for d in self.game.pending():
                if d.kind in kinds:
                    return d.seat
        return None

    def pass_floor(self) -> None:
        """Give the floor to whoever's turn is open now, if it changed hands."""
        seat = self.holder()
        if seat != self._holder:
            self._holder, self._holder_said = seat, 0
            self._voice(seat)

    def follow(self, seat: int) -> None:
        """The seat's bot came back or changed nick: the voice follows the bot, not the nick."""
        if seat == self._holder and self._holder_said < FLOOR_LINES:
            self._voice(seat)

    def _voice(self, seat: int | None) -> None:
        """Let ``seat`` alone talk in the channel (None: nobody), where the transport can
        enforce it (``on_floor``: IRC voices it in a moderated channel)."""
        nick = self.record.seats.present(seat)
        if nick != self._voiced:
            old, self._voiced = self._voiced, nick
            on_floor = self.record.output.on_floor
            if on_floor is not None:
                on_floor(old, nick)

    def said(self, bot: str | None, nick: str, text: str, now: float) -> bool:
        """A line ``nick`` (playing ``bot``; None: no registered bot) said in the game's
        channel at ``now``: part of a speech if its seat has the floor, the turn has lines
        left and the line fits ``MAX_TEXT_BYTES``; otherwise refused with an ERROR and left
        out of ``talk``. The line that fills the turn takes the floor back. Returns whether
        it counted."""
        seat = None if bot is None else self.record.seats.of(bot)
        if seat is None:
            return False
        over = self.game.result is not None
        if seat == self._holder and self._holder_said < FLOOR_LINES:
            fault = text_fault(text)
            if fault is not None:
                return self._refuse_line(nick, seat, ErrorCode.MALFORMED, f"{fault}; this line does not count")
            if len(text.encode()) > MAX_TEXT_BYTES:
                return self._refuse_line(
                    nick,
                    seat,
                    ErrorCode.MALFORMED,
                    f"a line of speech is at most {MAX_TEXT_BYTES} bytes; this one does not count",
                )
            if self._over_budget(seat, text):
                return False
            record = self.record
            record.talk.append(Talk(seat, nick, text, now - record.origin, len(record.transcript)))
            self._holder_said += 1
            if self._holder_said == FLOOR_LINES:
                self._voice(None)
            return True
        if seat == self._holder:
            return self._refuse_line(
                nick,
                seat,
                ErrorCode.NOT_YOUR_TURN,
                f"a turn holds {FLOOR_LINES} lines: the floor is taken back; answer your request to end it",
            )
        if not over and self.knowledge.is_out(seat):
            return self._refuse_line(nick, seat, ErrorCode.PLAYER_DEAD, "the dead do not talk")
        why = "the game is over" if over else "you do not have the floor; wait for your turn to speak"
        return self._refuse_line(nick, seat, ErrorCode.NOT_YOUR_TURN, why)

    def chatted(self, bot: str | None, nick: str, text: str, now: float) -> None:
        """A line ``nick`` (playing ``bot``) said in the channel of a game where talk is free
        (no turns at the floor): the rules ignore it, but the record keeps it in ``talk`` for
        replays and spectators, ``CHAT_KEPT`` lines per seat at most. Never refused."""
        record = self.record
        seat = None if bot is None else record.seats.of(bot)
        if seat is None or self.game.result is not None or text_fault(text) is not None:
            return
        if sum(1 for t in record.talk if t.seat == seat) < CHAT_KEPT:
            record.talk.append(Talk(seat, nick, text, now - record.origin, len(record.transcript)))

    def _refuse_line(self, nick: str, seat: int, code: ErrorCode, why: str) -> bool:
        """Tell ``nick`` its channel line does not count (always False, for ``said``)."""
        self.record.refuse(nick, seat, code, why)
        return False

    def _over_budget(self, seat: int, text: str) -> bool:
        """Count ``text`` against the seat's speech budget (``Game.speech_budget``); a line
        that goes over it is neither relayed nor kept, and the seat forfeits the game at once
        (``overspent``)."""
        budget = self.game.speech_budget()
        if budget is None:
            return False
        self.spoken[seat] += len(text.encode())
        if self.spoken[seat] <= budget:
            return False
        self.overspent = seat
        return True

    def team(self, bot: str, msg: Message, reply_to: str | None = None) -> None:
        """``TEAM gid :text`` from ``bot``: relayed to the seats the game lets hear it in
        private now (living wolves at night), as ``TEAM gid from=nick :text``; refused
        otherwise, with an ERROR to ``reply_to`` (the sender's nick)."""
        record, game, gid = self.record, self.game, self.record.gid
        nick = bot if reply_to is None else reply_to
        seat = record.seats.of(bot)
        try:
            if seat is None:
                raise not_playing(gid)
            if game.result is not None:
                raise game_over(gid)
            told = self.knowledge.as_told()
            if told is not None:
                listeners = told.talk[seat]
            else:
                listeners = game.team_talk(seat) if game.talks_in_private(seat) else None
            if listeners is None:
                if self.knowledge.is_out(seat):
                    raise IllegalAction(ErrorCode.PLAYER_DEAD, "the dead do not talk")
                raise IllegalAction(ErrorCode.INVALID_PHASE, self.private_talk)
            cap = self.private_lines
            if cap is not None and self._private_turn == (seat, game.round) and self._private_said >= cap:
                raise IllegalAction(ErrorCode.NOT_YOUR_TURN, f"a turn holds {cap} lines; answer your request to end it")
            if not msg.text:
                raise ProtocolError(ErrorCode.MALFORMED, "TEAM needs :text")
            if len(msg.text.encode()) > MAX_TEXT_BYTES:
                raise ProtocolError(ErrorCode.MALFORMED, f"TEAM text is at most {MAX_TEXT_BYTES} bytes; split it")
        except (IllegalAction, ProtocolError) as exc:
            record.refuse(nick, seat, exc.code, exc.reason)
            return
        if self._over_budget(seat, msg.text):
            return
        if self._private_turn != (seat, game.round):
            self._private_turn, self._private_said = (seat, game.round), 0
        self._private_said += 1
        relayed = Message.make(TEAM, gid, text=msg.text, **{"from": record.seats.names[seat]})
        record.send_each([record.seats.nicks[other] for other in listeners], relayed)
