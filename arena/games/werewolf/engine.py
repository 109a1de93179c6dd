"""The Werewolf rules engine: a pure, seeded state machine (the rules: rules/werewolf.md).

The game starts at night (§1). A night asks at once every living player whose role acts
(§3.1): none of these choices depends on another's, and asking them in turn would let each
learn from the delay who before them is alive. Only the witch waits, for the wolves'
target (``dependent_kinds``), and the werewolf leader is asked once it has voted. Each step
settles once its answers are in, in the order of §3.2; dawn resolves kills and protections
as §3.10 (resolution.py), whatever order the answers came in. The day follows §4: deaths
announced; on day 1 the leader election (§4,
step 1); last words of the night (§4.1); hunters' shots (§4.2); the win check (in this
order even when the night decided the game: a shot may undo the wolves' parity);
discussion, one speaker at a time in the order of §4, step 5; votes one at a time in the
same order (§4, step 6); on a tie the tied speak again and the others vote again; the
executed speak their last words, then their triggers; win check (§5, neutral wins first).

The win check (``_winner``, §5) asks the ``special_win`` of every role in play in
``win_order``: the lovers (10), the piper (20), the cult (25), the serial killer (30), the
arsonist (40); the first that holds ends the game. Then, unless a ``hostile`` neutral lives
(serial killer, arsonist, cult leader), the village wins with no wolf alive and the wolves
with at least as many living wolves as living village-side players. The jester's win
comes from its execution, at once; a living ``survivor`` neutral (roleblocker, bomb,
exile, dealer) joins whichever side wins.

Decisions (kind: options). Seats are ints; words are strings (see choice.py):
  night  cupid_link, detective_compare, bus_driver_swap: two seats | trickster_forge: two
         seats in order | seer_check, wolf_seer_check, doctor_protect, bodyguard_protect,
         guardian_angel_protect, jailer_jail, roleblock, tracker_track, watcher_watch,
         oracle_mark, vigilante_shoot, serial_kill, witch_poison, wolf_witch_poison,
         piper_charm, shadow_follow, silencer_silence, priest_cleanse, warder_ward,
         decoy_draw, exile_banish, dealer_deal, cult_recruit, werewolf_leader_kill: seat or
         "none" | wolf_guard_protect: a living wolf or "none" | arsonist: seat, "ignite" or
         "none" | wolf_vote: seat or "abstain" | witch_save: "save" or "none" |
         little_girl_peek: "peek" or "none" | thief_steal (night 1): "card1", "card2" or
         "none" ("none" not offered when both cards are wolves)
  day    candidacy: "stand"/"decline" | leader_vote: candidate or "abstain" |
         order_start: one of last night's dead | order_direction: "clockwise"/
         "counterclockwise" | speak, last_words: "done"/"pass" (the floor is the
         speaker's while the decision is open) | vote: seat or "abstain"
  death  hunter_shoot: seat or "none" | scapegoat_punish: one of the living who voted
         for the executed scapegoat

Timeouts (``default_answer``): a night action is not used ("none"), votes abstain, a
candidate declines, a speaker's turn ends ("done"), the leader's direction is the default
counterclockwise and the start the first dead seat, a hunter does not shoot, a silent Cupid
links themself and the next seat (a silent bus driver swaps them; a silent trickster forges
its own visit to that seat).

Events (audience) and data:
  setup [all] players, options, roles {role: count} | role [seat] seat, role, team |
  wolves [wolves] wolves | thief_cards [thief] cards | masons [masons] masons | night [all]
  night | lovers [lovers+cupid] lovers, cupid | seer_result [seer] night, target, team |
  wolf_votes [living wolves] night, votes [[wolf, target|"abstain"]], target|None |
  wolf_target [living doctors, witches, a peeking little girl] night, target|None |
  caught [living wolves] night, player (the little girl caught peeking) | charmed
  [charmed+piper] night, charmed, new | blocked [blocked] night | cleansed [the cleansed]
  night, statuses | detective_result [detective] night, players, same | tracked [tracker]
  night, target, visited | watched [watcher] night, target, visitors (both before dawn) |
  dealt [the dealt] night, card, player?, side? | cult [living cult] night, leader,
  members, new | dawn [all] day, dead (sorted), roles (parallel, if revealRolesOnDeath) |
  oracle_reveal [all] target, role (the oracle's last mark, at its death) | silenced [all]
  day, players | day [all] day, alive, leader | candidacy [all] seat, stand | leader_vote
  [all] seat, vote | leader [all] leader|None, candidates, counts [[seat, n]],
  abstentions, tie | order [all] start, direction, speakers, leader|None | speech [all]
  seat, purpose (discussion|runoff|last_words), passed | vote [all] seat, vote, round |
  vote_result [all] round, counts, abstentions, outcome (execution|runoff|none), target,
  candidates | execution [all] day, seat, spared, role? | idiot_revealed [all] seat, role |
  punished [all] day, seat, punishment (the scapegoat's choice) | death [all] seat, day,
  role? (a death in the day: shot, heartbreak, punishment) | hunter_shot [all] hunter,
  target|None (roles hidden: target only, no event for a declined shot) | end [all]
  winner, reason, winners, roles, teams, lovers, and each role mark (charmed, cult...).
  Night causes are never public before the end.

Choices where the rules are silent: clockwise is rising seat numbers; with no death last
night the discussion starts next to the leader (who then speaks last) or, with no leader,
at a random living player; nobody may vote for themself; the leader's vote counts once and
the title is not passed on at death; a revealed idiot speaks but does not vote; a hunter
shot at dawn or in the day is not a night victim and gets no last words; with roles hidden
every player who dies is asked a death trigger, ``hunter_shoot`` when a hunter is dealt
(see roles/hunter.py, roles/scapegoat.py); a game that
reaches ``maxDays`` ends in a draw (reason ``day_limit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from ...core.decisions import Decision
from ...core.errors import ErrorCode, IllegalAction
from ...core.game import ABORTED, FORFEIT, Game, Result
from .choice import (
    ABSTAIN,
    CLOCKWISE,
    COUNTERCLOCKWISE,
    DECLINE,
    DONE,
    NONE,
    PASS,
    STAND,
    WORDS,
    Choice,
    Cover,
    Refusal,
)
from .day import STEP, last_words_order, speaking_order, tally
from .options import WerewolfOptions
from .mechanics import copies, redirects, statuses
from .mechanics.blocks import aimed_at_absent, is_blocked
from .mechanics.visits import Visit, visit
from .resolution import Kill, Protection, resolve
from .roles import ACTIONS, DIES, REGISTRY, SPARED, Action, Role, Team

# Phases of the game (rules/werewolf.md §3 and §4).
NIGHT, DAY_ANNOUNCE, DAY_DISCUSSION, DAY_VOTE, DAY_EXECUTION, ENDED = (
    "night",
    "day_announce",
    "day_discussion",
    "day_vote",
    "day_execution",
    "ended",
)

# End reasons.
ALL_WOLVES_ELIMINATED = "all_wolves_eliminated"
PARITY_OR_MAJORITY = "parity_or_majority"
DAY_LIMIT = "day_limit"
# Neutral roles add their own sides and reasons (lovers, piper, jester for P1).
SIDES = (Team.VILLAGE.value, Team.WEREWOLF.value, *dict.fromkeys(r.win_side for r in REGISTRY.values() if r.win_side))
END_REASONS = (
    ALL_WOLVES_ELIMINATED,
    PARITY_OR_MAJORITY,
    *dict.fromkeys(r.win_reason for r in REGISTRY.values() if r.win_reason),
    DAY_LIMIT,
    FORFEIT,
    ABORTED,
)

SPEECH_KINDS = ("candidacy", "speak", "last_words")


@dataclass
class NightPlan:
    """What the night's actions recorded, resolved at dawn (the specification's nightActions)."""

    answers: list[tuple[float, int, str, Any]] = field(default_factory=list)
    """Tonight's answers not settled yet: step, seat, kind, value (see ``_settle``)."""
    kills: list[Kill] = field(default_factory=list)
    """Tonight's kills, each with the step (§3.2) of its action (``resolve`` orders them)."""
    protections: list[Protection] = field(default_factory=list)
    blocked: dict[int, float] = field(default_factory=dict)
    """Who cannot act tonight, with the step from which (mechanics/blocks.py)."""
    absent: dict[int, float] = field(default_factory=dict)
    """Who is out of tonight, beyond every action's reach, from which step (the exile's)."""
    visits: list[Visit] = field(default_factory=list)
    """Who visited whom tonight (mechanics/visits.py)."""
    swaps: list[tuple[float, int, int]] = field(default_factory=list)
    """Tonight's swaps of targets, each with its step (mechanics/redirects.py)."""
    follows: dict[int, tuple[int, float]] = field(default_factory=dict)
    """Who copies whose actions tonight, and from which step (mechanics/copies.py)."""
    wolf_target: int | None = None
    killers: dict[int, list[int]] = field(default_factory=dict)
    """At dawn, for each of the night's dead, who carried out the kills that took them (an
    avenger's due, read by ``Role.on_death``)."""
    notes: dict[str, Any] = field(default_factory=dict)
    covers: set[tuple[int, str]] = field(default_factory=set)
    """Tonight's requests (seat, kind) asked with nothing to decide (``WerewolfGame._cover``)."""


