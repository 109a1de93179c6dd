"""Many arena players on plain sockets in one asyncio process, written from protocol.md alone.

No SDK and no parser of the arena's: each player is an asyncio stream with its own few lines
of IRC and protocol handling, so what the referee is measured against is what any bot in any
language would send. A player connects (``NICK``, ``USER``, waits for ``001``, answers
``PING``), registers by its name alone (an arena with ``identity.require_key: false``) with
the referee it was given, then joins the lobby; it obeys only the referees' nicks, and nothing
before its ``WELCOME``. When a ``TABLE`` seats it, it joins the game's channel; it answers
every ``ASK`` addressed to it with a random legal choice after a random delay; at ``END`` it
leaves the channel, and after its last game it sends ``UNREGISTER``. A withdrawn ``TABLE``
(no seats) sends it back to the lobby.

Where several referees share the lobby (protocol.md, section 4, "Several referees"), a
player trusts the nicks its ``WELCOME`` lists (``referees=``) and each ``REFEREES`` after it,
drops a nick that quits or changes nick (its own referee's aside), follows a ``TABLE`` only
from the referee it names (``referee=``), obeys that game's lines only from it, and sends it
the game's ``ANSWER`` lines; ``REGISTER``, ``PROOF`` and ``UNREGISTER`` go to its own referee.

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
import base64
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

READ_SIZE = 65536
SCRAM_ITERATIONS = (4096, 100_000)
"""The iteration counts a ``CHALLENGE`` may name (protocol.md, section 3)."""
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


def _hmac(key: bytes, text: bytes) -> bytes:
    return hmac.new(key, text, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass(frozen=True)
class Key:
    """A bot's key and what SCRAM-SHA-256 derives from it for one salt (RFC 5802, section 3).

    Its operator makes it (``make_key``): the arena keeps ``salt``, ``iterations``,
    ``stored_key`` and ``server_key``, the bot the secret. The bot keeps ``client_key`` and
    ``server_key`` too, as RFC 5802 (section 5.1) lets a client cache them for a salt it was
    given before: the PBKDF2 is then paid once, when the key is made, not at every
    registration in this process (where it would hold up the players answering in games)."""

    secret: str
    salt: bytes
    iterations: int
    client_key: bytes
    server_key: bytes

    @property
    def stored_key(self) -> bytes:
        return hashlib.sha256(self.client_key).digest()

    def for_salt(self, salt: bytes, iterations: int) -> tuple[bytes, bytes]:
        """ClientKey and ServerKey for the salt and count a ``CHALLENGE`` names."""
        if (salt, iterations) == (self.salt, self.iterations):
            return self.client_key, self.server_key
        salted = hashlib.pbkdf2_hmac("sha256", self.secret.encode(), salt, iterations)
        return _hmac(salted, b"Client Key"), _hmac(salted, b"Server Key")


def make_key(iterations: int = SCRAM_ITERATIONS[0]) -> Key:
    """A fresh key of 32 letters and digits (as ``arena bots add`` prints) with a fresh salt."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    secret = "".join(secrets.choice(alphabet) for _ in range(32))
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
    return Key(secret, salt, iterations, _hmac(salted, b"Client Key"), _hmac(salted, b"Server Key"))


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
    withdrawn: int = 0
    """Players that read its withdrawal (a ``TABLE`` with no seats, before any ``START``)."""
    reason: str = ""
    referee: str = ""
    """The referee that ran it (its ``TABLE``'s sender)."""

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
    referees: tuple[str, ...] = ("arena",)
    """The referees the players are given, in turn: player ``i`` registers with ``referees[i % len(referees)]``."""
    lobby: str = "#arena"
    rounds: int = 1
    """Games each player plays before it unregisters."""
    delay_max: float = 0.02
    """Seconds at most a player waits before it answers (drawn uniformly from 0)."""
    seed: int = 1
    prefix: str = "p"
    """Nicks are the prefix and a number."""
    keys: dict[str, Key] = field(default_factory=dict)
    """The key of each nick that registers with one (``issue_keys``), by SCRAM."""
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
            group = [
                Player(self, f"{self.prefix}{i}", self.referees[i % len(self.referees)])
                for i in range(at, min(at + batch, first + count))
            ]
            await asyncio.gather(*(p.open() for p in group))
            self.players.extend(group)
            self._left += len(group)

    def issue_keys(self, count: int) -> dict[str, Key]:
        """Keys for the next ``count`` players to connect, as their operator makes them: the
        arena must be given each one's verifier before they register."""
        first = len(self.players)
        issued = {f"{self.prefix}{i}": make_key() for i in range(first, first + count)}
        self.keys.update(issued)
        return issued

    async def storm(self, timeout: float = 60.0) -> int:
        """Every player registers at once (none waits for another's ``WELCOME``); how many
        were welcomed within ``timeout`` seconds."""
        answers = await asyncio.gather(
            *(asyncio.wait_for(p.register(timeout), timeout) for p in self.players), return_exceptions=True
        )
        return sum(1 for a in answers if a is True)

    async def register(self, batch: int = 100, timeout: float = 30.0) -> None:
        """Every player registered. The first of each referee retries until that referee is
        there (a registration sent to a nick nobody holds is answered ``401`` and lost); the
        rest follow ``batch`` at a time."""
        deadline = time.monotonic() + timeout
        firsts = self.players[: len(self.referees)]
        for first in firsts:
            while not await first.register(timeout):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no referee {first.home} on the server after {timeout} s")
                await asyncio.sleep(0.1)
        rest = self.players[len(firsts) :]
        for at in range(0, len(rest), batch):
            answers = await asyncio.gather(*(p.register(timeout) for p in rest[at : at + batch]))
            if not all(answers):
                refused = {p.home for p, ok in zip(rest[at : at + batch], answers, strict=True) if not ok}
                raise RuntimeError(f"the referee {', '.join(sorted(refused))} refused a registration or left")

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

    def __init__(self, crowd: Crowd, nick: str, home: str) -> None:
        self.crowd = crowd
        self.nick = nick
        self.home = home
        """The referee it registers with."""
        self.referees = {home}
        """The nicks whose protocol lines it reads: its own referee's, and those its
        ``WELCOME`` or a ``REFEREES`` listed."""
        self.referee_of: dict[str, str] = {}
        """Game id -> the referee that runs it (its ``TABLE``'s sender), for every table in ``tables``."""
        self.registered = False
        self.played = 0
        self.tables: dict[str, str] = {}
        """Game id -> channel of every table that seats it and has not ended."""
        self.started: set[str] = set()
        self.ended: set[str] = set()
        self.answered: set[tuple[str, str]] = set()
        """(game id, request id) of every answer sent."""
        self._buffer = b""
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._welcome = asyncio.Event()
        self._names_end = asyncio.Event()
        self._registration: asyncio.Future[bool] | None = None
        self.key = crowd.keys.get(nick)
        self._scram: tuple[str, str] | None = None
        """The open SCRAM exchange: client-first-message-bare, then the ServerSignature expected."""
        self.asked = 0.0
        """When it sent its last ``REGISTER`` (``time.monotonic``)."""
        self.welcomed = 0.0
        """When it read its ``WELCOME``."""

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
        """True on the referee's ``WELCOME`` (signed with its key, for a player that has
        one), False on an ``ERROR`` or when the server says nobody holds its nick."""
        self._registration = asyncio.get_running_loop().create_future()
        line = f"PRIVMSG {self.home} :REGISTER 1 name={self.nick} owner=crowd version=1"
        if self.key is not None:
            bare = f"n={self.nick},r={_b64(secrets.token_bytes(18))}"
            self._scram = (bare, "")
            line += f" scram={_b64(f'n,,{bare}'.encode())}"
        self.asked = time.monotonic()
        self.send(line)
        return await asyncio.wait_for(self._registration, timeout)

    def _challenge(self, fields: dict[str, str]) -> None:
        """SCRAM's third step (protocol.md, section 3): check the server-first-message,
        prove the key and keep the signature the ``WELCOME`` must carry."""
        if self.key is None or self._scram is None or self._scram[1]:
            return
        bare = self._scram[0]
        server_first = base64.b64decode(fields.get("scram", "")).decode()
        attributes = dict(part.split("=", 1) for part in server_first.split(",") if "=" in part)
        nonce, salt, count = attributes.get("r", ""), attributes.get("s", ""), attributes.get("i", "")
        low, high = SCRAM_ITERATIONS
        client_nonce = bare.partition(",r=")[2]
        if not (nonce.startswith(client_nonce) and len(nonce) > len(client_nonce) and salt and count.isdigit()):
            return self._refused(f"not a challenge from the referee: {server_first}")
        if not low <= int(count) <= high:
            return self._refused(f"a challenge of {count} iterations")
        client_key, server_key = self.key.for_salt(base64.b64decode(salt), int(count))
        without_proof = f"c=biws,r={nonce}"
        auth = f"{bare},{server_first},{without_proof}".encode()
        signature = _hmac(hashlib.sha256(client_key).digest(), auth)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._scram = (bare, _b64(_hmac(server_key, auth)))
        final = f"{without_proof},p={_b64(proof)}"
        self.send(f"PRIVMSG {self.home} :PROOF scram={_b64(final.encode())}")

    def _signed(self, fields: dict[str, str]) -> bool:
        """Whether a ``WELCOME`` may be believed: with a key, only if it carries the
        ServerSignature of this exchange (compared in constant time)."""
        if self.key is None:
            return True
        expected = "" if self._scram is None else self._scram[1]
        server_final = base64.b64decode(fields.get("scram", "")).decode(errors="replace")
        return bool(expected) and hmac.compare_digest(server_final.encode(), f"v={expected}".encode())

    def _refused(self, why: str) -> None:
        self.crowd.faults.append(f"{self.nick}: {why}")
        if self._registration is not None and not self._registration.done():
            self._registration.set_result(False)

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
            if line.startswith("PING"):
                self.send("PONG" + line[4:])
            elif line.startswith(":"):
                words = line.split(" ", 2)
                if len(words) < 2:
                    continue
                sender = words[0][1:].partition("!")[0]
                if sender in self.referees:
                    if words[1] == "PRIVMSG" and len(words) == 3:
                        self._protocol(sender, words[2].partition(" :")[2])
                    elif words[1] in ("QUIT", "NICK") and sender != self.home:
                        self.referees.discard(sender)  # the nick's next holder is a stranger
                elif words[1] == "001":
                    self._welcome.set()
                elif words[1] == "366":
                    self._names_end.set()
                elif words[1] == "401" and self._registration is not None and not self._registration.done():
                    self._registration.set_result(False)

    def _protocol(self, sender: str, text: str) -> None:
        verb, args, fields = parse(text)
        if fields.get("more") == "true":
            self.crowd.faults.append(f"{self.nick}: a continued line: {text}")
        if verb in ("CHALLENGE", "WELCOME") and sender != self.home:
            return  # the registration's lines count only from its own referee
        if verb == "CHALLENGE":
            self._challenge(fields)
            return
        if verb == "WELCOME":
            if not self._signed(fields):
                return self._refused(f"a WELCOME without the referee's signature: {text}")
            self.registered = True
            self.referees = {self.home, *filter(None, fields.get("referees", "").split(","))}
            self._scram = None
            self.welcomed = time.monotonic()
            if self._registration is not None and not self._registration.done():
                self._registration.set_result(True)
            return
        if verb == "ERROR" and not self.registered:
            return self._refused(text) if sender == self.home else None
        if verb == "REFEREES" and self.registered:
            self.referees = {self.home, *filter(None, fields.get("nicks", "").split(","))}
            return
        if verb == "ERROR" or (verb == "BYE" and self.played < self.crowd.rounds):
            self.crowd.faults.append(f"{self.nick}: {text}")
        if not self.registered or not args:
            return
        gid = args[0]
        if verb == "TABLE":
            if sender == fields.get("referee", self.home):
                self._table(sender, gid, fields)
        elif self.referee_of.get(gid) != sender:
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

    def _table(self, sender: str, gid: str, fields: dict[str, str]) -> None:
        seats = fields.get("seats", "").split(",")
        if self.nick in seats and self.played < self.crowd.rounds:
            game = self.crowd.game(gid)
            game.seats, game.table = frozenset(seats), min(game.table, time.monotonic())
            self.tables[gid] = fields["channel"]
            self.referee_of[gid] = game.referee = sender
            self.send(f"JOIN {fields['channel']}")
        elif self.referee_of.get(gid) == sender:  # withdrawn
            del self.referee_of[gid]
            self.crowd.game(gid).withdrawn += 1
            self.send(f"PART {self.tables.pop(gid)}")

    def _ask(self, gid: str, args: list[str], fields: dict[str, str]) -> None:
        to = fields.get("to", "")
        if len(args) < 2 or (to != "all" and self.nick not in to.split(",")):
            return
        rng = self.crowd.rng
        choice = ",".join(rng.sample(fields.get("options", "").split(","), int(fields.get("pick", "1"))))
        asyncio.get_running_loop().call_later(
            rng.uniform(0.0, self.crowd.delay_max), self._answer, self.referee_of[gid], gid, args[1], choice
        )

    def _answer(self, referee: str, gid: str, rid: str, choice: str) -> None:
        self.answered.add((gid, rid))
        self.send(f"PRIVMSG {referee} :ANSWER {gid} {rid} {choice}")

    def _end(self, gid: str, fields: dict[str, str]) -> None:
        self.ended.add(gid)
        game = self.crowd.game(gid)
        game.end = max(game.end, time.monotonic())
        game.ends += 1
        game.reason = fields.get("reason", "")
        self.send(f"PART {self.tables.pop(gid)}")
        del self.referee_of[gid]
        self.played += 1
        if self.played == self.crowd.rounds:
            self.send(f"PRIVMSG {self.home} :UNREGISTER")
            self.crowd.player_done()
