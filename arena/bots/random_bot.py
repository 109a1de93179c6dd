"""The simplest bot: every decision is a random legal choice (the SDK's default).

Run: python -m arena.bots.random_bot --server HOST:PORT --nick NICK
"""

from arena.sdk import Bot, run_bot


class RandomBot(Bot):
    owner = "arena"
    version = "1.0"


if __name__ == "__main__":
    run_bot(RandomBot)
