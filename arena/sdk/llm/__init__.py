"""LLM players: a bot that plays Avalon and Werewolf through any OpenAI-compatible
chat-completions endpoint (llama.cpp's ``llama-server``, Ollama, vLLM, hosted APIs).

    ARENA_LLM_BASE_URL=http://127.0.0.1:11434/v1 ARENA_LLM_MODEL=llama3.2 \\
        python bots/llm_bot.py --server HOST:PORT --nick NICK

``LlmBot`` renders the game (rules, private knowledge, public history) as a prompt, asks
for a JSON answer (a JSON schema where the server takes one), maps it to a legal option,
and answers in time whatever the model does; ``ChatClient`` is the bare client, usable by
a bot of your own. Only the standard library is used.
"""

from __future__ import annotations

from .bot import LlmBot
from .client import ChatClient, ChatError, Completion, LlmConfigError, LlmSettings

__all__ = ["ChatClient", "ChatError", "Completion", "LlmBot", "LlmConfigError", "LlmSettings"]
