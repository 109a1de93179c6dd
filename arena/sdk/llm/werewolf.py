"""Werewolf for a model: the rules as this game's deal and options make them, the history in
sentences (``werewolf_history``: secret lines marked as such), and what a player knows: its
role, its pack or lover, its night results, its powers left, who lives and who died as what."""

from __future__ import annotations

from typing import Any

from ...games.werewolf import messages as m
from ...games.werewolf.messages import MESSAGES
from ...games.wire import NOBODY, read
from ...protocol import Message
from .. import Ask, GameView
from ..werewolf import WerewolfState
from .render import Fields, Renderer, followed, join, memory
from .werewolf_history import said

BASICS = """\
Werewolf is a game of hidden roles. Every player is on the village side, the werewolf side \
or (rarer) a neutral side of their own; roles stay secret{reveal}. Nights and days \
alternate, starting with night 1.

Night: the living werewolves, who know one another, each vote for a victim; the player \
with the most wolf votes is attacked (a tie, or no vote, means no attack). Players with \
night powers use them in secret.

Day: the night's dead are announced (never how they died).{leader} Then the living players \
speak one at a time, in an order announced beforehand. Then, in the same order, each living \
player votes in public to execute another player, or abstains. The player with the most \
votes is executed{majority}; a tie for the most votes leads to a runoff among the tied, \
and a second tie executes nobody.{last_words}

The village wins when no werewolf is alive. The werewolves win when the living werewolves \
are at least as many as the living village-side players (neutral players count for \
neither).{limit}"""

LEADER = (
    " On day 1 a leader is elected first: each player in turn may stand, then the others vote among the "
    "candidates. The leader chooses where the day's discussion starts and its direction, and speaks again "
    "at the end of the round."
)

