#!/usr/bin/env python3
"""An arena bot written from protocol.md alone: the standard library, a socket, no SDK.

It registers, follows its games into their channels, and answers every request addressed
to it with a random legal choice. Read it as a template for a bot in any language.

Usage: python bots/plain_bot.py --server HOST:PORT --nick NICK [--name NAME] [--key KEY]
                                [--referee arena] [--channel '#arena'] [--games N]
"""

import argparse
import os
import random
import socket


def fields_of(tokens):
    """key=value tokens of a protocol line (positional tokens come first)."""
    return dict(t.split("=", 1) for t in tokens if "=" in t)


def main():
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

    def send(line):
        out.write(line + "\r\n")
        out.flush()

    def tell_referee(text):
        send(f"PRIVMSG {args.referee} :{text}")

    # Who we are, and the key that proves it: sent only to the referee's nick.
    register = f"REGISTER 1 name={args.name or args.nick} owner=arena version=1.0"
    if args.key:
        register += f" key={args.key}"

    send(f"NICK {args.nick}")
    send(f"USER {args.nick} 0 * :plain socket bot")
    games = {}  # game id -> channel
    replaying = set()  # games whose past lines the referee is replaying (RESYNC): answer none of them
    ended = set()  # games of ours that have ended
    held = None  # the parts so far of a continued line: (verb and args, fields)
    trusted = True  # whether the lobby's topic lets us believe the referee's nick
    joined = False  # whether we are in the lobby (its names list came)
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
                named = topic[len("arena referee: "):].split(" ")[0] if topic.startswith("arena referee: ") else None
                trusted = named is None or named.lower() == args.referee.lower()
                if not trusted:
                    print(f"the lobby says the referee is {named}, not {args.referee}: waiting", flush=True)
            # joined: the names list is in. A topic that only updates the lobby's status
            # (who waits, what runs) while we trusted the referee already changes nothing.
            if trusted and (command == "366" or joined and not was_trusted):
                tell_referee(register)
            joined = joined or command == "366"
            continue
        sender = prefix[1:].split("!", 1)[0]
        if command == "JOIN" and sender.lower() == args.referee.lower():
            # The referee (re)joined the lobby: it may not know us, so register (again).
            if params.lstrip(":").lower() == args.channel.lower() and trusted:
                tell_referee(register)
            continue
        if command != "PRIVMSG":
            continue
        if sender.lower() != args.referee.lower():
            continue  # only the referee speaks the protocol
        text = params.split(" :", 1)[1] if " :" in params else ""
        tokens = text.split(" :", 1)[0].split(" ")  # free text (after " :") is not tokens
        verb, kv = tokens[0], fields_of(tokens)
        head = [t for t in tokens if "=" not in t]
        if held is not None and held[0] == head:  # the next part of a continued line
            for key, value in held[1].items():
                kv[key] = value + "," + kv[key] if key in kv else value
        held = None
        if kv.pop("more", None) == "true":  # more parts follow: join them first
            held = (head, kv)
            continue
        me = args.nick.lower()
        if len(tokens) > 1 and tokens[1] in replaying and params[:1] in "#&":
            continue  # the game's channel while its past is replayed: the RESYNC block holds these lines
        if verb == "TABLE" and me in kv.get("seats", "").lower().split(","):
            games[tokens[1]] = kv["channel"]
            send(f"JOIN {kv['channel']}")
        elif verb == "RESYNC" and tokens[2] == "begin" or verb == "RESUME" and tokens[1] not in replaying \
                and me in kv.get("seats", "").lower().split(","):
            # We came back to a game in progress, or a restarted referee took ours up in a new
            # channel (a RESUME inside a RESYNC block is past: the game may have moved since).
            if verb == "RESYNC":
                replaying.add(tokens[1])
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
                tell_referee(f"ANSWER {gid} {rid} {','.join(rng.sample(options, pick))}")
        elif verb == "END" and tokens[1] in games:
            send(f"PART {games.pop(tokens[1])}")
            ended.add(tokens[1])  # a game's end may be told twice (a restarted referee): count it once
            if args.games and len(ended) >= args.games:
                send("QUIT :done")
                break
        elif verb == "ERROR":
            print("referee says:", text, flush=True)
    sock.close()


if __name__ == "__main__":
    main()
