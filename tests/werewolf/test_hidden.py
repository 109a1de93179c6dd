"""Hidden roles stay hidden on the wire: night requests timed alike whoever is alive, private
timeouts, the hunter's shot without the shooter, and one refusal for any request not yours."""

from __future__ import annotations

from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot

from .helpers import ALL_ROLES, events, game, night

NICKS = [f"p{i}" for i in range(8)]
WITCH = WerewolfOptions(roleCounts="werewolf:2,seer:1,witch:1,doctor:1")


def hub_of(**timeouts: float) -> tuple[LocalHub, list[tuple[float, str, str]]]:
    hub = LocalHub(TimeoutConfig(**timeouts), messages=False)  # every line through send
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Bot(seed=i))
    said: list[tuple[float, str, str]] = []
    send = hub.referee.send

    def timed(target: str, text: str) -> None:
        said.append((hub.now, target, text))
        send(target, text)

    hub.referee.send = timed  # type: ignore[method-assign]
    return hub, said


def test_the_witch_is_asked_night_step_after_night_whatever_the_others_did() -> None:
    hub, said = hub_of(night_step=7.0)
    delays: dict[str, set[float]] = {}
    for seed in range(5):
        hub.play("werewolf", NICKS, WITCH, seed)
        start = 0.0
        for when, target, text in said:
            msg = parse(text)
            if msg.verb == "NIGHT":
                start = when
            elif msg.verb == ASK and msg.args[2] in ("seer_check", "doctor_protect", "wolf_vote", "witch_save", "witch_poison"):
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
    seer = match.game.roles.index("seer")
    del hub.sessions[NICKS[seer]]  # the seer goes silent
    hub.run()
    while not any(parse(t).verb == "TIMEOUT" for _, t in match.transcript):
        hub.now = match.next_deadline()
        hub.referee.poll(hub.now)
        hub.run()
    notices = [to for to, t in match.transcript if parse(t).verb in ("TIMEOUT", "WARN")]
    assert notices and set(notices) == {NICKS[seer]}


def test_an_unknown_request_and_another_players_are_refused_alike() -> None:
    hub, said = hub_of()
    match = hub.referee.start_game("werewolf", NICKS, WITCH, 1, hub.channel, hub.now)
    seer = match.game.roles.index("seer")
    wolf = match.game.roles.index("werewolf")
    rid = next(parse(t).args[1] for to, t in match.transcript if to == NICKS[wolf] and t.startswith(ASK))
    villager = match.game.roles.index("villager")
    refusals = []
    for answer in (f"ANSWER {match.gid} {rid} p0", f"ANSWER {match.gid} 424242 p0"):
        hub.referee.on_message(NICKS[villager], hub.referee.nick, answer, hub.now)
        refusals.append(parse(match.transcript[-1][1]))
    assert [m.args[0] for m in refusals] == [ErrorCode.STALE_REQUEST.value] * 2
    assert refusals[0].text.replace(rid, "N") == refusals[1].text.replace("424242", "N")
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
