"""Avalon for a model: the rules as this table plays them, the history in sentences, and what
a player knows (its role, whom it sees and what that means, the quest track)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

from ...games.avalon import messages as m
from ...games.avalon.messages import MESSAGES
from ...games.wire import WireMessage, read
from ...protocol import Message
from .. import Ask, GameView
from ..avalon import AvalonState
from .render import Fields, Renderer, followed, join, memory

BASICS = """\
Avalon is a game of hidden loyalties between two sides, good and evil. Evil players mostly \
know one another; good players know nothing about anyone except through a special role.

Each round one player is the leader. The leader proposes a team of exactly the size the \
current quest needs (leaders may include themselves). Then every player votes approve or \
reject, all at once, and the votes are shown. If a strict majority approves, the team goes \
on the quest; if not, the next player in seat order leads a new proposal. The lead passes to \
the next seat after every proposal. Five rejected proposals in a row: evil wins at once.

On a quest each team member secretly plays a card. Good players can only play success; \
evil players may play success or fail. The quest fails when it receives at least the number \
of fail cards it needs (listed below); only the number of fail cards is revealed, never who \
played them. Three failed quests: evil wins. Three successful quests: good wins{assassin}."""

ASSASSIN = ", unless the assassin then names Merlin correctly, which gives the game to evil"

ROLES = {
    "merlin": "Merlin (good) knows the evil players{mordred}. Merlin must steer the good side without being "
    "recognised, because the assassin gets one guess at the end.",
    "assassin": "The assassin (evil) knows the other evil players{oberon}. If good wins three "
    "quests, the assassin names one player as Merlin; a correct guess wins the game for evil.",
    "percival": "Percival (good) sees Merlin{morgana} and can protect Merlin by drawing suspicion.",
    "morgana": "Morgana (evil) appears to Percival exactly like Merlin, to confuse him.",
    "mordred": "Mordred (evil) is hidden from Merlin.",
    "oberon": "Oberon (evil) does not know the other evil players and they do not know him; Merlin does see him.",
    "servant": "Loyal servants (good) know nothing at the start.",
    "minion": "Minions (evil) know the other evil players{oberon}.",
}

LANCELOT = {
    1: "Lancelot variant 1: a good and an evil Lancelot are in play. From quest 3 on, a hidden loyalty card is "
    "turned at the start of each quest; a switch card swaps the two Lancelots' sides.",
    2: "Lancelot variant 2: a good and an evil Lancelot are in play. Five loyalty cards were shown at the start, "
    "one applying at the start of each quest; a switch card swaps the two Lancelots' sides. On a quest the "
    "Lancelot who is evil at that moment must play fail, the good one success.",
    3: "Lancelot variant 3: a good and an evil Lancelot are in play and know each other (the evil Lancelot cannot "
    "tell the good one from the other evil players he sees).",
}

STRATEGY = """\
Good players win by sending only good players on quests: read the votes and the quest \
results to find out who is evil, and reject teams you do not trust. Evil players win by \
getting onto teams and failing quests (one fail card is usually enough) while looking good, \
or by making five proposals in a row fail. Anyone may lie about their role."""

SEES = {
    "merlin": "the evil players{mordred}",
    "percival": "Merlin{morgana}",
    "assassin": "your fellow evil players{oberon}",
    "morgana": "your fellow evil players{oberon}",
    "mordred": "your fellow evil players{oberon}",
    "minion": "your fellow evil players{oberon}",
    "good_lancelot": "the evil Lancelot",
    "evil_lancelot": "the good Lancelot and the evil players except Oberon, without knowing which one is Lancelot",
}

TASKS = {
    "team": "You lead quest {quest} (proposal {attempt}; {rejections} rejected in a row). Choose exactly {pick} "
    "players for the team.",
    "vote": "{leader} proposes the team {team} for quest {quest}. Vote approve or reject "
    "({rejections} proposals in a row were rejected; a fifth rejection makes evil win).",
    "quest": "You are on quest {quest} with {team}. Play your card.",
    "assassinate": "Good has won three quests. Name the player you believe is Merlin: if you are right, evil wins.",
}


class AvalonText(Renderer):
    title = "Avalon"
    tasks = TASKS

    def rules(self, game: GameView[Any]) -> str:
        options = game.options
        start = game.start
        merlin = options.get("merlin", "true") == "true"
        lancelot = int(options.get("lancelot", "0") or 0)
        text = [BASICS.format(assassin=ASSASSIN if merlin else "")]
        text.append(
            f"This table: {len(game.seats)} players in seat order {', '.join(game.seats)}; "
            f"{start.get('good', '?')} good and {start.get('evil', '?')} evil. Team size of quests 1-5: "
            f"{start.get('quests', '?')}; fail cards that sink quests 1-5: {start.get('fails', '?')}."
        )
        dealt = {r for r in ("percival", "morgana", "mordred", "oberon") if options.get(r) == "true"}
        oberon = " (except Oberon)" if "oberon" in dealt else ""
        roles = (
            [
                ROLES["merlin"].format(mordred=", except Mordred" if "mordred" in dealt else ""),
                ROLES["assassin"].format(oberon=oberon),
            ]
            if merlin
            else []
        )
        if "percival" in dealt:
            roles.append(
                ROLES["percival"].format(
                    morgana=" and Morgana, without knowing which is which," if "morgana" in dealt else ""
                )
            )
        roles += [ROLES[r] for r in ("morgana", "mordred", "oberon") if r in dealt]
        # Plain servants and minions fill the seats the special roles leave on each side.
        lancelots = 1 if lancelot in LANCELOT else 0
        good_specials = merlin + ("percival" in dealt) + lancelots
        evil_specials = merlin + len(dealt - {"percival"}) + lancelots
        if start.int("good", 0) > good_specials:
            roles.append(ROLES["servant"])
        if start.int("evil", 0) > evil_specials:
            roles.append(ROLES["minion"].format(oberon=oberon))
        if lancelots:
            roles.append(LANCELOT[lancelot])
        text.append("Roles in play:\n" + "\n".join(f"- {r}" for r in roles))
        text.append(STRATEGY)
        return "\n\n".join(text)

    messages: ClassVar[Mapping[str, type[WireMessage]]] = MESSAGES
    """The game's typed messages, by verb: the lines ``said`` tells."""

    def line(self, msg: Message, game: GameView[Any]) -> str | None:
        verb, get = msg.verb, msg.get
        if verb == "ASK":
            kind = msg.args[2] if len(msg.args) > 2 else ""
            if kind == "team":
                return (
                    f"Quest {get('quest', '?')}, proposal {get('attempt', '?')}: {get('to', '?')} leads and picks "
                    f"{get('pick', '1')} players."
                )
            if kind == "vote":
                return (
                    f"{get('leader', '?')} proposes the team {join(msg.list('team'))} for quest {get('quest', '?')}; "
                    "everyone votes."
                )
            if kind == "assassinate":
                return f"Good has won three quests; the assassin {get('to', '?')} must name Merlin."
            return None  # quest cards: the QUEST line tells the result
        if verb == "TIMEOUT":
            return f"{get('player', '?')} missed a deadline ({get('action', '?')})."
        if verb == "RATINGS":
            return None
        news = read(self.messages, msg)
        if news is None or isinstance(news, m.End):
            return super().line(msg, game)
        return said(news)

    def facts(self, game: GameView[Any]) -> list[str]:
        facts = [
            f"You are {game.me}, seat {game.seats.index(game.me) + 1} of {len(game.seats)}."
            if game.me in game.seats
            else f"You are {game.me}."
        ]
        if game.role:
            facts.append(f"Your role: {game.role.replace('_', ' ')}, on the {game.side} side.")
            meaning = SEES.get(game.role)
            if meaning and game.sees:
                options = game.options
                facts.append(
                    "You see "
                    + join(game.sees)
                    + ": "
                    + meaning.format(
                        mordred=" except Mordred, who is hidden from you" if options.get("mordred") == "true" else "",
                        morgana=" and Morgana (you cannot tell which is which)"
                        if options.get("morgana") == "true"
                        else "",
                        oberon=" (Oberon is hidden from you)" if options.get("oberon") == "true" else "",
                    )
                    + "."
                )
            elif game.role in ("servant", "oberon") or not game.sees:
                facts.append("You see nobody: you know no one's side but your own.")
        facts += self._track(game)
        return facts

    def _track(self, game: GameView[Any]) -> list[str]:
        """The quest track, the rejections in a row, and the cards this player played."""
        state = followed(game, AvalonState)
        played = [str(choice) for kind, choice in list(memory(game).answers) if kind == "quest"]
        quest = state.successes + state.failures + 1
        facts = [
            f"Score: {state.successes} quests succeeded, {state.failures} failed; {state.rejections} proposals "
            "rejected in a row."
        ]
        if quest <= len(state.quests):
            q = state.quests[quest - 1]
            facts.append(f"Quest {quest} needs a team of {q.size}; {q.fails_needed} fail card(s) sink it.")
        if played:
            facts.append(f"Your quest cards so far, in order: {', '.join(played)}.")
        if game.role in ("good_lancelot", "evil_lancelot") and state.switched:
            facts.append(
                f"The loyalty cards have switched the Lancelots: you are now on the "
                f"{'evil' if game.side == 'good' else 'good'} side."
            )
        return facts

    def fill(self, fields: Fields, game: GameView[Any], ask: Ask) -> None:
        fields["pick"] = ask.pick
        fields["team"] = join(ask.message.list("team"))


