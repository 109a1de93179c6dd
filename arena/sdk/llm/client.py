"""A chat-completions client on httpx, bounded in time whatever the server does.

Any server that speaks OpenAI's ``POST {base}/chat/completions`` will do: llama.cpp's
``llama-server``, Ollama, vLLM, hosted APIs. A game gives every decision a deadline, so a
call here never outlives the time it is given. httpx's timeouts bound each network
operation, not a reply that trickles in slowly, so a request runs in an event loop of its
own under ``asyncio.timeout``: at the deadline it is cancelled and its connection closed,
and nothing of it is left running.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import ssl
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC
from collections.abc import Mapping
from typing import Any

import anyio  # noqa: F401 - httpx's async transport imports it at its first call, which would spend a deadline on it
import httpx

FORMATS = ("json_schema", "json_object", "text")
"""How a structured answer is asked for, most to least constrained: a JSON schema in
``response_format``, any JSON object (``{"type": "json_object"}``), or the prompt alone."""


BACKOFF = 0.5
"""Seconds of the first wait before calling again a server that answered 429 or 5xx without
``Retry-After``; each later wait doubles it."""


class LlmConfigError(ValueError):
    """The environment does not say how to reach a model."""


@dataclass(frozen=True)
class LlmSettings:
    """Where the model is and how to call it; ``from_env`` reads them from ``ARENA_LLM_*``."""

    base_url: str
    model: str
    api_key: str | None = None
    format: str = "json_schema"
    max_tokens: int = 400
    """Sent as ``max_tokens``; 0 sends none (e.g. for APIs that want ``max_completion_tokens``,
    given through ``extra``)."""
    temperature: float | None = None
    """None: the server's default."""
    timeout: float = 60.0
    """The longest any one request may take, however long the deadline."""
    log: str | None = None
    """A file the JSON lines are appended to; None or ``-``: standard error."""
    history_chars: int = 12000
    """The public history shown to the model is cut to its newest lines within this many
    characters, so a long game fits a small context window."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Fields merged into every request body (server-specific switches)."""

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise LlmConfigError(f"ARENA_LLM_BASE_URL must start with http:// or https://, got {self.base_url!r}")
        if self.format not in FORMATS:
            raise LlmConfigError(f"ARENA_LLM_FORMAT must be one of {', '.join(FORMATS)}, got {self.format!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LlmSettings:
        """``ARENA_LLM_BASE_URL``, ``ARENA_LLM_MODEL`` and ``ARENA_LLM_API_KEY`` (else
        ``OPENAI_BASE_URL``, ``OPENAI_MODEL``, ``OPENAI_API_KEY``, so a shell set up for
        OpenAI's tools works as is), and the optional ``ARENA_LLM_FORMAT``,
        ``ARENA_LLM_MAX_TOKENS``, ``ARENA_LLM_TEMPERATURE``, ``ARENA_LLM_TIMEOUT``,
        ``ARENA_LLM_LOG``, ``ARENA_LLM_HISTORY``, ``ARENA_LLM_EXTRA`` (a JSON object)."""
        env = os.environ if environ is None else environ

        def get(name: str, fallback: str | None = None) -> str | None:
            value = env.get(f"ARENA_LLM_{name}") or (env.get(fallback) if fallback else None)
            return value.strip() if value and value.strip() else None

        def number(name: str, kind: type[int] | type[float]) -> Any:
            text = get(name)
            if text is None:
                return None
            try:
                return kind(text)
            except ValueError:
                raise LlmConfigError(f"ARENA_LLM_{name} must be a number, got {text!r}") from None

        base_url = get("BASE_URL", "OPENAI_BASE_URL")
        model = get("MODEL", "OPENAI_MODEL")
        if base_url is None or model is None:
            raise LlmConfigError(
                "set ARENA_LLM_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) and ARENA_LLM_MODEL (e.g. llama3.2)"
            )
        extra_text = get("EXTRA")
        try:
            extra = json.loads(extra_text) if extra_text else {}
        except json.JSONDecodeError as exc:
            raise LlmConfigError(f"ARENA_LLM_EXTRA must be a JSON object: {exc}") from None
        if not isinstance(extra, dict):
            raise LlmConfigError("ARENA_LLM_EXTRA must be a JSON object")
        options: dict[str, Any] = {
            "format": get("FORMAT"),
            "max_tokens": number("MAX_TOKENS", int),
            "temperature": number("TEMPERATURE", float),
            "timeout": number("TIMEOUT", float),
            "history_chars": number("HISTORY", int),
        }
        return cls(
            base_url=base_url.rstrip("/"),
            model=model,
            api_key=get("API_KEY", "OPENAI_API_KEY"),
            log=get("LOG"),
            extra=extra,
            **{k: v for k, v in options.items() if v is not None},
        )


@dataclass(frozen=True)
class Completion:
    """One answer of the model, with what it cost."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    """From the reply's ``usage``; None when the server sends none."""
    seconds: float


class ChatError(Exception):
    """A call that gave no usable answer. ``kind``: ``timeout`` (out of time), ``http`` (an
    error status), ``network`` (no connection), ``malformed`` (a reply that is not a
    chat completion, or one without text). ``retry_after``: the seconds an HTTP error's
    ``Retry-After`` asked to wait, if it gave any."""

    def __init__(
        self, kind: str, detail: str, seconds: float = 0.0, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.seconds = seconds
        self.status = status
        self.retry_after = retry_after

    @property
    def busy(self) -> bool:
        """The server is overloaded or failing for now (429, 5xx): worth calling again, later."""
        return self.status is not None and (self.status == 429 or 500 <= self.status < 600)


class ChatClient:
    """Calls one model. Thread-safe: calls share nothing but the answer format, which only
    ever steps down (``json_schema`` → ``json_object`` → ``text``) when the server refuses
    the more constrained one."""

    def __init__(self, settings: LlmSettings) -> None:
        self.settings = settings
        self.url = f"{settings.base_url}/chat/completions"
        self._format = settings.format
        self._lock = threading.Lock()
        self._jitter = random.Random()
        """Spreads the waits of bots that a server refused at once, so they do not all
        call it again at once; drawn apart from any game's stream, which stays reproducible."""
        self._tls: ssl.SSLContext | bool = ssl.create_default_context() if self.url.startswith("https://") else False
        """Made once (loading the certificate authorities costs more than a call); False for
        plain http, which has no certificate to check."""

    @property
    def format(self) -> str:
        """The answer format requests use now."""
        return self._format

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str, timeout: float) -> Completion:
        """The model's answer to ``messages`` within ``timeout`` seconds, asked to follow
        ``schema`` as far as the server allows. A server that refuses ``response_format``
        is asked again at once in the next format down, while time remains."""
        end = time.monotonic() + timeout
        while True:
            fmt = self._format
            body = self._body(messages, schema, name, fmt)
            try:
                return self._post(body, end)
            except ChatError as exc:
                if not (exc.kind == "http" and fmt != "text" and _refuses_format(exc.detail)):
                    raise
                self._step_down(fmt)
                if end - time.monotonic() <= 0:
                    raise

    def backoff(self, error: ChatError, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first) after ``error``
        (a ``busy`` server): at least what its ``Retry-After`` asked, else half of
        ``BACKOFF`` doubled per retry; plus a random part of up to as much again (at most
        that half), so many bots refused together come back spread out."""
        step = BACKOFF * 2**retry / 2
        floor = step if error.retry_after is None else error.retry_after
        with self._lock:
            return floor + self._jitter.uniform(0, step)

    def _step_down(self, fmt: str) -> None:
        with self._lock:
            if self._format == fmt:
                self._format = FORMATS[FORMATS.index(fmt) + 1]

    def _body(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str, fmt: str) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": messages, "stream": False}
        if s.max_tokens > 0:
            body["max_tokens"] = s.max_tokens
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if fmt == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            }
        elif fmt == "json_object":
            body["response_format"] = {"type": "json_object"}
        body.update(s.extra)
        return body

    def _post(self, body: dict[str, Any], end: float) -> Completion:
        """POST ``body`` and read the completion, giving up at ``end`` (monotonic time)."""
        started = time.monotonic()
        timeout = end - started
        if timeout <= 0:
            raise ChatError("timeout", "no time left for a request")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        try:
            reply = asyncio.run(self._exchange(body, headers, timeout))
        except (TimeoutError, httpx.TimeoutException):
            raise ChatError("timeout", f"no answer within {timeout:.1f} s", time.monotonic() - started) from None
        except Exception as exc:  # refused, reset, cut short: whatever it is, this call gave nothing
            reason = _root(exc)
            raise ChatError("network", f"{type(reason).__name__}: {reason}", time.monotonic() - started) from None
        seconds = time.monotonic() - started
        if reply.status_code >= 400:
            text = reply.content[:500].decode("utf-8", "replace").strip() or reply.reason_phrase
            raise ChatError(
                "http",
                f"HTTP {reply.status_code}: {text}",
                seconds,
                status=reply.status_code,
                retry_after=retry_after(reply.headers.get("Retry-After")),
            )
        return _completion(reply.content, seconds)

    async def _exchange(self, body: dict[str, Any], headers: dict[str, str], timeout: float) -> httpx.Response:
        """The whole exchange, cut off after ``timeout`` seconds however the server sends."""
        async with asyncio.timeout(timeout):
            async with httpx.AsyncClient(verify=self._tls, timeout=timeout) as http:
                return await http.post(self.url, content=json.dumps(body).encode(), headers=headers)


def _completion(raw: bytes, seconds: float) -> Completion:
    try:
        data = json.loads(raw)
        message = data["choices"][0]["message"]
        finish = data["choices"][0].get("finish_reason")
    except (ValueError, LookupError, TypeError, AttributeError):
        raise ChatError("malformed", f"not a chat completion: {raw[:200]!r}", seconds) from None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts, as some servers send them
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise ChatError("malformed", f"the reply holds no text (finish_reason={finish})", seconds)
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return Completion(content, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), seconds)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait: a number of seconds, or an HTTP
    date (RFC 9110, 10.2.3), counted from ``now`` (Unix time; default: the clock's). None
    when there is no header or it says neither; a date in the past is 0."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # "-0000": UTC, as HTTP dates are
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _root(exc: BaseException) -> BaseException:
    """The error at the bottom of httpx's chain (``ConnectionRefusedError``...), which says what happened."""
    while (cause := exc.__cause__ or exc.__context__) is not None:
        exc = cause
    return exc


def _refuses_format(detail: str) -> bool:
    """Whether an error reply blames the requested answer format (HTTP 400 or 422 that
    names it), as servers without structured output answer."""
    low = detail.lower()
    return (low.startswith("http 400") or low.startswith("http 422")) and any(
        word in low for word in ("response_format", "json_schema", "json_object", "schema")
    )
