"""A rule-based Werewolf bot: simple common-sense play that beats random play clearly.

- The seer checks players it knows nothing about and, at its turn to speak, reveals itself
  and what it found (``seer: NICK is werewolf``); a found wolf is named every day.
- Villagers believe the first seer claim (wolves here never fake one): they vote for a
  named wolf, never for a cleared player, and the doctor protects the claimed seer.
- Wolves never target each other: every wolf picks the same victim (the claimed seer
  first, else a pick seeded by the game and the night, so no talk is needed), tell it to
  the pack in TEAM talk, and vote by day against the claimed seer or a random villager.
- The witch heals on the first night and poisons a named wolf; the hunter shoots one.
- The guardian angel protects as the doctor does, and the jailer jails the player the
  doctor would protect; the roleblocker blocks a named wolf; the serial killer kills the
  claimed seer, else anyone at random; the detective, tracker, watcher and oracle look at
  players they know nothing about; the little girl peeks on the first night; the thief
  takes a werewolf card, else any card with a power; the silencer silences the claimed
  seer, whom the priest cleanses; the bus driver swaps the claimed seer with a named wolf
  (the pack's attack on the seer lands on the wolf), else two players it knows nothing
  about; the trickster forges a visit between two other players; the shadow follows the
  claimed seer (and so learns what the seer checks), else a player it knows nothing about.
- The werewolf leader names the pack's own pick (so a split or blocked vote still kills);
  the wolf witch poisons the claimed seer (whom the doctor protects from the pack); the wolf guard
  protects a wolf the seer named, else a pack mate. The warder charms the claimed seer, the
  decoy spends its lure on them once they have claimed, and the executed scapegoat punishes
  a named wolf among its voters, else a voter it knows nothing about.
- The exile banishes a named wolf; the dealer deals to players it knows nothing about; the
  arsonist douses until two are doused, or nobody is left to douse, then ignites; the cult
  leader recruits players not named as wolves.

Everything it reasons from is in the SDK's ``WerewolfState``: the living, the speeches
(where seers claim), the day's ballots, its own night results.

Run: python bots/werewolf_rules_bot.py --server HOST:PORT --nick NICK
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from arena.sdk import Ask, DayVoteAsk, Player, SpeakAsk, Talk, WerewolfAsk, WerewolfBot, WerewolfState, WerewolfView

CLAIM = re.compile(r"^seer: (\S+) is (werewolf|village)\b")
"""How a seer's finding reads in the channel (a convention among these bots)."""
WOLF = "werewolf"


def claims(state: WerewolfState) -> tuple[Player | None, dict[Player, str]]:
    """The claimed seer (the first player to claim) and what they claimed, by player."""
    seer: Player | None = None
    said: dict[Player, str] = {}
    for speech in state.speeches:
        for line in speech.lines:
            m = CLAIM.match(line)
            if m is None:
                continue
            seer = seer or speech.player
            if speech.player == seer:
                said[m.group(1)] = m.group(2)
    return seer, said


