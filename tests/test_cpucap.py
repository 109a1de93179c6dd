"""``bench/cpucap.py``: a process held to a share of a core sits in a cgroup of its own with
that quota while the block runs, and the cgroup is gone afterwards (skipped where no cgroup
can be made: not root, or no cpu controller)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.cpucap import PERIOD_US, V1, V2, Unsupported, capped


def test_a_capped_process_runs_in_a_group_of_its_own_with_its_quota_until_the_block_ends() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        name = f"arena-test-{child.pid}"
        try:
            with capped(child.pid, 0.25, name):
                group = V1 / name if (V1 / "cpu.cfs_quota_us").exists() else V2 / name
                assert (group / "cgroup.procs").read_text().split() == [str(child.pid)]
                if group.parent == V1:
                    assert int((group / "cpu.cfs_quota_us").read_text()) == PERIOD_US // 4
                else:
                    assert (group / "cpu.max").read_text().split() == [str(PERIOD_US // 4), str(PERIOD_US)]
        except Unsupported as exc:
            pytest.skip(str(exc))
        assert not group.exists()
        assert child.poll() is None  # (moved back, still running)
    finally:
        child.kill()
        child.wait()
