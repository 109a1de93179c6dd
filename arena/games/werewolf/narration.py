"""Werewolf told to spectators, from its public lines (see ``arena/narrate``).

Nights and dawns, the dead (with their roles where the options reveal them), the leader's
election folded into one sentence, the speaking order, the players' speeches as they say
them, each vote round folded into one sentence with who voted for whom, executions, shots,
and the end. The score is kept from the lines: the day, who is alive, who died as what.
"""

from __future__ import annotations

from ...narrate.sentence import Say, Sentence
from ...narrate.story import Story
from ...protocol import Message
from ..wire import NOBODY, parsed
from . import messages as m
from .roles.registry import REGISTRY

REASONS = {
    "all_wolves_eliminated": "every wolf is dead",
    "parity_or_majority": "the wolves are as many as the village",
    "lovers_last_alive": "only the lovers and Cupid are left",
    "piper_charmed_all": "the piper has charmed everyone alive",
    "jester_executed": "the village executed the jester",
    "serial_killer_survived": "the serial killer is alive with at most one other",
    "arsonist_survived": "the arsonist is alive with at most one other",
    "cult_recruited_all": "everyone alive is in the cult",
    "day_limit": "the day limit was reached",
}

WINNERS = {"village": "the village wins", "werewolf": "the werewolves win", "lovers": "the lovers win"}
"""How each winner reads (a neutral role: ``the piper wins``)."""


