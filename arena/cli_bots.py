"""``arena bots``: the identities that may play here, and their keys."""

from __future__ import annotations

import time
from typing import Any

import click

from .cli_results import open_store
from .protocol import SCRAM_ITERATIONS
from .referee.identity import ITERATIONS, make_verifier, new_key
from .store.records import UNKNOWN_OWNER
from .store.report import bots_lines


_ITERATIONS = click.option(
    "--iterations",
    type=click.IntRange(*SCRAM_ITERATIONS),
    default=ITERATIONS,
    show_default=True,
    help="PBKDF2 iterations the bot computes at each registration (SCRAM-SHA-256).",
)


def register(main: click.Group) -> None:
    @main.group()
    def bots() -> None:
        """The bots that may play, each proven by a key or a services account."""

    @bots.command("add")
    @click.argument("name")
    @click.option(
        "--owner",
        default=UNKNOWN_OWNER,
        show_default=True,
        help="Who runs the bot; what the bot says of its owner when it registers does not change it "
        "(it fills in only an unknown owner).",
    )
    @click.option("--account", default=None, help="Bind the bot to this services account (networks with services).")
    @click.option("--no-key", is_flag=True, help="With --account: no key, the account alone proves the bot.")
    @_ITERATIONS
    @click.pass_obj
    def add(obj: Any, name: str, owner: str, account: str | None, no_key: bool, iterations: int) -> None:
        """Add bot NAME and print its key, once: the store keeps only SCRAM's verifier of
        it. The bot never sends it: it proves it by SCRAM-SHA-256 when it registers."""
        from .protocol import valid_nick

        if not valid_nick(name):
            raise click.UsageError(
                "a bot's name is 1-16 letters, digits or -[]\\^_`{|}, not starting with a digit or -"
            )
        if no_key and account is None:
            raise click.UsageError("--no-key needs --account: something must prove the bot")
        key = None if no_key else new_key()
        with open_store(obj.config, check=False) as store:
            try:
                store.bots.add(
                    name, owner, None if key is None else make_verifier(key, iterations), account, time.time()
                )
            except KeyError:
                raise click.ClickException(
                    f"a bot named {name} exists already; `arena bots rekey {name}` gives it a new key"
                ) from None
        if key is not None:
            click.echo(f"key for {name} (shown once; give it to the bot, e.g. --key or ARENA_KEY):")
            click.echo(key)
        else:
            click.echo(f"{name} plays from services account {account} only")

    @bots.command("rekey")
    @click.argument("name")
    @_ITERATIONS
    @click.pass_obj
    def rekey(obj: Any, name: str, iterations: int) -> None:
        """Give bot NAME a new key (printed once); the old key stops working. A key from
        before SCRAM (a scrypt hash) cannot be converted: such a bot needs this."""
        key = new_key()
        with open_store(obj.config, check=False, create=False) as store:
            try:
                store.bots.set_key(name, make_verifier(key, iterations))
            except KeyError:
                raise click.ClickException(f"no bot named {name} (see `arena bots list`)") from None
        click.echo(f"new key for {name} (shown once):")
        click.echo(key)

    @bots.command("list")
    @click.pass_obj
    def list_bots(obj: Any) -> None:
        """Every bot known here: owner, version, how it proves itself, when it last registered."""
        with open_store(obj.config, check=False, create=False) as store:
            found = store.bots.all()
        if not found:
            click.echo("no bots yet (`arena bots add NAME`)")
            return
        for line in bots_lines(found):
            click.echo(line)
