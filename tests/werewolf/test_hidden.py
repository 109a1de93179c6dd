"""Hidden roles stay hidden on the wire: night requests timed alike whoever is alive, private
timeouts, the hunter's shot without the shooter, and one refusal for any request not yours."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, Message, parse
from arena.referee.local import LocalHub
from arena.referee.referee import Referee
from arena.sdk import Ask, Bot, GameView

from .helpers import ALL_ROLES, events, game, night, werewolf

NICKS = [f"p{i}" for i in range(8)]
WITCH = WerewolfOptions(roleCounts="werewolf:2,seer:1,witch:1,doctor:1")


def hub_of(
    bot: type[Bot] = Bot, clock: Callable[[], float] | None = None, **timeouts: Any
) -> tuple[LocalHub, list[tuple[float, str, str]]]:
    """A table of ``bot``s whose every referee line is kept with the time it was sent."""
    hub = LocalHub(TimeoutConfig(**timeouts), clock=clock, messages=False)  # every line through send
    for i, nick in enumerate(NICKS):
        hub.connect(nick, bot(seed=i))
    said: list[tuple[float, str, str]] = []
    send = hub.referee.send

    def timed(target: str, text: str) -> None:
        said.append((hub.now, target, text))
        send(target, text)

    hub.referee.send = timed
    return hub, said


def test_the_witch_is_asked_night_step_after_night_whatever_the_others_did() -> None:
    hub, said = hub_of(night_step=7.0)
    delays: dict[str, set[float]] = {}
    for seed in range(5):
        hub.play("werewolf", NICKS, WITCH, seed)
        start = 0.0
        for when, _target, text in said:
            msg = parse(text)
            if msg.verb == "NIGHT":
                start = when
            elif msg.verb == ASK and msg.args[2] in (
                "seer_check",
                "doctor_protect",
                "wolf_vote",
                "witch_save",
                "witch_poison",
            ):
                delays.setdefault(msg.args[2], set()).add(when - start)
        said.clear()
    assert delays["wolf_vote"] == delays["seer_check"] == delays["doctor_protect"] == {0.0}
    first_witch = {d for k in ("witch_save", "witch_poison") for d in delays.get(k, ())}
    assert first_witch and min(first_witch) == 7.0


def test_a_game_decided_at_night_ends_with_secret_minimum() -> None:
    """Regression: DAWN and END of a deciding night were held while the match counted as
    over, so nothing polled it again ("NIGHT g132 night=2", then nothing)."""
    hub, said = hub_of(secret_minimum=5.0)
    for seed in range(6):
        match = hub.play("werewolf", NICKS, WITCH, seed)
        assert parse(match.transcript[-1][1]).verb == "END"


def test_a_private_night_timeout_goes_to_its_player_only() -> None:
    hub, said = hub_of(night_step=0.0)
    match = hub.referee.start_game("werewolf", NICKS, WITCH, 1, hub.channel, hub.now)
    seer = werewolf(match.game).roles.index("seer")
    del hub.sessions[NICKS[seer]]  # the seer goes silent
    hub.run()
    while not any(parse(t).verb == "TIMEOUT" for _, t in match.transcript):
        deadline = match.next_deadline()
        assert deadline is not None
        hub.now = deadline
        hub.referee.poll(hub.now)
        hub.run()
    notices = [to for to, t in match.transcript if parse(t).verb in ("TIMEOUT", "WARN")]
    assert notices and set(notices) == {NICKS[seer]}


def test_an_unknown_request_and_another_players_are_refused_alike() -> None:
    hub, said = hub_of()
    match = hub.referee.start_game("werewolf", NICKS, WITCH, 1, hub.channel, hub.now)
    seer = werewolf(match.game).roles.index("seer")
    wolf = werewolf(match.game).roles.index("werewolf")
    rid = next(parse(t).args[1] for to, t in match.transcript if to == NICKS[wolf] and t.startswith(ASK))
    villager = werewolf(match.game).roles.index("villager")
    refusals: list[Message] = []
    for answer in (f"ANSWER {match.gid} {rid} p0", f"ANSWER {match.gid} 424242 p0"):
        hub.referee.on_message(NICKS[villager], hub.referee.nick, answer, hub.now)
        refusals.append(parse(match.transcript[-1][1]))
    assert [m.args[0] for m in refusals] == [ErrorCode.STALE_REQUEST.value] * 2
    first, second = refusals[0].text, refusals[1].text
    assert first is not None and second is not None
    assert first.replace(rid, "N") == second.replace("424242", "N")
    assert seer != villager


HUNTER = "werewolf werewolf hunter villager villager villager villager villager"


def test_a_hidden_hunter_is_asked_with_every_dead_and_never_named() -> None:
    g = game(HUNTER, leaderEnabled=False, revealRolesOnDeath=False, enabledRoles=ALL_ROLES)
    night(g, {"wolf_vote": 2})
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("hunter_shoot", 2) and len(d.options) > 1
    g.apply(2, "hunter_shoot", 0)
    assert events(g, "hunter_shot")[-1].data == {"target": 0}
    # A villager's death is asked alike (none is its only option); a declined shot is silent.
    g = game(HUNTER, leaderEnabled=False, revealRolesOnDeath=False, enabledRoles=ALL_ROLES)
    night(g, {"wolf_vote": 4})
    (d,) = g.pending()
    assert (d.kind, d.seat, d.options) == ("hunter_shoot", 4, ("none",))
    g.apply(4, "hunter_shoot", "none")
    assert not events(g, "hunter_shot") and g.pending()[0].kind == "speak"


class Slow(WerewolfRuleBot):
    """The rule bot, thinking ``THINK`` seconds of a fake clock over every night action; a
    witch uses her potions at once."""

    THINK = 2.0
    clock = [0.0]

    def decide(self, game: GameView[Any], ask: Ask) -> Any:
        if ask.kind in WerewolfGame.secret_kinds:
            self.clock[0] += self.THINK
        if ask.kind.startswith("witch_") and len(ask.options) > 1:
            return "save" if "save" in ask.options else ask.options[0]
        return super().decide(game, ask)


def test_every_night_with_a_living_witch_lasts_alike_with_her_potions_or_without() -> None:
    """Regression: a living witch with both potions spent was asked nothing, so her nights
    ended at ``night_step`` while the others lasted her two answers longer: anyone could
    time a night to learn that she had used her potions. Now she is asked both requests
    every night (``none`` alone when a potion is spent or there is nothing to heal), so a
    night lasts ``night_step`` plus her two answers, whatever she holds."""
    hub, said = hub_of(Slow, lambda: Slow.clock[0], night_step=10.0)
    lengths: dict[bool, set[float]] = {}
    for seed in range(8):
        said.clear()
        match = hub.play("werewolf", NICKS, WITCH, seed)
        witch = werewolf(match.game).roles.index("witch")
        start: float | None = None
        asked: list[Message] = []
        alive = True
        for when, target, text in said:
            msg = parse(text)
            if msg.verb == "NIGHT":
                start, asked = when, []
            elif msg.verb == ASK and target == NICKS[witch] and start is not None:
                asked.append(msg)
            elif msg.verb == "DAWN" and start is not None and alive:
                assert [a.args[2] for a in asked] == ["witch_save", "witch_poison"]
                nothing = all(a.get("options") == "none" for a in asked)
                lengths.setdefault(nothing, set()).add(when - start)
            if msg.verb in ("DAWN", "EXECUTION", "DEATH") and NICKS[witch] in (
                msg.get("dead") or msg.get("player") or ""
            ).split(","):
                alive = False
            if msg.verb == "DAWN":
                start = None
    assert lengths.get(True), "no night with a witch who had nothing to decide"
    assert lengths == {False: {10.0 + 2 * Slow.THINK}, True: {10.0 + 2 * Slow.THINK}}, lengths


def test_a_night_is_timed_from_when_night_goes_out() -> None:
    """Regression: the night's clock started when ``NIGHT`` was queued, so behind a
    transport's backlog (IRC at 2 lines/s after a day's votes) the witch was asked, or
    ``DAWN`` said, as soon as the players saw the night begin. Its clock starts when its
    lines go out, as a deadline's does."""
    waiting: list[Callable[[float], None]] = []
    sent: list[tuple[str, str]] = []
    referee = Referee(
        "arena", TimeoutConfig(night_step=10.0), lambda t, x: sent.append((t, x)), after_sent=waiting.append
    )
    for nick in NICKS:
        referee.on_message(nick, "arena", "REGISTER 1", 0.0)
    match = referee.start_game("werewolf", NICKS, WITCH, 1, "#g", 0.0)
    witch = NICKS[werewolf(match.game).roles.index("witch")]
    assert match.next_deadline() is None  # NIGHT and its requests are queued: no clock runs
    referee.poll(100.0)
    for callback in waiting:
        callback(50.0)  # they go out at 50 s
    waiting.clear()
    for to, text in list(sent):  # everyone answers at once
        msg = parse(text)
        if msg.verb == ASK:
            referee.on_message(
                to, "arena", f"ANSWER {match.gid} {msg.args[1]} {msg.fields['options'].split(',')[-1]}", 51.0
            )
    assert not any(to == witch and parse(text).verb == ASK for to, text in sent)
    assert match.next_deadline() == 60.0  # night_step after NIGHT went out
    referee.poll(60.0)
    assert [parse(text).args[2] for to, text in sent if to == witch and parse(text).verb == ASK] == ["witch_save"]


