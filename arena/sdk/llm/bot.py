"""``LlmBot``: every decision, speech and word to the pack comes from a chat model.

A request's deadline is the one thing the model cannot be trusted with, so every
consultation has a budget, ``BUDGET`` of the deadline counted from when the request's line
arrived (``Ask.received``; a worker may get to it later): calls stop when it is spent, an
unusable reply gets one re-ask while it lasts,
and a random legal choice answers when nothing usable came (logged as ``fallback``, and
marked ``fallback=own`` on the wire, so ``arena stats`` counts it). The
SDK's own fallback, at 80% of the deadline, stays the last resort for a bot that hangs.

A turn at the floor (a speech, with a choice when it is a candidacy) and a wolf's night vote
(with a line to the pack) take one call, not two: the SDK asks for the words first, and the
choice made with them answers the request that follows.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from ...protocol import Message
from .. import Ask, Bot, GameView
from .answers import Reply, Shape, read_reply, speech_lines
from .client import ChatClient, ChatError, LlmSettings
from .log import GameStats, JsonLog, Outcome
from .prompt import conversation, correction, said
from .render import memory
from .werewolf import living_pack

BUDGET = 0.7
"""Share of a request's deadline the model may use, all calls included: the answer still
has to cross the network, and the SDK answers at random at 80%."""
ATTEMPTS = 2
"""Calls per request at most: the first, and one re-ask (or retry after an error; after a
429 or 5xx, once the server's ``Retry-After`` or a jittered back-off has passed)."""
MIN_CALL = 0.2
"""Seconds below which a call is not worth starting."""
NEAR = "the players near you only (the request above says who), not by everyone"
"""Who hears Tuvalon's second discussion, as the reply's instructions put it."""
TURN_OPTIONS = {"done", "pass"}
"""The options of a turn that is only a speech (``speak``, ``last_words``)."""


class LlmBot(Bot):
    """Plays Avalon, Tuvalon and Werewolf through an OpenAI-compatible chat-completions endpoint.

    ``settings`` default to the environment (``LlmSettings.from_env``: ``ARENA_LLM_BASE_URL``,
    ``ARENA_LLM_MODEL``, ``ARENA_LLM_API_KEY``, ...). Thread-safe: several games may decide at
    once; each game's state lives in its ``GameView``, the totals behind a lock."""

    owner = "arena"
    version = "1.0"

    def __init__(self, seed: int | None = None, settings: LlmSettings | None = None) -> None:
        super().__init__(seed)
        self.settings = settings if settings is not None else LlmSettings.from_env()
        self.client = ChatClient(self.settings)
        self.log = JsonLog(self.settings.log)
        self._stats: dict[str, GameStats] = {}
        self._lock = threading.Lock()

    # -- the game's course ------------------------------------------------------------

    def on_start(self, game: GameView[Any]) -> None:
        with self._lock:
            self._stats.setdefault(game.gid, GameStats())  # kept across a resync's new START

    def on_chat(self, game: GameView[Any], nick: str, text: str) -> None:
        memory(game).note(game, said(nick, text))

    def on_end(self, game: GameView[Any], msg: Message) -> None:
        with self._lock:
            stats = self._stats.pop(game.gid, GameStats())
        self.log.write(
            {
                "event": "game",
                "bot": game.me,
                "game": game.gid,
                "model": self.settings.model,
                "role": game.role,
                "winner": msg.get("winner"),
                "reason": msg.get("reason"),
                **stats.summary(),
            }
        )

    # -- the requests -----------------------------------------------------------------

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        mem = memory(game)
        with mem.lock:
            ready = mem.decided.pop(ask.rid, None)
        if ready is not None:
            choice = ready  # chosen with this turn's speech or pack talk
        elif len(ask.options) == ask.pick:
            choice = ask.options[0] if ask.pick == 1 else list(ask.options)
            self._record("decision", game, ask, Outcome(result="forced"), choice)
        elif set(ask.options) == TURN_OPTIONS:
            choice = "done"  # a turn whose speech was never asked for
        else:
            outcome, reply = self._consult(game, ask, Shape(ask.options, ask.pick))
            choice = self._chosen(ask, reply)
            self._record("decision", game, ask, outcome, choice, reply)
        with mem.lock:
            mem.answers.append((ask.kind, choice))
        if set(ask.options) != TURN_OPTIONS:  # "done" after a speech tells nothing
            mem.note(game, f"You answered {ask.kind}: {choice if isinstance(choice, str) else ', '.join(choice)}.")
        return choice

    def speech(self, game: GameView[Any], ask: Ask) -> list[str]:
        """The floor: what to say, and for a candidacy whether to stand, in one call."""
        return self._speak(game, ask, "everyone")

    def _speak(self, game: GameView[Any], ask: Ask, heard_by: str) -> list[str]:
        turn_only = set(ask.options) == TURN_OPTIONS
        shape = Shape(None if turn_only else ask.options, ask.pick, speech=True, heard_by=heard_by)
        outcome, reply = self._consult(game, ask, shape)
        lines = speech_lines(reply.speech) if reply is not None else []
        choice = ("done" if lines else "pass") if turn_only else self._chosen(ask, reply)
        note = f"You said: {json.dumps(' '.join(lines), ensure_ascii=False)}"
        return self._said("speech", game, ask, outcome, reply, choice, lines, note)

    def team_talk(self, game: GameView[Any], ask: Ask) -> list[str]:
        """A wolf's night vote with a line to the living pack, in one call; Tuvalon's
        second discussion (``speak_near``), a speech heard only within range; nothing for
        any other private request (no one would hear it)."""
        if ask.kind == "speak_near":
            return self._speak(game, ask, NEAR)
        if ask.kind != "wolf_vote" or not living_pack(game):
            return []
        outcome, reply = self._consult(game, ask, Shape(ask.options, ask.pick, message=True))
        words = speech_lines(reply.message, lines=1) if reply is not None else []
        note = f"(secret) You tell the pack: {words[0]}" if words else ""
        return self._said("team_talk", game, ask, outcome, reply, self._chosen(ask, reply), words, note)

    def _chosen(self, ask: Ask, reply: Reply | None) -> str | list[str]:
        """The model's choice, or (none usable) a random legal one: logged as a fallback, and
        marked one on the wire (``Ask.fall_back``)."""
        return reply.choice if reply is not None and reply.choice is not None else ask.fall_back(self.rng)

    def _said(
        self,
        event: str,
        game: GameView[Any],
        ask: Ask,
        outcome: Outcome,
        reply: Reply | None,
        choice: str | list[str],
        words: list[str],
        note: str,
    ) -> list[str]:
        """Keep the choice made with ``words`` for the answer that follows, and ``note`` them
        (if any) in the game's timeline; log the consultation; return the words to say."""
        mem = memory(game)
        with mem.lock:
            mem.decided[ask.rid] = choice
        if words:
            mem.note(game, note)
        self._record(event, game, ask, outcome, choice, reply, lines=len(words))
        return words

    # -- the model --------------------------------------------------------------------

    def _consult(self, game: GameView[Any], ask: Ask, shape: Shape) -> tuple[Outcome, Reply | None]:
        """Ask the model until a usable reply comes, ``ATTEMPTS`` calls at most, all within the
        request's budget. Returns what happened and the reply (None: fall back)."""
        end = ask.received + max(0.0, ask.deadline) * BUDGET
        messages = conversation(game, ask, shape, self.settings.history_chars)
        schema = shape.schema()
        outcome = Outcome()
        began = time.monotonic()
        for attempt in range(ATTEMPTS):
            left = min(self.settings.timeout, end - time.monotonic())
            if left < MIN_CALL:
                outcome.errors.append(f"timeout: {max(left, 0.0):.2f} s left, no call made")
                break
            outcome.calls += 1
            try:
                completion = self.client.complete(messages, schema, ask.kind, left)
            except ChatError as exc:
                outcome.errors.append(str(exc))
                if exc.kind == "timeout":
                    break
                if exc.busy and attempt + 1 < ATTEMPTS and not self._wait(exc, attempt, end, outcome):
                    break
                continue
            outcome.tokens(completion.prompt_tokens, completion.completion_tokens)
            reply = read_reply(completion.content, shape)
            if reply.problem is None:
                outcome.result = "legal" if attempt == 0 else "reasked"
                outcome.seconds = time.monotonic() - began
                return outcome, reply
            outcome.unusable.append(reply.problem)
            messages = [
                *messages,
                {"role": "assistant", "content": completion.content},
                {"role": "user", "content": correction(reply.problem, shape)},
            ]
        outcome.seconds = time.monotonic() - began
        return outcome, None

    def _wait(self, error: ChatError, attempt: int, end: float, outcome: Outcome) -> bool:
        """Wait as a busy server asked (``Retry-After``) or, if it did not say, a jittered
        back-off; False, without waiting, when the wait would leave no time for the call
        before ``end``: the bot answers then, rather than late."""
        wait = self.client.backoff(error, attempt)
        if time.monotonic() + wait + MIN_CALL > end:
            outcome.errors.append(f"no retry: waiting {wait:.2f} s would pass the answer's budget")
            return False
        time.sleep(wait)
        return True

    def _record(
        self,
        event: str,
        game: GameView[Any],
        ask: Ask,
        outcome: Outcome,
        choice: str | list[str] | None,
        reply: Reply | None = None,
        **extra: Any,
    ) -> None:
        with self._lock:
            stats = self._stats.get(game.gid)
            if stats is not None:  # a decision that outlived its game is logged, not counted
                stats.add(event, outcome)
        record: dict[str, Any] = {
            "event": event,
            "bot": game.me,
            "game": game.gid,
            "rid": ask.rid,
            "kind": ask.kind,
            "outcome": outcome.result,
            "choice": choice,
            "calls": outcome.calls,
            "prompt_tokens": outcome.prompt_tokens,
            "completion_tokens": outcome.completion_tokens,
            "latency_s": round(outcome.seconds, 3),
            **extra,
        }
        if outcome.calls:
            record["format"] = self.client.format
        if outcome.errors:
            record["errors"] = outcome.errors
        if outcome.unusable:
            record["unusable"] = outcome.unusable
        if reply is not None and reply.reason:
            record["reason"] = reply.reason
        self.log.write(record)
