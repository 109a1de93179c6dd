"""Tuvalon told to spectators, from its public lines (see ``arena/narrate``).

Avalon's story (leaders, votes, quests, the assassin, the end), with the map: where
everyone starts, each move, and who heard each speaker in the second discussion. What was
said there never reaches the channel: a spectator learns who heard whom, and reads the
words in the game's record after the end.
"""

from __future__ import annotations

from ...narrate.sentence import Sentence
from ...protocol import Message
from ..avalon.narration import AvalonStory
from ..wire import parsed
from . import messages as m


class TuvalonStory(AvalonStory):
    game = "tuvalon"
    setup = frozenset({"START", "MAP"})
    rejection_limit = 3
    """After three rejections in a row the next team goes without a vote."""

    @parsed(m.Start)
    def on_start(self, msg: m.Start) -> list[Sentence]:
        say = self.say().add("Tuvalon, 7 players on a 9x9 map: ").names(self.seats).fact("seats", *self.seats)
        say.add(". 4 ").side("good", "good").add(" (Merlin, Percival, two Knights) against 3 ")
        say.side("evil", "evil").add(" (Morgana, the Assassin, Oberon); quest teams of ")
        say.add("-".join(map(str, msg.quests)), " players, quests 3 and 4 fail only on two fail cards.")
        return [say.done()]

    @parsed(m.Map)
    def on_map(self, msg: m.Map) -> list[Sentence]:
        cells = msg.cells
        say = self.say().add("They stand at ")
        for i, (nick, cell) in enumerate(cells.items()):
            say.add(", " if i else "").name(nick).add(f" {cell}").fact("cell", nick, cell)
        return [say.add(".").done()]

    @parsed(m.TeamProposed)
    def on_team_proposed(self, msg: m.TeamProposed) -> list[Sentence]:
        team, leader = list(msg.team), msg.leader
        say = self.say().name(leader).add(" proposes ").names(team)
        if msg.forced:
            say.add(": three rejections in a row, so this team goes without a vote.")
        else:
            say.add("; everyone speaks, moves and speaks again before the vote.")
        return [say.fact("team", self.quest, self.attempt, leader, *sorted(team)).done()]

    def on_ask(self, msg: Message) -> list[Sentence]:
        kind = msg.args[2]
        if kind == "vote":
            return [self.say().add("Everyone votes on ").names(msg.list("team")).add(".").done()]
        if kind in ("team", "assassinate"):
            return super().on_ask(msg)
        return []

    @parsed(m.Speech)
    def on_speech(self, msg: m.Speech) -> list[Sentence]:
        player = msg.player
        if msg.purpose != "near":
            return [self.say().name(player).add(" passes.").done()] if msg.passed else []
        heard = list(msg.heard_by or ())
        say = self.say().name(player)
        if msg.passed:
            say.add(" keeps quiet in the second discussion.")
        elif heard:
            say.add(" takes a second turn within earshot of ").names(heard).add(".")
        else:
            say.add(" takes a second turn out of everyone's hearing.")
        return [say.fact("heard", player, *heard).done()]

    @parsed(m.Move)
    def on_move(self, msg: m.Move) -> list[Sentence]:
        player, before, after = msg.player, msg.from_, msg.to
        say = self.say().name(player)
        say.add(f" stays at {after}." if before == after else f" moves {before} → {after}.")
        return [say.fact("move", player, before, after).done()]

    @parsed(m.Forced)
    def on_forced(self, msg: m.Forced) -> list[Sentence]:
        return [self.say().add(f"Quest {msg.quest} goes without a vote: ").names(list(msg.team)).add(".").done()]

    def side_of(self, nick: str, role: str, end: Message) -> str:
        return "good" if role == "knight" else super().side_of(nick, role, end)
