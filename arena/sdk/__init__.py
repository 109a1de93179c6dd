"""The bot SDK: subclass ``Bot``, override one method per decision, call ``run_bot``.

    class MyBot(Bot):
        def vote(self, game, ask):
            return "approve"

    if __name__ == "__main__":
        run_bot(MyBot)   # python mybot.py --server HOST:PORT --nick NICK
"""

from __future__ import annotations

from .bot import Ask, Bot, GameView, Session

__all__ = ["Ask", "Bot", "GameView", "Session", "run_bot"]


def run_bot(bot_class: type[Bot]) -> None:
    """Parse the command line (``--server``, ``--nick``, ...) and play over IRC until stopped."""
    from .runner import main  # the IRC stack loads only for bots that go online

    main(bot_class)
