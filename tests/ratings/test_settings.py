"""The ratings config section works with arena.config's generic builder."""

from __future__ import annotations

import pytest

from arena.config import ConfigError
from arena.config.errors import build
from arena.ratings import Elo, TrueSkill
from arena.ratings.settings import RatingsConfig


def test_defaults_are_the_systems_defaults() -> None:
    assert RatingsConfig().systems() == (Elo(), TrueSkill())


def test_the_config_builder_reads_and_checks_the_section() -> None:
    cfg = build(RatingsConfig, {"elo_k": 16, "trueskill_tau": 0.1}, "ratings")
    elo, ts = cfg.systems()
    assert elo.k == 16.0 and ts.tau == 0.1
    with pytest.raises(ConfigError, match="ratings.elo_k must be a number greater than 0"):
        build(RatingsConfig, {"elo_k": 0}, "ratings")
    with pytest.raises(ConfigError, match="unknown key 'ratings.k'"):
        build(RatingsConfig, {"k": 3}, "ratings")