def _pairs(counts: dict[int, int]) -> list[list[int]]:
    """Vote counts as [seat, votes] pairs by seat (JSON keeps them as they are)."""
    return [[seat, n] for seat, n in sorted(counts.items())]


class _Handlers(Mapping[str, Callable[..., None]]):
    """Day kinds map to engine methods; every other kind to its role action (the registry)."""

    def __init__(self, day: dict[str, Callable[..., None]]) -> None:
        self.day = day

    def __getitem__(self, kind: str) -> Callable[..., None]:
        found = self.day.get(kind)
        return found if found is not None else ACTIONS[kind].handle

    def __iter__(self) -> Iterator[str]:
        return iter({**self.day, **ACTIONS})

    def __len__(self) -> int:
        return len(self.day) + len(ACTIONS)


class WerewolfGame(Game):
    name: ClassVar[str] = "werewolf"
    Options = WerewolfOptions
    options: WerewolfOptions
    sides = SIDES
    end_reasons = END_REASONS
    public_kinds: ClassVar[frozenset[str]] = frozenset(
        {"candidacy", "leader_vote", "order_start", "order_direction", "speak", "last_words", "vote"}
    )
    secret_kinds: ClassVar[frozenset[str]] = frozenset(ACTIONS)
    """Every role's action: being asked one tells who holds the role."""
    dependent_kinds: ClassVar[frozenset[str]] = frozenset(k for k, a in ACTIONS.items() if a.needs)
    tallied_kinds: ClassVar[frozenset[str]] = frozenset(k for k, a in ACTIONS.items() if a.step is None)
    """Death triggers (the hunter's shot): with roles hidden all the dead are asked together."""
    floor_kinds: ClassVar[frozenset[str]] = frozenset(SPEECH_KINDS)
    reserved_words: ClassVar[frozenset[str]] = WORDS
    default_players: ClassVar[int] = 8

    @classmethod
    def check_setup(cls, players: int, options: WerewolfOptions) -> None:
        options.deal(players)

    def __init__(
        self, players: int, options: WerewolfOptions | None = None, seed: int = 0, deal: Sequence[int] | None = None
    ) -> None:
        options = options or WerewolfOptions()
        super().__init__(players, options, seed, deal)
        cards = self._seat(options.deal(players, self.rng))
        roles = cards[:players]
        self.extra: list[str] = cards[players:]
        """The cards dealt to nobody (the thief's choice, see roles/thief.py)."""
        self.roles: list[str] = roles
        self._roles: list[type[Role]] = [REGISTRY[r] for r in roles]
        self.alive: list[bool] = [True] * players
        self.day = 0
        """The number of the current night, and of the day after it."""
        self.phase = NIGHT
        self.plan = NightPlan()
        self.links: dict[int, int] = {}
        """Lovers: each to the other (the specification's links)."""
        self.statuses: dict[str, dict[int, int | None]] = {}
        """Statuses with their last day, e.g. ``charmed`` (mechanics/statuses.py)."""
        self.leader: int | None = None
        self.victims: list[int] = []
        """Last night's dead, in resolution order."""
        self.state: list[dict[str, Any]] = [role.initial_state(self) for role in self._roles]
        """Per-seat role memory (the specification's roleState): potions, shots, last protection."""
        wolves = sum(r.team is Team.WEREWOLF for r in self._roles)
        mode = options.lastWordsMode
        self.last_words_left: int | None = None if mode == "all" else 0 if mode == "none" else wolves
        self._in_play = sorted({REGISTRY[r] for r in cards}, key=lambda r: (r.win_order, r.id))
        """Every role in the deck, the extra cards' too (a thief may take one), in a fixed
        order (a set of classes iterates in the order of their addresses, which differ from
        one process to the next)."""
        self._agenda: list[tuple[str, Any]] = [("night", None)]
        self._queue: list[int] = []
        self._order: list[int] = []
        self._triggers: list[tuple[int, type[Action] | None]] = []
        """Who owes a death-triggered decision; with roles hidden every dead seat (None: a
        cover request, see ``_do_triggers``)."""
        self._trigger_kind = min((a.kind for r in self._in_play for a in r.actions if a.step is None), default=None)
        """A death trigger dealt (the hunter's shot, the scapegoat's punishment), if any: what
        the cover requests look like (the same kind in every game with the same deal)."""
        self._night_actions = sorted(
            {a for r in self._in_play for a in r.actions if a.step is not None}, key=lambda a: (a.step, a.kind)
        )
        """The night actions dealt, in the order of §3.2 (their ``dawn`` hooks run in this order)."""
        self._by_step: dict[float, list[type[Action]]] = {}
        """The night actions dealt, by step."""
        for action in self._night_actions:
            assert action.step is not None
            self._by_step.setdefault(action.step, []).append(action)
        self._paced = any(a.needs for r in self._in_play for a in r.actions)
        """A role that acts on another's result was dealt (the witch): nights are paced."""
        self._tonight: list[tuple[type[Action], int]] = []
        """Tonight's actions not asked yet, in the order of §3.2, with their actors."""
        self._unfinished: list[float] = []
        """Tonight's steps whose ``finish`` has not run yet."""
        self._held_tells: list[tuple[int, str, dict[str, Any]]] = []
        """Private results for a seat still answering its own night request (``tell_when_free``)."""
        self._votes: dict[int, Any] = {}
        self._candidates: list[int] = []
        """Leader candidates on day 1."""
        self._runoff: list[int] = []
        """The tied of a first day vote."""
        self._vote_round = 1
        self._purpose = ""
        self._batch: list[int] = []
        """Deaths of the batch being resolved, in order."""
        self._start: int | None = None
        self._dead: dict[Any, Refusal] = {}
        """TARGET_ALREADY_DEAD refusals, kept current by ``_die`` and copied by decisions."""
        self._fixed: dict[tuple[int, str], Choice] = {}
        """Decisions whose options never change (speaking turns), built once."""

        counts: dict[str, int] = {}
        for r in cards:
            counts[r] = counts.get(r, 0) + 1
        self._emit("setup", {"players": players, "options": options.to_dict(), "roles": dict(sorted(counts.items()))})
        for seat, role in enumerate(self._roles):
            self._emit("role", {"seat": seat, "role": role.id, "team": role.team.value}, (seat,))
        wolf_seats = [s for s, r in enumerate(self._roles) if r.team is Team.WEREWOLF]
        self._emit("wolves", {"wolves": wolf_seats}, wolf_seats)
        for role in self._in_play:
            role.on_deal(self, [s for s, r in enumerate(self._roles) if r is role])
        self._advance()

    def _seat(self, roles: list[str]) -> list[str]:
        """Deal the roles to the seats: at random from the seed, or by ``deal`` (a replayed
        old game); a seam for tests that need a given deal. The extra cards are the thief's
        to choose from, so the thief's own card is never one of them: one shuffled there
        changes places with a seat's card, every seat alike (the deal stays uniform among
        those with the thief dealt)."""
        cards = self.deal_roles(roles)
        if self.deal is None:
            for i in range(self.players, len(cards)):
                if REGISTRY[cards[i]].extra_cards:
                    j = self.rng.randrange(self.players)
                    cards[i], cards[j] = cards[j], cards[i]
        return cards

    # -- what roles and drivers use ------------------------------------------------

    def role_of(self, seat: int) -> type[Role]:
        return self._roles[seat]

    def living(self) -> list[int]:
        return [s for s in range(self.players) if self.alive[s]]

    def living_wolves(self) -> list[int]:
        """The living werewolf-team seats (who share the night talk outside the engine)."""
        return [s for s in range(self.players) if self.alive[s] and self._roles[s].team is Team.WEREWOLF]

    @property
    def purpose(self) -> str:
        """What the current speaking turns are for: discussion, runoff or last_words."""
        return self._purpose or "discussion"

    @property
    def vote_round(self) -> int:
        """1 for the day's vote, 2 for the runoff between the tied."""
        return self._vote_round

    def paced(self) -> bool:
        return self.phase == NIGHT and self._paced

    def is_out(self, seat: int) -> bool:
        return not self.alive[seat]

    def team_talk(self, seat: int) -> tuple[int, ...]:
        """Living wolves talk among themselves at night (the referee relays it)."""
        if (
            self.phase != NIGHT
            or self.result is not None
            or not self.alive[seat]
            or self._roles[seat].team is not Team.WEREWOLF
        ):
            return ()
        return tuple(s for s in self.living_wolves() if s != seat)

    def tell(self, kind: str, data: dict[str, Any], audience: Iterable[int] | None = None) -> None:
        """Emit an event; ``audience`` None is everyone."""
        self._emit(kind, data, None if audience is None else frozenset(audience))

    def tell_when_free(self, kind: str, data: dict[str, Any], audience: Iterable[int]) -> None:
        """Emit an event to ``audience`` now, except to the seats still answering a request:
        they get it once they have answered, so a night result never reaches a role before
        it made its own choice (the doctor protects before learning the wolves' target)."""
        free = [s for s in audience if s not in self._pending]
        self._held_tells += [(s, kind, data) for s in audience if s in self._pending]
        if free:
            self.tell(kind, data, free)

    def become(self, seat: int, role_id: str, after: float) -> None:
        """``seat`` holds ``role_id`` from now on (the thief's steal at step ``after``), with
        fresh role memory; they are told (``role``), a new wolf's pack is told again
        (``wolves``), the role's holders learn together again what they learnt at the deal
        (``Role.on_deal``: the masons), and the new role's actions of steps after ``after``
        are asked tonight."""
        role = REGISTRY[role_id]
        self.roles[seat] = role_id
        self._roles[seat] = role
        self.state[seat] = role.initial_state(self)
        self.tell("role", {"seat": seat, "role": role.id, "team": role.team.value}, (seat,))
        if role.team is Team.WEREWOLF:
            wolf_seats = [s for s, r in enumerate(self._roles) if r.team is Team.WEREWOLF]
            self.tell("wolves", {"wolves": wolf_seats}, wolf_seats)
        role.on_deal(self, [s for s, r in enumerate(self._roles) if r is role])
        later = [(a, seat) for a in role.actions if a.step is not None and a.step > after]
        self._tonight = sorted(self._tonight + later, key=lambda pair: (pair[0].step, pair[1]))
        self._unfinished = sorted({*self._unfinished, *(a.step for a, _ in later if a.step is not None)})

    def link(self, a: int, b: int) -> None:
        self.links[a] = b
        self.links[b] = a

    def kill(self, seat: int, cause: str) -> None:
        """A death in the day (a hunter's shot): announced at once, with its consequences."""
        if self.alive[seat]:
            self._die(seat, [cause], announce=True)

    def time_limit(self, decision: Decision) -> int:
        """Seconds the referee may give a decision, from the timing options (§6).

        A discussion turn gets an equal share of ``discussionTime`` among the living."""
        o = self.options
        if decision.kind in ("speak", "candidacy"):
            return max(1, o.discussionTime // max(1, sum(self.alive)))
        if decision.kind == "last_words":
            return o.lastWordsTime
        if decision.kind in ACTIONS and ACTIONS[decision.kind].step is not None:
            return o.nightActionTime
        return o.voteTime

    # -- the flow: an agenda of steps; a step either opens decisions or runs through

    def _advance(self) -> None:
        if self.phase == NIGHT and self.result is None:
            self._night_next()
        while self.result is None and not self._pending and self._agenda:
            name, arg = self._agenda.pop(0)
            getattr(self, "_do_" + name)(arg)

    def _then(self, *steps: tuple[str, Any]) -> None:
        self._agenda[:0] = steps

    def _do_night(self, _: Any) -> None:
        if self.options.maxDays and self.day >= self.options.maxDays:
            self._end(Result(None, frozenset(), DAY_LIMIT))
            return
        self.day += 1
        self.phase = NIGHT
        self.plan = NightPlan()
        statuses.expire(self)
        self.tell("night", {"night": self.day})
        acting = [
            (a, s)
            for s in self.living()
            for a in self._roles[s].actions
            if a.step is not None and (self.day == 1 or not a.first_night_only)
        ]
        self._tonight = sorted(acting, key=lambda pair: (pair[0].step, pair[1]))
        self._unfinished = sorted({a.step for a, _ in acting if a.step is not None})
        self._then(("dawn", None))
        self._night_next()

    def _night_next(self) -> None:
        """Ask every night action that can be asked now, and finish each step whose answers
        are all in, until nothing moves.

        An action is asked unless its step ``needs`` an unfinished one, or its player is
        still answering (or yet to be asked) an earlier action: at the start of the night
        that is everyone but the witch, who is asked once the wolves are done. A player
        blocked by then (mechanics/blocks.py), or with nothing to decide, is asked all the
        same, with nothing to choose (``_cover``). Steps settle in the order of §3.2:
        one whose answers are all in settles, unless an earlier step that ``controls``
        others (a block) is still open, or it is ``ordered`` and any earlier step is; see
        ``_settle``.
        """
        for seat, kind, data in [t for t in self._held_tells if t[0] not in self._pending]:
            self.tell(kind, data, (seat,))
        self._held_tells = [t for t in self._held_tells if t[0] in self._pending]
        moved = True
        while moved:
            moved = False
            busy = set(self._pending)
            opened: list[Decision] = []
            for pair in list(self._tonight):
                action, seat = pair
                needs = action.needs
                if seat in busy or (needs is not None and ACTIONS[needs].step in self._unfinished):
                    busy.add(seat)
                    continue
                self._tonight.remove(pair)
                moved = True
                decision = action.decision(self, seat)
                blocked = is_blocked(self, seat, action.step)
                if decision is None or blocked:
                    decision = self._cover(seat, action, decision, blocked)
                opened.append(decision)
                busy.add(seat)
            if opened:
                self._extend(opened)
            steps = list(self._unfinished)
            for step in steps:
                actions = self._step_actions(step)
                if any(a in actions for a, _ in self._tonight) or any(
                    ACTIONS.get(d.kind) in actions for d in self._pending.values()
                ):
                    if any(a.controls for a in actions):
                        break
                    continue
                if any(a.ordered for a in actions) and self._unfinished[0] < step:
                    continue
                self._unfinished.remove(step)
                moved = True
                self._settle(step, actions)
                if not set(self._unfinished) <= set(steps):
                    break  # a thief's new role added steps (a jail): look again from the first

    def _cover(self, seat: int, action: type[Action], decision: Decision | None, blocked: bool) -> Cover:
        """The request of an actor with nothing to decide tonight (potions spent, shots
        used, no one left to charm, or ``blocked`` from its ``decision``): a ``Cover``, whose
        answer does nothing. Skipping the request would end the night sooner, or ask the
        actor's next action sooner, than when it is used: how long a night lasts would tell
        that a role is out of uses, or blocked."""
        self.plan.covers.add((seat, action.kind))
        word = ABSTAIN if decision is not None and ABSTAIN in decision.options else NONE
        if blocked:
            why = (ErrorCode.ACTION_NOT_ALLOWED, "you are blocked tonight")
        elif action.exhausted(self, seat):
            why = (ErrorCode.RESOURCE_EXHAUSTED, "already used up")
        else:
            why = (ErrorCode.ACTION_NOT_ALLOWED, "nothing to decide tonight")
        return Cover(seat, action.kind, word, why)

    def _settle(self, step: float, actions: list[type[Action]]) -> None:
        """Give effect to a step's answers, by seat, whatever order they arrived in: each
        unblocked answer aimed at players lands where tonight's swaps send it
        (mechanics/redirects.py), and takes no effect if it lands on an absent player
        (mechanics/blocks.py); else it is applied, then copied by whoever follows its player
        (mechanics/copies.py), each time visiting the players it lands on; then the step's
        ``finish`` runs (the wolves count their votes)."""
        answers = sorted(a for a in self.plan.answers if a[0] == step)
        self.plan.answers = [a for a in self.plan.answers if a[0] != step]
        for _, seat, kind, value in answers:
            if is_blocked(self, seat, step):
                continue
            action = ACTIONS[kind]
            if action.visits:
                value = redirects.land(self, step, value)
                if aimed_at_absent(self, value, step):
                    continue
            acts = [(seat, action.apply)] + [(f, action.copy) for f in copies.followers(self, seat, action)]
            for actor, act in acts:
                act(self, actor, value)
                if action.visits:
                    for target in value if isinstance(value, tuple) else (value,):
                        if type(target) is int:
                            visit(self, actor, target, kind, step)
        for action in actions:
            action.finish(self)

    def record(self, seat: int, action: type[Action], value: Any) -> None:
        """Keep a night answer until its step settles (``_settle``); a cover's (``_cover``) does nothing."""
        assert action.step is not None
        if (seat, action.kind) in self.plan.covers:
            return
        self.plan.answers.append((action.step, seat, action.kind, value))

    def _step_actions(self, step: float) -> list[type[Action]]:
        return self._by_step.get(step, [])

    def _do_dawn(self, _: Any) -> None:
        self.phase = DAY_ANNOUNCE
        for action in self._night_actions:
            action.dawn(self)
        for role in self._in_play:
            role.dawn(self)
        absent = self.plan.absent
        outcome = resolve(
            [k for k in self.plan.kills if k.target not in absent],
            [p for p in self.plan.protections if p.target not in absent],
        )
        for used in outcome.used:
            if used.status is not None:
                statuses.remove(self, used.target, (used.status,))
        self._batch = []
        deaths = dict(outcome.deaths)
        killers = {seat: list(actors) for seat, actors in outcome.killers.items()}
        for seat in outcome.deaths:
            cause = self._roles[seat].retaliation
            if cause is not None:
                for killer in outcome.killers.get(seat, ()):
                    deaths.setdefault(killer, []).append(cause)
                    killers.setdefault(killer, []).append(seat)
        self.plan.killers = killers
        for seat, causes in deaths.items():
            if self.alive[seat]:  # not yet taken by a lover's grief this dawn
                self._die(seat, causes, announce=False)
        self.victims = list(self._batch)
        dead = sorted(self.victims)
        data: dict[str, Any] = {"day": self.day, "dead": dead}
        if self.options.revealRolesOnDeath:
            data["roles"] = [self.roles[s] for s in dead]
        self.tell("dawn", data)
        # A leader who died at this dawn leads nobody: the day names no leader then.
        self.tell(
            "day", {"day": self.day, "alive": self.living(), "leader": self.leader if self._leader_alive() else None}
        )
        silent = [s for s in statuses.holders(self, statuses.SILENCED) if self.alive[s]]
        if silent:
            self.tell("silenced", {"day": self.day, "players": silent})
        # §4 in every case, a night that decided the game too: the day-1 election, the
        # victims' last words, their death-triggered abilities, then the win check.
        steps: list[tuple[str, Any]] = []
        if self.day == 1 and self.options.leaderEnabled:
            steps.append(("leader", None))
        if self.options.lastWordsScope == "day_and_night":
            steps.append(("last_words", list(self.victims)))
        steps += [("triggers", None), ("check", None), ("order", None), ("speeches", "discussion"), ("vote", 1)]
        self._then(*steps)

    def dead_refusals(self) -> dict[Any, Refusal]:
        """A fresh copy of the TARGET_ALREADY_DEAD refusals for the dead seats."""
        return dict(self._dead)

    def _fixed_choice(self, seat: int, kind: str, options: tuple[str, ...]) -> Choice:
        key = (seat, kind)
        found = self._fixed.get(key)
        if found is None:
            found = self._fixed[key] = Choice(seat, kind, options)
        return found

    def _die(self, seat: int, causes: list[str], announce: bool) -> None:
        self.alive[seat] = False
        self._dead[seat] = (ErrorCode.TARGET_ALREADY_DEAD, f"seat {seat} is dead")
        self._batch.append(seat)
        if announce:
            data: dict[str, Any] = {"seat": seat, "day": self.day}
            if self.options.revealRolesOnDeath:
                data["role"] = self.roles[seat]
            self.tell("death", data)
        trigger = self._roles[seat].on_death(self, seat, causes)
        if trigger is not None or (self._trigger_kind is not None and not self.options.revealRolesOnDeath):
            self._triggers.append((seat, trigger))
        partner = self.links.get(seat)
        if partner is not None and self.alive[partner]:
            self._die(partner, ["heartbreak"], announce)

    def _do_check(self, _: Any) -> None:
        result = self._winner()
        if result is not None:
            self._end(result)

    def _winner(self) -> Result | None:
        for role in self._in_play:
            result = role.special_win(self)
            if result is not None:
                return result
        wolves = village = 0
        for s in range(self.players):
            if self.alive[s]:
                role = self._roles[s]
                if role.hostile:
                    return None
                wolves += role.team is Team.WEREWOLF
                village += role.team is Team.VILLAGE
        if wolves == 0:
            return Result(Team.VILLAGE.value, self._team_seats(Team.VILLAGE), ALL_WOLVES_ELIMINATED)
        if wolves >= village:
            return Result(Team.WEREWOLF.value, self._team_seats(Team.WEREWOLF), PARITY_OR_MAJORITY)
        return None

    def _team_seats(self, team: Team) -> frozenset[int]:
        return frozenset(s for s in range(self.players) if self._roles[s].team is team)

    def _do_triggers(self, _: Any) -> None:
        if not self.options.revealRolesOnDeath:
            self._hidden_triggers()
            return
        while self._triggers:
            seat, action = self._triggers.pop(0)
            assert action is not None
            decision = action.decision(self, seat)
            if decision is not None:
                self._then(("triggers", None))
                self._open((decision,))
                return

    def _hidden_triggers(self) -> None:
        """With roles hidden, ask every player who died at once, each by the same kind of
        request (a non-hunter, or a hunter with no one to shoot, gets ``none`` alone): asking
        only the hunter would name them by the pause it makes in the day."""
        batch, self._triggers = self._triggers, []
        if not batch:
            return
        kind = self._trigger_kind
        assert kind is not None
        decisions = []
        for seat, action in batch:
            decision = None if action is None else action.decision(self, seat)
            decisions.append(decision or Choice(seat, kind, (NONE,)))
        self._then(("triggers", None))
        self._open(decisions)

    # -- leader election (§4, step 1) ------------------------------------------------

    def _do_leader(self, _: Any) -> None:
        living = self.living()
        start = living[self.rng.randrange(len(living))]
        self._order = speaking_order(self.alive, start, COUNTERCLOCKWISE)
        self._candidates = []
        self._queue = [s for s in self._order if self._may_speak(s)]
        self._then(("candidacy", None))

    def _do_candidacy(self, _: Any) -> None:
        seat = self._queue.pop(0)
        self._then(("candidacy", None) if self._queue else ("leader_votes", None))
        self._open((self._fixed_choice(seat, "candidacy", (STAND, DECLINE)),))

    def _on_candidacy(self, seat: int, value: str) -> None:
        if value == STAND:
            self._candidates.append(seat)
        self.tell("candidacy", {"seat": seat, "stand": value == STAND})
        self._advance()

    def _do_leader_votes(self, _: Any) -> None:
        self._votes = {}
        if len(self._candidates) > 1:
            self._queue = [s for s in self._order if s not in self._candidates]
            if self._queue:
                self._then(("leader_ballot", None))
                return
        self._do_leader_result(None)

    def _do_leader_ballot(self, _: Any) -> None:
        seat = self._queue.pop(0)
        self._then(("leader_ballot", None) if self._queue else ("leader_result", None))
        self._open((Choice(seat, "leader_vote", (*self._candidates, ABSTAIN), refusals=self._vote_refusals(seat)),))

    def _on_leader_vote(self, seat: int, value: Any) -> None:
        self._votes[seat] = value
        self.tell("leader_vote", {"seat": seat, "vote": value})
        self._advance()

    def _do_leader_result(self, _: Any) -> None:
        counts, abstentions, top = tally(self._votes, majority=False)
        tied = top or list(self._candidates)
        if not tied:
            self.leader = None
        elif len(tied) == 1:
            self.leader = tied[0]
        else:
            self.leader = tied[self.rng.randrange(len(tied))]
        self.tell(
            "leader",
            {
                "leader": self.leader,
                "candidates": sorted(self._candidates),
                "counts": _pairs(counts),
                "abstentions": abstentions,
                "tie": len(tied) > 1,
            },
        )

    # -- discussion order (§4, step 5) ------------------------------------------------

    def _leader_alive(self) -> bool:
        return self.options.leaderEnabled and self.leader is not None and self.alive[self.leader]

    def _do_order(self, _: Any) -> None:
        self.phase = DAY_DISCUSSION
        victims = sorted(self.victims)
        if self._leader_alive():
            assert self.leader is not None
            self._start = None
            if victims:  # asked even with one dead to start from: every decision is asked (protocol.md, section 4)
                self._then(("order_direction", None))
                self._open((Choice(self.leader, "order_start", tuple(victims)),))
            else:
                self._do_order_direction(None)
            return
        if victims:
            start = victims[self.rng.randrange(len(victims))]
        else:
            living = self.living()
            start = living[self.rng.randrange(len(living))]
        self._set_order(start, COUNTERCLOCKWISE, None)

    def _on_order_start(self, seat: int, value: int) -> None:
        self._start = value
        self._advance()

    def _do_order_direction(self, _: Any) -> None:
        assert self.leader is not None
        self._open((self._fixed_choice(self.leader, "order_direction", (CLOCKWISE, COUNTERCLOCKWISE)),))

    def _on_order_direction(self, seat: int, value: str) -> None:
        start = self._start if self._start is not None else (seat + STEP.get(value, -1)) % self.players
        self._set_order(start, value, seat)
        self._advance()

    def _set_order(self, start: int, direction: str, leader: int | None) -> None:
        self._order = speaking_order(self.alive, start, direction)
        speakers = [s for s in self._order if self._may_speak(s)]
        if leader is not None and self._may_speak(leader) and speakers and speakers[-1] != leader:
            speakers.append(leader)
        self._queue = list(speakers)
        self.tell("order", {"start": start, "direction": direction, "speakers": speakers, "leader": leader})

    # -- speaking turns ----------------------------------------------------------------

    def _may_speak(self, seat: int) -> bool:
        """Whether ``seat`` gets turns at the floor today (a silenced player does not)."""
        return not statuses.has(self, statuses.SILENCED, seat)

    def _do_speeches(self, purpose: str) -> None:
        if not self._queue:
            return
        seat = self._queue.pop(0)
        self._purpose = purpose
        if self._queue:
            self._then(("speeches", purpose))
        kind = "last_words" if purpose == "last_words" else "speak"
        self._open((self._fixed_choice(seat, kind, (DONE, PASS)),))

    def _on_speak(self, seat: int, value: str) -> None:
        self.tell("speech", {"seat": seat, "purpose": self._purpose, "passed": value == PASS})
        self._advance()

    def _do_last_words(self, eligible: list[int]) -> None:
        eligible = [s for s in eligible if self._may_speak(s)]
        chosen = last_words_order(eligible, self.last_words_left, self.options.lastWordsOrder, self.players, self.rng)
        if self.last_words_left is not None:
            self.last_words_left -= len(chosen)
        self._queue = chosen
        self._then(("speeches", "last_words"))

    # -- votes (§4, step 6) -----------------------------------------------------------

    def _may_vote(self, seat: int) -> bool:
        """Whether ``seat`` votes on executions today (a revealed idiot, a punished voter do not)."""
        return not self.state[seat].get("no_vote") and not statuses.has(self, statuses.VOTELESS, seat)

    def voters_against(self, seat: int) -> list[int]:
        """The living players who voted for ``seat`` in the round that just executed them."""
        return sorted(s for s, vote in self._votes.items() if vote == seat and self.alive[s])

    def _vote_refusals(self, seat: int) -> dict[Any, Refusal]:
        refusals = dict(self._dead)
        refusals[seat] = (ErrorCode.CANNOT_SELF_TARGET, "you cannot vote for yourself")
        return refusals

    def _do_vote(self, round_: int) -> None:
        self.phase = DAY_VOTE
        self._votes = {}
        self._queue = [
            s for s in self._order if self.alive[s] and self._may_vote(s) and (round_ == 1 or s not in self._runoff)
        ]
        self._vote_round = round_
        self._then(("ballot", round_) if self._queue else ("count", round_))

    def _do_ballot(self, round_: int) -> None:
        seat = self._queue.pop(0)
        self._then(("ballot", round_) if self._queue else ("count", round_))
        refusals = self._vote_refusals(seat)
        if round_ == 1:
            targets = tuple(s for s in range(self.players) if s not in refusals)
        else:
            for s in range(self.players):
                if s not in self._runoff:
                    refusals.setdefault(s, (ErrorCode.TARGET_INVALID, f"seat {s} is not in the runoff"))
            targets = tuple(self._runoff)
        self._open((Choice(seat, "vote", (*targets, ABSTAIN), refusals=refusals),))

    def _on_vote(self, seat: int, value: Any) -> None:
        self._votes[seat] = value
        self.tell("vote", {"seat": seat, "vote": value, "round": self._vote_round})
        self._advance()

    def _do_count(self, round_: int) -> None:
        counts, abstentions, top = tally(self._votes, self.options.dayVoteMajority)
        if len(top) == 1:
            outcome = "execution"
        elif len(top) > 1 and round_ == 1:
            outcome = "runoff"
        else:
            outcome = "none"
        self.tell(
            "vote_result",
            {
                "round": round_,
                "counts": _pairs(counts),
                "abstentions": abstentions,
                "outcome": outcome,
                "target": top[0] if outcome == "execution" else None,
                "candidates": top if outcome == "runoff" else [],
            },
        )
        self._runoff = top if outcome == "runoff" else []
        if outcome == "execution":
            self._then(("execute", top[0]))
        elif outcome == "runoff":
            self._queue = [s for s in self._order if s in top and self._may_speak(s)]
            self._then(("speeches", "runoff"), ("vote", 2))
        else:
            self._then(("night", None))

    # -- execution ---------------------------------------------------------------------

    def _do_execute(self, seat: int) -> None:
        self.phase = DAY_EXECUTION
        outcome = self._roles[seat].on_executed(self, seat)
        spared = outcome == SPARED
        data: dict[str, Any] = {"day": self.day, "seat": seat, "spared": spared}
        if self.options.revealRolesOnDeath and not spared:
            data["role"] = self.roles[seat]
        self.tell("execution", data)
        if spared:
            self._then(("night", None))
            return
        self._batch = []
        self._die(seat, ["execution"], announce=False)
        for s in self._batch[1:]:  # a lover dying of grief
            data = {"seat": s, "day": self.day}
            if self.options.revealRolesOnDeath:
                data["role"] = self.roles[s]
            self.tell("death", data)
        if isinstance(outcome, Result):
            self._end(outcome)
            return
        assert outcome == DIES
        self._then(("last_words", [seat]), ("triggers", None), ("check", None), ("night", None))

    # -- the end -----------------------------------------------------------------------

    def _end(self, result: Result) -> None:
        if result.winner is not None:
            survivors = {s for s in self.living() if self._roles[s].survivor}
            result = Result(result.winner, result.winners | survivors, result.reason)
        self.phase = ENDED
        self.tell(
            "end",
            {"winner": result.winner, "reason": result.reason, "winners": sorted(result.winners), **self._reveal()},
        )
        self._finish(result)

    def _reveal(self) -> dict[str, Any]:
        lovers = sorted(self.links)
        return {
            "roles": list(self.roles),
            "teams": [r.team.value for r in self._roles],
            "lovers": lovers,
            "extra": list(self.extra),
            **statuses.statuses_at_end(self),
        }

    # -- answers -------------------------------------------------------------------------

    def default_answer(self, decision: Decision) -> Any:
        """See the module docstring: the safest no-op the rules allow."""
        action = ACTIONS.get(decision.kind)
        if action is not None:
            if isinstance(decision, Cover):
                return decision.options[0]
            return action.default(decision)  # type: ignore[arg-type]
        if decision.kind in SPEECH_KINDS[1:]:
            return DONE
        if decision.kind == "order_direction":
            return COUNTERCLOCKWISE
        for word in (ABSTAIN, DECLINE, NONE):
            if word in decision.options:
                return word
        return decision.options[0]

    def _refuse(self, seat: int, kind: str, decision: Decision | None) -> NoReturn:
        """The precise codes (protocol.md, section 6) before the generic ones: a dead player, a role without this
        action, a power used up, a revealed idiot voting."""
        if self.result is None and type(seat) is int and 0 <= seat < self.players and isinstance(kind, str):
            if not self.alive[seat] and seat not in self._round:
                raise IllegalAction(ErrorCode.PLAYER_DEAD, f"seat {seat} is dead")
            action = ACTIONS.get(kind)
            if action is not None and (decision is None or decision.kind != kind):
                if action not in self._roles[seat].actions:
                    raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, f"your role cannot {kind}")
                if action.exhausted(self, seat):
                    raise IllegalAction(ErrorCode.RESOURCE_EXHAUSTED, f"{kind}: already used up")
            if kind == "vote" and not self._may_vote(seat) and decision is None:
                raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, "you have lost your vote")
        super()._refuse(seat, kind, decision)

    handlers: ClassVar[Mapping[str, Callable[..., None]]] = _Handlers(
        {
            "candidacy": _on_candidacy,
            "leader_vote": _on_leader_vote,
            "order_start": _on_order_start,
            "order_direction": _on_order_direction,
            "speak": _on_speak,
            "last_words": _on_speak,
            "vote": _on_vote,
        }
    )
