"""Who plays each seat of a game, and where its private lines go now."""

from __future__ import annotations

from collections.abc import Sequence


class Seats:
    """A game's seats: the names announced at its start, the bots that play them, and the
    nicks their private lines go to now (a bot may rename, or lose its connection)."""

    def __init__(self, names: Sequence[str], bots: Sequence[str] | None = None) -> None:
        self.names = list(names)
        """The seat order by nick as announced at the start; public lines keep these names."""
        self.bots = list(self.names if bots is None else bots)
        """The bot (identity) that plays each seat; by default the names announced."""
        self.nicks = list(self.names)
        """Where each seat's direct messages go now (follows renames)."""
        self.by_bot = {n.lower(): i for i, n in enumerate(self.bots)}
        """Seats by bot: only the connection that registered a seat's bot plays it."""
        self._by_name = {n.lower(): i for i, n in enumerate(self.names)}
        """Seats by the names announced at the start: choices are named this way for good."""
        self.at = dict(self._by_name)
        """Seats by the folded nick their private lines go to now (``nicks``)."""
        self.away: set[str] = set()
        """Folded nicks of seats whose bot has no connection now: their lines are recorded
        but go to nobody, since whoever holds the nick meanwhile is not the bot."""

    def __len__(self) -> int:
        return len(self.names)

    def of(self, bot: str) -> int | None:
        """The seat ``bot`` plays, if any."""
        return self.by_bot.get(bot.lower())

    def named(self, name: str) -> int | None:
        """The seat announced as ``name`` at the start, if any."""
        return self._by_name.get(name.lower())

    def route(self, seat: int, nick: str | None) -> None:
        """Where the seat's private lines go from now on: its bot's connection (after it
        registered or changed nick), or nowhere (None: its connection is gone)."""
        self.away.discard(self.nicks[seat].lower())
        if nick is None:
            self.away.add(self.nicks[seat].lower())
        else:
            self.at.pop(self.nicks[seat].lower(), None)
            self.nicks[seat] = nick
            self.at[nick.lower()] = seat

    def present(self, seat: int | None) -> str | None:
        """The nick of the seat's bot if it is connected (never a stranger on its nick)."""
        if seat is None or self.nicks[seat].lower() in self.away:
            return None
        return self.nicks[seat]
