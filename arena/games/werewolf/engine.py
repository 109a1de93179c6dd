"""The Werewolf rules engine: a pure, seeded state machine (the rules: rules/werewolf.md).

The game starts at night (§1). A night asks at once every living player whose role acts
(§3.1): none of these choices depends on another's, and asking them in turn would let each
learn from the delay who before them is alive. Only the witch waits, for the wolves'
target (``dependent_kinds``), and the werewolf leader is asked once it has voted. Each step
settles once its answers are in, in the order of §3.2; dawn resolves kills and protections
as §3.10 (resolution.py), whatever order the answers came in (night.py). The day follows
§4: deaths announced; on day 1 the leader election (§4, step 1); last words of the night
(§4.1); hunters' shots (§4.2); the win check (in this order even when the night decided
the game: a shot may undo the wolves' parity); discussion, one speaker at a time in the
order of §4, step 5; votes one at a time in the same order (§4, step 6); on a tie the tied
speak again and the others vote again (assembly.py); the executed speak their last words,
then their triggers (deaths.py); win check (§5, neutral wins first: wins.py says in which
order).

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

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from ...core.decisions import Decision
from ...core.errors import ErrorCode, IllegalAction
from ...core.game import Game, Result
from .assembly import SPEECH_KINDS, Assembly
from .choice import ABSTAIN, COUNTERCLOCKWISE, DECLINE, DONE, NONE, WORDS, Cover, Refusal
from .deaths import Deaths
from .mechanics import statuses
from .night import Night, NightPlan
from .options import WerewolfOptions
from .phases import ENDED, NIGHT
from .roles import ACTIONS, REGISTRY, Role, Team
from .wins import DAY_LIMIT, END_REASONS, SIDES, winner, with_survivors


Step = Callable[["WerewolfGame", Any], None]
"""A step of the agenda: it runs on the game with the argument the agenda gave it."""


def _day(answer: Callable[[Assembly, WerewolfGame, int, Any], None]) -> Callable[[WerewolfGame, int, Any], None]:
    """The handler of a day kind: its ``Assembly`` method, on the game's assembly."""
    return lambda game, seat, value: answer(game.assembly, game, seat, value)


