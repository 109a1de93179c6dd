"""Whole games in memory with LLM bots (their model: the scripted server of llm_server.py,
answering legal values from each request's schema) seated among rule bots: every request
is answered legally through the model, every line the referee sends reads as a sentence in
the prompt, and each game ends with a summary per LLM bot."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.sdk import Bot
from arena.sdk.llm import LlmBot, LlmSettings
from arena.sdk.llm.avalon import TASKS as AVALON_TASKS
from arena.sdk.llm.tuvalon import TASKS as TUVALON_TASKS
from arena.sdk.llm.werewolf import TASKS as WEREWOLF_TASKS

from .llm_server import FakeChat

NICKS = [
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "ken",
    "liam",
    "mia",
    "nick",
    "olga",
    "pete",
]
RAW = re.compile(r"^[A-Z_]{3,} g\d+\b", re.M)
"""A protocol line left as it came: a verb the renderer does not put in words."""


def play(game: str, players: int, llm: int, options: Any, seed: int, log: Path, chat: FakeChat) -> Match:
    """One game: the first ``llm`` seats are LLM bots, the others rule bots. No bot's code
    may raise on any line or request (the SDK would count it as a fault and play on)."""
    hub = LocalHub(TimeoutConfig())
    settings = LlmSettings(base_url=chat.url, model="scripted", log=str(log))
    nicks = NICKS[:players]
    sessions = []
    for i, nick in enumerate(nicks):
        rule: Bot = {"avalon": RuleBot, "tuvalon": TuvalonRuleBot}.get(game, WerewolfRuleBot)(seed=i)
        sessions.append(hub.connect(nick, LlmBot(seed=i, settings=settings) if i < llm else rule))
    match = hub.play(game, nicks, options, seed)
    result = match.game.result
    assert result is not None and result.forfeited is None
    assert not any(s.faults.counts for s in sessions), [s.faults.summary() for s in sessions]
    refused = [line for to, line in match.transcript if line.startswith("ERROR") and to in nicks[:llm]]
    assert refused == [], "the referee refused an LLM bot's line"
    return match


def check_log(log: Path, chat: FakeChat, seats: int, tasks: dict[str, str]) -> list[dict[str, Any]]:
    """Every act legal through the model (or forced), one clean summary per LLM seat
    (``seats`` in all), the tokens summed right, and every prompt in words; returns the acts."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    acts = [r for r in records if r["event"] != "game"]
    assert acts and [r for r in acts if r["outcome"] not in ("legal", "forced")] == []
    summaries = [r for r in records if r["event"] == "game"]
    assert len(summaries) == seats and all(s["fallbacks"] == 0 and s["errors"] == 0 for s in summaries)
    assert sum(s["calls"] for s in summaries) == len(chat.requests)
    assert sum(s["prompt_tokens"] for s in summaries) == 120 * len(chat.requests)
    for body in chat.requests:
        user = body["messages"][1]["content"]
        raw = RAW.search(user)
        assert not raw, f"a line left raw in the prompt: {raw.group(0)}"
        assert "The referee asks you" not in user, "a request kind without a description"
    assert {r["kind"] for r in acts if r["calls"]} <= set(tasks)
    return acts


def test_avalon_games_with_llm_bots_among_rule_bots(tmp_path: Path) -> None:
    log = tmp_path / "llm.jsonl"
    tables = [
        (5, AvalonOptions()),
        (7, AvalonOptions(percival=True, morgana=True, oberon=True)),
        (10, AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=2)),
        (8, AvalonOptions(merlin=False)),
        (8, AvalonOptions(mordred=True, lancelot=3)),
    ]
    with FakeChat() as chat:
        for seed, (players, options) in enumerate(tables):
            play("avalon", players, 3, options, seed, log, chat)
    acts = check_log(log, chat, 3 * len(tables), AVALON_TASKS)
    assert {r["kind"] for r in acts} >= {"team", "vote", "quest"}


def test_werewolf_games_with_llm_bots_use_every_power(tmp_path: Path) -> None:
    """A default table among rule bots, then a table of LLM bots only with every role dealt
    (so every kind of request, a pick of two included, goes through the model)."""
    log = tmp_path / "llm.jsonl"
    every = "villager,werewolf,seer,doctor,hunter,witch,bodyguard,cupid,idiot,jester,piper,vigilante"
    powers = "werewolf:3,seer:1,doctor:1,hunter:1,witch:1,bodyguard:1,cupid:1,idiot:1,jester:1,piper:1,vigilante:1"
    with FakeChat(seed=3) as chat:
        play("werewolf", 8, 4, WerewolfOptions(), 1, log, chat)
        play("werewolf", 16, 16, WerewolfOptions(enabledRoles=every, roleCounts=powers, maxDays=6), 2, log, chat)
        hidden = WerewolfOptions(
            enabledRoles=every,
            roleCounts="werewolf:2,witch:1,hunter:1,cupid:1,piper:1,idiot:1",
            revealRolesOnDeath=False,
            leaderEnabled=False,
            lastWordsMode="all",
            lastWordsScope="day_and_night",
            maxDays=4,
        )
        play("werewolf", 12, 12, hidden, 3, log, chat)
    acts = check_log(log, chat, 4 + 16 + 12, WEREWOLF_TASKS)
    kinds = {r["kind"] for r in acts}
    assert kinds >= {
        "seer_check",
        "doctor_protect",
        "bodyguard_protect",
        "wolf_vote",
        "cupid_link",
        "piper_charm",
        "candidacy",
        "speak",
        "vote",
    }, kinds
    assert any(r["event"] == "team_talk" and r["lines"] == 1 for r in acts)
    assert any(r["event"] == "speech" and r["lines"] >= 1 for r in acts)


