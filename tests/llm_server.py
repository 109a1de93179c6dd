"""A chat-completions server on 127.0.0.1 that answers from a script: the model, for tests.

``FakeChat`` speaks ``POST /v1/chat/completions`` (OpenAI's shape, non-streaming) on a free
port and keeps every request it was sent. Each request takes the next ``Scripted`` reply of
its script (a JSON answer, raw bytes, an HTTP error, a delay); once the script is used up,
``auto`` answers, by default ``legal_answer``, which reads the request's JSON schema and
picks legal values from it, so whole games can be played against it.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Callable, Iterable
from typing import Any


@dataclass
class Scripted:
    """One reply: ``content`` as the assistant's message, or ``raw`` as the whole body, with
    ``status`` and ``headers``, after ``delay`` seconds."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = field(default_factory=lambda: {"prompt_tokens": 120, "completion_tokens": 15})


def reply(**fields: Any) -> Scripted:
    """A well-formed reply whose content is the JSON object ``fields``."""
    return Scripted(json.dumps(fields))


class FakeChat:
    def __init__(
        self, script: Iterable[Scripted] = (), auto: Callable[[dict[str, Any]], Scripted] | None = None, seed: int = 0
    ) -> None:
        self.script: deque[Scripted] = deque(script)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.arrived: list[float] = []
        """When each request arrived (``time.monotonic``)."""
        self.rng = random.Random(seed)
        self.auto = auto or self.legal_answer
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        """The most requests in progress at once."""
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeChat:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _next(self, body: dict[str, Any]) -> Scripted:
        with self.lock:
            if self.script:
                return self.script.popleft()
        return self.auto(body)

    def legal_answer(self, body: dict[str, Any]) -> Scripted:
        """Fills the request's JSON schema with legal values: a random option (or the count
        its description asks for), a short speech, a short word to the pack."""
        schema = body["response_format"]["json_schema"]["schema"]
        out: dict[str, Any] = {}
        with self.lock:
            for name, prop in schema["properties"].items():
                if name == "choice" and prop["type"] == "array":
                    exactly = re.search(r"exactly (\d+)", prop["description"])
                    assert exactly is not None, prop["description"]
                    count = int(exactly.group(1))
                    out[name] = self.rng.sample(prop["items"]["enum"], count)
                elif name == "choice":
                    out[name] = self.rng.choice(prop["enum"])
                elif name == "speech":
                    out[name] = "I am a simple villager and I watch how everyone votes."
                elif name == "message":
                    out[name] = "Let us agree on one target."
                else:
                    out[name] = "scripted"
        return Scripted(json.dumps(out))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with chat.lock:
                    chat.requests.append(body)
                    chat.headers.append(dict(self.headers))
                    chat.paths.append(self.path)
                    chat.arrived.append(time.monotonic())
                    chat.active += 1
                    chat.peak = max(chat.peak, chat.active)
                try:
                    self._answer(chat._next(body), body)
                finally:
                    with chat.lock:
                        chat.active -= 1

            def _answer(self, scripted: Scripted, body: dict[str, Any]) -> None:
                time.sleep(scripted.delay)
                if scripted.raw is not None:
                    data = scripted.raw
                elif scripted.status != 200:
                    data = json.dumps({"error": {"message": scripted.content or "scripted failure"}}).encode()
                else:
                    completion: dict[str, Any] = {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "model": body.get("model"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": scripted.content},
                            }
                        ],
                    }
                    if scripted.usage is not None:
                        completion["usage"] = {**scripted.usage, "total_tokens": sum(scripted.usage.values())}
                    data = json.dumps(completion).encode()
                try:
                    self.send_response(scripted.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in scripted.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (its deadline passed)

        return Handler
