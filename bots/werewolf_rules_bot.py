"""Runs the example bot WerewolfRuleBot (its code: arena/bots/werewolf_rules_bot.py).

Usage: python bots/werewolf_rules_bot.py --server HOST:PORT --nick NICK [--referee arena] [--channel '#arena']
(or ARENA_SERVER=HOST:PORT ARENA_NICK=NICK python bots/werewolf_rules_bot.py; --help lists
every option and its variable)
"""

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(WerewolfRuleBot)
