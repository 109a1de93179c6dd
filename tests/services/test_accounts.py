"""Services accounts and nick ownership over InspIRCd + Atheme on 127.0.0.1: who sent a
line is known by account, and a link logged in by SASL gets its nick back from a squatter."""

from __future__ import annotations

import pytest


from ..irc.conftest import WAIT, MakeLink, RawClient, until
from .servers import AccountError, ServicesServer, register_account, register_accounts


def test_each_message_carries_its_senders_account(services_server: ServicesServer, services_link: MakeLink) -> None:
    seen: list[tuple[str, str, str | None]] = []
    referee, rec = services_link("ref1", channels=["#lobby1"], account_tags=True, wait=False)

    def on_message(sender: str, target: str, text: str) -> None:
        seen.append((sender, text, referee.account_of(sender)))
        rec.on_message(sender, target, text)

    referee.on_message = on_message
    guest, _ = services_link("guest1", channels=["#lobby1"], wait=False)
    register_accounts(services_server.host, services_server.address.port, {"acct1": "pw-acct1"})  # meanwhile
    member, _ = services_link("acct1", channels=["#lobby1"], sasl_account="acct1", sasl_password="pw-acct1")
    assert referee.wait_ready(WAIT) and guest.wait_ready(WAIT)
    assert referee.accounts_enabled
    member.send("ref1", "from the member")
    guest.send("ref1", "from a guest")
    rec.wait(lambda: len(seen) == 2)
    assert sorted(seen) == [("acct1", "from the member", "acct1"), ("guest1", "from a guest", None)]
    # Extended join told the referee before any message.
    assert referee.account_of("acct1") == "acct1" and referee.account_of("ACCT1") == "acct1"

    member.close("bye")
    rec.wait(lambda: ("quit", "acct1", None, None) in rec.membership)
    assert referee.account_of("acct1") is None
    impostor, _ = services_link("acct1")  # the nick is free again; the account is not theirs
    impostor.send("ref1", "it is me, honestly")
    rec.wait(lambda: len(seen) == 3)
    assert seen[-1] == ("acct1", "it is me, honestly", None)


def test_logging_in_later_is_seen_by_account_notify(services_server: ServicesServer, services_link: MakeLink) -> None:
    register_accounts(services_server.host, services_server.address.port, {"acct2": "pw-acct2"})
    referee, rec = services_link("ref2", channels=["#lobby2"], account_tags=True)
    late = RawClient(services_server, "late2")
    try:
        late.send(b"JOIN #lobby2\r\n")
        rec.wait(lambda: ("join", "late2", "#lobby2", None) in rec.membership)
        assert referee.account_of("late2") is None
        late.send(b"PRIVMSG NickServ :IDENTIFY acct2 pw-acct2\r\n")
        late.expect(b" 900 ")
        until(lambda: referee.account_of("late2") == "acct2")  # an ACCOUNT line: no callback
        late.send(b"NICK renamed2\r\n")
        rec.wait(lambda: ("nick", "late2", None, "renamed2") in rec.membership)
        assert referee.account_of("renamed2") == "acct2" and referee.account_of("late2") is None
    finally:
        late.close()


def test_registering_a_taken_account_is_refused(services_server: ServicesServer) -> None:
    register_account(services_server.host, services_server.address.port, "acct3", "pw-acct3")
    with pytest.raises(AccountError, match="acct3"):
        register_account(services_server.host, services_server.address.port, "acct3", "other")


def test_logged_in_link_regains_its_nick_from_a_squatter(
    services_server: ServicesServer, services_link: MakeLink
) -> None:
    register_accounts(services_server.host, services_server.address.port, {"arena4": "pw-arena4"})
    squatter = RawClient(services_server, "arena4")
    try:
        # A long interval: the nick must come back through NickServ, not a periodic retry.
        link, rec = services_link(
            "arena4", sasl_account="arena4", sasl_password="pw-arena4", regain=True, regain_interval=600, wait=False
        )
        rec.wait(lambda: rec.nick_states[-1:] == [(True, "arena4")])
        assert rec.nick_states == [(False, "arena4_"), (True, "arena4")]
        assert link.has_preferred_nick and link.nick == "arena4"
        renamed = squatter.expect(b" NICK ")  # services moved the squatter to a guest nick
        assert renamed.startswith(b":arena4!")
    finally:
        squatter.close()


def test_a_link_without_account_tags_knows_no_accounts(
    services_server: ServicesServer, services_link: MakeLink
) -> None:
    plain, rec = services_link("plain5", wait=False)
    register_accounts(services_server.host, services_server.address.port, {"acct5": "pw-acct5"})  # meanwhile
    assert plain.wait_ready(WAIT)
    assert not plain.accounts_enabled
    member, _ = services_link("acct5", sasl_account="acct5", sasl_password="pw-acct5")
    member.send("plain5", "hi")
    rec.wait(lambda: rec.messages)
    assert plain.account_of("acct5") is None