ROLES = {
    "villager": "Villager (village): no power; finds the werewolves by listening and voting.",
    "werewolf": "Werewolf (werewolf side): knows the other werewolves, votes with them each night on a victim, "
    "and may talk with them in private at night.",
    "seer": "Seer (village): each night checks one living player and learns whether they are a werewolf "
    "(neutral roles look like village).",
    "doctor": "Doctor (village): each night protects one player from an attack{self}{repeat}.",
    "bodyguard": "Bodyguard (village): each night guards another player and takes the first attack aimed at "
    "them, dying instead{repeat}.",
    "witch": "Witch (village): one healing potion and one poison for the whole game. Each night she learns the "
    "wolves' target and may heal it{self_save}{first_night}, then may poison a living player.",
    "hunter": "Hunter (village): when dying may shoot a living player, who dies at once{poison}.",
    "vigilante": "Vigilante (village): {shots} shot(s) for the whole game, fired at night at another living player.",
    "idiot": "Idiot (village): the first time the village executes them they are revealed and survive, but lose "
    "their vote.",
    "cupid": "Cupid (neutral): on night 1 links two players as lovers; when a lover dies the other dies of grief. "
    "Cupid and the lovers win together when every living player is a lover or Cupid.",
    "jester": "Jester (neutral): wins alone, and ends the game, if the village executes them.",
    "piper": "Piper (neutral): each night charms a player; wins alone when alive and every other living player "
    "is charmed.",
    "guardian_angel": "Guardian angel (village): each night protects another player from one attack{repeat}.",
    "jailer": "Jailer (village): each night jails another player, who is protected from one attack and cannot "
    "act that night{repeat}.",
    "detective": "Detective (village): each night compares two players and learns whether they are on the same "
    "side (neutral roles look like the village).",
    "tracker": "Tracker (village): each night follows a player and learns at dawn whom they visited.",
    "watcher": "Watcher (village): each night watches a player and learns at dawn who visited them.",
    "mason": "Mason (village): the masons know each other from the start.",
    "miller": "Miller (village): a villager who looks like a werewolf to every check.",
    "godfather": "Godfather (werewolf): a werewolf who looks like a villager to every check.",
    "alpha_werewolf": "Alpha werewolf (werewolf): a werewolf who looks like a villager to every check.",
    "wolf_seer": "Wolf seer (werewolf): a werewolf who also checks a player's side each night.",
    "silencer": "Silencer (werewolf): a werewolf who each night silences a player: they may not speak the next "
    "day (they still vote).",
    "priest": "Priest (village): each night cleanses a player of charms, silence, oil and a scapegoat's punishment.",
    "werewolf_leader": "Werewolf leader (werewolf): a werewolf who votes with the pack and may then name the "
    "pack's victim, whatever the votes.",
    "wolf_witch": "Wolf witch (werewolf): a werewolf with one poison for the whole game{poison_stops}.",
    "wolf_guard": "Wolf guard (werewolf): a werewolf who each night protects a werewolf (itself allowed) from "
    "one attack, never from poison{repeat}.",
    "warder": "Warder (village): charms another player; the charm stops one night attack{poison_charm}, "
    "whenever it comes, and then lifts. One charm in play at a time.",
    "decoy": "Decoy (village): once per game, at night, draws onto itself the first attack aimed at another player.",
    "avenger": "Avenger (village): killed at night, it kills its killer the next night (an attack that "
    "protections may stop).",
    "scapegoat": "Scapegoat (village): executed, it chooses one of the players who voted for it, who is "
    "punished: {punishment}.",
    "thief": "Thief (neutral): on night 1 may take one of the two extra cards and play that role from then "
    "on; otherwise becomes a villager.",
    "little_girl": "Little girl (village): each night may peek at the wolves to learn their target, but may be "
    "caught and attacked.",
    "oracle": "Oracle (village): each night marks a player; when the oracle dies, the last marked player's role "
    "is told to everyone.",
    "roleblocker": "Roleblocker (neutral): each night blocks a player, whose night actions then fail; wins with "
    "the winning side if alive at the end.",
    "bomb": "Bomb (neutral): killed at night, takes the attacker along; wins with the winning side if alive at "
    "the end.",
    "bus_driver": "Bus driver (neutral): each night swaps two players: every later action aimed at one lands on "
    "the other, unknown to all; wins with the winning side if alive at the end.",
    "trickster": "Trickster (neutral): each night forges a visit that trackers and watchers see as real; wins "
    "with the winning side if alive at the end.",
    "shadow": "Shadow (neutral): each night follows a player and copies their night actions on the same players; "
    "wins with the winning side if alive at the end.",
    "serial_killer": "Serial killer (neutral): kills a player every night; wins alone when alive with at most one "
    "other player; while alive, neither the village nor the wolves win.",
    "arsonist": "Arsonist (neutral): each night douses a player with oil, or ignites: every doused player burns "
    "({fire}); wins alone when alive with at most one other player; while alive, "
    "neither the village nor the wolves win.",
    "exile": "Exile (neutral): each night banishes another player for the night: nothing reaches them (no "
    "attack, protection or visit) and they cannot act; wins with the winning side if alive at the end.",
    "dealer": "Dealer (neutral): each night deals another player a random card: a shield from one attack, a "
    "vision of someone's side, a silence the next day or a block that night; wins with the winning "
    "side if alive at the end.",
    "cult_leader": "Cult leader (neutral): each night recruits a player into the cult (wolves and killers "
    "refuse); members keep their roles and know each other; the cult wins when every living "
    "player is in it, and dissolves if the leader dies; while the leader lives, neither the "
    "village nor the wolves win.",
}

STRATEGY = """\
Everything said in the day is public, and anyone may lie. Villagers find the werewolves \
from what players claim, whom they defend and how they vote; a seer's findings are strong \
evidence, but a werewolf may claim to be the seer. Werewolves pretend to be villagers, never \
expose one another, steer the vote onto villagers, and kill the players who threaten them."""

