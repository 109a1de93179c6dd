"""Many arena players on plain sockets in one asyncio process, written from protocol.md alone.

No SDK and no parser of the arena's: each player is an asyncio stream with its own few lines
of IRC and protocol handling, so what the referee is measured against is what any bot in any
language would send. A player connects (``NICK``, ``USER``, waits for ``001``, answers
``PING``), registers by its name alone (an arena with ``identity.require_key: false``), then
joins the lobby; it obeys only the referee's nick, and nothing before its ``WELCOME``. When a
``TABLE`` seats it, it joins the game's channel; it answers every ``ASK`` addressed to it with
a random legal choice after a random delay; at ``END`` it leaves the channel, and after its
last game it sends ``UNREGISTER``. A withdrawn ``TABLE`` (no seats) sends it back to the lobby.

The players register before they join the lobby, so a crowd's registrations are all over
before its first table is seated (a registered bot waits to be seated only from its lobby
``JOIN``): the games are timed without a registration storm beside them.

What the players saw is gathered in the ``Crowd``: every game's first ``START`` and last
``END`` as its players heard them, and every line that says something went wrong (``WARN``,
``TIMEOUT``, a forfeit, ``ERROR``, a lost connection), with whether the player named had
answered that request in time (an *innocent* miss). Five-seat tables of short nicks never
need continued lines (protocol.md, section 2): a ``more=true`` is counted as a fault.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

READ_SIZE = 65536
CONNECT_BATCH = 10
"""Players dialling at once: ngircd listens with a backlog of 10, and a burst of connections
past it can leave one that the client thinks open and the server never accepted."""


def parse(text: str) -> tuple[str, list[str], dict[str, str]]:
    """A protocol line (protocol.md, section 2): verb, positional args, fields; the free
    text after `` :`` is dropped (no player here reads it)."""
    head = text.partition(" :")[0]
    words = head.split(" ")
    args: list[str] = []
    fields: dict[str, str] = {}
    for word in words[1:]:
        if "=" in word:
            key, _, value = word.partition("=")
            fields[key] = value
        elif word and not fields:
            args.append(word)
    return words[0], args, fields


@dataclass
class Game:
    """One game as its players heard it."""

    seats: frozenset[str] = frozenset()
    table: float = float("inf")
    """When the first of its players read the ``TABLE`` that seats it."""
    start: float = float("inf")
    """When the first of its players read ``START`` (``time.monotonic``)."""
    end: float = 0.0
    """When the last of its players read ``END``."""
    starts: int = 0
    """Players that read ``START``."""
    ends: int = 0
    reason: str = ""

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Miss:
    """A missed deadline the referee announced: a ``WARN`` (``action`` ``warn``) or a ``TIMEOUT``."""

    gid: str
    rid: str
    player: str
    action: str


@dataclass
class Crowd:
    """Players sharing one event loop, and what they saw."""

    host: str
    port: int
    referee: str = "arena"
    lobby: str = "#arena"
    rounds: int = 1
    """Games each player plays before it unregisters."""
    delay_max: float = 0.02
    """Seconds at most a player waits before it answers (drawn uniformly from 0)."""
    seed: int = 1
    prefix: str = "p"
    """Nicks are the prefix and a number."""
    players: list[Player] = field(default_factory=list)
    games: dict[str, Game] = field(default_factory=dict)
    misses: set[Miss] = field(default_factory=set)
    faults: list[str] = field(default_factory=list)
    """Lines no honest, fast player should get (``ERROR``, an unexpected ``BYE``...) and lost connections."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.done = asyncio.Event()
        self._left = 0

    async def connect(self, count: int, batch: int = CONNECT_BATCH) -> None:
        """``count`` more players (nicks ``p0``, ``p1``... with the default prefix) connected, ``batch`` at a time,
        each batch welcomed by the server before the next dials: a server takes a crowd at
        its pace, not all at once."""
        first = len(self.players)
        for at in range(first, first + count, batch):
            group = [Player(self, f"{self.prefix}{i}") for i in range(at, min(at + batch, first + count))]
            await asyncio.gather(*(p.open() for p in group))
            self.players.extend(group)
            self._left += len(group)

    async def register(self, batch: int = 100, timeout: float = 30.0) -> None:
        """Every player registered. The first retries until the referee is there (a
        registration sent to a nick nobody holds is answered ``401`` and lost); the rest
        follow ``batch`` at a time."""
        deadline = time.monotonic() + timeout
        while not await self.players[0].register(timeout):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no referee {self.referee} on the server after {timeout} s")
            await asyncio.sleep(0.1)
        rest = self.players[1:]
        for at in range(0, len(rest), batch):
            answers = await asyncio.gather(*(p.register(timeout) for p in rest[at : at + batch]))
            if not all(answers):
                raise RuntimeError(f"the referee {self.referee} left during the registrations")

    async def enter_lobby(self, batch: int = 100) -> None:
        """Every player in the lobby, ``batch`` at a time (each batch's names list read
        before the next joins): from here on the referee seats them."""
        for at in range(0, len(self.players), batch):
            await asyncio.gather(*(p.enter_lobby() for p in self.players[at : at + batch]))

    async def close(self) -> None:
        for player in self.players:
            player.close()
        await asyncio.sleep(0)

    # -- what the players report ------------------------------------------------------

    def player_done(self) -> None:
        self._left -= 1
        if self._left == 0:
            self.done.set()

    def game(self, gid: str) -> Game:
        return self.games.setdefault(gid, Game())

    def innocent(self) -> list[Miss]:
        """The misses of players that had answered that request: the referee's fault."""
        by_nick = {p.nick: p for p in self.players}
        return [m for m in self.misses if m.player in by_nick and (m.gid, m.rid) in by_nick[m.player].answered]

    def forfeits(self) -> int:
        return sum(1 for g in self.games.values() if g.reason == "forfeit")

    def finished(self) -> list[Game]:
        """The games some player heard end."""
        return [g for g in self.games.values() if g.ends]