class _Handlers(Mapping[str, Callable[..., None]]):
    """Day kinds map to the assembly's methods; every other kind to its role action (the registry)."""

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
    """The game's state and flow: the deal, the agenda of steps, what roles and drivers ask.

    The night is run by ``night`` (night.py), the day's election, turns and votes by
    ``assembly`` (assembly.py), deaths and what they trigger by ``deaths`` (deaths.py); the
    win check is wins.py's. Each step of the agenda is one of their methods, by name
    (``_steps``). The parts own their state but not the game: each of their methods takes
    it first, as the roles' hooks do, so that a game is no reference cycle and is freed as
    soon as it is dropped.
    """

    name: ClassVar[str] = "werewolf"
    Options = WerewolfOptions
    options: WerewolfOptions
    sides = SIDES
    end_reasons = END_REASONS
    public_kinds: ClassVar[frozenset[str]] = frozenset(Assembly.answers)
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
        self.seat_roles: list[type[Role]] = [REGISTRY[r] for r in roles]
        """Each seat's role class, as ``role_of`` gives it: read directly by the engine's own
        modules in the loops every step runs (the win check, the night's plan)."""
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
        self.state: list[dict[str, Any]] = [role.initial_state(self) for role in self.seat_roles]
        """Per-seat role memory (the specification's roleState): potions, shots, last protection."""
        wolves = sum(r.team is Team.WEREWOLF for r in self.seat_roles)
        mode = options.lastWordsMode
        self.last_words_left: int | None = None if mode == "all" else 0 if mode == "none" else wolves
        self.in_play = sorted({REGISTRY[r] for r in cards}, key=lambda r: (r.win_order, r.id))
        """Every role in the deck, the extra cards' too (a thief may take one), in a fixed
        order (a set of classes iterates in the order of their addresses, which differ from
        one process to the next)."""
        self.night = Night(self.in_play)
        self.assembly = Assembly()
        self.deaths = Deaths(self.in_play)
        self._agenda: list[tuple[str, Any]] = [("night", None)]
        counts: dict[str, int] = {}
        for r in cards:
            counts[r] = counts.get(r, 0) + 1
        self._emit("setup", {"players": players, "options": options.to_dict(), "roles": dict(sorted(counts.items()))})
        for seat, role in enumerate(self.seat_roles):
            self._emit("role", {"seat": seat, "role": role.id, "team": role.team.value}, (seat,))
        wolf_seats = [s for s, r in enumerate(self.seat_roles) if r.team is Team.WEREWOLF]
        self._emit("wolves", {"wolves": wolf_seats}, wolf_seats)
        for role in self.in_play:
            role.on_deal(self, [s for s, r in enumerate(self.seat_roles) if r is role])
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
        return self.seat_roles[seat]

    def living(self) -> list[int]:
        return [s for s in range(self.players) if self.alive[s]]

    def living_wolves(self) -> list[int]:
        """The living werewolf-team seats (who share the night talk outside the engine)."""
        return [s for s in range(self.players) if self.alive[s] and self.seat_roles[s].team is Team.WEREWOLF]

    def paced(self) -> bool:
        return self.phase == NIGHT and self.night.paced

    def is_out(self, seat: int) -> bool:
        return not self.alive[seat]

    def team_talk(self, seat: int) -> tuple[int, ...]:
        """Living wolves talk among themselves at night (the referee relays it)."""
        if (
            self.phase != NIGHT
            or self.result is not None
            or not self.alive[seat]
            or self.seat_roles[seat].team is not Team.WEREWOLF
        ):
            return ()
        return tuple(s for s in self.living_wolves() if s != seat)

    def tell(self, kind: str, data: dict[str, Any], audience: Iterable[int] | None = None) -> None:
        """Emit an event; ``audience`` None is everyone."""
        self._emit(kind, data, None if audience is None else frozenset(audience))

    def become(self, seat: int, role_id: str, after: float) -> None:
        """``seat`` holds ``role_id`` from now on (the thief's steal at step ``after``), with
        fresh role memory; they are told (``role``), a new wolf's pack is told again
        (``wolves``), the role's holders learn together again what they learnt at the deal
        (``Role.on_deal``: the masons), and the new role's actions of steps after ``after``
        are asked tonight."""
        role = REGISTRY[role_id]
        self.roles[seat] = role_id
        self.seat_roles[seat] = role
        self.state[seat] = role.initial_state(self)
        self.tell("role", {"seat": seat, "role": role.id, "team": role.team.value}, (seat,))
        if role.team is Team.WEREWOLF:
            wolf_seats = [s for s, r in enumerate(self.seat_roles) if r.team is Team.WEREWOLF]
            self.tell("wolves", {"wolves": wolf_seats}, wolf_seats)
        role.on_deal(self, [s for s, r in enumerate(self.seat_roles) if r is role])
        self.night.join(seat, role, after)

    def link(self, a: int, b: int) -> None:
        self.links[a] = b
        self.links[b] = a

    def kill(self, seat: int, cause: str) -> None:
        """A death in the day (a hunter's shot): announced at once, with its consequences."""
        if self.alive[seat]:
            self.deaths.die(self, seat, [cause], announce=True)

    def dead_refusals(self) -> dict[Any, Refusal]:
        """A fresh copy of the TARGET_ALREADY_DEAD refusals for the dead seats."""
        return dict(self.deaths.refusals)

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
            self.night.next(self)
        steps = self._steps
        while self.result is None and not self._pending and self._agenda:
            name, arg = self._agenda.pop(0)
            steps[name](self, arg)

    def _then(self, *steps: tuple[str, Any]) -> None:
        self._agenda[:0] = steps

    def _nightfall(self, _: Any) -> None:
        if self.options.maxDays and self.day >= self.options.maxDays:
            self._end(Result(None, frozenset(), DAY_LIMIT))
            return
        self.day += 1
        self.phase = NIGHT
        self.plan = NightPlan()
        statuses.expire(self)
        self.tell("night", {"night": self.day})
        self.night.begin(self)

    def _check(self, _: Any) -> None:
        result = winner(self)
        if result is not None:
            self._end(result)

    def _end(self, result: Result) -> None:
        result = with_survivors(self, result)
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
            "teams": [r.team.value for r in self.seat_roles],
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
                if action not in self.seat_roles[seat].actions:
                    raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, f"your role cannot {kind}")
                if action.exhausted(self, seat):
                    raise IllegalAction(ErrorCode.RESOURCE_EXHAUSTED, f"{kind}: already used up")
            if kind == "vote" and not self.assembly.may_vote(self, seat) and decision is None:
                raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, "you have lost your vote")
        super()._refuse(seat, kind, decision)

    handlers: ClassVar[Mapping[str, Callable[..., None]]] = _Handlers(
        {kind: _day(answer) for kind, answer in Assembly.answers.items()}
    )

    _steps: ClassVar[Mapping[str, Step]] = {
        "night": _nightfall,
        "dawn": lambda game, arg: game.night.dawn(game, arg),
        "leader": lambda game, arg: game.assembly.elect_leader(game, arg),
        "candidacy": lambda game, arg: game.assembly.ask_candidacy(game, arg),
        "leader_votes": lambda game, arg: game.assembly.leader_votes(game, arg),
        "leader_ballot": lambda game, arg: game.assembly.ask_leader_vote(game, arg),
        "leader_result": lambda game, arg: game.assembly.leader_result(game, arg),
        "last_words": lambda game, arg: game.assembly.last_words(game, arg),
        "triggers": lambda game, arg: game.deaths.ask_triggers(game, arg),
        "check": _check,
        "order": lambda game, arg: game.assembly.choose_order(game, arg),
        "order_direction": lambda game, arg: game.assembly.ask_direction(game, arg),
        "speeches": lambda game, arg: game.assembly.speeches(game, arg),
        "vote": lambda game, arg: game.assembly.vote(game, arg),
        "ballot": lambda game, arg: game.assembly.ask_vote(game, arg),
        "count": lambda game, arg: game.assembly.count(game, arg),
        "execute": lambda game, arg: game.deaths.execute(game, arg),
    }
    """What each step of the agenda runs, by its name: functions of the game, kept on the
    class so that no game holds methods bound to itself or to its parts (which would make
    every game a reference cycle, left to the cyclic garbage collector once it is over)."""
