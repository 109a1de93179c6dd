"""One error vocabulary for every game and for the protocol.

The codes extend section 11 of the Werewolf rules so that a bot sees the same code for the
same mistake whichever game it plays.
"""

from __future__ import annotations

from enum import Enum


class ErrorCode(str, Enum):
    # Section 11 of the Werewolf rules.
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    INVALID_PHASE = "INVALID_PHASE"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    PLAYER_DEAD = "PLAYER_DEAD"
    ACTION_NOT_ALLOWED = "ACTION_NOT_ALLOWED"
    TARGET_INVALID = "TARGET_INVALID"
    TARGET_ALREADY_DEAD = "TARGET_ALREADY_DEAD"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    CANNOT_SELF_TARGET = "CANNOT_SELF_TARGET"
    REPEATED_PROTECT = "REPEATED_PROTECT"
    # Extensions shared by all games.
    GAME_OVER = "GAME_OVER"
    ALREADY_ACTED = "ALREADY_ACTED"
    WRONG_COUNT = "WRONG_COUNT"
    NOT_A_PLAYER = "NOT_A_PLAYER"
    # Protocol-level codes: the line never reached a game.
    MALFORMED = "MALFORMED"
    UNKNOWN_COMMAND = "UNKNOWN_COMMAND"
    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    NOT_REGISTERED = "NOT_REGISTERED"
    NAME_INVALID = "NAME_INVALID"
    UNKNOWN_GAME = "UNKNOWN_GAME"
    STALE_REQUEST = "STALE_REQUEST"
    AUTH_FAILED = "AUTH_FAILED"
    NAME_TAKEN = "NAME_TAKEN"


class IllegalAction(Exception):
    """Raised by an engine when an action is refused; the engine's state is unchanged."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(f"{code.value}: {reason}")
        self.code = code
        self.reason = reason


class SetupError(ValueError):
    """A game cannot start with these players and options; the message says why."""
