"""Werewolf for bots: ``WerewolfBot`` (one method per decision), its requests, and
``WerewolfState`` (the living and the dead, speeches, votes, your night: in
``werewolf_state``), kept up to date by the SDK.

protocol.md, section 9, is the wire side of all of this; ``rules/werewolf.md`` the rules."""

from __future__ import annotations

from typing import TypeAlias

from .bot import GameBot
from .fields import Player, number, word
from .speech import Talk
from .view import Ask, GameSpec, GameView, register
from .werewolf_state import (
    Ballot as Ballot,
    DealtCard as DealtCard,
    Death as Death,
    DetectiveResult as DetectiveResult,
    PackVote as PackVote,
    SeerResult as SeerResult,
    Speech as Speech,
    TeamLine as TeamLine,
    VisitReport as VisitReport,
    VoteResult as VoteResult,
    WerewolfState as WerewolfState,
)

# -- requests ------------------------------------------------------------------------


class WerewolfAsk(Ask):
    """A Werewolf request. ``options`` are exactly the legal answers: players' nicks and
    words (``none``, ``abstain``, ...); ``ask.players`` is the nicks alone."""

    day = number("The current day, and the number of the night before it (night N comes before day N).")


class SpeakAsk(WerewolfAsk):
    """``speak``: your turn in the day's discussion (or a runoff's)."""

    purpose = word("``discussion``, or ``runoff`` (the tied speak before the second vote).", "discussion")


class DayVoteAsk(WerewolfAsk):
    """``vote``: your public vote on whom to execute (never yourself)."""

    round = number("1, or 2 for the runoff between the tied.", 1)


WerewolfView: TypeAlias = GameView[WerewolfState]
"""What a ``WerewolfBot``'s decisions get as ``game``: ``game.state`` is a ``WerewolfState``."""

_NIGHT = (
    "wolf_vote",
    "seer_check",
    "doctor_protect",
    "bodyguard_protect",
    "witch_save",
    "witch_poison",
    "vigilante_shoot",
    "cupid_link",
    "piper_charm",
    "hunter_shoot",
    "guardian_angel_protect",
    "roleblock",
    "serial_kill",
    "jailer_jail",
    "detective_compare",
    "tracker_track",
    "watcher_watch",
    "oracle_mark",
    "little_girl_peek",
    "thief_steal",
    "wolf_seer_check",
    "silencer_silence",
    "priest_cleanse",
    "werewolf_leader_kill",
    "wolf_witch_poison",
    "wolf_guard_protect",
    "warder_ward",
    "decoy_draw",
    "scapegoat_punish",
    "bus_driver_swap",
    "trickster_forge",
    "shadow_follow",
    "arsonist",
    "exile_banish",
    "dealer_deal",
    "cult_recruit",
)
_DAY = ("candidacy", "leader_vote", "order_start", "order_direction", "last_words")
WEREWOLF = register(
    GameSpec(
        "werewolf",
        WerewolfState,
        {
            **{kind: WerewolfAsk for kind in _NIGHT + _DAY},
            "speak": SpeakAsk,
            "vote": DayVoteAsk,
        },
    )
)


# -- the bot ------------------------------------------------------------------------


