"""A rule-based Tuvalon bot: the Avalon rule bot's judgement of teams, votes, cards and the
assassination, and a player who uses the map.

It moves towards the players it wants to hear and away from those it wants to avoid:
good players walk towards the leader's proposed team (to hear them in the second
discussion), Merlin keeps his distance from the evil players he knows (staying out of
their hearing, so his hints reach the good alone), evil players gather near the players
they have not yet fooled. In the first discussion it says whom it trusts; in the second,
Merlin quietly names an evil player to whoever hears him when no evil player does.

Run: python bots/tuvalon_rules_bot.py --server HOST:PORT --nick NICK
"""

from __future__ import annotations

from arena.bots.avalon_rules_bot import RuleBot
from arena.games.tuvalon import board
from arena.sdk import MoveAsk, Player, Talk, TurnAsk, TuvalonBot, TuvalonView, run_bot


class TuvalonRuleBot(RuleBot, TuvalonBot):
    owner = "arena"
    version = "1.0"
    plays = "tuvalon"

    def _avoid(self, game: TuvalonView) -> set[Player]:
        """Players to stay away from: Merlin's known evil (so they neither hear him nor
        see whom he stands by)."""
        return self._evil_known(game) if game.role == "merlin" else set()

    def _seek(self, game: TuvalonView) -> list[Player]:
        """Players to stand near: the proposed team (good players listen to it), or the
        players evil has to win over."""
        state = game.state
        proposal = state.proposal
        team = [] if proposal is None else [p for p in proposal.team if p != game.me]
        if game.side == "evil":
            allies = self._evil_known(game)
            return [p for p in game.others if p not in allies] or team
        return team or game.others

    def move(self, game: TuvalonView, ask: MoveAsk) -> str:
        state = game.state
        avoid = [state.where(p) for p in self._avoid(game) if p in state.cells]
        seek = [state.where(p) for p in self._seek(game) if p in state.cells]

        def score(name: str) -> tuple[float, float]:
            cell = board.parse(name)
            assert cell is not None
            near = sum(board.distance(cell, c) for c in seek) / max(1, len(seek))
            danger = sum(3.0 for c in avoid if board.distance(cell, c) <= 2)
            return (danger + near, self.rng.random())

        return min(ask.options, key=score)

    def speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:  # type: ignore[override]
        if ask.kind != "speak":
            return []
        table, evil = self._table(game), self._evil_known(game)
        others = [p for p in game.others if p not in evil or game.side == "good"]
        if not others:
            return []
        trusted = min(others, key=lambda n: (self._suspicion(game, table, evil, n), n))
        return f"I trust {trusted} this round"

    def near_speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:
        if game.role != "merlin":
            return []
        state = game.state
        evil = sorted(self._evil_known(game))
        listeners = [p for p in game.others if p in state.cells and state.distance(game.me, p) <= 2]
        if not evil or not listeners or any(p in evil for p in listeners):
            return []
        return f"between us: watch {self.rng.choice(evil)}"


if __name__ == "__main__":
    run_bot(TuvalonRuleBot)
