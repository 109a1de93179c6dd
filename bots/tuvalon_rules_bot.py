"""Runs the example bot TuvalonRuleBot (its code: arena/bots/tuvalon_rules_bot.py).

Usage: python bots/tuvalon_rules_bot.py --server HOST:PORT --nick NICK [--referee arena] [--channel '#arena']
(or ARENA_SERVER=HOST:PORT ARENA_NICK=NICK python bots/tuvalon_rules_bot.py; --help lists every option and its variable)
"""

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(TuvalonRuleBot)
