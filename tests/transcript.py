"""Record every line a LocalHub's referee sends and receives, as protocol.md shows them."""

from __future__ import annotations

from arena.referee.local import LocalHub


def record(hub: LocalHub) -> list[str]:
    """From now on, every line of ``hub``'s referee, in the order the referee saw them
    (``sender → target  text``): what section 8 and 9 of protocol.md show."""
    lines: list[str] = []
    referee = hub.referee
    send, on_message = referee.send, referee.on_message

    def sent(target: str, text: str) -> None:
        lines.append(f"arena → {target:<7} {text}")
        send(target, text)

    def received(sender: str, target: str, text: str, now: float, account: str | None = None) -> None:
        lines.append(f"{sender:<5} → {target:<7} {text}")
        on_message(sender, target, text, now, account)

    referee.send = sent  # type: ignore[method-assign]
    referee.on_message = received  # type: ignore[method-assign]
    return lines
