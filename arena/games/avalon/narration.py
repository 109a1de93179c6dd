"""Avalon told to spectators, from its public lines (see ``arena/narrate``).

One sentence per step a reader follows: who leads, whom they propose, how everyone voted
(one sentence per vote round), each quest's result with the score, the assassin's guess,
the end. The score is kept from the lines: quests won and lost, rejections in a row.
"""

from __future__ import annotations

from ...narrate.sentence import Say, Sentence
from ...narrate.story import Story
from ...protocol import Message
from ..wire import parsed
from . import messages as m
from .roles import Role, starting_side

REASONS = {
    "three_fails": "three quests failed",
    "five_rejections": "five teams in a row were rejected",
    "assassinated_merlin": "the assassin found Merlin",
    "merlin_survived": "the assassin missed Merlin",
    "three_successes": "three quests succeeded",
}

SPECIAL = ("percival", "morgana", "mordred", "oberon")
"""Optional roles named at the start when their option is on."""


class AvalonStory(Story):
    game = "avalon"
    setup = frozenset({"START", "DECK"})
    rejection_limit = 5
    """Rejections in a row that decide the round (Avalon: evil wins)."""

    def __init__(self, gid: str, seats: list[str]) -> None:
        super().__init__(gid, seats)
        self.quest = 0
        self.attempt = 0
        self.quests_done = 0

    @parsed(m.Start)
    def on_start(self, msg: m.Start) -> list[Sentence]:
        say = self.say().add(f"Avalon, {len(self.seats)} players: ").names(self.seats).fact("seats", *self.seats)
        say.add(f". {msg.good} ").side("good", "good").add(f" against {msg.evil} ")
        say.side("evil", "evil").add("; quest teams of ").add("-".join(map(str, msg.quests))).add(" players.")
        options = msg.options
        rules = ["Merlin and the assassin"] if options.get("merlin") == "true" else []
        rules += [name.capitalize() for name in SPECIAL if options.get(name) == "true"]
        if options.get("lancelot", "0") != "0":
            rules.append(f"the Lancelots (variant {options['lancelot']})")
        if rules:
            say.add(" In play: ", ", ".join(rules), ".")
        return [say.done()]

    @parsed(m.Deck)
    def on_deck(self, msg: m.Deck) -> list[Sentence]:
        return [self.say().add("Loyalty cards for quests 1-5: ", ", ".join(msg.cards), ".").done()]

    @parsed(m.Loyalty)
    def on_loyalty(self, msg: m.Loyalty) -> list[Sentence]:
        card = msg.card
        say = self.say().add(f"Loyalty card for quest {msg.quest}: {card}")
        return [say.add(": the Lancelots change sides." if card == "switch" else ".").done()]

    def on_ask(self, msg: Message) -> list[Sentence]:
        kind = msg.args[2]
        if kind == "team":
            self.quest, self.attempt = msg.int("quest", 0), msg.int("attempt", 0)
            leader = msg.get("to", "?")
            say = self.say().add(f"Quest {self.quest}, team of {msg.get('pick', '?')}: ").name(leader)
            say.add(
                " leads"
                + (
                    f" (attempt {self.attempt}, {msg.get('rejections')} rejected in a row)."
                    if self.attempt > 1
                    else "."
                )
            )
            return [say.fact("leader", self.quest, self.attempt, leader).done()]
        if kind == "vote":
            # The vote's request says the quest and the round too: a spectator who came in
            # after the team's request (a narrator joining late) still tells the round right.
            self.quest, self.attempt = msg.int("quest", self.quest), msg.int("rejections", self.attempt - 1) + 1
            team, leader = msg.list("team"), msg.get("leader", "?")
            say = self.say().name(leader).add(" proposes ").names(team).add("; everyone votes.")
            return [say.fact("team", self.quest, self.attempt, leader, *sorted(team)).done()]
        if kind == "assassinate":
            assassin = msg.get("to", "?")
            say = self.say().add("Good has won three quests, but ").name(assassin).add(", the ")
            say.side("assassin", "evil").add(", may still name Merlin.").fact("role", assassin, "assassin")
            return [say.done()]
        return []

    @parsed(m.Votes)
    def on_votes(self, msg: m.Votes) -> list[Sentence]:
        approve, reject = list(msg.approve), list(msg.reject)
        approved = msg.result == "approved"
        say = self.say().add(f"{'Approved' if approved else 'Rejected'} {len(approve)}-{len(reject)}: ")
        say.names(approve).add(" for; ").names(reject).add(" against.")
        say.fact("votes", self.quest, self.attempt, msg.result)
        for nick in approve:
            say.fact("vote", self.quest, self.attempt, nick, "approve")
        for nick in reject:
            say.fact("vote", self.quest, self.attempt, nick, "reject")
        if not approved:
            rejections = msg.rejections
            say.add(f" Rejections in a row: {rejections} of {self.rejection_limit}.").fact("rejections", rejections)
        return [say.done()]

    @parsed(m.Quest)
    def on_quest(self, msg: m.Quest) -> list[Sentence]:
        quest, fails, result = msg.quest, msg.fails, msg.result
        self.quests_done += 1
        say = self.say().add(f"Quest {quest} ")
        if result == "success":
            say.side("succeeds", "good")
        else:
            say.side("fails", "evil")
        cards = "no fail card" if fails == 0 else "1 fail card" if fails == 1 else f"{fails} fail cards"
        successes, failures = msg.successes, msg.failures
        say.add(f" ({cards}). Score: ").side(f"good {successes}", "good").add(", ")
        say.side(f"evil {failures}", "evil").add(".")
        return [say.fact("quest", quest, result, fails).fact("score", successes, failures).done()]

    @parsed(m.Assassination)
    def on_assassination(self, msg: m.Assassination) -> list[Sentence]:
        assassin, target, hit = msg.assassin, msg.target, msg.hit
        say = self.say().name(assassin).add(" names ").name(target).add(" as Merlin: ")
        say.add("a hit." if hit else "a miss.").fact("assassination", assassin, target, str(hit).lower())
        if hit:
            say.fact("role", target, "merlin")
        return [say.done()]

    # -- the end ---------------------------------------------------------------------

    def progress(self) -> str:
        return f"{self.quests_done} quest{'s' if self.quests_done != 1 else ''}"

    def outcome(self, say: Say, winner: str, reason: str) -> None:
        say.side(f"{winner} wins", winner).add(f": {REASONS.get(reason, reason.replace('_', ' '))}.")

    def side_of(self, nick: str, role: str, end: Message) -> str:
        final = (m.End.parse(end).lancelots or {}).get(nick)
        if final:
            return final
        try:
            return starting_side(Role(role)).value
        except ValueError:
            return ""

    def winners(self, end: Message) -> list[str]:
        news = m.End.parse(end)
        return [nick for nick, role in news.roles.items() if self.side_of(nick, role, end) == news.winner]
