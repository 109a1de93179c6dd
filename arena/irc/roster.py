"""Who is where, and who is logged in as whom: what a link has seen of others on the server.

``Roster`` keeps channel members (from NAMES and membership events), services accounts (from
the IRCv3 ``account-tag``, ``account-notify`` and ``extended-join`` capabilities, because a
nick alone proves nothing about who sent a line), hosts and topics; ``Channels`` keeps the
channels we mean to be in, re-joined after every reconnection. Both are driven from the
reactor's thread with its mutex held; the link reads them under the same mutex.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable

MAX_HOSTS = 10_000
"""Nicks whose host the roster remembers at most (``host_of``): strangers' lines must not
grow it without bound."""

ACCOUNT_CAPS = ("account-tag", "account-notify", "extended-join")
"""IRCv3 capabilities that tell who is logged in as whom, requested one by one because a
``CAP REQ`` naming several is refused whole if the server lacks any of them."""

Fold = Callable[[str], str]


class Roster:
    """Members, accounts, hosts and topics, by folded name (``fold``: the server's case
    folding). Forgotten on a disconnection (``clear``), hosts aside."""

    def __init__(self, fold: Fold) -> None:
        self.fold = fold
        self.members: dict[str, dict[str, str]] = {}
        """Folded channel -> folded nick -> nick, for the channels we are in."""
        self._where: dict[str, set[str]] = {}
        """Folded nick -> the folded channels (of ours) it is in: a quit, a nick change or
        a part costs the channels of that nick, not every channel we are in."""
        self.accounts: dict[str, str] = {}
        """Folded nick -> account, logged-in users only."""
        self.hosts: OrderedDict[str, str] = OrderedDict()
        """Folded nick -> the host of its latest line; the oldest is forgotten first past
        ``MAX_HOSTS``."""
        self.topics: dict[str, str] = {}
        """Topics of the channels we are in, by folded name."""
        self.caps: set[str] = set()
        """Capabilities the server acknowledged on this connection."""
        self.pending_caps: set[str] = set()
        """Requested, not yet answered."""

    @property
    def accounts_enabled(self) -> bool:
        return "account-tag" in self.caps

    def members_of(self, channel: str) -> frozenset[str]:
        return frozenset(self.members.get(self.fold(channel), {}).values())

    def present(self, nick: str, channel: str) -> bool:
        return self.fold(channel) in self._where.get(self.fold(nick), ())

    def clear(self) -> None:
        self.members.clear()
        self._where.clear()
        self.topics.clear()
        self.accounts.clear()
        self.caps.clear()
        self.pending_caps.clear()

    # -- capabilities --------------------------------------------------------------------------

    def request_caps(self) -> list[str]:
        """The ``CAP REQ`` lines that ask for accounts, one capability each."""
        self.pending_caps = set(ACCOUNT_CAPS)
        return [f"CAP REQ :{cap}" for cap in ACCOUNT_CAPS]

    def caps_answered(self, arguments: list[str]) -> None:
        """``CAP * ACK|NAK :name`` answering one of our requests (one name per request)."""
        if not arguments or arguments[0].upper() not in ("ACK", "NAK"):
            return
        acked = arguments[0].upper() == "ACK"
        for name in " ".join(arguments[1:]).split():
            name = name.lstrip("-~=")
            if name in self.pending_caps:
                self.pending_caps.discard(name)
                if acked:
                    self.caps.add(name)

    # -- what a line tells of its sender ---------------------------------------------------------

    def track(self, nick: str, host: str | None, command: str, params: list[str], tags: dict[str, str | None]) -> None:
        """Account and host of the sender of one line, as the server relayed it: for the
        sender of a message, as of that very message."""
        self._track_account(nick, command, params, tags)
        self._track_host(nick, host, command, params)

    def _track_account(self, nick: str, command: str, params: list[str], tags: dict[str, str | None]) -> None:
        folded = self.fold(nick)
        if command == "QUIT":
            self.accounts.pop(folded, None)
            return
        if command == "NICK" and params:
            account = self.accounts.pop(folded, None)
            folded = self.fold(params[0])
            if account is not None:
                self.accounts[folded] = account
        if command == "ACCOUNT" and params:  # account-notify: logged in, or out ("*")
            account = params[0]
        elif command == "JOIN" and len(params) >= 2 and "extended-join" in self.caps:
            account = params[1]  # JOIN #channel account|* :realname
        elif self.accounts_enabled:
            account = tags.get("account")  # absent: not logged in
        else:
            return
        if account and account != "*":
            self.accounts[folded] = account
        else:
            self.accounts.pop(folded, None)

    def _track_host(self, nick: str, host: str | None, command: str, params: list[str]) -> None:
        folded = self.fold(nick)
        self.hosts.pop(folded, None)
        if command == "QUIT" or not host:
            return
        if command == "NICK" and params:
            folded = self.fold(params[0])
        self.hosts[folded] = host
        while len(self.hosts) > MAX_HOSTS:
            self.hosts.popitem(last=False)

    # -- membership ------------------------------------------------------------------------------

    def names(self, channel: str, entries: str, prefixes: str) -> list[str]:
        """A NAMES reply for a channel we are in: adds its members; returns the operators
        among them (``@nick``)."""
        folded = self.fold(channel)
        if folded not in self.members:
            return []
        operators = []
        for entry in entries.split():
            name = entry.lstrip(prefixes)
            if name:
                self._add(name, folded)
                if "@" in entry[: len(entry) - len(name)]:
                    operators.append(name)
        return operators

    def _add(self, nick: str, folded_channel: str) -> None:
        folded = self.fold(nick)
        self.members.setdefault(folded_channel, {})[folded] = nick
        self._where.setdefault(folded, set()).add(folded_channel)

    def _drop(self, folded_nick: str, folded_channel: str) -> None:
        members = self.members.get(folded_channel)
        if members is not None:
            members.pop(folded_nick, None)
        channels = self._where.get(folded_nick)
        if channels is not None:
            channels.discard(folded_channel)
            if not channels:
                del self._where[folded_nick]

    def joined(self, nick: str, channel: str, me: bool) -> None:
        folded = self.fold(channel)
        if me:
            self._forget(folded)
            self.members[folded] = {}  # filled by the NAMES reply that follows
        self._add(nick, folded)

    def _forget(self, folded_channel: str) -> None:
        """We are out of a channel (or in it anew): nobody is known to be in it."""
        for folded in list(self.members.pop(folded_channel, ())):
            self._drop(folded, folded_channel)

    def left(self, nick: str, channel: str, me: bool) -> None:
        folded = self.fold(channel)
        if me:
            self._forget(folded)
        elif folded in self.members:
            self._drop(self.fold(nick), folded)
            if self.fold(nick) not in self._where:
                self.accounts.pop(self.fold(nick), None)  # out of sight: no longer known

    def quit(self, nick: str) -> None:
        folded = self.fold(nick)
        for channel in list(self._where.get(folded, ())):
            self._drop(folded, channel)

    def renamed(self, old: str, new: str) -> None:
        folded = self.fold(old)
        for channel in list(self._where.get(folded, ())):
            self._drop(folded, channel)
            self._add(new, channel)

    def topic(self, channel: str, text: str) -> None:
        self.topics[self.fold(channel)] = text


class Channels:
    """The channels we keep joined (and their keys), by folded name, and those whose join
    is not confirmed yet on this connection."""

    def __init__(self, fold: Fold, channels: Iterable[str]) -> None:
        self.fold = fold
        self.wanted: dict[str, str] = {}
        """Folded name -> name as configured."""
        self.keys: dict[str, str] = {}
        self.pending: set[str] = set()
        for channel in channels:
            self.wanted[fold(channel)] = channel

    def want(self, channel: str, key: str | None) -> str:
        folded = self.fold(channel)
        self.wanted[folded] = channel
        if key is not None:
            self.keys[folded] = key
        return folded

    def drop(self, channel: str) -> str:
        """Stop keeping ``channel`` (left, kicked, refused)."""
        folded = self.fold(channel)
        self.wanted.pop(folded, None)
        self.keys.pop(folded, None)
        self.pending.discard(folded)
        return folded

    def join_line(self, folded: str) -> str:
        key = self.keys.get(folded)
        return f"JOIN {self.wanted[folded]}" + (f" {key}" if key else "")

    def join_all(self) -> list[str]:
        """Registered: every channel we keep is to be joined, and confirmed."""
        self.pending = set(self.wanted)
        return [self.join_line(folded) for folded in self.wanted]

    def confirmed(self, channel: str, members: dict[str, dict[str, str]]) -> bool:
        """NAMES is complete for ``channel``: its join counts as done (so ``on_ready`` sees
        full members). Returns whether that was the last one awaited."""
        folded = self.fold(channel)
        if folded in self.pending and folded in members:
            self.pending.discard(folded)
            return not self.pending
        return False

    def refold(self) -> None:
        """CASEMAPPING may have changed how names fold: re-key by the new folding."""
        old = self.wanted
        self.wanted = {self.fold(c): c for c in old.values()}
        self.keys = {self.fold(old.get(k, k)): v for k, v in self.keys.items()}
        self.pending = {self.fold(old.get(k, k)) for k in self.pending}