class WerewolfBot(GameBot):
    """A Werewolf bot: override the decisions you care about; each one you leave alone
    answers with a random legal choice (``ask.options`` lists exactly the legal ones).
    ``game.state`` (a ``WerewolfState``) is the game so far. What you say at the floor is
    ``speech`` (and to the pack at night, ``team_talk``); ``speak`` only ends the turn.
    Rules: rules/werewolf.md; the wire: protocol.md, section 9."""

    plays = "werewolf"

    # -- talk ----------------------------------------------------------------------------

    def speech(self, game: WerewolfView, ask: Ask) -> Talk:
        """What you say when you have the floor: at ``candidacy``, ``speak`` (a
        ``SpeakAsk``: ``ask.purpose``) and ``last_words``, before that decision answers.
        One text (paragraphs and line breaks kept) or a list of texts; the SDK cuts it into
        lines of at most 300 bytes, words whole, and says at most 10 (the turn's cap),
        logging what it had to leave out. Everyone's speeches are in
        ``game.state.speeches``. Default: nothing."""
        return []

    def team_talk(self, game: WerewolfView, ask: Ask) -> Talk:
        """What you tell the pack, as a wolf, before answering a night request (say at
        ``wolf_vote``: ``ask.kind``); the other living wolves hear it, and their talk is in
        ``game.state.team_talk``. Cut into lines like ``speech``. Default: nothing."""
        return []

    # -- night: asked by DM, to the role's holder alone --------------------------------

    def wolf_vote(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are a wolf: return the player the pack should kill, or ``"abstain"``. The
        pack kills its single most-voted player (a tie kills no one); ``team_talk`` is
        said to the pack before this answer. Default: at random."""
        return self._at_random(ask)

    def seer_check(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the seer: return a living player to learn their side (``SEER`` tells
        you; ``game.state.seer`` keeps it), or ``"none"``. Default: at random."""
        return self._at_random(ask)

    def wolf_seer_check(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the wolf seer: return a living player to learn their side (``SEER``
        tells you; ``game.state.seer`` keeps it), or ``"none"``. You vote with the pack
        too. Default: at random."""
        return self._at_random(ask)

    def silencer_silence(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the silencer: return a player who may not speak tomorrow (``SILENCED``
        tells everyone at the day's start; they still vote), or ``"none"``. You vote with
        the pack too. Default: at random."""
        return self._at_random(ask)

    def priest_cleanse(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the priest: return a player (yourself allowed) to cleanse of every
        harmful status (charmed, silenced, oiled, voteless), or ``"none"``. Default: at
        random."""
        return self._at_random(ask)

    def werewolf_leader_kill(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the werewolf leader, asked after your own ``wolf_vote``: return the player
        the pack kills tonight, whatever the votes, or ``"none"`` to leave it to the vote.
        ``WOLF_VOTES`` tells the pack the final target. Default: at random."""
        return self._at_random(ask)

    def wolf_witch_poison(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the wolf witch: return a player to poison (once per game; a poison no
        bodyguard intercepts), or ``"none"``. You vote with the pack too. Default: at
        random."""
        return self._at_random(ask)

    def wolf_guard_protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the wolf guard, asked before the pack votes: return a werewolf
        (yourself allowed; the options are the living pack, less last night's choice) to
        protect from one ordinary kill tonight, or ``"none"``. Default: at random."""
        return self._at_random(ask)

    def warder_ward(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the warder: return another player to charm, or ``"none"``. The charm
        stops one night kill, whenever it comes, and then lifts; you are asked only while
        none of your charms is in play. Default: at random."""
        return self._at_random(ask)

    def decoy_draw(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the decoy: return another player whose first ordinary kill tonight you
        draw onto yourself (once per game, spent even if no kill comes), or ``"none"``.
        Default: at random."""
        return self._at_random(ask)

    def bus_driver_swap(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """You are the bus driver: return two players (``ask.pick``; yourself allowed) to
        swap tonight: every later action aimed at one lands on the other (kills,
        protections, checks...), and nobody is told. The swap is made every night. You win
        with the winning side if you are alive at the end. Default: two at random."""
        return self._some_at_random(ask)

    def trickster_forge(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """You are the trickster: return two players in order, a visitor then the player
        they seem to visit tonight: trackers and watchers see that visit as real. Made every
        night (forge your own visit for no effect). You win with the winning side if you are
        alive at the end. Default: two at random."""
        return self._some_at_random(ask)

    def shadow_follow(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the shadow: return a player to follow tonight, or ``"none"``: you copy
        their night actions aimed at players, on the same players (a check's result comes
        to you as ``SEER``, ``DETECTIVE``, ``TRACKED`` or ``WATCHED``; protections and
        kills are made again, as yours). You win with the winning side if you are alive at
        the end. Default: at random."""
        return self._at_random(ask)

    def doctor_protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the doctor: return a player to protect from the wolves tonight, or
        ``"none"`` (the options leave out whom the rules forbid). Default: at random."""
        return self._at_random(ask)

    def bodyguard_protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the bodyguard: return a player to guard tonight, or ``"none"``.
        Default: at random."""
        return self._at_random(ask)

    def witch_save(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the witch: return ``"save"`` to heal the wolves' victim
        (``game.state.wolf_targets[ask.day]``; the heal is used once per game), or
        ``"none"``. Default: at random."""
        return self._at_random(ask)

    def witch_poison(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the witch: return a player to poison (once per game), or ``"none"``.
        Default: at random."""
        return self._at_random(ask)

    def vigilante_shoot(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the vigilante: return a player to shoot tonight, or ``"none"`` (your
        shots are counted). Default: at random."""
        return self._at_random(ask)

    def cupid_link(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """You are Cupid, night 1: return two players (``ask.pick``) to link as lovers;
        they win or die together. Default: two at random."""
        return self._some_at_random(ask)

    def piper_charm(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the piper: return a player to charm, or ``"none"``; you win when every
        other living player is charmed. Default: at random."""
        return self._at_random(ask)

    def guardian_angel_protect(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the guardian angel: return another player to protect from one kill
        tonight, or ``"none"`` (never yourself; the options leave out whom the rules
        forbid). Default: at random."""
        return self._at_random(ask)

    def roleblock(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the roleblocker: return a player whose night actions fail tonight (they
        are told ``BLOCKED``), or ``"none"``. You win with the winning side if you are alive
        at the end. Default: at random."""
        return self._at_random(ask)

    def jailer_jail(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the jailer: return another player to jail tonight (they are protected
        from one kill and cannot act; they are told ``BLOCKED``), or ``"none"``. Default:
        at random."""
        return self._at_random(ask)

    def detective_compare(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """You are the detective: return two players (``ask.pick``) to learn whether they
        are on the same side (``DETECTIVE``; ``game.state.detective``). Default: two at
        random."""
        return self._some_at_random(ask)

    def tracker_track(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the tracker: return a player to follow tonight, or ``"none"``; at dawn
        ``TRACKED`` tells whom they visited (``game.state.tracked``). Default: at random."""
        return self._at_random(ask)

    def watcher_watch(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the watcher: return a player to watch tonight, or ``"none"``; at dawn
        ``WATCHED`` tells who visited them (``game.state.watched``). Default: at random."""
        return self._at_random(ask)

    def thief_steal(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the thief, night 1: return ``"card1"`` or ``"card2"`` to become the role
        on that extra card (``game.state.cards``; a ``ROLE`` line follows), or ``"none"``
        to become a villager (not offered when both cards are werewolves). Default: at
        random."""
        return self._at_random(ask)

    def little_girl_peek(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the little girl: return ``"peek"`` to learn the wolves' target tonight
        (``WOLF_TARGET``; ``game.state.wolf_targets``), at the risk of being caught and
        attacked by the pack, or ``"none"``. Default: at random."""
        return self._at_random(ask)

    def oracle_mark(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the oracle: return a player to mark tonight, or ``"none"``; when you
        die, the role of the last player you marked is told to everyone (``ORACLE``).
        Default: at random."""
        return self._at_random(ask)

    def arsonist(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the arsonist: return a player to douse with oil (the options leave out
        the living already doused), ``"ignite"`` to burn every doused player tonight (no
        protection stops fire unless the ``protectAgainstFire`` option is on, and a
        bodyguard never takes it; offered while one is alive), or ``"none"``. You win alone
        when you are alive with at most one other player. Default: at random."""
        return self._at_random(ask)

    def exile_banish(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the exile: return another player to banish for tonight (nothing reaches
        them, no kill, protection or visit, and they cannot act: they are told
        ``BLOCKED``), or ``"none"``. You win with the winning side if you are alive at the
        end. Default: at random."""
        return self._at_random(ask)

    def dealer_deal(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the dealer: return another player to deal a random card to (a shield
        from one kill, a vision of someone's side, a silence tomorrow or a block tonight;
        they alone learn which, ``DEALT``), or ``"none"``. You win with the winning side
        if you are alive at the end. Default: at random."""
        return self._at_random(ask)

    def cult_recruit(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the cult leader: return a player to recruit (the options leave out your
        living members), or ``"none"``. Wolves and killers refuse, silently; a recruit
        joins and every member is told (``CULT``; ``game.state.cult``). The cult wins when
        every living player is in it; it dissolves when you die. Default: at random."""
        return self._at_random(ask)

    def serial_kill(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the serial killer: return a player to kill tonight, or ``"none"``. You
        win alone when you are alive with at most one other player. Default: at random."""
        return self._at_random(ask)

    def hunter_shoot(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You died: as the hunter, return a player to take with you, or ``"none"``. With
        roles hidden every dying player is asked (a non-hunter with ``none`` alone), so
        being asked tells nothing. Default: at random."""
        return self._at_random(ask)

    def scapegoat_punish(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You were executed as the scapegoat: return one of the living players who voted
        for you (``ask.options``), to be punished (``PUNISHED``; the ``scapegoatPunishment``
        option says how). With roles hidden every dying player may be asked, a
        non-scapegoat with ``none`` alone. Default: at random."""
        return self._at_random(ask)

    # -- day: asked in the channel -------------------------------------------------------

    def candidacy(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Day 1, with a leader election: the floor is yours (say your ``speech``); return
        ``"stand"`` to run for leader or ``"decline"``. Default: at random."""
        return self._at_random(ask)

    def leader_vote(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """Return the candidate you vote for as leader, or ``"abstain"``
        (``game.state.candidates`` are those who stood). Default: at random."""
        return self._at_random(ask)

    def order_start(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the leader and someone died last night: return one of the dead in
        ``ask.options``; the discussion starts next to them. Default: at random."""
        return self._at_random(ask)

    def order_direction(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are the leader: return ``"clockwise"`` (rising seats) or
        ``"counterclockwise"`` for the speaking order. Default: at random."""
        return self._at_random(ask)

    def speak(self, game: WerewolfView, ask: SpeakAsk) -> str:
        """Your turn to talk: the SDK says your ``speech`` first, then this answer ends the
        turn. Return ``"done"``, or ``"pass"`` to say you gave the turn up. Default: at
        random."""
        return self._at_random(ask)

    def last_words(self, game: WerewolfView, ask: WerewolfAsk) -> str:
        """You are dying: your ``speech`` is said, then return ``"done"`` (or
        ``"pass"``). Default: at random."""
        return self._at_random(ask)

    def vote(self, game: WerewolfView, ask: DayVoteAsk) -> str:
        """Return your public vote on whom to execute: a player of ``ask.options`` (never
        yourself) or ``"abstain"``. In a runoff (``ask.round == 2``) only the tied are
        options. Default: at random."""
        return self._at_random(ask)