class Player:
    """One bot: its connection, its tables and what it answered."""

    def __init__(self, crowd: Crowd, nick: str) -> None:
        self.crowd = crowd
        self.nick = nick
        self.registered = False
        self.played = 0
        self.tables: dict[str, str] = {}
        """Game id -> channel of every table that seats it and has not ended."""
        self.started: set[str] = set()
        self.ended: set[str] = set()
        self.answered: set[tuple[str, str]] = set()
        """(game id, request id) of every answer sent."""
        self._prefix = f":{crowd.referee}!"
        self._buffer = b""
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._welcome = asyncio.Event()
        self._names_end = asyncio.Event()
        self._registration: asyncio.Future[bool] | None = None

    async def open(self) -> None:
        reader, self._writer = await asyncio.open_connection(self.crowd.host, self.crowd.port)
        self._reader_task = asyncio.create_task(self._read(reader))
        self.send(f"NICK {self.nick}")
        self.send(f"USER {self.nick} 0 * :{self.nick}")
        welcome = asyncio.create_task(self._welcome.wait())
        await asyncio.wait((welcome, self._reader_task), return_when=asyncio.FIRST_COMPLETED)
        if not self._welcome.is_set():
            welcome.cancel()
            raise ConnectionError(f"{self.nick}: the connection ended before the server's welcome")

    async def register(self, timeout: float) -> bool:
        """True on the referee's ``WELCOME``, False when the server says nobody holds its nick."""
        self._registration = asyncio.get_running_loop().create_future()
        self.send(f"PRIVMSG {self.crowd.referee} :REGISTER 1 name={self.nick} owner=crowd version=1")
        return await asyncio.wait_for(self._registration, timeout)

    async def enter_lobby(self) -> None:
        self._names_end.clear()
        self.send(f"JOIN {self.crowd.lobby}")
        await self._names_end.wait()

    def send(self, line: str) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(line.encode() + b"\r\n")

    def close(self) -> None:
        if self._reader_task is not None:
            self._reader_task.cancel()
        if self._writer is not None:
            self._writer.close()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while data := await reader.read(READ_SIZE):
                *lines, self._buffer = (self._buffer + data).split(b"\n")
                self._lines(line.rstrip(b"\r").decode(errors="replace") for line in lines)
            why = "the server closed the connection"
        except OSError as exc:
            why = f"the connection failed: {exc}"
        self.crowd.faults.append(f"{self.nick}: {why}")

    def _lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            if line.startswith(self._prefix):
                _, command, rest = line.split(" ", 2)
                if command == "PRIVMSG":
                    target, _, text = rest.partition(" :")
                    self._protocol(target, text)
            elif line.startswith("PING"):
                self.send("PONG" + line[4:])
            elif line.startswith(":"):
                words = line.split(" ", 2)
                if len(words) < 2:
                    continue
                if words[1] == "001":
                    self._welcome.set()
                elif words[1] == "366":
                    self._names_end.set()
                elif words[1] == "401" and self._registration is not None and not self._registration.done():
                    self._registration.set_result(False)

    def _protocol(self, target: str, text: str) -> None:
        verb, args, fields = parse(text)
        if fields.get("more") == "true":
            self.crowd.faults.append(f"{self.nick}: a continued line: {text}")
        if verb == "WELCOME":
            self.registered = True
            if self._registration is not None and not self._registration.done():
                self._registration.set_result(True)
            return
        if verb == "ERROR" or (verb == "BYE" and self.played < self.crowd.rounds):
            self.crowd.faults.append(f"{self.nick}: {text}")
        if not self.registered or not args:
            return
        gid = args[0]
        if verb == "TABLE":
            self._table(gid, fields)
        elif gid not in self.tables:
            return
        elif verb == "START":
            self.started.add(gid)
            game = self.crowd.game(gid)
            game.start = min(game.start, time.monotonic())
            game.starts += 1
        elif verb == "ASK":
            self._ask(gid, args, fields)
        elif verb in ("WARN", "TIMEOUT"):
            player = fields.get("player", self.nick)
            self.crowd.misses.add(Miss(gid, args[1], player, fields.get("action", "warn")))
        elif verb == "END":
            self._end(gid, fields)

    def _table(self, gid: str, fields: dict[str, str]) -> None:
        seats = fields.get("seats", "").split(",")
        if self.nick in seats and self.played < self.crowd.rounds:
            game = self.crowd.game(gid)
            game.seats, game.table = frozenset(seats), min(game.table, time.monotonic())
            self.tables[gid] = fields["channel"]
            self.send(f"JOIN {fields['channel']}")
        elif gid in self.tables:  # withdrawn
            self.send(f"PART {self.tables.pop(gid)}")

    def _ask(self, gid: str, args: list[str], fields: dict[str, str]) -> None:
        to = fields.get("to", "")
        if len(args) < 2 or (to != "all" and self.nick not in to.split(",")):
            return
        rng = self.crowd.rng
        choice = ",".join(rng.sample(fields.get("options", "").split(","), int(fields.get("pick", "1"))))
        asyncio.get_running_loop().call_later(
            rng.uniform(0.0, self.crowd.delay_max), self._answer, gid, args[1], choice
        )

    def _answer(self, gid: str, rid: str, choice: str) -> None:
        self.answered.add((gid, rid))
        self.send(f"PRIVMSG {self.crowd.referee} :ANSWER {gid} {rid} {choice}")

    def _end(self, gid: str, fields: dict[str, str]) -> None:
        self.ended.add(gid)
        game = self.crowd.game(gid)
        game.end = max(game.end, time.monotonic())
        game.ends += 1
        game.reason = fields.get("reason", "")
        self.send(f"PART {self.tables.pop(gid)}")
        self.played += 1
        if self.played == self.crowd.rounds:
            self.send(f"PRIVMSG {self.crowd.referee} :UNREGISTER")
            self.crowd.player_done()
