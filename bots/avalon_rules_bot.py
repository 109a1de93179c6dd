"""Runs the example bot RuleBot (its code: arena/bots/avalon_rules_bot.py).

Usage: python bots/avalon_rules_bot.py --server HOST:PORT --nick NICK [--referee arena] [--channel '#arena']
(or ARENA_SERVER=HOST:PORT ARENA_NICK=NICK python bots/avalon_rules_bot.py; --help lists every option and its variable)
"""

from arena.bots.avalon_rules_bot import RuleBot
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(RuleBot)
