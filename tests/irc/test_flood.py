"""A flooded referee on ngircd with its default flood penalties (the short form of
``bench/flood.py``, whose harness it runs): three strangers and a seated bot send the
referee garbage twice a second each while five bots play Avalon at 2 lines/s."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arena.irc.servers import ngircd_available

BENCH = Path(__file__).resolve().parents[2] / "bench" / "flood.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_flood", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not ngircd_available(), reason="ngircd not installed")
def test_a_flood_costs_honest_bots_neither_a_forfeit_nor_a_fifth_more_time() -> None:
    bench = _bench()
    quiet = bench.play(flood=False)
    flooded = bench.play(flood=True)
    assert quiet.forfeited is None
    assert flooded.forfeited in (None, bench.FLOODER)  # the flooder may lose by it; nobody else
    assert flooded.flood_lines >= 10 and flooded.replies_dropped > 0  # it was a flood, and it was refused
    assert flooded.seconds <= 1.2 * quiet.seconds, (quiet, flooded)
