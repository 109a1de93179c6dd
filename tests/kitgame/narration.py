"""How odd one out is told to spectators."""

from __future__ import annotations

from arena.narrate.sentence import Say, Sentence
from arena.narrate.story import Story
from arena.protocol import Message

from .engine import CAUGHT, SPY


class OddOneStory(Story):
    game = "oddone"

    def __init__(self, gid: str, seats: list[str]) -> None:
        super().__init__(gid, seats)
        self.rounds = 0

    def on_tally(self, msg: Message) -> list[Sentence]:
        self.rounds = msg.int("round")
        out = msg.get("out", "none")
        say = self.say().add(f"Round {self.rounds}: ").fact("tally", self.rounds, out)
        if out == "none":
            return [say.add("the accusations split, nobody is out.").done()]
        return [say.name(out).add(" is accused most and is out.").done()]

    def progress(self) -> str:
        return f"{self.rounds} round{'s' if self.rounds != 1 else ''}"

    def outcome(self, say: Say, winner: str, reason: str) -> None:
        say.add("the citizens win: the spy was caught." if reason == CAUGHT else "the spy wins: never caught.")

    def side_of(self, nick: str, role: str, end: Message) -> str:
        return "evil" if role == SPY else "good"

    def winners(self, end: Message) -> list[str]:
        spy_won = end.get("winner") == "spy"
        return [nick for nick, role in end.pairs("roles").items() if (role == SPY) == spy_won]