TASKS = {
    "seer_check": "Night {day}: choose a living player to check (you learn whether they are a werewolf), or none.",
    "doctor_protect": "Night {day}: choose a player to protect from an attack tonight, or none.",
    "bodyguard_protect": "Night {day}: choose a player to guard tonight (you die in their place if they are "
    "attacked), or none.",
    "wolf_vote": "Night {day}: vote for the pack's victim tonight (the most votes is attacked; a tie means no "
    "attack), or abstain. Agree with your pack.",
    "witch_save": "Night {day}: the wolves attack {target}. Use your only healing potion to save them (save), or "
    "keep it (none).",
    "witch_poison": "Night {day}: poison a player with your only poison (they die), or none.",
    "vigilante_shoot": "Night {day}: shoot a player, or none (your shots are limited).",
    "cupid_link": "Night 1: link two players as lovers (yourself allowed). When one dies, the other dies too.",
    "piper_charm": "Night {day}: charm a player, or none.",
    "guardian_angel_protect": "Night {day}: choose another player to protect from an attack tonight, or none.",
    "jailer_jail": "Night {day}: choose a player to jail tonight (protected, and cannot act), or none.",
    "roleblock": "Night {day}: choose a player whose night actions fail tonight, or none.",
    "detective_compare": "Night {day}: choose two players to compare (are they on the same side?).",
    "tracker_track": "Night {day}: choose a player to follow tonight (you learn whom they visit), or none.",
    "watcher_watch": "Night {day}: choose a player to watch tonight (you learn who visits them), or none.",
    "wolf_seer_check": "Night {day}: choose a living player to check (you learn their side), or none.",
    "silencer_silence": "Night {day}: choose a player who may not speak tomorrow, or none.",
    "priest_cleanse": "Night {day}: choose a player to cleanse of charms, silence, oil and punishment "
    "(yourself allowed), or none.",
    "werewolf_leader_kill": "Night {day}: name the pack's victim tonight, whatever the votes, or none to leave "
    "it to the vote.",
    "wolf_witch_poison": "Night {day}: poison a player with your only poison (they die), or none.",
    "wolf_guard_protect": "Night {day}: choose a werewolf to protect from an attack tonight, or none.",
    "warder_ward": "Night {day}: charm another player (the charm stops one night attack, whenever it comes), or none.",
    "decoy_draw": "Night {day}: draw onto yourself the first attack aimed at another player tonight (once per "
    "game), or none.",
    "scapegoat_punish": "You were executed. Choose one of the players who voted for you, to be punished.",
    "bus_driver_swap": "Night {day}: choose two players (yourself allowed) to swap: tonight every action aimed at "
    "one lands on the other.",
    "trickster_forge": "Night {day}: choose two players in order: the first will seem to have visited the second "
    "tonight.",
    "shadow_follow": "Night {day}: choose a player to follow tonight (you copy their night actions), or none.",
    "thief_steal": "Night 1: take an extra card and become its role (card1 or card2), or none (you become a villager).",
    "little_girl_peek": "Night {day}: peek at the wolves to learn their target (peek; you may be caught and "
    "attacked), or none.",
    "oracle_mark": "Night {day}: choose a player to mark (their role is revealed when you die), or none.",
    "serial_kill": "Night {day}: choose a player to kill tonight, or none.",
    "arsonist": "Night {day}: douse a player with oil, or ignite (every doused player burns), or none.",
    "exile_banish": "Night {day}: choose a player to banish for tonight (untouchable, and cannot act), or none.",
    "dealer_deal": "Night {day}: choose a player to deal a random card to (a boon or a bane), or none.",
    "cult_recruit": "Night {day}: choose a player to recruit into your cult, or none.",
    "candidacy": "Day 1: stand for leader (stand) or not (decline). You have the floor: you may also speak.",
    "leader_vote": "Vote for a leader among the candidates, or abstain.",
    "order_start": "As leader, choose from which of last night's dead the discussion starts.",
    "order_direction": "As leader, choose the direction of the discussion (clockwise is rising seat numbers).",
    "speak": "Day {day}: you have the floor{runoff}. Speak to the table.",
    "last_words": "You are leaving the game: say your last words.",
    "vote": "Day {day}{round}: vote to execute a living player (never yourself), or abstain.",
    "hunter_shoot": "You died. Shoot a living player (they die at once), or none.",
}


