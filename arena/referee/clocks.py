"""The clocks of local play (``arena.referee.local``), apart from the in-memory transport
so that the command line can offer their names without loading a referee."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""A monotonic clock in seconds, such as ``time.perf_counter``."""

CLOCKS: dict[str, Clock | None] = {"virtual": None, "wall": time.perf_counter}
"""The clocks of local play by the names the command line gives them (``--clock``): None is
the virtual clock."""
