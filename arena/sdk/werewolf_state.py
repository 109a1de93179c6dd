"""What a Werewolf bot knows of its game: ``WerewolfState`` (the living and the dead,
speeches, votes, your night) and its records, kept up to date by the SDK from the game's
lines, each read as its typed message (``arena.games.werewolf.messages``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..games.werewolf import messages as m
from ..games.wire import NOBODY, Team, typed
from ..protocol import END, Message
from .fields import Player
from .view import GameState


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
        lines += [
            f"  {s.player} ({s.purpose}, day {s.day}): {' / '.join(s.lines) or '(silent)'}" for s in self.speeches
        ]
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
        self.results.append(
            VoteResult(
                self.day, msg.round, dict(msg.counts), msg.abstentions, msg.outcome, msg.target, list(msg.candidates)
            )
        )

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
        **GameState.READERS,
        **typed(
            {
                m.Start: _start,
                m.Wolves: _wolves,
                m.Lovers: _lovers,
                m.Night: _night,
                m.Seer: _seer,
                m.WolfVotes: _wolf_votes,
                m.WolfTarget: _wolf_target,
                m.Charmed: _charmed,
                m.Blocked: _blocked,
                m.Masons: _masons,
                m.Caught: _caught,
                m.Cards: _cards,
                m.Silenced: _silenced,
                m.Cleansed: _cleansed,
                m.Punished: _punished,
                m.Dealt: _dealt,
                m.Cult: _cult,
                m.Detective: _detective,
                m.Tracked: _tracked,
                m.Watched: _watched,
                m.Oracle: _oracle,
                m.Dawn: _dawn,
                m.Day: _day,
                m.Candidacy: _candidacy,
                m.Speech: _speech,
                m.LeaderVote: _leader_vote,
                m.Leader: _leader,
                m.Order: _order,
                m.Ballot: _ballot,
                m.VoteResult: _vote_result,
                m.Execution: _execution,
                m.Idiot: _idiot,
                m.Shot: _shot_line,
                m.Death: _death,
                Team: _team,
            }
        ),
        "ASK candidacy": _floor,
        "ASK speak": _floor,
        "ASK last_words": _floor,
        END: _end,
    }