class WerewolfText(Renderer):
    title = "Werewolf"
    tasks = TASKS

    def rules(self, game: GameView[Any]) -> str:
        o = game.options
        deal = _deal(game)
        scope = o.get("lastWordsScope") == "day_and_night"
        last_words = (
            ""
            if o.get("lastWordsMode", "none") == "none"
            else (
                " Executed players"
                + (" and the night's dead" if scope else "")
                + " may get last words"
                + (
                    " (as many in the game as werewolves were dealt)."
                    if o.get("lastWordsMode") == "limit_by_initial_wolves"
                    else "."
                )
            )
        )
        days = o.get("maxDays", "0")
        text = [
            BASICS.format(
                reveal=" until the end"
                if o.get("revealRolesOnDeath") == "false"
                else ", but a dead player's role is announced",
                leader=LEADER if o.get("leaderEnabled", "true") == "true" else "",
                majority=" if those votes outnumber the abstentions"
                if o.get("dayVoteMajority", "true") == "true"
                else "",
                last_words=last_words,
                limit=f" After {days} days without a winner the game is a draw." if days not in ("0", "") else "",
            )
        ]
        text.append(
            f"This table: {len(game.seats)} players in seat order {', '.join(game.seats)}. Roles dealt: "
            + ", ".join(f"{n} {r}" for r, n in deal.items())
            + "."
        )
        fills = {
            "self": "" if o.get("allowDoctorSelfProtect", "true") == "true" else " (never themself)",
            "repeat": "" if o.get("allowRepeatedProtect") == "true" else ", never the same player two nights in a row",
            "self_save": "" if o.get("witchCanSaveSelf", "true") == "true" else " (unless it is herself)",
            "first_night": " (on night 1 only)" if o.get("witchSaveFirstNightOnly") == "true" else "",
            "poison": "" if o.get("hunterShootOnPoison") == "true" else " (not when poisoned)",
            "shots": o.get("vigilanteShots", "1"),
            "poison_stops": " (protections may stop it, but never a bodyguard nor a wolf guard)"
            if o.get("protectAgainstPoison") == "true"
            else " (nothing stops it)",
            "poison_charm": " or poison" if o.get("protectAgainstPoison") == "true" else "",
            "punishment": "they die at once" if o.get("scapegoatPunishment") == "death" else "no vote the next day",
            "fire": "a doctor's, guardian angel's or jailer's protection, a dealer's shield or the witch's heal stops "
            "fire; a bodyguard never takes it"
            if o.get("protectAgainstFire") == "true"
            else "no protection stops fire",
        }
        text.append("Roles in play:\n" + "\n".join(f"- {ROLES[r].format(**fills)}" for r in deal if r in ROLES))
        text.append(STRATEGY)
        return "\n\n".join(text)

    def line(self, msg: Message, game: GameView[Any]) -> str | None:
        verb = msg.verb
        if verb in ("ASK", "RATINGS"):
            return None  # requests: the lines that close them tell the outcome
        if verb == "TIMEOUT":
            return f"{msg.get('player', '?')} missed a deadline."
        news = read(MESSAGES, msg)
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
            facts.append(f"Your role: {game.role}, on the {game.side} side.")
        state = followed(game, WerewolfState)
        facts.append(f"It is {_phase(state)}. Alive: {join(state.alive)}.")
        if state.dead:
            facts.append("Dead: " + ", ".join(f"{n} ({state.roles.get(n, 'role unknown')})" for n in state.dead) + ".")
        if state.leader:
            facts.append(f"Leader: {state.leader}.")
        if state.wolves:
            pack = [w for w in state.wolves if w != game.me and w in state.alive]
            facts.append(f"The werewolves are {join(state.wolves)}; your living pack mates: {join(pack)}.")
        if state.lovers:
            facts.append(
                f"Lovers: {join(state.lovers)} (linked by Cupid {state.cupid or '?'}); if one dies, so does the other."
            )
        if state.seer:
            facts.append("Your checks: " + "; ".join(f"{r.player} is {r.side}" for r in state.seer) + ".")
        if state.charmed:
            facts.append(f"Charmed players: {join(state.charmed)}.")
        if state.cult and state.cult_leader in state.alive:
            facts.append(
                f"The cult of {state.cult_leader}: {join(state.cult)}; you play for it while its leader lives."
            )
        facts += _secrets(game, state)
        facts += _powers(game, state)
        return facts

    def fill(self, fields: Fields, game: GameView[Any], ask: Ask) -> None:
        state = followed(game, WerewolfState)
        targets = list(state.wolf_targets.values())
        fields["target"] = "?" if not targets else targets[-1] or NOBODY
        fields["runoff"] = " again for the runoff" if ask.fields.get("purpose") == "runoff" else ""
        fields["round"] = ""
        if ask.fields.get("round") == "2":
            tied = state.results[-1].candidates if state.results else []
            fields["round"] = f", runoff among {join(tied)}"


def _deal(game: GameView[Any]) -> dict[str, str]:
    """The deal (role: count), villagers last."""
    counts = game.start.pairs("roles")
    return dict(sorted(counts.items(), key=lambda rc: rc[0] == "villager"))


def _phase(state: WerewolfState) -> str:
    if state.day == 0:
        return "the start"
    return f"night {state.day}" if state.night else f"day {state.day}"