def test_every_living_actor_is_asked_each_of_its_night_actions_every_night() -> None:
    """Whatever it holds: a night's requests are those of the living players' roles, not
    of what they may still do (a spent shot, potion or lure, a charm in play, no one left
    to charm or recruit, a block), so neither a night's length nor its requests tell any of
    that. Chaos decks at 12 and 16 seats, random answers; nights after the first (the
    first has Cupid's and the thief's, and a thief's new role)."""
    nights = 0
    for seed in range(40):
        g = WerewolfGame(12 + 4 * (seed % 2), WerewolfOptions(preset="chaos"), seed)
        rng = random.Random(seed)
        asked: set[tuple[int, str]] = set()
        expected: set[tuple[int, str]] = set()
        day = g.day
        while g.result is None:
            if g.phase == "night" and g.day != day:
                day = g.day
                asked = set()
                expected = {
                    (s, a.kind)
                    for s in g.living()
                    for a in g.role_of(s).actions
                    if a.step is not None and not a.first_night_only
                }
            d = g.pending()[0]
            if g.phase == "night":
                asked.add((d.seat, d.kind))
            g.apply(
                d.seat,
                d.kind,
                d.options[rng.randrange(len(d.options))] if d.count == 1 else tuple(rng.sample(d.options, d.count)),
            )
            if g.phase != "night" and day > 1 and expected:
                assert asked == expected, (seed, day, expected ^ asked)
                nights += 1
                expected = set()
    assert nights > 100
