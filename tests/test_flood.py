"""What a flood can cost the referee: replies per sender, refusals kept in a game's
transcript, and deadlines that start when a request actually goes out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.config import Config, FloodConfig, TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.protocol import ASK, ERROR, WARN, parse
from arena.referee.budget import ReplyBudget
from arena.referee.record import REFUSALS_KEPT
from arena.referee.referee import Referee
from arena.referee.service import RefereeService
from arena.store import Store, record_from_game


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_sender_gets_a_burst_of_replies_then_a_trickle_and_others_are_unaffected() -> None:
    clock = Clock()
    budget = ReplyBudget(burst=3, per_second=0.5, clock=clock, senders=2)
    assert [budget.allow("Mallory") for _ in range(4)] == [True, True, True, False]
    assert budget.allow("alice")  # another sender has its own budget
    clock.now = 2.0
    assert budget.allow("mallory") and not budget.allow("MALLORY")  # one more every 2 s, case-folded
    assert budget.dropped == 2
    budget.allow("bob")  # a third sender: the least recently charged (alice) is forgotten
    assert len(budget._buckets) == 2


def _referee(
    budget: ReplyBudget | None = None, after_sent: Callable[[Callable[[float], None]], object] | None = None
) -> tuple[Referee, list[tuple[str, str]]]:
    sent: list[tuple[str, str]] = []
    referee = Referee(
        "arena",
        TimeoutConfig(escalation=("warn", "default")),
        lambda t, x: sent.append((t, x)),
        budget=budget,
        after_sent=after_sent,
    )
    return referee, sent


def test_a_stranger_flooding_garbage_gets_a_few_errors_then_silence() -> None:
    clock = Clock()
    referee, sent = _referee(ReplyBudget(burst=5, per_second=0.1, clock=clock))
    for i in range(100):
        referee.on_message("stranger", "arena", f"garbage {i}", clock.now)
    assert len(sent) == 5 and all(text.startswith("ERROR ") for _, text in sent)
    referee.on_message("honest", "arena", "REGISTER 1", clock.now)
    assert sent[-1][0] == "honest" and sent[-1][1].startswith("WELCOME")


def test_the_referee_applies_the_configured_flood_limits() -> None:
    clock = Clock()
    config = Config(flood=FloodConfig(reply_burst=2, reply_interval=60.0, reply_queue=3))
    service = RefereeService(config, clock=clock)
    link = service.link
    assert link.outbox.max_replies == 3
    for i in range(10):
        service._on_message("stranger", "arena", f"garbage {i}")
    assert [target for target, _ in link.outbox.replies] == ["stranger"] * 2, "2 replies, then silence"
    assert service.referee.budget is not None and service.referee.budget.dropped == 8
    for i in range(3):
        service._on_message("other", "arena", f"garbage {i}")
    assert len(link.outbox.replies) == 3 and link.replies_dropped == 1  # the queue holds 3 replies at most
    link.outbox.replies.clear()
    clock.now = 59.0
    service._on_message("stranger", "arena", "garbage")
    assert not link.outbox.replies
    clock.now = 60.0
    service._on_message("stranger", "arena", "garbage")  # one more a minute
    assert [target for target, _ in link.outbox.replies] == ["stranger"]


def test_a_reply_interval_of_0_sets_no_limit_per_sender() -> None:
    service = RefereeService(Config(flood=FloodConfig(reply_interval=0.0)), clock=Clock())
    assert service.referee.budget is None
    for i in range(30):
        service._on_message("stranger", "arena", f"garbage {i}")
    replies = service.link.outbox.replies
    assert len(replies) == 30 and all(text.startswith(ERROR) for _, text in replies)


def test_by_default_a_sender_gets_10_replies_then_one_every_5_s() -> None:
    clock = Clock()
    service = RefereeService(Config(), clock=clock)
    assert service.link.outbox.max_replies == 50
    for i in range(20):
        service._on_message("stranger", "arena", f"garbage {i}")
    assert len(service.link.outbox.replies) == 10
    clock.now = 4.9
    service._on_message("stranger", "arena", "garbage")
    assert len(service.link.outbox.replies) == 10
    clock.now = 5.0
    service._on_message("stranger", "arena", "garbage")
    assert len(service.link.outbox.replies) == 11


def test_a_seated_flood_of_refusals_is_counted_not_kept_and_stats_see_it_all(tmp_path: Path) -> None:
    referee, sent = _referee()
    nicks = [f"p{i}" for i in range(5)]
    for nick in nicks:
        referee.on_message(nick, "arena", "REGISTER 1", 0.0)
    match = referee.start_game("avalon", nicks, AvalonOptions(), 1, "#g", 0.0)
    flood = 3 * REFUSALS_KEPT
    for i in range(flood):
        referee.on_message("p1", "arena", f"ANSWER {match.gid} {999000 + i} approve", 0.0)
    match.abort("test", 0.0)
    errors = [(to, line) for to, line in match.transcript if line.startswith(ERROR)]
    assert len(errors) == REFUSALS_KEPT + 1
    assert len(match.answers) == REFUSALS_KEPT, "a flood's answer lines are kept no more than its refusals"
    to, summary = errors[-1]
    assert to == "p1" and parse(summary).int("count") == flood - REFUSALS_KEPT
    assert sum(1 for to, text in sent if to == "p1" and text.startswith(ERROR)) == flood  # all were answered
    with Store(tmp_path / "arena.db") as store:
        store.games.record(
            record_from_game(
                match.gid,
                match.game,
                match.names,
                started=0.0,
                finished=1.0,
                transcript=match.transcript,
                bots=match.bots,
                aborted_reason="test",
            )
        )
        assert sum(store.stats.bots("avalon")["p1"].conduct.refused.values()) == flood


def test_lines_the_grammar_refuses_are_counted_for_the_seat_that_sent_them(tmp_path: Path) -> None:
    """A seated bot's line that breaks the grammar (control characters, bytes that are not
    UTF-8, a missing choice) is kept in its game's record like any other refusal, so
    ``arena stats`` counts it; a stranger's, or one about no game, is only answered."""
    referee, sent = _referee()
    nicks = [f"p{i}" for i in range(5)]
    for nick in nicks:
        referee.on_message(nick, "arena", "REGISTER 1", 0.0)
    match = referee.start_game("avalon", nicks, AvalonOptions(), 1, "#g", 0.0)
    gid = match.gid
    bad = [
        f"ANSWER {gid} 1 \x02approve\x02",
        f"ANSWER {gid} 1 appr\udce9ve",
        f"ANSWER {gid} 1",
        f"ANSWER {gid} 1234567890",
        f"ANSWER {gid}",
    ]
    for line in bad:
        referee.on_message("p1", "arena", line, 0.0)
    referee.on_message("p1", "arena", "ANSWER g99 1", 0.0)  # no such game: answered, no game's record
    referee.on_message("zed", "arena", f"ANSWER {gid} 1", 0.0)  # not seated: the same
    answered = [parse(text) for to, text in sent if text.startswith(ERROR)]
    assert [m.args for m in answered] == [("MALFORMED", gid, "1")] * 3 + [("MALFORMED", gid)] * 2 + [
        ("MALFORMED", "g99", "1"),
        ("MALFORMED", gid, "1"),
    ]
    kept = [(to, parse(line).args) for to, line in match.transcript if line.startswith(ERROR)]
    assert kept == [("p1", m.args) for m in answered[: len(bad)]]
    match.abort("test", 0.0)
    with Store(tmp_path / "arena.db") as store:
        store.games.record(
            record_from_game(
                gid,
                match.game,
                match.names,
                started=0.0,
                finished=1.0,
                transcript=match.transcript,
                bots=match.bots,
                aborted_reason="test",
            )
        )
        assert store.stats.bots("avalon")["p1"].conduct.refused == {"MALFORMED": len(bad)}


def test_a_deadline_starts_when_the_request_goes_out() -> None:
    waiting: list[Callable[[float], None]] = []
    referee, sent = _referee(after_sent=waiting.append)
    nicks = [f"p{i}" for i in range(5)]
    for nick in nicks:
        referee.on_message(nick, "arena", "REGISTER 1", 0.0)
    match = referee.start_game("avalon", nicks, AvalonOptions(), 1, "#g", 0.0)
    assert any(parse(text).verb == ASK for _, text in sent) and waiting
    assert match.next_deadline() is None  # queued, not sent: no clock runs
    referee.poll(1000.0)
    assert not any(parse(text).verb == WARN for _, text in sent)
    for callback in waiting:
        callback(1000.0)
    assert match.next_deadline() == 1000.0 + TimeoutConfig().decision
    # An answer's latency counts from then too, not from when the request was queued.
    ask = next(parse(text) for _, text in sent if parse(text).verb == ASK)
    referee.on_message(ask.fields["to"], "arena", f"ANSWER {match.gid} {ask.args[1]} nobody", 1002.5)
    (answer,) = match.answers
    assert (answer.at, answer.latency, answer.error) == (1002.5, 2.5, "WRONG_COUNT")  # a team of one
