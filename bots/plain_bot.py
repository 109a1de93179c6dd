#!/usr/bin/env python3
"""An arena bot written from protocol.md alone: the standard library, a socket, no SDK.

It registers, follows its games into their channels (and to the referee that runs each,
where several share the lobby), and answers every request addressed to it with a random
legal choice. Read it as a template for a bot in any language.

Usage: python bots/plain_bot.py --server HOST:PORT --nick NICK [--name NAME] [--key KEY]
                                [--referee arena] [--channel '#arena'] [--games N]
"""

import argparse
import base64
import hashlib
import hmac
import os
import random
import secrets
import socket


def fields_of(tokens: list[str]) -> dict[str, str]:
    """key=value tokens of a protocol line (positional tokens come first)."""
    return dict(t.split("=", 1) for t in tokens if "=" in t)


# -- SCRAM-SHA-256 (protocol.md section 3): prove the key, never send it ---------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def scram_field(message: str) -> str:
    """A SCRAM message as the value of scram= (base64 of its text)."""
    return b64(message.encode())


def unb64(value: str) -> bytes:
    """The bytes of a base64 text (b"" if it is not base64)."""
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return b""


def scram_text(value: str) -> str:
    """The SCRAM message in a scram= value ("" if it is not one)."""
    return unb64(value).decode(errors="replace")