class WerewolfRuleBot(WerewolfBot):
    owner = "arena"
    version = "1.0"

    # -- helpers -------------------------------------------------------------------------

    def _is_wolf(self, game: WerewolfView) -> bool:
        return game.side == WOLF

    def _known(self, game: WerewolfView) -> dict[Player, str]:
        """Sides this bot believes: its own findings, else the claimed seer's."""
        return {**claims(game.state)[1], **game.state.checked}

    def _named_wolves(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        known = self._known(game)
        return [o for o in ask.options if known.get(o) == WOLF and o != game.me]

    def _pick(self, options: list[Player], rng: random.Random) -> Player:
        return options[int(rng.random() * len(options))]

    # -- night ---------------------------------------------------------------------------

    def _unknown(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """A player it knows nothing about: whom the seer checks, the tracker follows and
        the watcher watches."""
        known = self._known(game)
        fresh = [o for o in ask.players if o not in known and o != game.me]
        return self._pick(fresh, self.rng) if fresh else "none"

    seer_check = _unknown
    wolf_seer_check = _unknown

    def wolf_vote(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        return self._victim(game, ask.players)

    def _victim(self, game: WerewolfView, players: list[Player]) -> str:
        targets = [o for o in players if o not in game.state.wolves]
        if not targets:
            return "abstain"
        seer = claims(game.state)[0]
        if seer in targets:
            return seer
        # The same pick for every wolf: seeded by the game and the night only.
        return self._pick(sorted(targets), random.Random(f"{game.gid}:{game.state.day}"))

    def werewolf_leader_kill(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        return self._victim(game, ask.players)

    def wolf_witch_poison(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Poisons the claimed seer: the doctor protects them from the pack, not from poison."""
        seer = claims(game.state)[0]
        return seer if seer in ask.players else "none"

    def wolf_guard_protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """A wolf the seer named (the village will come for them), else a pack mate, else itself."""
        named = self._named_wolves(game, ask)
        mates = [o for o in ask.players if o != game.me]
        for choice in (named, mates, ask.players):
            if choice:
                return choice[0]
        return "none"

    def decoy_draw(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Keeps its one lure until a seer has claimed: then the seer is the wolves' pick."""
        seer = claims(game.state)[0]
        return seer if seer in ask.players else "none"

    def scapegoat_punish(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        named = self._named_wolves(game, ask)
        known = self._known(game)
        unknown = [o for o in ask.players if known.get(o) != "village"]
        return (named or unknown or ask.options)[0]

    def team_talk(self, game: WerewolfView, ask: Ask) -> Talk:
        pack = [w for w in game.state.wolves if game.state.is_alive(w) and w != game.me]
        if ask.kind == "wolf_vote" and pack:  # alone, no one would hear it
            return f"I vote {self._victim(game, ask.players)}"
        return []

    def _protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        players = ask.players
        seer = claims(game.state)[0]
        if seer in players:
            return seer
        return game.me if game.me in players else (self._pick(players, self.rng) if players else "none")

    doctor_protect = _protect
    bodyguard_protect = _protect
    guardian_angel_protect = _protect
    warder_ward = _protect
    jailer_jail = _protect

    tracker_track = _unknown
    watcher_watch = _unknown
    oracle_mark = _unknown

    def detective_compare(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        known = self._known(game)
        fresh = [o for o in ask.players if o not in known]
        pool = fresh if len(fresh) >= 2 else ask.players
        return self.rng.sample(pool, 2)

    def silencer_silence(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Silences the claimed seer, else nobody."""
        seer = claims(game.state)[0]
        return seer if seer in ask.players else "none"

    def priest_cleanse(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Cleanses the claimed seer (whom the pack would silence), else itself."""
        seer = claims(game.state)[0]
        return seer if seer in ask.players else (game.me if game.me in ask.players else "none")

    def bus_driver_swap(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """Never rides along itself: a survivor keeps out of harm's way."""
        seer, wolves = claims(game.state)[0], self._named_wolves(game, ask)
        if seer in ask.players and seer != game.me and wolves:
            return [seer, wolves[0]]
        known = self._known(game)
        fresh = [o for o in ask.players if o not in known and o != game.me]
        pool = fresh if len(fresh) >= 2 else [o for o in ask.players if o != game.me]
        return self.rng.sample(pool if len(pool) >= 2 else ask.players, 2)

    def trickster_forge(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """A visit between two others: the trickster is never seen in its own forgery."""
        others = [o for o in ask.players if o != game.me]
        return self.rng.sample(others if len(others) >= 2 else ask.players, 2)

    def shadow_follow(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        seer = claims(game.state)[0]
        return seer if seer in ask.players else self._unknown(game, ask)

    def roleblock(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        named = self._named_wolves(game, ask)
        return named[0] if named else "none"

    exile_banish = roleblock
    dealer_deal = _unknown

    def arsonist(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Douses at random until two living players are doused (the options leave them
        out) or nobody is left to douse, then ignites."""
        others = [p for p in game.state.alive if p != game.me]
        doused = [p for p in others if p not in ask.players]
        if "ignite" in ask.options and (len(doused) >= 2 or not ask.players):
            return "ignite"
        return self._pick(ask.players, self.rng) if ask.players else "none"

    def cult_recruit(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Recruits a player not named as a wolf (a wolf would refuse), at random."""
        named = self._named_wolves(game, ask)
        willing = [p for p in ask.players if p not in named]
        return self._pick(willing, self.rng) if willing else "none"

    def serial_kill(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        players = ask.players
        seer = claims(game.state)[0]
        if seer in players:
            return seer
        return self._pick(players, self.rng) if players else "none"

    def thief_steal(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Takes the first card with a power (a werewolf card first: the pack is strong)."""
        cards = dict(zip(("card1", "card2"), game.state.cards))
        wants: tuple[Callable[[str], bool], ...] = (lambda r: r == WOLF, lambda r: r != "villager")
        for wanted in wants:
            for option in ask.options:
                if option in cards and wanted(cards[option]):
                    return option
        return "none" if "none" in ask.options else ask.options[0]

    def little_girl_peek(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Peeks on the first night only: the risk then buys the most."""
        return "peek" if game.state.day == 1 else "none"

    def witch_save(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        return "save" if "save" in ask.options and game.state.day == 1 else "none"

    def witch_poison(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        named = self._named_wolves(game, ask)
        return named[0] if named else "none"

    def hunter_shoot(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        named = self._named_wolves(game, ask)
        return named[0] if named else "none"

    vigilante_shoot = hunter_shoot

    # -- day -----------------------------------------------------------------------------

    def speech(self, game: WerewolfView, ask: Ask) -> Talk:
        if game.role != "seer":
            return []
        found = game.state.checked
        wolves = [n for n, side in found.items() if side == WOLF and game.state.is_alive(n)]
        if wolves:
            return f"seer: {wolves[0]} is werewolf"
        if ask.kind == "last_words" and found:
            return [f"seer: {n} is {side}" for n, side in found.items()][:3]
        return []

    def speak(self, game: WerewolfView, ask: SpeakAsk) -> str:
        return "done"

    def last_words(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        return "done"

    def candidacy(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        return "decline"

    def vote(self, game: WerewolfView, ask: DayVoteAsk) -> str:
        players = [o for o in ask.players if o != game.me]
        if not players:
            return "abstain"
        seer = claims(game.state)[0]
        if self._is_wolf(game):
            if seer in players:
                return seer
            villagers = [o for o in players if o not in game.state.wolves]
            if not villagers:
                return "abstain"
            # Join the villager the table already leans against: a cheap, unsuspicious kill.
            ballots = [b.vote for b in game.state.ballots if b.day == ask.day and b.round == ask.round]
            return max(villagers, key=lambda o: (ballots.count(o), self.rng.random()))
        named = self._named_wolves(game, ask)
        if named:
            return named[0]
        known = self._known(game)
        suspects = [o for o in players if known.get(o) != "village" and o != seer]
        return self._pick(suspects, self.rng) if suspects else "abstain"


if __name__ == "__main__":
    from arena.sdk import run_bot

    run_bot(WerewolfRuleBot)
