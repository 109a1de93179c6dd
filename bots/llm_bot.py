"""Runs the LLM bot (its code: arena/sdk/llm/), which plays through a chat model.

Usage: ARENA_LLM_BASE_URL=http://127.0.0.1:11434/v1 ARENA_LLM_MODEL=llama3.2 \\
           python bots/llm_bot.py --server HOST:PORT --nick NICK [--referee arena] [--channel '#arena']

The model is named by the environment (docs/bot-authors.md, "LLM bots"); a missing setting stops the bot
before it connects, with one line saying what to set.
"""

import sys

from arena.sdk import run_bot
from arena.sdk.llm import LlmBot, LlmConfigError, LlmSettings

if __name__ == "__main__":
    if not {"-h", "--help"} & set(sys.argv[1:]):  # the options' help needs no model
        try:
            LlmSettings.from_env()
        except LlmConfigError as exc:
            sys.exit(f"llm_bot: {exc}")
    run_bot(LlmBot)