def scram_final(key: str, bare: str, nonce: str, server_first: str) -> tuple[str, str] | None:
    """The client-final-message for the referee's server-first-message, and the server
    signature its WELCOME must carry; None if the challenge is not one a referee gives."""
    attrs = dict(part.split("=", 1) for part in server_first.split(",") if "=" in part)
    combined, count = attrs.get("r", ""), attrs.get("i", "")
    salt = unb64(attrs.get("s", ""))
    if (
        not combined.startswith(nonce)
        or len(combined) == len(nonce)
        or not count.isdigit()
        or not 4096 <= int(count) <= 100000
        or not salt
    ):
        return None
    salted = hashlib.pbkdf2_hmac("sha256", key.encode(), salt, int(count))
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    stored_key = hashlib.sha256(client_key).digest()
    without_proof = "c=biws,r=" + combined  # biws: base64 of "n,,"
    auth = f"{bare},{server_first},{without_proof}".encode()
    proof = bytes(a ^ b for a, b in zip(client_key, hmac.digest(stored_key, auth, "sha256")))
    signature = hmac.digest(hmac.digest(salted, b"Server Key", "sha256"), auth, "sha256")
    return f"{without_proof},p={b64(proof)}", "v=" + b64(signature)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--nick", required=True)
    ap.add_argument("--name", default=None, help="the bot's identity (default: the nick)")
    ap.add_argument("--key", default=os.environ.get("ARENA_KEY"), help="the bot's key (default: $ARENA_KEY)")
    ap.add_argument("--referee", default="arena")
    ap.add_argument("--channel", default="#arena")
    ap.add_argument("--games", type=int, default=0, help="leave after N games (0: never)")
    args = ap.parse_args()
    host, port = args.server.rsplit(":", 1)
    rng = random.Random()
    sock = socket.create_connection((host, int(port)))
    out = sock.makefile("w", encoding="utf-8", newline="")
    inp = sock.makefile("r", encoding="utf-8", errors="replace", newline="\r\n")

    def send(line: str) -> None:
        out.write(line + "\r\n")
        out.flush()

    def tell_referee(text: str, gid: str | None = None) -> None:
        """A line to the referee we registered with, or, for a line of game ``gid``, to
        the referee that runs that game (section 4, "Several referees")."""
        send(f"PRIVMSG {run_by.get(gid or '', args.referee)} :{text}")

    # Who we are. The key is never sent: each REGISTER starts a SCRAM exchange that proves
    # it, and the referee must prove it knows it too (its WELCOME's signature) before we
    # obey any line of its nick: whoever else holds that nick gets nothing it can use.
    scram: dict[str, str] = {}  # the exchange under way: our nonce, then the signature the WELCOME must carry

    def register() -> str:
        # Protocol 1: one message a line (protocol 2 adds bundled lines, section 2; the
        # referee still takes 1, and sends a game with a bot of 1 one message a line).
        line = f"REGISTER 1 name={args.name or args.nick} owner=arena version=1.0"
        scram.clear()
        if args.key:
            scram["nonce"] = b64(secrets.token_bytes(18))
            scram["bare"] = f"n={args.nick},r={scram['nonce']}"
            line += " scram=" + scram_field("n,," + scram["bare"])
        return line

    send(f"NICK {args.nick}")
    send(f"USER {args.nick} 0 * :plain socket bot")
    games: dict[str, str] = {}  # game id -> channel
    home = args.referee.lower()

    def nicks_of(value: str) -> set[str]:
        """The other referees in a list of nicks (WELCOME's referees=, REFEREES' nicks=)."""
        return {nick.lower() for nick in value.split(",") if nick} - {home}

    others: set[str] = set()  # the other referees of the lobby (WELCOME referees=, REFEREES), lower-case
    run_by: dict[str, str] = {}  # game id -> the referee that runs it (TABLE/RESUME referee=), if not ours
    replaying: set[str] = set()  # games whose past lines the referee is replaying (RESYNC): answer none of them
    ended: set[str] = set()  # games of ours that have ended
    held: dict[str, tuple[list[str], dict[str, str]]] = {}  # sender -> the parts so far of its continued line
    trusted = True  # whether the lobby's topic lets us believe the referee's nick
    joined = False  # whether we are in the lobby (its names list came)
    registered = False  # whether the referee welcomed us (and, with a key, proved it is the referee)
    for raw in inp:
        line = raw.rstrip("\r\n")
        if line.startswith("PING"):
            send("PONG" + line[4:])
            continue
        prefix, _, rest = line.partition(" ")
        command, _, params = rest.partition(" ")
        if command == "001":  # registered with the server: join the lobby, then register (366 below)
            send(f"JOIN {args.channel}")
            continue
        words = params.split(" ")
        if command in ("332", "TOPIC", "366"):
            # The lobby's topic names the referee ("arena referee: NICK ..."): if it names
            # someone else, our referee's nick is held by an impostor; wait for it to change.
            channel = words[1] if command in ("332", "366") else words[0]
            if channel.lower() != args.channel.lower():
                continue
            was_trusted = trusted
            if command != "366":
                topic = params.split(" :", 1)[1] if " :" in params else ""
                named = topic[len("arena referee: ") :].split(" ")[0] if topic.startswith("arena referee: ") else None
                trusted = named is None or named.lower() == args.referee.lower()
                if not trusted:
                    print(f"the lobby says the referee is {named}, not {args.referee}: waiting", flush=True)
            # joined: the names list is in. A topic that only updates the lobby's status
            # (who waits, what runs) while we trusted the referee already changes nothing.
            if trusted and (command == "366" or joined and not was_trusted):
                tell_referee(register())
            joined = joined or command == "366"
            continue
        sender = prefix[1:].split("!", 1)[0]
        if command == "JOIN" and sender.lower() == args.referee.lower():
            # The referee (re)joined the lobby: it may not know us, so register (again).
            if params.lstrip(":").lower() == args.channel.lower() and trusted and not registered:
                tell_referee(register())  # (a new referee: its nick quit before, which ended our trust)
            continue
        if command in ("QUIT", "NICK") and sender.lower() == args.referee.lower():
            registered = False  # whoever takes the referee's nick next is a stranger until it proves otherwise
            continue
        if command in ("QUIT", "NICK") and sender.lower() in others:
            others.discard(sender.lower())  # another referee left its nick: a stranger may take it
            continue
        if command == "NICK" and params.lstrip(":").lower() == args.referee.lower() and trusted:
            tell_referee(register())  # the referee took its nick back: register with it
            continue
        if command != "PRIVMSG":
            continue
        who = sender.lower()
        if who != home and who not in others:
            continue  # only the referees speak the protocol
        text = params.split(" :", 1)[1] if " :" in params else ""
        tokens = text.split(" :", 1)[0].split(" ")  # free text (after " :") is not tokens
        verb, kv = tokens[0], fields_of(tokens)
        head = [t for t in tokens if "=" not in t]
        part = held.pop(who, None)
        if part is not None and part[0] == head:  # the next part of a continued line
            for key, value in part[1].items():
                kv[key] = value + "," + kv[key] if key in kv else value
        if kv.pop("more", None) == "true":  # more parts follow: join them first
            held[who] = (head, kv)
            continue
        me = args.nick.lower()
        if who == home and not registered:
            # Only the registration's lines count until the referee is proven: a squatter on
            # its nick must not seat us at its tables nor get answers.
            if verb == "CHALLENGE" and "nonce" in scram:
                answer = scram_final(args.key, scram["bare"], scram["nonce"], scram_text(kv.get("scram", "")))
                if answer is None:
                    print("the referee's challenge is not valid: not registering", flush=True)
                    continue
                scram["signature"] = answer[1]
                tell_referee("PROOF scram=" + scram_field(answer[0]))
            elif verb == "WELCOME":
                signed = scram_text(kv.get("scram", ""))
                if args.key and not ("signature" in scram and hmac.compare_digest(signed, scram["signature"])):
                    print(f"{args.referee} did not prove it is the referee: ignoring it", flush=True)
                    continue
                registered = True
                others = nicks_of(kv.get("referees", ""))
            elif verb == "ERROR":
                print("referee says:", text, flush=True)
            continue
        # Section 4, "Several referees": a TABLE or RESUME counts only from the referee it
        # names; any other line of a game only from the referee that runs it. A RESUME, and the
        # RESYNC that brings a game back to us, move the game to their sender.
        gid = tokens[2] if verb == "ERROR" and len(tokens) > 2 else tokens[1] if len(tokens) > 1 else ""
        if verb in ("TABLE", "RESUME") and kv.get("referee", home).lower() != who:
            continue
        moves = verb == "RESUME" or verb == "RESYNC" and tokens[2] == "begin"
        runner = run_by.get(gid, sender if verb == "TABLE" else args.referee)  # (a new table: its sender's)
        if gid and verb != "WELCOME" and not moves and runner.lower() != who:
            continue
        if verb in ("WELCOME", "CHALLENGE"):  # (registered again: no exchange to finish)
            if who == home and verb == "WELCOME":
                others = nicks_of(kv.get("referees", ""))
            continue
        if verb == "REFEREES":  # the referees of the lobby now (ours stays ours)
            others = nicks_of(kv.get("nicks", ""))
            continue
        if verb == "BYE":
            registered = False
            others = set()
            continue
        if len(tokens) > 1 and tokens[1] in replaying and params[:1] in "#&":
            continue  # the game's channel while its past is replayed: the RESYNC block holds these lines
        if verb == "TABLE" and me in kv.get("seats", "").lower().split(","):
            games[tokens[1]] = kv["channel"]
            run_by[tokens[1]] = sender
            send(f"JOIN {kv['channel']}")
        elif (
            verb == "RESYNC"
            and tokens[2] == "begin"
            or verb == "RESUME"
            and tokens[1] not in replaying
            and me in kv.get("seats", "").lower().split(",")
        ):
            # We came back to a game in progress, or a restarted referee took ours up in a new
            # channel (a RESUME inside a RESYNC block is past: the game may have moved since).
            if verb == "RESYNC":
                replaying.add(tokens[1])
            run_by[tokens[1]] = sender  # (after a failover, another referee of the lobby)
            old = games.get(tokens[1])
            if old != kv.get("channel"):
                if old:  # the game moved
                    send(f"PART {old}")
                games[tokens[1]] = kv["channel"]
                send(f"JOIN {kv['channel']}")
        elif verb == "RESYNC":
            replaying.discard(tokens[1])
        elif verb == "ASK" and tokens[1] not in replaying:
            gid, rid = tokens[1], tokens[2]
            to = kv.get("to", "")
            if to == "all" or me in to.lower().split(","):
                options = kv["options"].split(",")
                pick = int(kv.get("pick", "1"))
                tell_referee(f"ANSWER {gid} {rid} {','.join(rng.sample(options, pick))}", gid)
        elif verb == "END" and tokens[1] in games:
            send(f"PART {games.pop(tokens[1])}")
            run_by.pop(tokens[1], None)
            ended.add(tokens[1])  # a game's end may be told twice (a restarted referee): count it once
            if args.games and len(ended) >= args.games:
                send("QUIT :done")
                break
        elif verb == "ERROR":
            print("referee says:", text, flush=True)
    sock.close()


if __name__ == "__main__":
    main()