def _secrets(game: GameView[Any], state: WerewolfState) -> list[str]:
    """This player's private news that the history may have left out by now (a long game's
    oldest lines are cut): masons, comparisons, visits seen, dealt cards, the thief's cards;
    and who may not speak or vote today."""
    facts: list[str] = []
    if state.masons:
        facts.append(f"The masons (all village): {join(state.masons)}.")
    if state.cards and game.role == "thief":
        facts.append(f"The two extra cards: card1 is {', card2 is '.join(state.cards)}.")
    if state.detective:
        facts.append(
            "Your comparisons: "
            + "; ".join(
                f"night {r.night}, {join(r.players)}: {'same side' if r.same else 'different sides'}"
                for r in state.detective
            )
            + "."
        )
    if state.tracked:
        facts.append(
            "Whom the players you followed visited: "
            + "; ".join(f"night {r.night}, {r.player} visited {join(r.players)}" for r in state.tracked)
            + "."
        )
    if state.watched:
        facts.append(
            "Who visited the players you watched: "
            + "; ".join(f"night {r.night}, {r.player} was visited by {join(r.players)}" for r in state.watched)
            + "."
        )
    if state.dealt:
        facts.append(
            "Cards the dealer dealt you: "
            + "; ".join(
                f"night {c.night}, {c.card}" + (f" ({c.player} is on the {c.side} side)" if c.player else "")
                for c in state.dealt
            )
            + "."
        )
    if state.blocked:
        facts.append(
            f"You were blocked (your night actions did nothing) on night(s) {', '.join(str(n) for n in state.blocked)}."
        )
    if not state.night:
        silenced = state.silenced.get(state.day, [])
        if silenced:
            facts.append(f"Silenced today (no turn to speak): {join(silenced)}.")
        punished = state.punished.get(state.day - 1)
        if punished and game.options.get("scapegoatPunishment") != "death":
            facts.append(f"Punished by the scapegoat yesterday, so without a vote today: {punished}.")
    return facts


def _powers(game: GameView[Any], state: WerewolfState) -> list[str]:
    """What this player's own answers used up: potions, shots, last night's protection."""
    answers = list(memory(game).answers)
    role = game.role
    facts: list[str] = []
    if role == "witch":
        healed = any(k == "witch_save" and c == "save" for k, c in answers)
        poisoned = any(k == "witch_poison" and c != "none" for k, c in answers)
        facts.append(
            f"Your healing potion is {'used' if healed else 'unused'}; your poison is "
            f"{'used' if poisoned else 'unused'}."
        )
    elif role in ("doctor", "bodyguard"):
        last = [c for k, c in answers if k == f"{role}_protect"]
        if last and last[-1] != "none":
            facts.append(f"Last night you protected {last[-1]}.")
    elif role == "warder":
        charms = [c for k, c in answers if k == "warder_ward" and c != "none"]
        if charms:
            facts.append(
                f"Your last charm went on {charms[-1]}; you are asked again once no charm of yours is in play."
            )
    elif role in ("wolf_witch", "decoy"):
        kind, power = ("wolf_witch_poison", "poison") if role == "wolf_witch" else ("decoy_draw", "lure")
        spent = any(k == kind and c != "none" for k, c in answers)
        facts.append(f"Your {power} is {'used' if spent else 'unused'}.")
    elif role == "arsonist":
        doused: list[str] = []
        for kind, choice in answers:
            if kind == "arsonist" and choice == "ignite":
                doused = []
            elif kind == "arsonist" and isinstance(choice, str) and choice != "none" and choice not in doused:
                doused.append(choice)
        living = [n for n in doused if n in state.alive]
        facts.append(
            f"Doused with your oil and alive: {join(living)}; ignite burns them all."
            if living
            else "No living player is doused with your oil: ignite would burn nobody."
        )
    elif role == "vigilante":
        used = sum(1 for k, c in answers if k == "vigilante_shoot" and c != "none")
        facts.append(f"Shots used: {used} of {game.options.get('vigilanteShots', '1')}.")
    return facts


def living_pack(game: GameView[Any]) -> list[str]:
    """The other living werewolves, who hear this player's pack talk (none: not a wolf)."""
    state = followed(game, WerewolfState)
    return [w for w in state.wolves if w != game.me and w in state.alive]
