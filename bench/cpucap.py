"""A process held to a share of one core, as on a slower host of its own (Linux cgroups).

``bench/referees.py --referee-cpu`` gives each referee its own such cap, so that one referee
is the bottleneck while the machine's other processes (the database, the IRC server, the
players) still have cores to spare: what a second referee on a host of its own adds is then
what the comparison shows. A cgroup's CPU quota needs root and a writable cgroup file
system: version 1 (``/sys/fs/cgroup/cpu``) or version 2 (``/sys/fs/cgroup`` with the ``cpu``
controller).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

PERIOD_US = 100_000
"""The quota's period: a tenth of a second, the kernel's default."""

V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")


class Unsupported(Exception):
    """No cgroup here can cap a process's CPU (not Linux, not root, or no ``cpu`` controller)."""


@contextlib.contextmanager
def capped(pid: int, share: float, name: str) -> Iterator[None]:
    """Hold process ``pid`` (and the processes it starts later) to ``share`` of one core
    until the block ends; the cgroup ``name`` made for it is removed then."""
    if not 0 < share:
        raise ValueError(f"a share of a core must be positive, not {share}")
    quota = max(1000, round(share * PERIOD_US))
    if (V1 / "cpu.cfs_quota_us").exists():
        group, settings = V1 / name, {"cpu.cfs_period_us": str(PERIOD_US), "cpu.cfs_quota_us": str(quota)}
        parent = V1
    elif "cpu" in _read(V2 / "cgroup.controllers").split():
        group, settings, parent = V2 / name, {"cpu.max": f"{quota} {PERIOD_US}"}, V2
        with contextlib.suppress(OSError):  # (the children of the root may have it already)
            (V2 / "cgroup.subtree_control").write_text("+cpu")
    else:
        raise Unsupported("no cgroup with a cpu controller under /sys/fs/cgroup")
    try:
        group.mkdir(exist_ok=True)
        for file, value in settings.items():
            (group / file).write_text(value)
        (group / "cgroup.procs").write_text(str(pid))
    except OSError as exc:
        raise Unsupported(f"cannot cap a process's CPU here ({exc}): run as root on Linux") from exc
    try:
        yield
    finally:
        for left in _read(group / "cgroup.procs").split():  # still running: back where it came from
            with contextlib.suppress(OSError):
                (parent / "cgroup.procs").write_text(left)
        with contextlib.suppress(OSError):
            os.rmdir(group)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