CHAOS_SEEDS = (1, 13, 9, 15, 17, 20, 10, 35)
"""Seeds whose chaos decks (and the scripted model's choices, in this order) between them
bring every Werewolf request kind, a scapegoat's tie included."""


def test_chaos_werewolf_tables_of_llm_bots_meet_every_request_kind(tmp_path: Path) -> None:
    """Sixteen LLM bots at decks drawn from all the roles: every request the referee can
    make (two-player picks, a dealer's cards, an arsonist's ``ignite``...) is put to the
    model in words and answered legally."""
    log = tmp_path / "llm.jsonl"
    with FakeChat(seed=4) as chat:
        for seed in CHAOS_SEEDS:
            play("werewolf", 16, 16, WerewolfOptions(preset="chaos", maxDays=6), seed, log, chat)
    acts = check_log(log, chat, 16 * len(CHAOS_SEEDS), WEREWOLF_TASKS)
    kinds = {r["kind"] for r in acts if r["calls"]}
    assert kinds == set(WEREWOLF_TASKS), set(WEREWOLF_TASKS) - kinds


def test_tuvalon_games_with_llm_bots_move_and_speak_in_both_discussions(tmp_path: Path) -> None:
    log = tmp_path / "llm.jsonl"
    with FakeChat(seed=5) as chat:
        for seed in range(2):
            play("tuvalon", 7, 4, TuvalonOptions(speech_budget=0), seed, log, chat)
    acts = check_log(log, chat, 8, TUVALON_TASKS)
    kinds = {r["kind"] for r in acts if r["calls"]}
    assert kinds >= {"team", "vote", "move", "speak", "speak_near"}, kinds
    assert any(r["kind"] == "speak_near" and r["lines"] >= 1 for r in acts)
    heard: dict[str, set[bool]] = {"speak": set(), "speak_near": set()}
    for body in chat.requests:
        assert "9x9 map" in body["messages"][0]["content"]
        assert "This game sets no limit on how much a player says." in body["messages"][0]["content"]
        kind = body["response_format"]["json_schema"]["name"]
        if kind in heard:  # the second discussion is heard in range only, and the model is told so
            prompt = body["messages"][1]["content"]
            heard[kind].add("heard by everyone" in prompt and "spoken to everyone" not in prompt)
            assert ("heard by the players near you only" in prompt) == (kind == "speak_near"), prompt[-400:]
    assert heard == {"speak": {True}, "speak_near": {False}}


def test_tuvalon_llm_bots_keep_within_a_tight_speech_budget(tmp_path: Path) -> None:
    """Tuvalon's speech budget forfeits a bot that goes over it: an LLM bot is told how many
    bytes it has left, and what would go over is left out, so it plays every game to its end."""
    log = tmp_path / "llm.jsonl"
    with FakeChat(seed=7) as chat:
        for seed in range(2):
            match = play("tuvalon", 7, 4, TuvalonOptions(speech_budget=400), seed, log, chat)
            spoken = match.floor.spoken  # what the referee counted against each seat
            assert all(0 < spoken[seat] <= 400 for seat in range(4)), spoken
            assert max(spoken[:4]) > 400 - 60  # the budget was close to spent: it mattered
    assert all(
        "may say at most 400 bytes in the whole game" in body["messages"][0]["content"] for body in chat.requests
    )
    prompts = [body["messages"][1]["content"] for body in chat.requests]
    assert any("You may say 400 more bytes" in p for p in prompts)
    assert any(re.search(r"You may say ([0-9]|[1-5][0-9]) more bytes", p) for p in prompts)


def test_an_llm_bot_is_told_who_hears_it_for_sure_and_who_only_with_wide_hearing() -> None:
    """Roles are secret, so a player 2 cells away hears only if a Knight or Oberon (5x5)."""
    from arena.sdk.llm.tuvalon import hearers_sentence
    from arena.sdk.tuvalon import TuvalonState

    state = TuvalonState(["me", "b", "c", "d", "e"])
    state.cells = {"me": "a1", "b": "b2", "c": "c1", "d": "f6", "e": "a3"}
    assert hearers_sentence(state, "me", ["b", "c", "d", "e"]) == (
        "b hears you (1 cell away); c and e (2 cells away) can hear you only if they hear 5x5 (Knights and "
        "Oberon). Nobody else can hear you."
    )
    assert hearers_sentence(state, "me", ["b", "d"]) == "Only b hears you (1 cell away)."
    assert hearers_sentence(state, "me", ["d"]) == "Nobody stands within 2 cells of you: nobody can hear you."
