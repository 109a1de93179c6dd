"""The narrator's sentences one by one: their wording, formatting and facts; the lobby's
announcements, talk, continued lines, the referee named by the topic; ``arena replay
--pretty``; the lobby topic's status."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.narrate.narrator import Narrator, retell
from arena.narrate.sentence import Say
from arena.protocol import Message, referee_topic, topic_referees

AVALON = [
    "START g1 game=avalon seats=alice,bob,carol,dave,erin options=merlin:true,percival:true,lancelot:0 good=3 evil=2 "
    "quests=2,3,2,3,3 fails=1,1,1,1,1",
    "ASK g1 1 team to=bob deadline=30 options=alice,bob,carol,dave,erin pick=2 quest=1 attempt=1 rejections=0",
    "ASK g1 2 vote to=all deadline=30 options=approve,reject quest=1 leader=bob team=bob,dave rejections=0",
    "VOTES g1 approve=bob,carol,dave reject=alice,erin result=approved rejections=0",
    "QUEST g1 quest=1 team=bob,dave result=fail fails=2 successes=0 failures=1",
    "ASK g1 15 assassinate to=bob deadline=30 options=alice,carol,dave,erin",
    "ASSASSINATION g1 assassin=bob target=carol hit=true",
    "END g1 winner=evil reason=assassinated_merlin roles=alice:percival,bob:assassin,carol:merlin,dave:morgana,"
    "erin:servant",
]


def told(lines: list[str], referee: str = "arena", channel: str = "#arena-g1") -> list[str]:
    narrator = Narrator("#arena", referee)
    return [s.plain() for line in lines for s in narrator.hear(referee, channel, line)]


def test_an_avalon_game_reads_as_sentences() -> None:
    said = told(AVALON)
    assert said == [
        "Avalon, 5 players: alice, bob, carol, dave and erin. 3 good against 2 evil; quest teams of 2-3-2-3-3 "
        "players. In play: Merlin and the assassin, Percival.",
        "Quest 1, team of 2: bob leads.",
        "bob proposes bob and dave; everyone votes.",
        "Approved 3-2: bob, carol and dave for; alice and erin against.",
        "Quest 1 fails (2 fail cards). Score: good 0, evil 1.",
        "Good has won three quests, but bob, the assassin, may still name Merlin.",
        "bob names carol as Merlin: a hit.",
        "Game over after 1 quest: evil wins: the assassin found Merlin. Winners: bob and dave.",
        "Roles: alice (percival), bob (assassin), carol (merlin), dave (morgana), erin (servant).",
    ]


def test_formatting_names_in_bold_and_sides_in_colour() -> None:
    narrator = Narrator("#arena", "arena")
    sentences = [s for line in AVALON for s in narrator.hear("arena", "#arena-g1", line)]
    quest = sentences[4]
    assert quest.irc() == "Quest 1 \x0304fails\x03 (2 fail cards). Score: \x0312good 0\x03, \x0304evil 1\x03."
    assert "\x1b[31mfails\x1b[39m" in quest.ansi()
    assert sentences[2].irc().startswith("\x02bob\x02 proposes \x02bob\x02 and \x02dave\x02")
    assert ("vote", "1", "1", "alice", "reject") in sentences[3].facts
    assert ("role", "carol", "merlin") in sentences[6].facts


def test_a_long_sentence_is_cut_between_spans() -> None:
    nicks = [f"player{i:02}longnick" for i in range(20)]
    sentence = Say("g1").add("Alive: ").names(nicks).add(".").done()
    lines = sentence.irc_lines(120)
    assert len(lines) > 2 and all(len(line.encode()) <= 120 for line in lines)
    assert "".join(line.removeprefix("  ") for line in lines).replace("\x02", "").replace(
        " ", ""
    ) == sentence.plain().replace(" ", "")


def test_werewolf_votes_fold_into_one_sentence_and_talk_is_relayed() -> None:
    narrator = Narrator("#arena", "arena")
    lines = [
        "START g2 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=seer:1,villager:4,werewolf:1",
        "RULES g2 options=revealRolesOnDeath:false",
        "NIGHT g2 night=1",
        "DAWN g2 day=1 dead=ann",
        "DAY g2 day=1 alive=ben,cat,dan,eve,fay leader=none",
        "BALLOT g2 player=ben vote=cat round=1",
        "BALLOT g2 player=cat vote=ben round=1",
        "BALLOT g2 player=dan vote=cat round=1",
        "BALLOT g2 player=eve vote=abstain round=1",
        "VOTE_RESULT g2 round=1 counts=cat:2,ben:1 abstentions=1 outcome=execution target=cat candidates=",
        "EXECUTION g2 day=1 player=cat spared=false",
    ]
    said = [s for line in lines for s in narrator.hear("arena", "#arena-g2", line)]
    text = [s.plain() for s in said]
    assert text[1] == "Roles stay hidden until the end."
    assert text[3] == "Dawn of day 1: found dead: ann."
    assert text[5] == (
        "Day 1 vote: cat 2 votes (ben and dan); ben 1 vote (cat); abstained: eve. cat is to be executed."
    )
    assert text[6] == "Executed: cat."
    assert not any(f[0] == "role" for s in said for f in s.facts)  # hidden roles stay hidden
    talk = narrator.hear("ben", "#arena-g2", "I think \x02cat\x02 was a wolf")
    assert [s.plain() for s in talk] == ["<ben> I think cat was a wolf"] and talk[0].talk
    assert narrator.hear("stranger", "#arena-g2", "spoiler: ben is the seer") == []
    assert narrator.hear("ben", "#arena", "chat in the lobby") == []


def test_the_lobby_announces_tables_and_resumed_games() -> None:
    narrator = Narrator("#arena", "arena")
    table = narrator.hear("arena", "#arena", "TABLE g7 game=avalon channel=#arena-g7 seats=a,b,c,d,e")
    assert table[0].plain() == "New avalon game g7 in #arena-g7: a, b, c, d and e."
    assert ("table", "g7", "avalon", "#arena-g7") in table[0].facts
    assert narrator.hear("arena", "#arena-g7", "VOTES g7 approve=a,b,c reject=d,e result=approved rejections=0")
    resumed = narrator.hear("arena", "#arena", "RESUME g7 game=avalon channel=#arena-g7-r1 seats=a,b,c,d,e wait=60")
    assert "goes on in #arena-g7-r1" in resumed[0].plain() and narrator.left == ["#arena-g7"]
    assert (
        narrator.hear("arena", "#arena-g7-r1", "RESUME g7 game=avalon channel=#arena-g7-r1 seats=a,b,c,d,e wait=60")
        == []
    )  # the same news, in the new channel
    assert (
        narrator.hear("arena", "#arena-g7", "QUEST g7 quest=1 team=a,b result=success fails=0 successes=1 failures=0")
        == []
    )  # the old channel is not the game's any more
    assert narrator.hear("arena", "#arena", "free text answering !status") == []
    only = Narrator("#arena", "arena", only="g8")
    assert only.hear("arena", "#arena", "TABLE g7 game=avalon channel=#arena-g7 seats=a,b,c,d,e") == []


def test_continued_lines_are_joined_and_only_the_named_referee_counts() -> None:
    narrator = Narrator("#arena", "arena")
    start = Message.make(
        "START",
        "g3",
        game="werewolf",
        seats=[f"n{i:02}abcdefghijklm" for i in range(20)],
        roles="villager:16,werewolf:4",
    )
    lines = start.lines(200)
    assert len(lines) > 1
    said = [s for line in lines for s in narrator.hear("arena", "#arena-g3", line)]
    assert len(said) == 1 and "20 players" in said[0].plain()
    assert narrator.hear("impostor", "#arena-g3", "NIGHT g3 night=1") == []  # talk from a non-player
    narrator.topic("#arena", referee_topic("arena_", "arena", "waiting 0; no game running"))
    assert [s.plain() for s in narrator.hear("arena_", "#arena-g3", "NIGHT g3 night=1")] == ["Night 1 falls."]


def test_a_topic_with_a_status_still_names_the_referee() -> None:
    topic = referee_topic("arena", status="waiting 2: a, b; running: g7 avalon")
    assert topic == "arena referee: arena | waiting 2: a, b; running: g7 avalon"
    assert topic_referees(topic) == ["arena"]
    assert topic_referees(referee_topic("arena_", "arena", "no game running")) == ["arena_"]
    shared = referee_topic("arena", None, "no game running", ["arena", "arena2"])
    assert shared == "arena referees: arena, arena2 | no game running"
    assert topic_referees(shared) == ["arena", "arena2"] and topic_referees("arena referees: ") is None


def test_retelling_a_stored_game_gives_its_length() -> None:
    said = retell(
        [(None, line) for line in AVALON[:2]] + [("alice", "hello")] + [(None, AVALON[-1])],
        started=100.0,
        finished=283.0,
    )
    assert [s.plain() for s in said][2] == "<alice> hello"
    assert "after 0 quests (3 min 3 s)" in said[3].plain()


def test_replay_pretty(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "from arena.bots.werewolf_rules_bot import WerewolfRuleBot\n\n"
        "class Chatty(WerewolfRuleBot):\n"
        "    def speech(self, game, ask):\n"
        "        return f'{game.me} speaks on day {game.state.day}'\n\n"
        "    def team_talk(self, game, ask):\n"
        "        return f'{game.me} whispers at night {game.state.day}' if ask.kind == 'wolf_vote' else []\n"
    )
    cfg = tmp_path / "config.yaml"
    # Every bot talks at every turn: a random deal cannot leave the game without talk.
    bots = ", ".join(f"w{i}={chatty}:Chatty" for i in range(1, 9))
    cfg.write_text(f"store:\n  path: results.db\ntournament:\n  games: 2\n  game: werewolf\n  bots: [{bots}]\n")
    runner = CliRunner()
    assert runner.invoke(main, ["--config", str(cfg), "tournament"]).exit_code == 0
    out = runner.invoke(main, ["--config", str(cfg), "replay", "t1-1", "--pretty"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("Werewolf, 8 players: ") and "\x1b" not in out.output
    assert any(line.startswith("Game over after ") and "(" in line for line in lines)
    assert lines[-1].startswith("Elo ratings now: ")
    talk = [
        line
        for line in runner.invoke(main, ["--config", str(cfg), "replay", "t1-1"]).output.splitlines()
        if line.startswith("#     <")
    ]
    assert talk and [line for line in lines if line.startswith("<") and " → " not in line] == [
        line[6:] for line in talk
    ]
    # The wolves' talk, told once the game is over: each line once, with who heard it.
    whispers = [line for line in lines if " whispers at night " in line]
    assert whispers and all(re.fullmatch(r"<(\S+) → \S+(, \S+)*> \1 whispers at night \d+", w) for w in whispers)
    assert len(set(whispers)) == len(whispers)
    assert lines.index(whispers[0]) < next(i for i, line in enumerate(lines) if line.startswith("Game over"))
    both = runner.invoke(main, ["--config", str(cfg), "replay", "t1-1", "--pretty", "--all"])
    assert both.exit_code != 0


def test_last_words_are_announced_only_when_said() -> None:
    narrator = Narrator("#arena", "arena")
    narrator.hear("arena", "#w", "START g4 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=villager:5,werewolf:1")
    for line in (
        "ASK g4 5 last_words to=ann deadline=30 options=done,pass floor=true day=1",
        "SPEECH g4 player=ann purpose=last_words passed=true",
        "ASK g4 6 last_words to=ben deadline=30 options=done,pass floor=true day=1",
    ):
        assert narrator.hear("arena", "#w", line) == []
    said = narrator.hear("ben", "#w", "it was cat") + narrator.hear("ben", "#w", "surely")
    assert [s.plain() for s in said] == ["Last words of ben:", "<ben> it was cat", "<ben> surely"]
    end = narrator.hear(
        "arena",
        "#w",
        "END g4 winner=werewolf reason=parity_or_majority roles=ann:villager,"
        "ben:villager,cat:werewolf,dan:villager,eve:villager,fay:villager",
    )
    assert "the werewolves win" in end[0].plain() and end[0].plain().endswith("Winners: cat.")


TUVALON = [
    "START g1 game=tuvalon seats=alice,bob,carol,dave,erin,frank,grace options=speech_budget:4000 good=4 evil=3 "
    "quests=2,3,3,4,4 fails=1,1,2,2,1 map=9x9",
    "MAP g1 cells=alice:d5,bob:f4,carol:f9,dave:a4,erin:e1,frank:c9,grace:c3",
    "ASK g1 1 team to=alice deadline=30 options=alice,bob,carol,dave,erin,frank,grace pick=2 quest=1 attempt=1 "
    "rejections=0 forced=false",
    "TEAM_PROPOSED g1 quest=1 leader=alice team=alice,erin forced=false",
    "SPEECH g1 player=bob purpose=public passed=true",
    "MOVE g1 player=frank from=c9 to=d7",
    "MOVE g1 player=grace from=c3 to=c3",
    "SPEECH g1 player=alice purpose=near passed=false heard_by=bob,grace",
    "SPEECH g1 player=frank purpose=near passed=false heard_by=",
    "ASK g1 23 vote to=all deadline=30 options=approve,reject quest=1 leader=alice team=alice,erin rejections=0",
    "VOTES g1 approve=dave,erin,frank reject=alice,bob,carol,grace result=rejected rejections=1",
    "FORCED g1 quest=1 leader=dave team=dave,grace",
    "END g1 winner=evil reason=three_fails roles=alice:knight,bob:knight,carol:percival,dave:morgana,erin:assassin,"
    "frank:merlin,grace:oberon",
]


def test_a_tuvalon_game_tells_the_map_the_moves_and_who_heard_whom() -> None:
    said = told(TUVALON)
    assert said[1] == "They stand at alice d5, bob f4, carol f9, dave a4, erin e1, frank c9, grace c3."
    assert said[3:9] == [
        "alice proposes alice and erin; everyone speaks, moves and speaks again before the vote.",
        "bob passes.",
        "frank moves c9 → d7.",
        "grace stays at c3.",
        "alice takes a second turn within earshot of bob and grace.",
        "frank takes a second turn out of everyone's hearing.",
    ]
    assert "Rejections in a row: 1 of 3." in said[10]
    assert said[11] == "Quest 1 goes without a vote: dave and grace."
    assert "Winners: dave, erin and grace." in said[12]
    assert "alice (knight)" in said[13]


def test_replay_pretty_tells_tuvalons_second_discussion(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "from arena.bots.tuvalon_rules_bot import TuvalonRuleBot\n\n"
        "class Chatty(TuvalonRuleBot):\n"
        "    def team_talk(self, game, ask):\n"
        "        return f'{game.me} whispers' if ask.kind == 'speak_near' else []\n"
    )
    cfg = tmp_path / "config.yaml"
    bots = ", ".join(f"t{i}={chatty}:Chatty" for i in range(1, 8))
    cfg.write_text(f"store:\n  path: results.db\ntournament:\n  games: 1\n  game: tuvalon\n  bots: [{bots}]\n")
    runner = CliRunner()
    assert runner.invoke(main, ["--config", str(cfg), "tournament"]).exit_code == 0
    lines = runner.invoke(main, ["--config", str(cfg), "replay", "t1-1", "--pretty"]).output.splitlines()
    # Each line of words comes just before the sentence that says who heard it, and names the same players.
    whispers = 0
    for i, line in enumerate(lines):
        heard = re.fullmatch(r"<(\S+) → (.+)> \1 whispers", line)
        if heard:
            whispers += 1
            told = re.fullmatch(rf"{heard[1]} takes a second turn within earshot of (.+)\.", lines[i + 1])
            assert told and set(re.split(r", | and ", told[1])) == set(heard[2].split(", "))
    assert whispers


def test_a_narrator_that_comes_in_at_the_vote_tells_the_quest_and_round() -> None:
    """A narrator that joined the channel after the team's request (its join raced the game's
    first lines) learns the quest and the round from the vote's own request."""
    narrator = Narrator("#arena", "arena")
    narrator.hear("arena", "#arena", "TABLE g1 game=avalon channel=#arena-g1 seats=alice,bob,carol,dave,erin")
    said = [s for line in AVALON[2:4] for s in narrator.hear("arena", "#arena-g1", line)]
    assert said[0].plain() == "bob proposes bob and dave; everyone votes."
    assert ("team", "1", "1", "bob", "bob", "dave") in said[0].facts
    assert ("votes", "1", "1", "approved") in said[1].facts


