"""A rule-based Werewolf bot: simple common-sense play that beats random play clearly.

- The seer checks players it knows nothing about and, at its turn to speak, reveals itself
  and what it found (``seer: NICK is werewolf``); a found wolf is named every day.
- Villagers believe the first seer claim (wolves here never fake one): they vote for a
  named wolf, never for a cleared player, and the doctor protects the claimed seer.
- Wolves never target each other: every wolf picks the same victim (the claimed seer
  first, else a pick seeded by the game and the night, so no talk is needed), tell it to
  the pack in TEAM talk, and vote by day against the claimed seer or a random villager.
- The witch heals on the first night and poisons a named wolf; the hunter shoots one.

Run: python bots/werewolf_rules_bot.py --server HOST:PORT --nick NICK
"""

from __future__ import annotations

import random
import re

from arena.protocol import Message
from arena.sdk import Bot
from arena.sdk.bot import Ask, GameView

CLAIM = re.compile(r"^seer: (\S+) is (werewolf|village)\b")
"""How a seer's finding reads in the channel (a convention among these bots)."""
WOLF = "werewolf"


class WerewolfRuleBot(Bot):
    owner = "arena"
    version = "1.0"

    # -- what the bot remembers (all in game.notes) -------------------------------------

    def on_start(self, game: GameView) -> None:
        game.notes.update(wolves=set(), found={}, claims={}, seer=None, dead=set(), night=0, ballot={})

    def on_event(self, game: GameView, msg: Message) -> None:
        notes = game.notes
        verb = msg.verb
        if verb == "WOLVES":
            notes["wolves"] = {n.lower() for n in msg.list("wolves")}
        elif verb == "SEER":
            notes["found"][msg.get("target", "").lower()] = msg.get("side")
        elif verb == "NIGHT":
            notes["night"] = msg.int("night", 0)
        elif verb == "DAWN":
            notes["dead"].update(n.lower() for n in msg.list("dead"))
        elif verb in ("EXECUTION", "DEATH") and not msg.flag("spared"):
            notes["dead"].add(msg.get("player", "").lower())
        elif verb == "BALLOT" and msg.get("vote") != "abstain":
            ballot = notes["ballot"]
            target = msg.get("vote", "").lower()
            ballot[target] = ballot.get(target, 0) + 1
        elif verb == "VOTE_RESULT":
            notes["ballot"] = {}
        elif verb == "SHOT" and msg.get("target") != "none":
            notes["dead"].add(msg.get("target", "").lower())

    def on_chat(self, game: GameView, nick: str, text: str) -> None:
        m = CLAIM.match(text)
        if m is None:
            return
        notes = game.notes
        if notes["seer"] is None:
            notes["seer"] = nick.lower()
        if notes["seer"] == nick.lower():
            notes["claims"][m.group(1).lower()] = m.group(2)

    # -- helpers -------------------------------------------------------------------------

    def _is_wolf(self, game: GameView) -> bool:
        return game.side == WOLF

    def _known(self, game: GameView) -> dict[str, str]:
        """Sides this bot believes: its own findings, else the claimed seer's."""
        return {**game.notes["claims"], **game.notes["found"]}

    def _named_wolves(self, game: GameView, ask: Ask) -> list[str]:
        known = self._known(game)
        return [o for o in ask.options if known.get(o.lower()) == WOLF and o.lower() != game.me.lower()]

    def _pick(self, options: list[str], rng: random.Random) -> str:
        return options[int(rng.random() * len(options))]

    def _players(self, ask: Ask) -> list[str]:
        """The options that are players (not words like none/abstain)."""
        return [o for o in ask.options if o not in ("none", "abstain", "save")]

    # -- night ---------------------------------------------------------------------------

    def seer_check(self, game: GameView, ask: Ask) -> str:
        known = self._known(game)
        fresh = [o for o in self._players(ask) if o.lower() not in known and o.lower() != game.me.lower()]
        return self._pick(fresh, self.rng) if fresh else "none"

    def wolf_vote(self, game: GameView, ask: Ask) -> str:
        wolves = game.notes["wolves"]
        targets = [o for o in self._players(ask) if o.lower() not in wolves]
        if not targets:
            return "abstain"
        seer = game.notes["seer"]
        if seer is not None:
            for o in targets:
                if o.lower() == seer:
                    return o
        # The same pick for every wolf: seeded by the game and the night only.
        return self._pick(sorted(targets), random.Random(f"{game.gid}:{game.notes['night']}"))

    def team_talk(self, game: GameView, ask: Ask) -> list[str]:
        pack = game.notes["wolves"] - game.notes["dead"] - {game.me.lower()}
        if ask.kind == "wolf_vote" and pack:  # alone, no one would hear it
            return [f"I vote {self.wolf_vote(game, ask)}"]
        return []

    def _protect(self, game: GameView, ask: Ask) -> str:
        seer = game.notes["seer"]
        for o in self._players(ask):
            if o.lower() == seer:
                return o
        players = self._players(ask)
        return game.me if game.me in players else (self._pick(players, self.rng) if players else "none")

    doctor_protect = _protect
    bodyguard_protect = _protect

    def witch_save(self, game: GameView, ask: Ask) -> str:
        return "save" if "save" in ask.options and game.notes["night"] == 1 else "none"

    def witch_poison(self, game: GameView, ask: Ask) -> str:
        named = self._named_wolves(game, ask)
        return named[0] if named else "none"

    def hunter_shoot(self, game: GameView, ask: Ask) -> str:
        named = self._named_wolves(game, ask)
        return named[0] if named else "none"

    def vigilante_shoot(self, game: GameView, ask: Ask) -> str:
        return self.hunter_shoot(game, ask)

    # -- day -----------------------------------------------------------------------------

    def speech(self, game: GameView, ask: Ask) -> list[str]:
        if game.role != "seer":
            return []
        found = game.notes["found"]
        dead = game.notes["dead"]
        wolves = [n for n, side in found.items() if side == WOLF and n not in dead]
        shown = {s.lower(): s for s in game.seats}
        if wolves:
            return [f"seer: {shown.get(wolves[0], wolves[0])} is werewolf"]
        if ask.kind == "last_words" and found:
            return [f"seer: {shown.get(n, n)} is {side}" for n, side in found.items()][:3]
        return []

    def speak(self, game: GameView, ask: Ask) -> str:
        return "done"

    last_words = speak

    def candidacy(self, game: GameView, ask: Ask) -> str:
        return "decline"

    def vote(self, game: GameView, ask: Ask) -> str:
        players = [o for o in self._players(ask) if o.lower() != game.me.lower()]
        if not players:
            return "abstain"
        if self._is_wolf(game):
            seer = game.notes["seer"]
            wolves = game.notes["wolves"]
            for o in players:
                if o.lower() == seer:
                    return o
            villagers = [o for o in players if o.lower() not in wolves]
            if not villagers:
                return "abstain"
            # Join the villager the table already leans against: a cheap, unsuspicious kill.
            ballot = game.notes["ballot"]
            return max(villagers, key=lambda o: (ballot.get(o.lower(), 0), self.rng.random()))
        named = self._named_wolves(game, ask)
        if named:
            return named[0]
        known = self._known(game)
        seer = game.notes["seer"]
        suspects = [o for o in players if known.get(o.lower()) != "village" and o.lower() != seer]
        return self._pick(suspects, self.rng) if suspects else "abstain"


if __name__ == "__main__":
    from arena.sdk import run_bot

    run_bot(WerewolfRuleBot)
