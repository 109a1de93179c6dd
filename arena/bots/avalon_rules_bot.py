"""A rule-based Avalon bot built on the arena SDK.

Good players keep a suspicion score per player, raised by failed quests (shared among the
team) and by approving teams that then failed; they propose and approve the least suspect.
Merlin steers: he votes against teams with evil players, but not every time on the first
quest, so his votes do not give him away. Evil players put themselves on teams, approve
teams with an ally, and fail quests (one fail is enough: only the first known ally on a
team fails). The assassin names the good player whose votes tracked the evil players best.

Everything it reasons from is in the SDK's ``AvalonState``: the quest track and every
proposal with its votes.

Run: python -m arena.bots.avalon_rules_bot --server HOST:PORT --nick NICK
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from arena.sdk import (
    AssassinateAsk,
    AvalonBot,
    AvalonState,
    AvalonView,
    GameView,
    Player,
    QuestAsk,
    TeamAsk,
    VoteAsk,
    run_bot,
)


def suspicion(state: AvalonState) -> defaultdict[Player, float]:
    """How suspect each player is from the quests played: a failed quest shares its fail
    cards among its team, and raises everyone who approved it without going; a quest
    that succeeded clears its team a little."""
    score: defaultdict[Player, float] = defaultdict(float)
    for quest in state.quests:
        if quest.result is None:
            continue
        approved = [p for p in state.proposals if p.quest == quest.number and p.approved]
        team, fails = quest.team, quest.fails
        for nick in team:
            score[nick] += 2.0 * fails / len(team) if fails else -0.3
        if fails and approved:
            for nick in set(approved[-1].approve) - set(team):
                score[nick] += 0.3
    return score


class RuleBot(AvalonBot):
    owner = "arena"
    version = "1.0"

    # -- knowledge ------------------------------------------------------------------

    def _evil_known(self, game: GameView[Any]) -> set[Player]:
        """Players this bot knows (or, as Merlin, sees) to be evil."""
        if game.side == "evil" or game.role == "merlin":
            return set(game.sees)
        return set()

    def _table(self, game: GameView[Any]) -> defaultdict[Player, float]:
        """``suspicion`` of the game so far: it changes only when a quest is played, so it
        is worked out again only then (a good player reads it at every vote)."""
        state = game.state
        played = sum(quest.result is not None for quest in state.quests)
        kept = game.notes.get("suspicion")
        if kept is None or kept[0] != played:
            kept = game.notes["suspicion"] = (played, suspicion(state))
        return kept[1]

    def _trusted(self, game: GameView[Any]) -> list[Player]:
        """The players this bot suspects least, as many as there are good players: they
        change only with the table (``_table``), so they are ranked again only then."""
        table = self._table(game)
        kept = game.notes.get("trusted")
        if kept is None or kept[0] is not table:
            evil = self._evil_known(game)
            good = game.state.good or len(game.seats) // 2
            ranked = sorted(game.seats, key=lambda n: self._suspicion(game, table, evil, n))
            kept = game.notes["trusted"] = (table, ranked[:good])
        return kept[1]

    def _suspicion(
        self, game: GameView[Any], table: defaultdict[Player, float], evil: set[Player], nick: Player
    ) -> float:
        """How suspect ``nick`` is, for a player who knows ``evil`` (``_evil_known``)."""
        if nick == game.me:
            return -100.0
        if nick in evil:
            return 100.0
        score = table[nick]
        if game.role == "percival" and nick in game.sees:
            score -= 0.5  # Merlin or Morgana: more likely good than an unknown
        return score

    # -- decisions ------------------------------------------------------------------

    def team(self, game: AvalonView, ask: TeamAsk) -> list[Player]:
        others = [n for n in ask.options if n != game.me]
        if game.side == "evil":
            allies = self._evil_known(game)
            clean = sorted((n for n in others if n not in allies), key=lambda n: self.rng.random())
            return [game.me] + clean[: ask.pick - 1]
        table, evil = self._table(game), self._evil_known(game)
        ranked = sorted(others, key=lambda n: (self._suspicion(game, table, evil, n), self.rng.random()))
        return [game.me] + ranked[: ask.pick - 1]

    def vote(self, game: AvalonView, ask: VoteAsk) -> str:
        team = ask.team
        if game.side == "evil":
            allies = self._evil_known(game) | {game.me}
            return "approve" if any(n in allies for n in team) else "reject"
        if ask.rejections >= 4:
            return "approve"  # a fifth rejection hands evil the game
        if game.role == "merlin":
            evil = self._evil_known(game)
            if any(n in evil for n in team):
                return "approve" if ask.quest == 1 and self.rng.random() < 0.3 else "reject"
            return "approve"
        trusted = self._trusted(game)
        return "approve" if all(n in trusted for n in team) else "reject"

    def quest(self, game: AvalonView, ask: QuestAsk) -> str:
        if "fail" not in ask.options:
            return "success"
        if "success" not in ask.options:
            return "fail"
        allies_on_team = sorted(n for n in ask.team if n in self._evil_known(game) or n == game.me)
        needed = game.state.quests[ask.quest - 1].fails_needed
        return "fail" if game.me in allies_on_team[:needed] else "success"

    def assassinate(self, game: AvalonView, ask: AssassinateAsk) -> Player:
        evil = self._evil_known(game)
        scores = {n: 0.0 for n in ask.options if n not in evil}
        for proposal in game.state.proposals:
            if proposal.approved is None:
                continue
            dirty = any(n in evil or n == game.me for n in proposal.team)
            for nick in scores:
                if dirty:
                    scores[nick] += -1.0 if nick in proposal.approve else 1.0
        if not scores:
            return ask.options[0]
        return max(scores, key=lambda n: (scores[n], self.rng.random()))


if __name__ == "__main__":
    run_bot(RuleBot)