def test_werewolf_roles_read_as_words_a_lone_candidate_and_the_leaders_last_word() -> None:
    narrator = Narrator("#arena", "arena")
    lines = [
        "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=bus_driver:1,idiot:1,villager:3,werewolf:1",
        "RULES g3 options=revealRolesOnDeath:true",
        "NIGHT g3 night=1",
        "DAWN g3 day=1 dead=ann roles=ann:bus_driver",
        "DAY g3 day=1 alive=ben,cat,dan,eve,fay leader=none",
        "ASK g3 5 candidacy to=ben deadline=30 options=stand,decline floor=true day=1",
        "CANDIDACY g3 player=ben stand=true",
        "ASK g3 6 candidacy to=cat deadline=30 options=stand,decline floor=true day=1",
        "CANDIDACY g3 player=cat stand=false",
        "LEADER g3 leader=ben candidates=ben counts= abstentions=0 tie=false",
        "ORDER g3 start=cat direction=counterclockwise speakers=cat,dan,eve,fay,ben,ben leader=ben",
        "BALLOT g3 player=ben vote=cat round=1",
        "BALLOT g3 player=dan vote=cat round=1",
        "VOTE_RESULT g3 round=1 counts=cat:2 abstentions=3 outcome=execution target=cat candidates=",
        "IDIOT g3 player=cat role=idiot",
        "EXECUTION g3 day=1 player=cat spared=true",
        "DAY g3 day=2 alive=ben,cat,dan,eve,fay leader=ben",
    ]
    text = [s.plain() for line in lines for s in narrator.hear("arena", "#arena-g3", line)]
    assert text[0].endswith("Dealt: 1 bus driver, 1 idiot, 3 villager, 1 werewolf.")
    assert text[3] == "Dawn of day 1: found dead: ann (bus driver)."
    assert text.count("Who stands for leader? Each player in turn may speak, then stands or declines.") == 1
    assert "ben is elected leader unopposed." in text
    assert "Speaking order: cat, dan, eve, fay and ben, then ben again, as leader." in text
    assert text.count("cat is the idiot: spared, but votes no more.") == 1
    assert not any(t == "cat is spared." for t in text)  # the idiot's sentence said it
    assert text[-1] == "Day 2, 5 alive: ben, cat, dan, eve and fay; leader ben; dead: ann (bus driver)."


