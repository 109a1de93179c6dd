"""Werewolf for bots: ``WerewolfBot`` (one method per decision), its requests, and
``WerewolfState`` (the living and the dead, speeches, votes, your night), kept up to date
by the SDK.

protocol.md, section 9, is the wire side of all of this; ``rules/werewolf.md`` the rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from ..games.werewolf import messages as m
from ..games.wire import NOBODY, Team, typed
from ..protocol import END, Message
from .bot import GameBot
from .fields import Player, number, word
from .speech import Talk
from .view import Ask, GameSpec, GameState, GameView, register

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


# -- state -----------------------------------------------------------------------------


@dataclass
class Death:
    player: Player
    day: int
    """The day of the death (a night death counts for the day it is told at dawn)."""
    cause: str
    """``night`` (dawn never tells how), ``execution``, ``shot`` (a hunter's), ``punished``
    (by a scapegoat), or ``day`` (another death in the day: a lover's grief)."""
    role: str | None = None
    """The role, if the game reveals roles on death."""


@dataclass
class Speech:
    """A turn at the floor and what was said in it (the bot's own turns too)."""

    player: Player
    day: int
    purpose: str
    """``candidacy``, ``discussion``, ``runoff`` or ``last_words``."""
    lines: list[str] = field(default_factory=list)
    passed: bool = False
    """The speaker gave the turn up (``pass``)."""
    over: bool = False
    """The turn has ended."""


@dataclass
class Ballot:
    """A public vote on whom to execute."""

    day: int
    round: int
    player: Player
    vote: Player | None
    """None: an abstention."""


@dataclass
class VoteResult:
    """The count of a day's vote."""

    day: int
    round: int
    counts: dict[Player, int]
    abstentions: int
    outcome: str
    """``execution``, ``runoff`` or ``none``."""
    target: Player | None
    candidates: list[Player] = field(default_factory=list)
    """The players tied for the most votes, when the outcome is a runoff."""


@dataclass
class SeerResult:
    night: int
    player: Player
    side: str
    """``village`` or ``werewolf``: how the player looks to the seer."""


@dataclass
class DetectiveResult:
    night: int
    players: list[Player]
    """The two players compared."""
    same: bool
    """Whether they look to be on the same side (neutral roles look like the village)."""


@dataclass
class VisitReport:
    """What the tracker or the watcher learned at dawn about one player's night."""

    night: int
    player: Player
    """The player followed (tracker) or watched (watcher)."""
    players: list[Player]
    """Whom they visited (tracker), or who visited them (watcher); empty: nobody."""


@dataclass
class DealtCard:
    """A card the dealer dealt you (``DEALT``): ``shield``, ``vision``, ``silence`` or ``block``."""

    night: int
    card: str
    player: Player | None = None
    """A vision's player (None for the other cards)."""
    side: str | None = None
    """A vision's finding: the side that player looks to be on, as to the seer."""


@dataclass
class PackVote:
    """How the pack voted one night (told to the living wolves)."""

    night: int
    votes: dict[Player, Player | None]
    """Each wolf's victim; None: an abstention."""
    target: Player | None
    """The pack's victim; None: a tie or no vote, no kill."""


@dataclass
class TeamLine:
    """A line of the pack's talk at night (``TEAM``); the bot's own lines too."""

    night: int
    player: Player
    text: str


def _someone(value: str | None) -> Player | None:
    return None if value in (None, "", NOBODY, "abstain") else value


@dataclass
class WerewolfState(GameState):
    """A Werewolf game as its lines told it to this bot: what everyone knows, and the
    private news of its own role. Roles made public (the dead's, when the game reveals
    them; a spared idiot's) are in ``roles``."""

    deal: dict[str, int] = field(default_factory=dict)
    """How many of each role were dealt (not who has which)."""
    day: int = 0
    """The current day; during night N, N (night N comes before day N)."""
    night: bool = False
    """Whether it is night now (from ``NIGHT`` until ``DAWN``)."""
    alive: list[Player] = field(default_factory=list)
    """The living, in seat order."""
    deaths: list[Death] = field(default_factory=list)
    """Every death, in the order told."""
    leader: Player | None = None
    """The elected leader, while there is one."""
    candidates: list[Player] = field(default_factory=list)
    """Who stood for leader."""
    leader_votes: dict[Player, Player | None] = field(default_factory=dict)
    """The leader election's votes; None: an abstention."""
    order: list[Player] = field(default_factory=list)
    """Today's speaking order (the leader may appear twice)."""
    speeches: list[Speech] = field(default_factory=list)
    """Every turn at the floor so far, with its lines, oldest first."""
    ballots: list[Ballot] = field(default_factory=list)
    """Every public vote on an execution, oldest first."""
    results: list[VoteResult] = field(default_factory=list)
    """Every count of those votes."""
    wolves: list[Player] = field(default_factory=list)
    """The pack, if you are a wolf."""
    team_talk: list[TeamLine] = field(default_factory=list)
    """The pack's talk at night, if you are a wolf."""
    pack_votes: list[PackVote] = field(default_factory=list)
    """How the pack voted each night, if you are a wolf."""
    seer: list[SeerResult] = field(default_factory=list)
    """What you learned as the seer, night by night."""
    wolf_targets: dict[int, Player | None] = field(default_factory=dict)
    """The wolves' victim of each night, as told to the witch (and the doctor)."""
    lovers: list[Player] = field(default_factory=list)
    """The two lovers, if you are one of them or Cupid."""
    cupid: Player | None = None
    charmed: list[Player] = field(default_factory=list)
    """Who the piper has charmed, if you are charmed or the piper."""
    blocked: list[int] = field(default_factory=list)
    """The nights you were blocked (``BLOCKED``): your night actions then did nothing."""
    masons: list[Player] = field(default_factory=list)
    """The masons, if you are one."""
    silenced: dict[int, list[Player]] = field(default_factory=dict)
    """Who is silenced, by day (``SILENCED``): no turn at the floor that day."""
    cleansed: list[str] = field(default_factory=list)
    """The statuses a priest lifted from you (``CLEANSED``)."""
    punished: dict[int, Player] = field(default_factory=dict)
    """Whom an executed scapegoat punished, by day (``PUNISHED``): with ``lose_vote`` they do
    not vote the next day."""
    dealt: list[DealtCard] = field(default_factory=list)
    """The cards the dealer dealt you, night by night (``DEALT``)."""
    cult: list[Player] = field(default_factory=list)
    """The cult's living members, its leader included, if you are in it (``CULT``); at the
    end, every member (``END``)."""
    cult_leader: Player | None = None
    """The cult's leader, if you are in the cult: when they die, the cult is no more."""
    cards: list[str] = field(default_factory=list)
    """The two extra cards (roles), if you are the thief: ``card1`` and ``card2``."""
    caught: list[Player] = field(default_factory=list)
    """Little girls the pack caught peeking (``CAUGHT``), if you are a wolf."""
    detective: list[DetectiveResult] = field(default_factory=list)
    """What you learned as the detective, night by night."""
    tracked: list[VisitReport] = field(default_factory=list)
    """What you learned as the tracker: whom your target visited."""
    watched: list[VisitReport] = field(default_factory=list)
    """What you learned as the watcher: who visited your target."""
    _shot: Player | None = field(default=None, repr=False)
    """The target of the last hunter's shot (or a scapegoat's deadly punishment): its DEATH
    line follows."""
    _shot_cause: str = field(default="shot", repr=False)

    @property
    def dead(self) -> list[Player]:
        """The dead, in the order they died."""
        return [d.player for d in self.deaths]

    @property
    def checked(self) -> dict[Player, str]:
        """The seer's findings: each checked player's side."""
        return {r.player: r.side for r in self.seer}

    def is_alive(self, player: Player) -> bool:
        return player in self.alive

    def __str__(self) -> str:
        time = f"night {self.day}" if self.night else f"day {self.day}"
        dead = ", ".join(f"{d.player}" + (f" ({d.role})" if d.role else "") for d in self.deaths) or "nobody"
        lines = [f"{time}; alive {', '.join(self.alive)}; dead {dead}; leader {self.leader or 'none'}"]
        lines += [f"  {s.player} ({s.purpose}, day {s.day}): {' / '.join(s.lines) or '(silent)'}" for s in self.speeches]
        return "\n".join(lines)

    def said(self, player: Player, text: str) -> None:
        speech = self.speeches[-1] if self.speeches else None
        if speech is not None and not speech.over and speech.player.lower() == player.lower():
            speech.lines.append(text)

    # -- readers (see GameState.READERS): each takes its line as a typed message ----------

    def _start(self, msg: m.Start) -> None:
        self.alive = list(self.seats)
        self.deal = dict(msg.roles)

    def _die(self, player: Player, cause: str, role: str | None) -> None:
        if player in self.alive:
            self.alive.remove(player)
        if player == self.leader:
            self.leader = None  # the title is not passed on
        self.deaths.append(Death(player, self.day, cause, role))
        if role is not None:
            self.roles[player] = role

    def _wolves(self, msg: m.Wolves) -> None:
        self.wolves = list(msg.wolves)

    def _lovers(self, msg: m.Lovers) -> None:
        self.lovers, self.cupid = list(msg.lovers), msg.cupid

    def _night(self, msg: m.Night) -> None:
        self.day, self.night = msg.night, True

    def _seer(self, msg: m.Seer) -> None:
        self.seer.append(SeerResult(msg.night, msg.target, msg.side))

    def _wolf_votes(self, msg: m.WolfVotes) -> None:
        votes = {wolf: _someone(target) for wolf, target in msg.votes.items()}
        self.pack_votes.append(PackVote(msg.night, votes, msg.target))

    def _blocked(self, msg: m.Blocked) -> None:
        self.blocked.append(msg.night)

    def _silenced(self, msg: m.Silenced) -> None:
        self.silenced[msg.day] = list(msg.players)

    def _cleansed(self, msg: m.Cleansed) -> None:
        self.cleansed += msg.statuses

    def _punished(self, msg: m.Punished) -> None:
        self.punished[msg.day] = msg.player
        if msg.punishment == "death":
            self._shot, self._shot_cause = msg.player, "punished"

    def _dealt(self, msg: m.Dealt) -> None:
        self.dealt.append(DealtCard(msg.night, msg.card, msg.player, msg.side))

    def _cult(self, msg: m.Cult) -> None:
        self.cult, self.cult_leader = list(msg.members), msg.leader

    def _cards(self, msg: m.Cards) -> None:
        self.cards = list(msg.cards)

    def _caught(self, msg: m.Caught) -> None:
        self.caught.append(msg.player)

    def _masons(self, msg: m.Masons) -> None:
        self.masons = list(msg.masons)

    def _detective(self, msg: m.Detective) -> None:
        self.detective.append(DetectiveResult(msg.night, list(msg.players), msg.same))

    def _tracked(self, msg: m.Tracked) -> None:
        self.tracked.append(VisitReport(msg.night, msg.target, list(msg.visited)))

    def _watched(self, msg: m.Watched) -> None:
        self.watched.append(VisitReport(msg.night, msg.target, list(msg.visitors)))

    def _wolf_target(self, msg: m.WolfTarget) -> None:
        self.wolf_targets[msg.night] = msg.target

    def _charmed(self, msg: m.Charmed) -> None:
        self.charmed = list(msg.charmed)

    def _dawn(self, msg: m.Dawn) -> None:
        self.day, self.night = msg.day, False
        roles = msg.roles or {}
        for player in msg.dead:
            self._die(player, "night", roles.get(player))

    def _day(self, msg: m.Day) -> None:
        self.day, self.night = msg.day, False
        self.alive = list(msg.alive)
        self.leader = msg.leader

    def _floor(self, msg: Message) -> None:
        """A turn at the floor opens (``speak``, ``last_words``, ``candidacy``)."""
        kind = msg.args[2]
        purpose = msg.get("purpose", "discussion") if kind == "speak" else kind
        self.speeches.append(Speech(msg.get("to", ""), msg.int("day", self.day), purpose))

    def _close(self, player: Player) -> Speech | None:
        """The open turn of ``player``, now over."""
        speech = self.speeches[-1] if self.speeches else None
        if speech is None or speech.over or speech.player != player:
            return None
        speech.over = True
        return speech

    def _candidacy(self, msg: m.Candidacy) -> None:
        self._close(msg.player)
        if msg.stand:
            self.candidates.append(msg.player)

    def _speech(self, msg: m.Speech) -> None:
        speech = self._close(msg.player)
        if speech is not None:
            speech.passed = msg.passed

    def _leader_vote(self, msg: m.LeaderVote) -> None:
        self.leader_votes[msg.player] = _someone(msg.vote)

    def _leader(self, msg: m.Leader) -> None:
        self.leader = msg.leader

    def _order(self, msg: m.Order) -> None:
        self.order = list(msg.speakers)

    def _ballot(self, msg: m.Ballot) -> None:
        self.ballots.append(Ballot(self.day, msg.round, msg.player, _someone(msg.vote)))

    def _vote_result(self, msg: m.VoteResult) -> None:
        self.results.append(VoteResult(self.day, msg.round, dict(msg.counts), msg.abstentions, msg.outcome,
                                       msg.target, list(msg.candidates)))

    def _execution(self, msg: m.Execution) -> None:
        if not msg.spared:
            self._die(msg.player, "execution", msg.role)

    def _idiot(self, msg: m.Idiot) -> None:
        self.roles[msg.player] = msg.role

    def _oracle(self, msg: m.Oracle) -> None:
        self.roles[msg.target] = msg.role

    def _shot_line(self, msg: m.Shot) -> None:
        self._shot, self._shot_cause = msg.target, "shot"

    def _death(self, msg: m.Death) -> None:
        self._die(msg.player, self._shot_cause if msg.player == self._shot else "day", msg.role)
        self._shot = None

    def _team(self, msg: Team) -> None:
        self.team_talk.append(TeamLine(self.day, msg.from_, msg.text))

    def _end_line(self, msg: m.End) -> None:
        self.lovers = list(msg.lovers or self.lovers)
        self.charmed = list(msg.charmed or self.charmed)
        self.cult = list(msg.cult or self.cult)

    def _end(self, msg: Message) -> None:
        super()._end(msg)
        self._end_line(m.End.parse(msg))

    READERS = {
        **GameState.READERS, **typed({
            m.Start: _start, m.Wolves: _wolves, m.Lovers: _lovers, m.Night: _night, m.Seer: _seer,
            m.WolfVotes: _wolf_votes, m.WolfTarget: _wolf_target, m.Charmed: _charmed, m.Blocked: _blocked,
            m.Masons: _masons, m.Caught: _caught, m.Cards: _cards, m.Silenced: _silenced, m.Cleansed: _cleansed,
            m.Punished: _punished, m.Dealt: _dealt, m.Cult: _cult, m.Detective: _detective, m.Tracked: _tracked,
            m.Watched: _watched, m.Oracle: _oracle, m.Dawn: _dawn, m.Day: _day, m.Candidacy: _candidacy,
            m.Speech: _speech, m.LeaderVote: _leader_vote, m.Leader: _leader, m.Order: _order, m.Ballot: _ballot,
            m.VoteResult: _vote_result, m.Execution: _execution, m.Idiot: _idiot, m.Shot: _shot_line,
            m.Death: _death, Team: _team,
        }),
        "ASK candidacy": _floor, "ASK speak": _floor, "ASK last_words": _floor, END: _end,
    }


WerewolfView: TypeAlias = GameView[WerewolfState]
"""What a ``WerewolfBot``'s decisions get as ``game``: ``game.state`` is a ``WerewolfState``."""

_NIGHT = ("wolf_vote", "seer_check", "doctor_protect", "bodyguard_protect", "witch_save", "witch_poison",
          "vigilante_shoot", "cupid_link", "piper_charm", "hunter_shoot", "guardian_angel_protect", "roleblock",
          "serial_kill", "jailer_jail", "detective_compare", "tracker_track", "watcher_watch", "oracle_mark",
          "little_girl_peek", "thief_steal", "wolf_seer_check",
          "silencer_silence", "priest_cleanse",
          "werewolf_leader_kill", "wolf_witch_poison", "wolf_guard_protect", "warder_ward", "decoy_draw",
          "scapegoat_punish", "bus_driver_swap", "trickster_forge", "shadow_follow",
          "arsonist", "exile_banish", "dealer_deal", "cult_recruit")
_DAY = ("candidacy", "leader_vote", "order_start", "order_direction", "last_words")
WEREWOLF = register(GameSpec("werewolf", WerewolfState, {
    **{kind: WerewolfAsk for kind in _NIGHT + _DAY}, "speak": SpeakAsk, "vote": DayVoteAsk,
}))


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
        return self._at_random(ask)

    def trickster_forge(self, game: WerewolfView, ask: WerewolfAsk) -> list[Player]:
        """You are the trickster: return two players in order, a visitor then the player
        they seem to visit tonight: trackers and watchers see that visit as real. Made every
        night (forge your own visit for no effect). You win with the winning side if you are
        alive at the end. Default: two at random."""
        return self._at_random(ask)

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
        return self._at_random(ask)

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
        return self._at_random(ask)

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
