"""Headless Chromium driven over the DevTools protocol, for the browser tests of the pages.

Why this way: the tests need what only the DevTools protocol gives (console errors and
uncaught exceptions, a script's changes to a live page, full-page screenshots), and
Chromium speaks it over a pair of pipes (``--remote-debugging-pipe``: JSON messages ended
by a NUL byte on file descriptors 3 and 4). So a hundred lines of standard library drive
Debian's ``chromium`` with no driver binary, no WebSocket client and no port to pick.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

WAIT = 30.0


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One headless browser; ``page()`` opens a tab to drive."""

    def __init__(self, binary: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="arena-chromium-")
        to_browser, self._out = os.pipe()
        self._in, from_browser = os.pipe()

        def fds() -> None:
            """In the child: the protocol's pipes on descriptors 3 and 4 (by way of higher
            numbers, since either pipe may itself be 3 or 4)."""
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._ids = iter(range(1, 1 << 30))
        self._lock = threading.Lock()
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: dict[str, queue.Queue[dict[str, Any]]] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    self._replies[message["id"]].put(message)
                elif "sessionId" in message:
                    self.events.setdefault(message["sessionId"], queue.Queue()).put(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """A command and its result; raises on the protocol's error."""
        with self._lock:
            ident = next(self._ids)
            self._replies[ident] = queue.Queue()
            message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
            if session is not None:
                message["sessionId"] = session
            os.write(self._out, json.dumps(message).encode() + b"\0")
        reply = self._replies[ident].get(timeout=WAIT)
        del self._replies[ident]
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def page(self, width: int = 1280, height: int = 900) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, width, height)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError, queue.Empty):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._out)
        os.close(self._in)
        shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    """A tab: load a URL, read its console errors, evaluate script, take a screenshot."""

    def __init__(self, browser: Chromium, session: str, width: int, height: int) -> None:
        self.browser, self.session = browser, session
        self.errors: list[str] = []
        """Console errors, uncaught exceptions and failed loads since the page was opened."""
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def _events(self, until: Callable[[dict[str, Any]], bool] | None = None, timeout: float = 0.0) -> None:
        """Take the events that came; with ``until``, wait for the one it accepts."""
        inbox = self.browser.events.setdefault(self.session, queue.Queue())
        deadline = time.monotonic() + timeout
        while True:
            try:
                event = inbox.get(timeout=max(0.0, deadline - time.monotonic()) if until else 0)
            except queue.Empty:
                if until is not None:
                    raise TimeoutError("the page did not load") from None
                return
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                self.errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                self.errors.append(f"{params['entry'].get('text')} {params['entry'].get('url', '')}")
            if until is not None and until(event):
                return

    def load(self, url: str) -> None:
        """Open ``url`` and wait for its load event."""
        self.send("Page.navigate", {"url": url})
        self._events(lambda e: e.get("method") == "Page.loadEventFired", WAIT)

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = WAIT) -> Any:
        """Poll ``expression`` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            time.sleep(0.1)

    def console_errors(self) -> list[str]:
        self._events()
        return self.errors

    def screenshot(self, path: str, max_height: int = 1800, top: float = 0) -> None:
        """The page from ``top`` (its top: 0), as tall as its content below it up to
        ``max_height`` pixels, as PNG."""
        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        height = min(int(size["height"] - top) + 1, max_height)
        shot = self.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": top, "width": size["width"], "height": height, "scale": 1},
            },
        )
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
