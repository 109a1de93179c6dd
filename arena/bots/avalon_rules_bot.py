"""A rule-based Avalon bot built on the arena SDK.

Good players keep a suspicion score per player, raised by failed quests (shared among the
team) and by approving teams that then failed; they propose and approve the least suspect.
Merlin steers: he votes against teams with evil players, but not every time on the first
quest, so his votes do not give him away. Evil players put themselves on teams, approve
teams with an ally, and fail quests (one fail is enough: only the first known ally on a
team fails). The assassin names the good player whose votes tracked the evil players best.

Run: python -m arena.bots.avalon_rules_bot --server HOST:PORT --nick NICK
"""

from __future__ import annotations

from collections import defaultdict

from arena.protocol import Message
from arena.sdk import Ask, Bot, GameView, run_bot


class RuleBot(Bot):
    owner = "arena"
    version = "1.0"

    def on_start(self, game: GameView) -> None:
        game.notes.update({"suspicion": defaultdict(float), "votes": [], "team": []})

    # -- knowledge ------------------------------------------------------------------

    def _evil_known(self, game: GameView) -> set[str]:
        """Players this bot knows (or, as Merlin, sees) to be evil."""
        if game.side == "evil" or game.role == "merlin":
            return set(game.sees)
        return set()

    def _suspicion(self, game: GameView, nick: str) -> float:
        if nick == game.me:
            return -100.0
        if nick in self._evil_known(game):
            return 100.0
        score = game.notes["suspicion"][nick]
        if game.role == "percival" and nick in game.sees:
            score -= 0.5  # Merlin or Morgana: more likely good than an unknown
        return score

    def on_event(self, game: GameView, msg: Message) -> None:
        memo = game.notes
        if msg.verb == "ASK" and msg.args[2] == "vote":
            memo["team"] = msg.list("team")
        elif msg.verb == "VOTES":
            memo["votes"].append((memo["team"], set(msg.list("approve")), msg.get("result") == "approved"))
        elif msg.verb == "QUEST":
            team = msg.list("team")
            fails = msg.int("fails")
            approvers = memo["votes"][-1][1] if memo["votes"] else set()
            for nick in team:
                memo["suspicion"][nick] += 2.0 * fails / len(team) if fails else -0.3
            if fails:
                for nick in approvers - set(team):
                    memo["suspicion"][nick] += 0.3

    # -- decisions ------------------------------------------------------------------

    def team(self, game: GameView, ask: Ask) -> list[str]:
        others = [n for n in ask.options if n != game.me]
        if game.side == "evil":
            allies = self._evil_known(game)
            clean = sorted((n for n in others if n not in allies), key=lambda n: self.rng.random())
            return [game.me] + clean[: ask.pick - 1]
        ranked = sorted(others, key=lambda n: (self._suspicion(game, n), self.rng.random()))
        return [game.me] + ranked[: ask.pick - 1]

    def vote(self, game: GameView, ask: Ask) -> str:
        team = ask.message.list("team")
        last_chance = ask.message.int("rejections", 0) >= 4
        if game.side == "evil":
            allies = self._evil_known(game) | {game.me}
            return "approve" if any(n in allies for n in team) else "reject"
        if last_chance:
            return "approve"  # a fifth rejection hands evil the game
        if game.role == "merlin":
            evil = self._evil_known(game)
            if any(n in evil for n in team):
                quest = ask.message.int("quest", 1)
                return "approve" if quest == 1 and self.rng.random() < 0.3 else "reject"
            return "approve"
        trusted = sorted(game.seats, key=lambda n: self._suspicion(game, n))[: self._good_count(game)]
        return "approve" if all(n in trusted for n in team) else "reject"

    def quest(self, game: GameView, ask: Ask) -> str:
        if "fail" not in ask.options:
            return "success"
        if "success" not in ask.options:
            return "fail"
        team = ask.message.list("team")
        allies_on_team = sorted(n for n in team if n in self._evil_known(game) or n == game.me)
        needed = int(game.start.list("fails")[ask.message.int("quest") - 1])
        return "fail" if game.me in allies_on_team[:needed] else "success"

    def assassinate(self, game: GameView, ask: Ask) -> str:
        evil = self._evil_known(game)
        scores = {n: 0.0 for n in ask.options if n not in evil}
        for team, approvers, _ in game.notes["votes"]:
            dirty = any(n in evil or n == game.me for n in team)
            for nick in scores:
                if dirty:
                    scores[nick] += -1.0 if nick in approvers else 1.0
        if not scores:
            return ask.options[0]
        return max(scores, key=lambda n: (scores[n], self.rng.random()))

    # -- helpers --------------------------------------------------------------------

    def _good_count(self, game: GameView) -> int:
        return int(game.start.get("good") or len(game.seats) // 2)


if __name__ == "__main__":
    run_bot(RuleBot)
