"""Record every line a LocalHub's referee sends and receives, as protocol.md shows them."""

from __future__ import annotations

from arena.protocol import Message
from arena.referee.local import LocalHub


def record(hub: LocalHub) -> list[str]:
    """From now on, every line of ``hub``'s referee, in the order the referee saw them
    (``sender → target  text``): what section 8 and 9 of protocol.md show."""
    lines: list[str] = []
    referee = hub.referee
    send, post, on_message = referee.send, referee.post, referee.on_message

    def sent(target: str, text: str) -> None:
        lines.append(f"arena → {target:<7} {text}")
        send(target, text)

    def posted(target: str, text: str, msg: Message) -> None:
        lines.append(f"arena → {target:<7} {text}")
        assert post is not None
        post(target, text, msg)

    def received(
        sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        lines.append(f"{sender:<5} → {target:<7} {text}")
        on_message(sender, target, text, now, account, msg)

    referee.send = sent
    if post is not None:
        referee.post = posted  # games started from now on send their lines through it
    referee.on_message = received  # type: ignore[method-assign]
    return lines
