"""Runs the example bot RandomBot (its code: arena/bots/random_bot.py).

Usage: python bots/random_bot.py --server HOST:PORT --nick NICK [--referee arena] [--channel '#arena']
(or ARENA_SERVER=HOST:PORT ARENA_NICK=NICK python bots/random_bot.py; --help lists every option and its variable)
"""

from arena.bots.random_bot import RandomBot
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(RandomBot)