def test_a_vote_that_executes_nobody_says_why() -> None:
    narrator = Narrator("#arena", "arena")
    lines = [
        "START g4 game=werewolf seats=ann,ben,cat,dan,eve roles=villager:4,werewolf:1",
        "RULES g4 options=revealRolesOnDeath:true,dayVoteMajority:true",
        "DAY g4 day=1 alive=ann,ben,cat,dan,eve leader=none",
        "BALLOT g4 player=ann vote=ben round=1",
        "BALLOT g4 player=ben vote=abstain round=1",
        "BALLOT g4 player=cat vote=abstain round=1",
        "VOTE_RESULT g4 round=1 counts=ben:1 abstentions=2 outcome=none target=none candidates=",
        "BALLOT g4 player=ann vote=ben round=2",
        "BALLOT g4 player=dan vote=cat round=2",
        "VOTE_RESULT g4 round=2 counts=ben:1,cat:1 abstentions=0 outcome=none target=none candidates=",
    ]
    text = [s.plain() for line in lines for s in narrator.hear("arena", "#arena-g4", line)]
    assert text[-2] == (
        "Day 1 vote: ben 1 vote (ann); abstained: ben and cat. "
        "No majority (at most 1 vote, 2 abstaining): nobody is executed."
    )
    assert text[-1] == "Day 1 runoff: ben 1 vote (ann); cat 1 vote (dan). Still a tie: nobody is executed."


def test_an_oracles_sight_is_told_after_the_dawn_that_names_it_dead() -> None:
    narrator = Narrator("#arena", "arena")
    lines = [
        "START g5 game=werewolf seats=ann,ben,cat,dan,eve roles=oracle:1,villager:3,werewolf:1",
        "RULES g5 options=revealRolesOnDeath:true",
        "NIGHT g5 night=1",
        "ORACLE g5 target=eve role=werewolf",
        "DAWN g5 day=1 dead=ann roles=ann:oracle",
        "DAY g5 day=1 alive=ben,cat,dan,eve leader=none",
    ]
    text = [s.plain() for line in lines for s in narrator.hear("arena", "#arena-g5", line)]
    assert text[-3:] == [
        "Dawn of day 1: found dead: ann (oracle).",
        "An oracle died: eve is the werewolf.",
        "Day 1, 4 alive: ben, cat, dan and eve; dead: ann (oracle).",
    ]


def test_a_paused_game_is_told_why() -> None:
    said = told(AVALON[:2] + ["PAUSE g1 :the results store cannot be written"])
    assert (
        said[-1] == "The game is paused: the results store cannot be written. It goes on where it stopped once it can."
    )
