"""What spectators see of many tables at once, for ``bench/concurrency.py``: the narrated
channel as a person in it reads it (``Audience``), and the web view as a browser reads it
(``WebReader``), each timed against the games the players played.

The audience is one more raw socket in the players' event loop: it joins the narrated
channel before any table is seated and notes when each of the narrator's lines arrives. A
game's end is matched to the line that tells it: a game told in full ends with a ``Roles:``
sentence naming its five players (the tables keep their seats for their rounds, so the k-th
such line for a set of seats is that table's k-th game), a game told by its result alone is
named by its id. The web reader is a thread of blocking HTTP requests: the index, then every
live game's page the index links, over and over at a given rate.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import urllib.request
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from arena.irc.link import strip_controls
from arena.narrate.narrator import retell
from arena.referee.recorder import ratings_message
from arena.store import Store
from arena.store.report import channel_lines
from bench.crowd import Crowd

ROLES = re.compile(r"(\S+) \(")
GAME = re.compile(r"\b(g\d+)\b")
MORE = re.compile(r"and (\d+) more\.$")
GAME_LINK = re.compile(r'href="(/games/g\d+)"')


@dataclass
class Audience:
    """A person in the narrated channel: every line the narrator says there, timed."""

    host: str
    port: int
    channel: str
    narrator: str
    nick: str = "audience"
    heard: list[tuple[float, str]] = field(default_factory=list)
    """(``time.monotonic()``, the line without its IRC formatting)."""

    async def join(self) -> None:
        """Connected, in the channel (its names list read): from here on every line counts."""
        reader, self._writer = await asyncio.open_connection(self.host, self.port)
        self._joined = asyncio.Event()
        self._task = asyncio.create_task(self._read(reader))
        self._send(f"NICK {self.nick}")
        self._send(f"USER {self.nick} 0 * :{self.nick}")
        self._send(f"JOIN {self.channel}")
        await asyncio.wait_for(self._joined.wait(), 30.0)

    def close(self) -> None:
        self._task.cancel()
        self._writer.close()

    def _send(self, line: str) -> None:
        self._writer.write(line.encode() + b"\r\n")

    async def _read(self, reader: asyncio.StreamReader) -> None:
        buffer = b""
        prefix = f":{self.narrator}!".lower()
        while data := await reader.read(65536):
            *lines, buffer = (buffer + data).split(b"\n")
            for raw in lines:
                line = raw.rstrip(b"\r").decode(errors="replace")
                if line.startswith("PING"):
                    self._send("PONG" + line[4:])
                elif line.lower().startswith(prefix) and " PRIVMSG " in line:
                    self.heard.append((time.monotonic(), strip_controls(line.partition(" :")[2])))
                elif line.split(" ", 2)[1:2] == ["366"]:
                    self._joined.set()

    async def settle(self, quiet: float, most: float) -> None:
        """Until the narrator has said nothing for ``quiet`` seconds (it has told what it
        had to), or ``most`` seconds have passed."""
        began = time.monotonic()
        while time.monotonic() - began < most:
            last = self.heard[-1][0] if self.heard else began
            if time.monotonic() - last > quiet:
                return
            await asyncio.sleep(0.5)

    def counted(self) -> int:
        """Games whose end a tally counted without naming them (``and 3 more.``)."""
        return sum(int(m.group(1)) for _, line in self.heard if line.startswith("Results") for m in MORE.finditer(line))

    def end_lags(self, crowd: Crowd) -> list[float]:
        """Seconds from each game's end (its last player reading ``END``) to the line that
        tells it in the channel, for the games whose end was told."""
        by_seats: dict[frozenset[str], list[str]] = {}
        for gid, game in sorted(crowd.games.items(), key=lambda item: item[1].start):
            if game.ends:
                by_seats.setdefault(game.seats, []).append(gid)
        told: dict[str, float] = {}
        for at, line in self.heard:
            if line.startswith("Roles: "):
                games = by_seats.get(frozenset(ROLES.findall(line[len("Roles: ") :])), [])
                if games:
                    told.setdefault(games.pop(0), at)
            elif line.startswith("Results"):  # ``Results: g9 (avalon) ...`` or a tally naming games
                for gid in GAME.findall(line):
                    told.setdefault(gid, at)
        return [at - crowd.games[gid].end for gid, at in told.items() if gid in crowd.games]


def would_say(db: Path, games: Collection[str]) -> int:
    """The lines a narrator that dropped nothing would have said of ``games`` (stored in
    ``db``): each game's table, and its story as ``arena replay --pretty`` tells it (the
    ratings included), one line a sentence."""
    store = Store(str(db))
    try:
        lines = 0
        for summary in store.games.find(limit=None):
            if summary.id not in games:
                continue
            game = store.games.load(summary.id)
            assert game is not None
            ratings = ratings_message(summary.id, game.changes, game.summary.bots, game.summary.nicks)
            after = ratings.lines() if ratings else []
            lines += 1 + len(retell(channel_lines(game, after), summary.started, summary.finished))
        return lines
    finally:
        store.close()


class WebReader:
    """A browser on the web view: the index, then every live game page it links, ``rate``
    rounds a second at most, in a thread, until stopped."""

    def __init__(self, base: str, rate: float) -> None:
        self.base = base.rstrip("/")
        self.rate = rate
        self.index: list[float] = []
        """Seconds each index request took."""
        self.pages: list[float] = []
        """Seconds each live game page took."""
        self.errors: list[str] = []
        self.largest = 0
        """Bytes of the largest index served."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="web reader", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _get(self, path: str) -> tuple[float, bytes]:
        began = time.monotonic()
        with urllib.request.urlopen(self.base + path, timeout=60.0) as response:
            body: bytes = response.read()
        return time.monotonic() - began, body

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                took, body = self._get("/")
                self.index.append(took)
                self.largest = max(self.largest, len(body))
                live = body.decode(errors="replace").partition('id="live-games"')[2].partition("</table>")[0]
                for path in GAME_LINK.findall(live):
                    if self._stop.is_set():
                        break
                    self.pages.append(self._get(path)[0])
            except OSError as exc:
                self.errors.append(str(exc))
            self._stop.wait(max(0.0, 1.0 / self.rate - (time.monotonic() - began)))
