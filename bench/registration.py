"""What a registration by key costs: the referee's CPU per right and per wrong proof, the
bot's per registration, and the scrypt check they replaced.

Usage: python bench/registration.py [--tries N] [--iterations I]
The referee's side is the whole of it as the referee runs it: both lines parsed and
handled (``REGISTER`` with SCRAM's client-first-message, then ``PROOF``), the exchange
checked by scramp and the answer (``CHALLENGE``, then ``WELCOME`` with the signature or
``ERROR``) formatted. The bot's side is the SDK's client (PBKDF2 at the bot's iteration
count, then HMACs). CPU time (``time.process_time``), best of three rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import time
from collections.abc import Callable

from arena.config import TimeoutConfig
from arena.protocol import pack_scram, parse, unpack_scram
from arena.referee.identity import ITERATIONS, Identities, MemoryBook, new_key
from arena.referee.referee import Referee
from arena.sdk.scram import ScramClient


def best(fn: Callable[[int], object], tries: int, rounds: int = 3) -> float:
    """Best CPU seconds per call of ``fn`` over ``rounds`` rounds of ``tries`` calls."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for i in range(tries):
            fn(i)
        times.append((time.process_time() - start) / tries)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=300, help="registrations per round")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help="the key's PBKDF2 iteration count")
    args = parser.parse_args()
    key = new_key()
    book = MemoryBook()
    book.add("bot", key, iterations=args.iterations)
    clock = [0.0]
    sent: list[tuple[str, str]] = []
    referee = Referee(
        "arena",
        TimeoutConfig(),
        lambda target, text: sent.append((target, text)),
        identities=Identities(book, require_key=True, clock=lambda: clock[0]),
    )
    right = [ScramClient(f"n{i}", key) for i in range(args.tries)]
    wrong = [ScramClient(f"w{i}", "x" * 32) for i in range(args.tries)]

    def register(clients: list[ScramClient]) -> float:
        """The referee's CPU seconds per registration of ``clients``, best of three rounds;
        the bot's share (``client.final``) runs between the timed calls."""
        rounds = []
        for _ in range(3):
            spent = 0.0
            for client in clients:
                clock[0] += 3600  # past any wait a wrong proof costs (this times the check, not the refusal)
                sent.clear()
                start = time.process_time()
                referee.on_message(
                    client.user, "arena", f"REGISTER 1 name=bot scram={pack_scram(client.first())}", clock[0]
                )
                spent += time.process_time() - start
                proof = client.final(unpack_scram(parse(sent[-1][1]).get("scram", "")))
                start = time.process_time()
                referee.on_message(client.user, "arena", f"PROOF scram={pack_scram(proof)}", clock[0])
                spent += time.process_time() - start
            rounds.append(spent / len(clients))
        return min(rounds)

    good = register(right)
    assert sent[-1][1].startswith("WELCOME"), sent[-1]
    bad = register(wrong)
    assert sent[-1][1].startswith("ERROR AUTH_FAILED"), sent[-1]
    bot = best(
        lambda i: ScramClient("b", key, nonce=f"nonce{i:012}").final(
            f"r=nonce{i:012}x,s=AAAAAAAAAAAAAAAAAAAAAA==,i={args.iterations}"
        ),
        max(50, args.tries // 5),
    )
    scrypt = best(lambda i: hashlib.scrypt(key.encode(), salt=b"s" * 16, n=2**14, r=8, p=1, dklen=32), 20)
    print(f"CPython {platform.python_version()} on {platform.machine()}; key iterations {args.iterations}")
    print(f"referee, right proof (REGISTER + PROOF handled): {good * 1e6:8.0f} µs CPU")
    print(f"referee, wrong proof (REGISTER + PROOF handled): {bad * 1e6:8.0f} µs CPU")
    print(f"bot, per registration (PBKDF2 + HMACs):          {bot * 1e6:8.0f} µs CPU")
    print(f"before: the referee's scrypt check of a sent key: {scrypt * 1e6:8.0f} µs CPU")


if __name__ == "__main__":
    main()
