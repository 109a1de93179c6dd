"""The narrator of a lobby several referees share: each game told from the lines of the
referee that runs it, two referees' games interleaved, a game taken over by another
referee, and nobody's line passing for a referee's once the topic no longer names it."""

from __future__ import annotations

from arena.config import ServerConfig
from arena.narrate.narrator import Narrator
from arena.narrate.sentence import Sentence
from arena.protocol import Message, referee_topic
from arena.spectate.spectator import Spectator

SEATS = "a,b,c,d,e"
SEATS2 = "f,g,h,i,j"


def shared(*nicks: str) -> str:
    return referee_topic(nicks[0], None, "no game running", list(nicks))


def plain(said: list[Sentence]) -> list[str]:
    return [s.plain() for s in said]


def two_games() -> Narrator:
    """A narrator that heard ``arena`` announce g1 and ``arena2`` announce g2."""
    narrator = Narrator("#arena", "arena")
    narrator.topic("#arena", shared("arena", "arena2"))
    assert plain(
        narrator.hear("arena", "#arena", f"TABLE g1 game=avalon channel=#arena-g1 seats={SEATS} referee=arena")
    )
    assert plain(
        narrator.hear("arena2", "#arena", f"TABLE g2 game=avalon channel=#arena-g2 seats={SEATS2} referee=arena2")
    )
    return narrator


def test_the_games_of_two_referees_are_told_each_from_its_own_referee() -> None:
    narrator = two_games()
    lines = [
        ("arena", "#arena-g1", "VOTES g1 approve=a,b,c reject=d,e result=approved rejections=0"),
        ("arena2", "#arena-g2", "VOTES g2 approve=f,g reject=h,i,j result=rejected rejections=1"),
        ("b", "#arena-g1", "I trust a"),
        ("g", "#arena-g2", "I trust f"),
        ("arena", "#arena-g1", "QUEST g1 quest=1 team=a,b result=success fails=0 successes=1 failures=0"),
        ("arena2", "#arena-g2", "QUEST g2 quest=1 team=f,g result=fail fails=1 successes=0 failures=1"),
    ]
    said = [plain(narrator.hear(*line)) for line in lines]
    assert [s[0].split(":")[0] for s in said] == [
        "Approved 3-2",
        "Rejected 2-3",
        "<b> I trust a",
        "<g> I trust f",
        "Quest 1 succeeds (no fail card). Score",
        "Quest 1 fails (1 fail card). Score",
    ]
    # A referee's line of a game it does not run counts for nothing, and is no player's talk.
    assert narrator.hear("arena2", "#arena-g1", "QUEST g1 quest=2 team=a,b,c result=fail fails=1") == []
    assert narrator.hear("arena", "#arena-g2", "I trust f") == []
    # A table must come from the referee it names.
    assert (
        narrator.hear("arena2", "#arena", f"TABLE g3 game=avalon channel=#arena-g3 seats={SEATS} referee=arena") == []
    )


def test_continued_lines_of_two_referees_interleaved_are_joined_per_referee() -> None:
    narrator = Narrator("#arena", "arena")
    narrator.topic("#arena", shared("arena", "arena2"))
    seats = [f"n{i:02}abcdefghijklm" for i in range(20)]
    tables = [
        Message.make("TABLE", gid, game="werewolf", channel=f"#arena-{gid}", seats=seats, referee=nick).lines(200)
        for gid, nick in (("g1", "arena"), ("g2", "arena2"))
    ]
    assert len(tables[0]) == len(tables[1]) > 1
    said = []
    for first, second in zip(*tables):
        said += narrator.hear("arena", "#arena", first) + narrator.hear("arena2", "#arena", second)
    assert [s.gid for s in said] == ["g1", "g2"] and all("n19abcdefghijklm" in s.plain() for s in said)


def test_a_game_taken_over_is_told_from_its_new_referee_alone() -> None:
    narrator = two_games()
    resumed = narrator.hear(
        "arena2", "#arena", f"RESUME g1 game=avalon channel=#arena-g1-r1 seats={SEATS} referee=arena2"
    )
    assert "goes on in #arena-g1-r1" in plain(resumed)[0] and narrator.left == ["#arena-g1"]
    vote = "VOTES g1 approve=a,b,c reject=d,e result=approved rejections=0"
    assert narrator.hear("arena", "#arena-g1-r1", vote) == []  # the old referee speaks for it no more
    assert plain(narrator.hear("arena2", "#arena-g1-r1", vote))[0].startswith("Approved 3-2")
    # The topic names the old referee no more: its nick is anybody's, its lines are no referee's.
    narrator.topic("#arena", shared("arena2"))
    assert narrator.hear("arena", "#arena", f"TABLE g4 game=avalon channel=#arena-g4 seats={SEATS}") == []
    assert narrator.hear("arena", "#arena-g2", "VOTES g2 approve=f,g,h reject=i,j result=approved") == []
    assert "g4" not in narrator.games
    # A topic that names no referee (set by someone else) leaves them as they were.
    narrator.topic("#arena", "welcome to the arena")
    assert plain(narrator.hear("arena2", "#arena-g2", "VOTES g2 approve=f,g,h reject=i,j result=approved rejections=0"))


def test_a_spectator_follows_each_games_referee_out_of_its_channel() -> None:
    told: list[Sentence] = []
    gone: list[str] = []
    spectator = Spectator(ServerConfig(nick="arena"), "watcher", told.append, on_gone=gone.append)
    spectator.narrator.topic("#arena", shared("arena", "arena2"))
    spectator._on_message("arena", "#arena", f"TABLE g1 game=avalon channel=#arena-g1 seats={SEATS} referee=arena")
    spectator._on_message("arena2", "#arena", f"TABLE g2 game=avalon channel=#arena-g2 seats={SEATS2} referee=arena2")
    assert [s.gid for s in told] == ["g1", "g2"]
    spectator._on_membership("part", "arena", "#arena-g2", None)  # not g2's referee
    assert gone == [] and not spectator.settled()
    spectator._on_membership("part", "arena2", "#arena-g2", None)
    assert gone == ["g2"] and set(spectator.narrator.games) == {"g1"}
    spectator._on_membership("quit", "arena2", None, None)
    assert not spectator.settled()  # g1's referee may still be telling it
    spectator._on_membership("quit", "arena", None, None)
    assert spectator.settled()
