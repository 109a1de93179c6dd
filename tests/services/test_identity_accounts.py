"""Attacks on identities proven by services accounts (InspIRCd + Atheme): a bot bound to its
account cannot be played from its nick without the account, and an SDK bot given the
referee's account obeys no one on the referee's nick who is not logged in to it."""

from __future__ import annotations


from arena.bots.avalon_rules_bot import RuleBot
from arena.config import IdentityConfig
from arena.irc.link import ReactorThread
from arena.protocol import WHO, parse
from arena.sdk.runner import BotRunner

from ..irc.conftest import RawClient, until
from ..irc.test_games import FAST, Arena
from ..irc.test_identity import reply
from .servers import ServicesServer, register_accounts

PASSWORDS = {"idref": "pw-idref", "idbot": "pw-idbot", "idother": "pw-idother"}


def recording(runner: BotRunner) -> list[tuple[str, str]]:
    """Every (target, line) the runner sends from now on, to check what went out in what order."""
    sent: list[tuple[str, str]] = []
    send = runner.link.send

    def record(target: str, text: str, *, formatting: bool = False) -> bool:
        sent.append((target, text))
        return send(target, text, formatting=formatting)

    runner.link.send = record  # type: ignore[method-assign]
    return sent


def test_a_bot_bound_to_its_account_is_played_from_that_account_only(services_server: ServicesServer) -> None:
    register_accounts(services_server.host, services_server.address.port, PASSWORDS)
    arena = Arena(
        services_server,
        5,
        FAST,
        identity=IdentityConfig(require_key=True, accounts=True),
        server_options={"nick": "idref", "sasl_account": "idref", "sasl_password": PASSWORDS["idref"]},
    )
    bot = arena.add_bot(
        "idbot",
        RuleBot(seed=1),
        referee="idref",
        referee_account="idref",
        sasl_account="idbot",
        sasl_password=PASSWORDS["idbot"],
    )
    sent = recording(bot)
    with arena:
        until(lambda: bot.session.registered)
        to_referee = [parse(text) for target, text in sent if target == "idref"]
        assert to_referee[0].verb == WHO, "the bot spoke to the referee before it answered from its account"
        assert [m.verb for m in to_referee[1:]] == ["REGISTER"] and "key" not in to_referee[1].fields
        info = arena.service.referee.bot_named("idbot")
        assert info is not None and info.account == "idbot"
        record = arena.service.referee.identities.book.get("idbot")
        assert record is not None and record.account == "idbot", "the name was not bound to the account"

        bot.link.close()
        until(lambda: arena.service.referee.bot_named("idbot") is None)
        guest = RawClient(services_server, "idbot")  # the nick, not logged in
        other = RawClient(services_server, "idother")
        arena.raw += [guest, other]
        other.send(f"PRIVMSG NickServ :IDENTIFY idother {PASSWORDS['idother']}\r\n".encode())
        other.expect(b" 900 ")
        for client in (guest, other):
            assert reply(client, "REGISTER 1 name=idbot", "idref") == "ERROR AUTH_FAILED", client.nick
            assert reply(client, "ANSWER g1 1 approve", "idref") == "ERROR NOT_REGISTERED", client.nick
        assert arena.service.referee.bot_named("idbot") is None


def test_a_bot_obeys_no_one_on_the_referees_nick_without_the_referees_account(
    services_server: ServicesServer, reactor_thread: ReactorThread
) -> None:
    """Two bots take ``fakeref`` for their referee; only the control bot was not told the
    referee's account (and has no key, whose proof the impostor could not answer), and it
    answers the impostor's request: the other must not, nor even register."""
    impostor = RawClient(services_server, "fakeref")
    runners = {
        nick: BotRunner(
            RuleBot(seed=i),
            services_server.host,
            services_server.address.port,
            nick,
            referee="fakeref",
            channel="#fakelobby",
            lines_per_second=0,
            reactor=reactor_thread.reactor,
            key=key,
            referee_account=account,
        )
        for i, (nick, account, key) in enumerate((("guarded", "idref", "K" * 32), ("control", None, None)))
    }
    try:
        for runner in runners.values():
            runner.start()
        until(lambda: all(r.link.is_ready for r in runners.values()))
        impostor.expect(b":guarded!")  # its WHO, which carries no secret
        for nick in runners:
            impostor.send(
                f"PRIVMSG {nick} :REGISTERED bots=guarded,control games=g9:avalon\r\n"
                f"PRIVMSG {nick} :WELCOME {nick} protocol=1 name={nick}\r\n"
                f"PRIVMSG {nick} :START g9 game=avalon seats=guarded,control,a,b,c\r\n"
                f"PRIVMSG {nick} :ASK g9 1 vote to=all deadline=30 options=approve,reject\r\n".encode()
            )
        impostor.expect(b"!control@127.0.0.1 PRIVMSG fakeref :ANSWER g9 1 ")  # the control obeyed
        impostor.send(b"PING :sync\r\n")
        impostor.expect(b"PONG")
    finally:
        for runner in runners.values():
            runner.link.close()
    from_guarded = [line for line in impostor.read if line.startswith(b":guarded!") and b" PRIVMSG " in line]
    assert [line.split(b" :", 1)[1] for line in from_guarded] == [b"WHO"], from_guarded
    assert not runners["guarded"].session.registered and not runners["guarded"].session.games
    assert any(b" :REGISTER " in line for line in impostor.read if line.startswith(b":control!")), (
        "the control bot, told no account, trusted the impostor"
    )
