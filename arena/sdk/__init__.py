"""The bot SDK: subclass the base class of your game, override the decisions you care
about, call ``run_bot``.

    from arena.sdk import AvalonBot, run_bot

    class Cautious(AvalonBot):
        def vote(self, game, ask):
            return "approve" if ask.rejections == 4 or game.side == "evil" else "reject"

    if __name__ == "__main__":
        run_bot(Cautious)   # python cautious.py --server HOST:PORT --nick NICK

``AvalonBot``, ``TuvalonBot`` and ``WerewolfBot`` declare every decision of their game (``help()`` lists
them, with what each must return); ``game.state`` is the game so far, kept up to date by
the SDK (``AvalonState``, ``TuvalonState``, ``WerewolfState``). ``Bot`` is the generic base, for a bot that
plays any game with one ``decide``.
"""

from __future__ import annotations

from .avalon import (
    AssassinateAsk,
    AvalonBot,
    AvalonState,
    AvalonView,
    Proposal,
    QuestAsk,
    Quest,
    TeamAsk,
    VoteAsk,
)
from .bot import Bot
from .fields import Player
from .session import Session
from .speech import Talk, split_text
from .tuvalon import Line, MoveAsk, TurnAsk, TuvalonBot, TuvalonState, TuvalonView
from .view import Ask, GameState, GameView
from .werewolf import (
    Ballot,
    DayVoteAsk,
    Death,
    DetectiveResult,
    PackVote,
    SeerResult,
    SpeakAsk,
    Speech,
    TeamLine,
    VisitReport,
    VoteResult,
    WerewolfAsk,
    WerewolfBot,
    WerewolfState,
    WerewolfView,
)
from .werewolf import DealtCard

__all__ = [
    "Ask",
    "AssassinateAsk",
    "AvalonBot",
    "AvalonState",
    "AvalonView",
    "Ballot",
    "Bot",
    "DayVoteAsk",
    "Death",
    "DetectiveResult",
    "GameState",
    "GameView",
    "Line",
    "MoveAsk",
    "PackVote",
    "Player",
    "Proposal",
    "Quest",
    "QuestAsk",
    "SeerResult",
    "Session",
    "SpeakAsk",
    "Speech",
    "Talk",
    "TeamAsk",
    "TeamLine",
    "TurnAsk",
    "TuvalonBot",
    "TuvalonState",
    "TuvalonView",
    "VisitReport",
    "VoteAsk",
    "VoteResult",
    "WerewolfAsk",
    "WerewolfBot",
    "DealtCard",
    "WerewolfState",
    "WerewolfView",
    "run_bot",
    "split_text",
]


def run_bot(bot_class: type[Bot]) -> None:
    """Read the command line and environment (``--server``/``ARENA_SERVER``, ``--nick``/
    ``ARENA_NICK``, ...; ``--help`` lists them) and play over IRC until stopped."""
    from .runner import main  # the IRC stack loads only for bots that go online

    main(bot_class)
