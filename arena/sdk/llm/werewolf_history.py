"""Werewolf's history for a model: each typed line of the game in a sentence, the lines only
some players get marked as secret; ``WerewolfText`` tells the history with ``said``."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from ...games.werewolf import messages as m
from ...games.wire import NOBODY, Team, WireMessage
from .render import join

SECRET = "(secret) "


@functools.singledispatch
def said(news: WireMessage) -> str | None:
    """A line of the game in words (None: not worth showing; ``ROLE`` and ``RULES`` are
    in what the player knows)."""
    return None


@said.register
def _(news: m.Start) -> str:
    return "The game begins."


@said.register
def _(news: m.Wolves) -> str:
    return f"{SECRET}The werewolves are {join(news.wolves)}."


@said.register
def _(news: m.Lovers) -> str:
    return f"{SECRET}Cupid {news.cupid} linked the lovers {join(news.lovers)}."


@said.register
def _(news: m.Night) -> str:
    return f"Night {news.night} falls."


@said.register
def _(news: m.Seer) -> str:
    return f"{SECRET}Your check: {news.target} is {news.side}."


@said.register
def _(news: m.WolfVotes) -> str:
    votes = ", ".join(f"{w} for {t}" for w, t in news.votes.items())
    return f"{SECRET}The pack voted: {votes or 'no votes'}. Target: {news.target or NOBODY}."


@said.register
def _(news: m.WolfTarget) -> str:
    if news.target is None:
        return f"{SECRET}The wolves have no target tonight."
    return f"{SECRET}The wolves' target tonight: {news.target}."


@said.register
def _(news: m.Charmed) -> str:
    return f"{SECRET}Charmed now: {join(news.charmed)} (new: {news.new})."


@said.register
def _(news: m.Blocked) -> str:
    return f"{SECRET}You were blocked on night {news.night}: your night actions did nothing."


@said.register
def _(news: m.Masons) -> str:
    return f"{SECRET}The masons are {join(news.masons)}."


@said.register
def _(news: m.Detective) -> str:
    same = "the same side" if news.same else "different sides"
    return f"{SECRET}Your comparison: {join(news.players)} are on {same}."


@said.register
def _(news: m.Tracked) -> str:
    return f"{SECRET}{news.target} visited {join(news.visited)} tonight."


@said.register
def _(news: m.Watched) -> str:
    return f"{SECRET}{news.target} was visited by {join(news.visitors)} tonight."


@said.register
def _(news: m.Silenced) -> str:
    return f"Silenced today (no turn to speak): {join(news.players)}."


@said.register
def _(news: m.Cleansed) -> str:
    return f"{SECRET}A priest cleansed you: no longer {' or '.join(news.statuses)}."


@said.register
def _(news: m.Punished) -> str:
    if news.punishment == "death":
        return f"The scapegoat punishes {news.player}, who dies."
    return f"The scapegoat punishes {news.player}: no vote tomorrow."


@said.register
def _(news: m.Dealt) -> str:
    seen = f": {news.player} is on the {news.side or '?'} side" if news.player else ""
    return f"{SECRET}The dealer dealt you a card on night {news.night}: {news.card}{seen}."


@said.register
def _(news: m.Cult) -> str:
    return f"{SECRET}{news.new} joined the cult of {news.leader}; its living members: {join(news.members)}."


@said.register
def _(news: m.Cards) -> str:
    return f"{SECRET}The two extra cards: card1 is {', card2 is '.join(news.cards)}."


@said.register
def _(news: m.Caught) -> str:
    return f"{SECRET}{news.player}, the little girl, was caught peeking: the pack attacks her tonight."


@said.register
def _(news: m.Oracle) -> str:
    return f"The oracle died: {news.target} was {news.role}."


@said.register
def _(news: Team) -> str:
    return f"{SECRET}{news.from_} tells the pack: {news.text}"


@said.register
def _(news: m.Dawn) -> str:
    if not news.dead:
        return f"Day {news.day} dawns. Nobody died in the night."
    return f"Day {news.day} dawns. Died in the night: {_with_roles(news.dead, news.roles or {})}."


@said.register
def _(news: m.Day) -> str:
    return f"Alive: {join(news.alive)}." + (f" Leader: {news.leader}." if news.leader else "")


@said.register
def _(news: m.Candidacy) -> str:
    return f"{news.player} {'stands' if news.stand else 'does not stand'} for leader."


@said.register
def _(news: m.LeaderVote) -> str:
    return f"{news.player} " + ("abstains." if news.vote == "abstain" else f"votes for {news.vote} as leader.")


@said.register
def _(news: m.Leader) -> str:
    return "No leader was elected." if news.leader is None else f"{news.leader} is the leader."


@said.register
def _(news: m.Order) -> str:
    return f"Speaking order: {', '.join(news.speakers)}."


@said.register
def _(news: m.Speech) -> str | None:
    return f"{news.player} passes." if news.passed else None


@said.register
def _(news: m.Ballot) -> str:
    runoff = " (runoff)" if news.round == 2 else ""
    return (
        f"{news.player} " + ("abstains" if news.vote == "abstain" else f"votes to execute {news.vote}") + f"{runoff}."
    )


@said.register
def _(news: m.VoteResult) -> str:
    counts = ", ".join(f"{n} {c}" for n, c in news.counts.items()) or "no votes"
    result = (
        f"{news.target or '?'} is to be executed"
        if news.outcome == "execution"
        else f"a runoff between {join(news.candidates)}"
        if news.outcome == "runoff"
        else "nobody is executed"
    )
    return f"Votes: {counts}; {news.abstentions} abstained. Result: {result}."


@said.register
def _(news: m.Execution) -> str:
    if news.spared:
        return f"{news.player} is spared."
    return f"{news.player} is executed" + (f"; they were {news.role}." if news.role else ".")


@said.register
def _(news: m.Idiot) -> str:
    return f"{news.player} is revealed as the idiot: spared, but no longer votes."


@said.register
def _(news: m.Shot) -> str:
    if news.hunter is None:
        return f"A hunter shot {news.target}."
    return f"The hunter {news.hunter} " + ("does not shoot." if news.target is None else f"shoots {news.target}.")


@said.register
def _(news: m.Death) -> str:
    return f"{news.player} dies" + (f"; they were {news.role}." if news.role else ".")


def _with_roles(names: Sequence[str], roles: Mapping[str, str]) -> str:
    return join([f"{n} ({roles[n]})" if n in roles else n for n in names])
