"""Linked ngircd servers on loopback: clients on different servers see each other, one nick
is one nick network-wide, and a network split is seen by both halves and heals."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator

import pytest

from arena.irc.network import LinkedNetwork, NetworkError
from arena.irc.servers import RUNNING

from .conftest import WAIT, RawClient, require_ngircd

MakeClient = Callable[[str, str], RawClient]
"""``(server label, nick)`` -> a registered client of that server."""


@pytest.fixture
def network() -> Iterator[LinkedNetwork]:
    require_ngircd()
    with LinkedNetwork(("a", "b")) as net:
        yield net


@contextlib.contextmanager
def client_maker(network: LinkedNetwork) -> Iterator[MakeClient]:
    made: list[RawClient] = []

    def make(label: str, nick: str) -> RawClient:
        made.append(RawClient(network.servers[label], nick))
        return made[-1]

    yield make
    for client in made:
        client.close()


@pytest.fixture
def clients(network: LinkedNetwork) -> Iterator[MakeClient]:
    with client_maker(network) as make:
        yield make


def meet(channel: bytes, first: RawClient, *others: RawClient) -> None:
    """Everyone joins ``channel``; returns once ``first`` saw each of the others arrive."""
    first.send(b"JOIN " + channel + b"\r\n")
    first.expect(b" 366 ")
    for other in others:
        other.send(b"JOIN " + channel + b"\r\n")
        other.expect(b" 366 ")
        assert first.expect(b" JOIN ").startswith(b":" + other.nick.encode() + b"!")


def says(sender: RawClient, target: str, text: str, receiver: RawClient) -> None:
    """``sender`` sends ``text`` to ``target``; ``receiver`` gets it from ``sender``."""
    sender.send(f"PRIVMSG {target} :{text}\r\n".encode())
    line = receiver.expect(f"PRIVMSG {target} :{text}".encode())
    assert line.startswith(f":{sender.nick}!".encode()), line


def quit_line(client: RawClient) -> tuple[bytes, bytes]:
    """(who quit, the reason) of the next QUIT ``client`` sees."""
    prefix, _, reason = client.expect(b" QUIT ").partition(b" QUIT :")
    return prefix[1:].split(b"!")[0], reason


def test_clients_on_two_servers_talk_in_a_channel_and_in_private(network: LinkedNetwork, clients: MakeClient) -> None:
    alice, bob = clients("a", "alice"), clients("b", "bob")
    network.sync()
    alice.send(b"WHOIS bob\r\n")
    assert alice.expect(b" 312 ").split()[4] == b"b.arena.test"  # RPL_WHOISSERVER: bob is over the link
    meet(b"#table", alice, bob)
    says(alice, "#table", "hello from a", bob)
    says(bob, "#table", "hello from b", alice)
    says(alice, "bob", "psst", bob)
    says(bob, "alice", "psst back", alice)


def test_a_nick_taken_on_one_server_is_refused_on_the_other(network: LinkedNetwork, clients: MakeClient) -> None:
    alice, bob = clients("a", "alice"), clients("b", "bob")
    network.sync()  # until b knows alice, it would let bob take the nick, then kill him on hearing of her
    bob.send(b"NICK ALICE\r\n")
    assert bob.expect(b" 433 ").split()[3] == b"ALICE"  # ERR_NICKNAMEINUSE
    says(bob, "alice", "still bob", alice)
    with socket.create_connection(network.address("b"), timeout=WAIT) as sock:
        sock.sendall(b"NICK alice\r\nUSER alice 0 * :alice\r\n")
        reply = b""
        while b" 433 " not in reply:
            data = sock.recv(4096)
            assert data, f"closed without refusing the nick: {reply!r}"
            reply += data
        assert b" 001 " not in reply


def test_a_split_is_seen_on_both_sides_and_heals(network: LinkedNetwork, clients: MakeClient) -> None:
    alice, bob = clients("a", "alice"), clients("b", "bob")
    meet(b"#table", alice, bob)
    network.unlink("b")
    assert network.unlinked == {"b"}
    # Both halves keep running and keep their clients: each sees the other's users quit.
    # The reason of a netsplit's QUIT names the server that is left, then the one that went.
    assert quit_line(alice) == (b"bob", b"a.arena.test b.arena.test")
    assert quit_line(bob) == (b"alice", b"b.arena.test a.arena.test")
    alice.send(b"PRIVMSG bob :anyone there?\r\n")
    assert alice.expect(b" 401 ").split()[3] == b"bob"  # ERR_NOSUCHNICK
    with pytest.raises(ValueError, match="unlinked already"):
        network.unlink("b")
    network.relink("b")
    assert network.unlinked == set()
    assert alice.expect(b" JOIN ").startswith(b":bob!")
    says(alice, "bob", "welcome back", bob)
    says(bob, "#table", "back in the game", alice)


def test_a_nick_taken_on_both_halves_of_a_split_is_killed_on_both_when_they_heal(
    network: LinkedNetwork, clients: MakeClient
) -> None:
    network.unlink("b")
    on_a, on_b = clients("a", "carol"), clients("b", "carol")
    network.relink("b")
    for carol in (on_a, on_b):
        assert carol.expect(b"ERROR ") == b"ERROR :Nick collision"


def test_three_servers_relay_through_the_hub_and_split_at_it() -> None:
    require_ngircd()
    with LinkedNetwork(("a", "b", "c")) as network, client_maker(network) as clients:
        bob, carol = clients("b", "bob"), clients("c", "carol")
        meet(b"#table", bob, carol)
        says(carol, "#table", "two hops", bob)
        says(bob, "carol", "two hops back", carol)
        network.unlink("a")
        assert network.reach("b") == {"b"} and network.reach("c") == {"c"}
        assert quit_line(bob)[0] == b"carol"
        assert quit_line(carol)[0] == b"bob"
        network.relink("a")
        assert bob.expect(b" JOIN ").startswith(b":carol!")
        says(carol, "bob", "healed", bob)


def test_a_server_that_dies_fails_the_wait_rather_than_hang(network: LinkedNetwork) -> None:
    network.servers["b"].stop()
    with pytest.raises(NetworkError, match=r"watch-b \(closed\)"):
        network.wait_linked()


def test_leaving_the_block_on_an_exception_stops_every_server() -> None:
    require_ngircd()
    with pytest.raises(RuntimeError, match="the test failed"), LinkedNetwork() as network:
        pids = [server.pid for server in network.servers.values()]
        raise RuntimeError("the test failed")
    assert network.servers == {} and network not in RUNNING
    for pid in pids:
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