@functools.singledispatch
def said(news: WireMessage) -> str | None:
    """A line of the game in words (None: not worth showing; ``ROLE`` is in what the
    player knows)."""
    return None


@said.register
def _(news: m.Start) -> str:
    return "The game begins."


@said.register
def _(news: m.Votes) -> str:
    return (
        f"Votes: approve {join(news.approve)}; reject {join(news.reject)}. The team is {news.result} "
        f"({news.rejections} rejected in a row)."
    )


@said.register
def _(news: m.Quest) -> str:
    return (
        f"Quest {news.quest} with {join(news.team)}: {news.result.upper()}, {news.fails} fail "
        f"card{'s' if news.fails != 1 else ''}. Score: {news.successes} succeeded, {news.failures} failed."
    )


@said.register
def _(news: m.Assassination) -> str:
    return f"The assassin {news.assassin} named {news.target} as Merlin: {'correct' if news.hit else 'wrong'}."


@said.register
def _(news: m.Deck) -> str:
    return f"The Lancelot loyalty cards for quests 1-5: {', '.join(news.cards)}."


@said.register
def _(news: m.Loyalty) -> str:
    swap = " The Lancelots swap sides." if news.card == "switch" else ""
    return f"Loyalty card for quest {news.quest}: {news.card}.{swap}"
