"""The LLM bot's record: one JSON line per decision, speech or pack talk (tokens, latency,
whether the model's answer was legal), and one summary per game, so a bot author can see
what a model costs and how often it needs the safety net."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any


class JsonLog:
    """JSON lines appended to a file or, without one, written to standard error. Each line
    opens the file anew: nothing stays open to close, and a log moved aside (rotated) is
    simply started again. Thread-safe: lines from concurrent games never interleave."""

    def __init__(self, path: str | None) -> None:
        self.path = None if path in (None, "", "-") else path
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps({"ts": round(time.time(), 3), **record}, ensure_ascii=False) + "\n"
        with self._lock:
            if self.path is None:
                sys.stderr.write(line)
                sys.stderr.flush()
                return
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(line)


@dataclass
class Outcome:
    """How one consultation of the model went."""

    result: str = "fallback"
    """``legal`` (the first reply was usable), ``reasked`` (a later one was), ``fallback``
    (none was: a random legal choice stands in), or ``forced`` (one legal choice: no call)."""
    calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    """Calls that brought no reply: timeouts, HTTP errors, broken responses."""
    unusable: list[str] = field(default_factory=list)
    """What was wrong with each reply that could not be used (malformed, an illegal option)."""

    def tokens(self, prompt: int | None, completion: int | None) -> None:
        if prompt is not None:
            self.prompt_tokens = (self.prompt_tokens or 0) + prompt
        if completion is not None:
            self.completion_tokens = (self.completion_tokens or 0) + completion


@dataclass
class GameStats:
    """One game's totals, summed from its outcomes."""

    decisions: int = 0
    speeches: int = 0
    team_talks: int = 0
    forced: int = 0
    calls: int = 0
    reasked: int = 0
    fallbacks: int = 0
    unusable: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    """Time spent consulting the model (forced answers cost none)."""

    def add(self, event: str, outcome: Outcome) -> None:
        if event == "speech":
            self.speeches += 1
        elif event == "team_talk":
            self.team_talks += 1
        else:
            self.decisions += 1
        self.forced += outcome.result == "forced"
        self.reasked += outcome.result == "reasked"
        self.fallbacks += outcome.result == "fallback"
        self.calls += outcome.calls
        self.unusable += len(outcome.unusable)
        self.errors += len(outcome.errors)
        self.prompt_tokens += outcome.prompt_tokens or 0
        self.completion_tokens += outcome.completion_tokens or 0
        self.seconds += outcome.seconds

    def summary(self) -> dict[str, Any]:
        consulted = self.decisions + self.speeches + self.team_talks - self.forced
        fields = asdict(self)
        fields["mean_latency_s"] = round(self.seconds / consulted, 3) if consulted else None
        del fields["seconds"]
        return fields