class WerewolfStory(Story):
    game = "werewolf"
    setup = frozenset({"START", "RULES"})

    def __init__(self, gid: str, seats: list[str]) -> None:
        super().__init__(gid, seats)
        self.day = 0
        self.night = 0
        self.alive: list[str] = list(seats)
        self.dead: dict[str, str | None] = {}
        """The dead in the order they died, with their role where it was made public."""
        self._leader_votes: list[tuple[str, str]] = []
        self._ballots: list[tuple[str, str]] = []
        self._last_words: str | None = None
        """Who has the floor for last words and has not yet spoken."""
        self._night_now = False
        self._held: list[Sentence] = []
        """What a night's death revealed (an oracle's sight), told after its dawn names the dead."""
        self._majority: bool | None = None
        """dayVoteMajority, once RULES told it."""
        self._candidacies = 0
        """The day whose candidacies were announced (their talk then reads in context)."""
        self._idiot: str | None = None
        """The idiot just revealed by the vote, whose sparing that sentence told."""

    def hear(self, msg: Message, at: float | None = None) -> list[Sentence]:
        if msg.verb == "NIGHT":
            self._night_now = True
        elif msg.verb == "DAWN":
            self._night_now = False
        said = super().hear(msg, at)
        if msg.verb == "ORACLE" and self._night_now:
            self._held += said
            return []
        if self._held and msg.verb != "ORACLE":
            held, self._held = self._held, []
            return held + said if msg.verb == "END" else said + held
        return said

    def _died(self, say: Say, nick: str, role: str | None) -> Say:
        """``nick`` (and its role, where public) in a sentence about a death; remembered."""
        self.dead[nick] = role
        if nick in self.alive:
            self.alive.remove(nick)
        say.name(nick).fact("dead", nick)
        if role:
            say.add(" (").side(_read(role), _team(role)).add(")").fact("role", nick, role)
        return say

    # -- lines -----------------------------------------------------------------------

    @parsed(m.Start)
    def on_start(self, msg: m.Start) -> list[Sentence]:
        self.alive = list(self.seats)
        deal = msg.roles
        say = self.say().add(f"Werewolf, {len(self.seats)} players: ").names(self.seats).add(". Dealt: ")
        for i, (role, count) in enumerate(deal.items()):
            say.add(", " if i else "", f"{count} ").side(_read(role), _team(role)).fact("deal", role, count)
        return [say.add(".").fact("seats", *self.seats).done()]

    @parsed(m.Rules)
    def on_rules(self, msg: m.Rules) -> list[Sentence]:
        reveal = msg.options.get("revealRolesOnDeath") == "true"
        self._majority = msg.options.get("dayVoteMajority") == "true"
        text = "A player's role is revealed at death." if reveal else "Roles stay hidden until the end."
        return [self.say().add(text).fact("reveal", str(reveal).lower()).done()]

    @parsed(m.Night)
    def on_night(self, msg: m.Night) -> list[Sentence]:
        self.night = msg.night or self.night + 1
        return [self.say().add(f"Night {self.night} falls.").fact("night", self.night).done()]

    @parsed(m.Dawn)
    def on_dawn(self, msg: m.Dawn) -> list[Sentence]:
        day, dead, roles = msg.day or self.day, msg.dead, msg.roles or {}
        say = self.say().add(f"Dawn of day {day}: ")
        if not dead:
            return [say.add("nobody died in the night.").done()]
        say.add("found dead: ")
        for i, nick in enumerate(dead):
            if i:
                say.add("; ")
            self._died(say, nick, roles.get(nick) or None)
        return [say.add(".").done()]

    @parsed(m.Day)
    def on_day(self, msg: m.Day) -> list[Sentence]:
        self.day = msg.day or self.day
        self.alive = list(msg.alive)
        say = self.say().add(f"Day {self.day}, {len(self.alive)} alive: ").names(self.alive)
        say.fact("day", self.day).fact("alive", *sorted(self.alive))
        if msg.leader is not None:
            say.add("; leader ").name(msg.leader).fact("leader", msg.leader)
        if self.dead:
            say.add("; dead: ")
            for i, (nick, role) in enumerate(self.dead.items()):
                say.add(", " if i else "").name(nick)
                if role:
                    say.add(" (").side(_read(role), _team(role)).add(")")
        return [say.add(".").done()]

    @parsed(m.Candidacy)
    def on_candidacy(self, msg: m.Candidacy) -> list[Sentence]:
        if not msg.stand:
            return []
        return [self.say().name(msg.player).add(" stands for leader.").fact("candidate", msg.player).done()]

    @parsed(m.LeaderVote)
    def on_leader_vote(self, msg: m.LeaderVote) -> list[Sentence]:
        self._leader_votes.append((msg.player, msg.vote or "abstain"))
        return []

    @parsed(m.Leader)
    def on_leader(self, msg: m.Leader) -> list[Sentence]:
        votes, self._leader_votes = self._leader_votes, []
        leader = msg.leader
        if not msg.candidates:
            return [self.say().add("Nobody stood for leader: the day has no leader.").done()]
        say = self.say()
        if leader is None:
            say.add("No leader is elected")
        else:
            say.name(leader).add(" is elected leader").fact("leader", leader)
            if not votes:
                # Nobody voted: a lone candidate, or every voter stood (then the lot chose).
                say.add(" unopposed" if len(msg.candidates) == 1 else " by lot: everyone stood, nobody voted")
            elif msg.tie:
                say.add(" (by lot, after a tie)")
        say.add(".")
        if votes:
            self._tally(say, votes, "leader_vote")
        return [say.done()]

    @parsed(m.Order)
    def on_order(self, msg: m.Order) -> list[Sentence]:
        speakers = list(msg.speakers)
        say = self.say().add("Speaking order: ")
        leader = msg.leader
        if leader is not None and len(speakers) > 1 and speakers[-1] == leader and leader in speakers[:-1]:
            # The leader speaks in turn and has the last word too.
            say.names(speakers[:-1]).add(", then ").name(leader).add(" again, as leader")
        else:
            say.names(speakers)
        return [say.add(".").fact("order", *speakers).done()]

    def on_ask(self, msg: Message) -> list[Sentence]:
        """Last words are announced before their first line (``talk``): the floor's other
        turns follow the announced order, and their talk names the speaker."""
        self._last_words = msg.get("to") if msg.args[2] == "last_words" else None
        if msg.args[2] == "candidacy" and self._candidacies != self.day:
            self._candidacies = self.day
            floor = " may speak, then" if msg.get("floor") == "true" else ""
            return [self.say().add(f"Who stands for leader? Each player in turn{floor} stands or declines.").done()]
        return []

    def on_speech(self, msg: Message) -> list[Sentence]:
        """A turn ends: last words not said by now never will be."""
        self._last_words = None
        return []

    def talk(self, nick: str, text: str) -> list[Sentence]:
        said = super().talk(nick, text)
        if said and self._last_words is not None and nick.lower() == self._last_words.lower():
            self._last_words = None
            return [self.say().add("Last words of ").name(nick).add(":").done(), *said]
        return said

    @parsed(m.Ballot)
    def on_ballot(self, msg: m.Ballot) -> list[Sentence]:
        self._ballots.append((msg.player, msg.vote or "abstain"))
        return []

    @parsed(m.VoteResult)
    def on_vote_result(self, msg: m.VoteResult) -> list[Sentence]:
        ballots, self._ballots = self._ballots, []
        round_, outcome, target = str(msg.round or 1), msg.outcome, msg.target or NOBODY
        say = self.say().add(f"Day {self.day} {'runoff' if round_ == '2' else 'vote'}: ")
        say.fact("vote_result", self.day, round_, outcome, target)
        for voter, vote in ballots:
            say.fact("ballot", self.day, round_, voter, vote)
        self._tally(say, ballots, None)
        if outcome == "execution":
            say.add(" ").name(target).add(" is to be executed.")
        elif outcome == "runoff":
            say.add(" A tie between ").names(list(msg.candidates)).add(": a runoff.")
        else:
            why = self._why_nobody(ballots)
            say.add(f" {why}nobody is executed." if why else " Nobody is executed.")
        return [say.done()]

    def _why_nobody(self, ballots: list[tuple[str, str]]) -> str:
        """Why a vote executed nobody, from its ballots and the rules (``RULES``):
        ``Still a tie: ``, ``No majority ...: ``; nothing if the rules were not heard."""
        if self._majority is None:
            return ""
        counts: dict[str, int] = {}
        for _, vote in ballots:
            counts[vote] = counts.get(vote, 0) + 1
        abstained = counts.pop("abstain", 0)
        if not counts:
            return ""
        top = max(counts.values())
        if self._majority and top <= abstained:  # more votes than abstentions are needed
            return f"No majority (at most {top} vote{'s' if top != 1 else ''}, {abstained} abstaining): "
        return "Still a tie: "

    def _tally(self, say: Say, votes: list[tuple[str, str]], kind: str | None) -> None:
        """Who voted for whom, most votes first: ``bob 3 (alice, carol, dave)``."""
        by_target: dict[str, list[str]] = {}
        for voter, vote in votes:
            by_target.setdefault(vote, []).append(voter)
            if kind is not None:
                say.fact(kind, voter, vote)
        abstained = by_target.pop("abstain", [])
        ranked = sorted(by_target.items(), key=lambda item: -len(item[1]))
        say.add(" " if kind else "")
        for i, (target, voters) in enumerate(ranked):
            count = f"{len(voters)} vote{'s' if len(voters) != 1 else ''}"
            say.add("; " if i else "").name(target).add(f" {count} (").names(voters).add(")")
        if abstained:
            say.add("; " if ranked else "").add("abstained: ").names(abstained)
        if not ranked and not abstained:
            say.add("no votes")
        say.add(".")

    @parsed(m.Execution)
    def on_execution(self, msg: m.Execution) -> list[Sentence]:
        player = msg.player
        idiot, self._idiot = self._idiot, None
        if msg.spared:
            if idiot == player:  # "spared, but votes no more" said it
                return []
            return [self.say().name(player).add(" is spared.").fact("spared", player).done()]
        say = self.say().add("Executed: ").fact("executed", player)
        return [self._died(say, player, msg.role).add(".").done()]

    @parsed(m.Idiot)
    def on_idiot(self, msg: m.Idiot) -> list[Sentence]:
        player = msg.player
        self._idiot = player
        say = self.say().name(player).add(" is the ").side("idiot", "village").add(": spared, but votes no more.")
        return [say.fact("role", player, "idiot").fact("spared", player).done()]

    @parsed(m.Death)
    def on_death(self, msg: m.Death) -> list[Sentence]:
        say = self.say().add("Dead: ")
        return [self._died(say, msg.player, msg.role).add(".").done()]

    @parsed(m.Silenced)
    def on_silenced(self, msg: m.Silenced) -> list[Sentence]:
        return [self.say().add("Silenced today: ").names(list(msg.players)).add(".").done()]

    @parsed(m.Punished)
    def on_punished(self, msg: m.Punished) -> list[Sentence]:
        player = msg.player
        say = self.say().add("The scapegoat punishes ").name(player)
        if msg.punishment == "death":
            return [say.add(": they die.").done()]
        return [say.add(": no vote tomorrow.").fact("voteless", player).done()]

    @parsed(m.Oracle)
    def on_oracle(self, msg: m.Oracle) -> list[Sentence]:
        target, role = msg.target, msg.role
        say = self.say().add("An oracle died: ").name(target).add(" is the ").side(_read(role), _team(role)).add(".")
        return [say.fact("role", target, role).done()]

    @parsed(m.Shot)
    def on_shot(self, msg: m.Shot) -> list[Sentence]:
        hunter, target = msg.hunter, msg.target or NOBODY
        say = self.say()
        if hunter is None:
            say.add("A hunter's shot kills ").name(target).add(".")
        else:
            say.name(hunter).add(", the ").side("hunter", "village").fact("role", hunter, "hunter")
            if target == NOBODY:
                return [say.add(", shoots nobody.").done()]
            say.add(", shoots ").name(target).add(".")
        return [say.fact("shot", target).done()]

    # -- the end ---------------------------------------------------------------------

    def progress(self) -> str:
        if self.day == 0:
            return "night 1"
        return f"{self.day} day{'s' if self.day != 1 else ''}"

    def outcome(self, say: Say, winner: str, reason: str) -> None:
        why = REASONS.get(reason, reason.replace("_", " "))
        if winner == NOBODY:
            say.add(f"a draw: {why}.")
        else:
            say.side(WINNERS.get(winner, f"the {winner.replace('_', ' ')} wins"), winner)
            say.add(f": {why}.")

    def side_of(self, nick: str, role: str, end: Message) -> str:
        return _team(role)

    def winners(self, end: Message) -> list[str]:
        news = m.End.parse(end)
        winner, roles = news.winner or NOBODY, news.roles
        if winner == NOBODY:
            return []
        # A living neutral without a win of its own (roleblocker, bomb) wins with the winners.
        survivors = {nick for nick, role in roles.items() if nick in self.alive and _survivor(role)}
        if winner == "lovers":
            lovers = set(news.lovers or ())
            found = [nick for nick, role in roles.items() if nick in lovers or role == "cupid"]
        elif winner == "cult":
            cult = set(news.cult or ())
            found = [nick for nick, role in roles.items() if nick in cult or role == "cult_leader"]
        elif winner in ("village", "werewolf"):
            found = [nick for nick, role in roles.items() if _team(role) == winner]
        else:
            found = [nick for nick, role in roles.items() if role == winner]
        return [nick for nick in roles if nick in survivors or nick in found]


def _survivor(role: str) -> bool:
    found = REGISTRY.get(role)
    return found is not None and found.survivor


def _read(role: str) -> str:
    """A role as people read it: ``bus driver``, ``cult leader``."""
    return role.replace("_", " ")


def _team(role: str) -> str:
    """The side a role plays for (``village``, ``werewolf``, ``neutral``)."""
    found = REGISTRY.get(role)
    return found.team.value if found is not None else "neutral"
