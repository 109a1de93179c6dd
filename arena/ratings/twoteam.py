"""Two-team TrueSkill in closed form on plain floats: the ``trueskill`` package's numbers,
bit for bit, at a sixth of its cost.

A match of two teams with different ranks is the common case (every normally ended
Avalon game and every forfeit), and there the package's factor graph is a tree with one
truncation: its message schedule computes the closed form below, through a graph of
Gaussian objects, a dict of messages per variable and a list per sum. ``TwoTeams.rate``
computes the same numbers on plain floats, in the package's order of operations
(``trueskill`` 0.4.5: ``TrueSkill.rate``, ``run_schedule``, the factors of
``factorgraph``), so the results are identical, not merely close: ratings stored by the
package still equal a rebuild (``tests/ratings/test_twoteam.py`` and ``bench/twoteam.py``
check it). ``None`` says the match is not its case, and the caller asks the package.

The equations, for the winning team A and the losing team B (teams sorted by rank), each
player i with mean ``mu_i``, deviation ``sigma_i`` and weight ``c_i`` (at least
``min_delta``, as the package makes it):

* dynamics first: ``s_i^2 = sigma_i^2 + tau^2`` (the prior factor);
* performance: ``p_i ~ N(mu_i, s_i^2 + beta^2)``; team performance ``t = sum c_i p_i``;
  difference ``d = t_A - t_B ~ N(m, D)`` with ``m = sum_A c_i mu_i - sum_B c_i mu_i`` and
  ``D = sum c_i^2 (s_i^2 + beta^2)`` over both teams;
* truncation at the draw margin ``eps = ppf((draw_probability + 1) / 2) sqrt(n) beta`` (n the
  players of both teams): with ``x = m / sqrt(D) - eps / sqrt(D)`` (the package's scaled
  arguments), ``v = pdf(x) / cdf(x)`` and ``w = v (v + x)``, the difference's posterior has
  precision ``1 / (D (1 - w))`` and mean ``m + sqrt(D) v``;
* back to each player, ``mu_i' = mu_i +- c_i s_i^2 v / sqrt(D)`` (+ for A, - for B) and
  ``sigma_i'^2 = s_i^2 (1 - c_i^2 s_i^2 w / D)``.

The schedule reaches these in one pass: on a tree, one update of the truncation is exact.
The package repeats the truncation until its change is at most ``min_delta`` (a second
pass, which only rounds, or none when the first moved less), then sends the messages
back: the difference to each team (its sum factor solved for it), each team to its
players one by one (each message reads the players already updated, whose values then
carry a rounding: ``(x + m) - m``), each performance to its rating. The code below keeps
every one of those steps, roundings included, and the package's round trips through
``Rating`` (precision and precision-adjusted mean in, mean and deviation out, twice).

The package's special cases are kept too: a term of precision 0 (a result so certain
that it says nothing) gives a sum of precision 0 (``SumFactor.update``) and a mean of 0
(``Gaussian.mu``). Where the package raises (a deviation of 0, a ``w`` outside (0, 1) that
it reports as a FloatingPointError), this module returns None and the package raises as
it always did. Ties between teams are the package's: a draw has other ``v`` and ``w``
functions, and only a game with a third party ties.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import trueskill

Pair = tuple[float, float]
"""A rating as (mean, deviation)."""

MIN_DELTA: float = trueskill.DELTA
"""The package's default ``min_delta``: the least weight, and the truncation's convergence
bound."""

_Team = tuple[list[float], list[float], list[float], list[float], list[float], list[float], float, float]
"""A team after the downward pass: its ratings' precisions and precision-adjusted means
(dynamics added), its performances' precisions, precision-adjusted means and means, its
weights, and its sum's precision and precision-adjusted mean."""


class TwoTeams:
    """The package environment's constants, read once: its ``tau``, ``beta``, draw margin
    quantile and ``cdf``/``pdf`` (the package's own approximations, which the result depends on)."""

    def __init__(self, env: Any) -> None:
        self.tau2 = env.tau**2
        self.beta = env.beta
        self.beta2 = env.beta**2
        # calc_draw_margin is ppf(...) * sqrt(size) * beta, left to right: the quantile is
        # the same for every match.
        self.quantile = env.ppf((env.draw_probability + 1) / 2.0) if not callable(env.draw_probability) else None
        self.cdf = env.cdf
        self.pdf = env.pdf

    def rate(
        self, teams: Sequence[Sequence[Pair]], weights: Sequence[Sequence[float]], ranks: Sequence[int]
    ) -> list[list[Pair]] | None:
        """Each team's new ratings, as the package's ``rate(teams, ranks, weights)`` returns
        them (mean and deviation of the ``Rating`` it builds), or None when the match is
        not two teams of different ranks or the package would take a special branch."""
        if len(teams) != 2 or ranks[0] == ranks[1] or self.quantile is None:
            return None
        if not all(teams) or any(len(t) != len(w) for t, w in zip(teams, weights)):
            return None
        first, second = (0, 1) if ranks[0] < ranks[1] else (1, 0)
        try:
            result = self._rate(teams[first], weights[first], teams[second], weights[second])
        except (ArithmeticError, ValueError):
            return None
        return result if first == 0 else [result[1], result[0]]

    def _rate(self, a: Sequence[Pair], wa: Sequence[float], b: Sequence[Pair], wb: Sequence[float]) -> list[list[Pair]]:
        """The schedule for winner ``a`` and loser ``b``."""
        ta = self._down(a, wa)
        tb = self._down(b, wb)
        pa, ua, pb, ub = ta[6], ta[7], tb[6], tb[7]
        ma, mb = _mean(pa, ua), _mean(pb, ub)
        dp, dt = _sum((1, -1), (pa, pb), (ma, mb))  # the difference's sum factor, down
        vp, vt = self._truncate(dp, dt, len(a) + len(b))
        # The same factor, up to each team (a = d + b, then b = a - d), from what the
        # difference and the other team tell it.
        qp, qt = vp - dp, vt - dt
        qm = _mean(qp, qt)
        mp, mt = _sum((1.0, 1.0), (qp, pb), (qm, mb))
        rp, rt = (pa + mp) - mp, (ua + mt) - mt
        np_, nt = _sum((1.0, -1.0), (rp, qp), (_mean(rp, rt), qm))
        return [self._up(ta, mp, mt), self._up(tb, np_, nt)]

    def _down(self, team: Sequence[Pair], weights: Sequence[float]) -> _Team:
        """Priors (with dynamics), performances and the team's sum, as the package sends
        them down."""
        tau2, beta2 = self.tau2, self.beta2
        rp: list[float] = []
        rt: list[float] = []
        pp: list[float] = []
        pt: list[float] = []
        pm: list[float] = []
        for mu, sigma in team:
            if sigma == 0:
                raise ValueError("a deviation of 0")  # the package's Rating refuses it
            pi = sigma**-2  # Rating(mu, sigma), read back by the prior factor
            r = math.sqrt(math.sqrt(1 / pi) ** 2 + tau2) ** -2
            u = r * (pi * mu / pi)
            a = 1.0 / (1.0 + beta2 * r)
            p, t = a * r, a * u
            rp.append(r)
            rt.append(u)
            pp.append(p)
            pt.append(t)
            pm.append(p and t / p)
        cs = [max(MIN_DELTA, w) for w in weights]
        sp, st = _sum(cs, pp, pm)
        return rp, rt, pp, pt, pm, cs, sp, st

    def _truncate(self, dp: float, dt: float, size: int) -> Pair:
        """The difference's value after the package's loop: the sum's message and the
        truncation's, until the truncation moves it by at most ``min_delta``."""
        margin = self.quantile * math.sqrt(size) * self.beta  # type: ignore[operator]
        vp: float = 0
        vt: float = 0
        mp: float = 0  # the sum factor's message to the difference
        mt: float = 0
        cp: float = 0  # the truncation's message
        ct: float = 0
        for _ in range(10):
            vp, vt = (vp - mp) + dp, (vt - mt) + dt
            mp, mt = dp, dt
            qp, qt = vp - cp, vt - ct
            root = math.sqrt(qp)
            x = qt / root - margin * root
            denom = self.cdf(x)
            v = self.pdf(x) / denom if denom else -x
            w = v * (v + x)
            if not 0 < w < 1:
                raise FloatingPointError("w outside (0, 1)")
            np_, nt = qp / (1.0 - w), (qt + root * v) / (1.0 - w)
            cp, ct = (np_ + cp) - vp, (nt + ct) - vt
            gap = abs(vp - np_)
            delta = 0.0 if gap == math.inf else max(abs(vt - nt), math.sqrt(gap))
            vp, vt = np_, nt
            if delta <= MIN_DELTA:
                break
        return vp, vt

    def _up(self, team: _Team, mp: float, mt: float) -> list[Pair]:
        """The team's message ``(mp, mt)`` from the difference, on to its players one by
        one, then to their ratings; each new rating as the package's ``Rating`` gives it."""
        rp, rt, pp, pt, pm, cs, sp, st = team
        beta2 = self.beta2
        # The team's value is its sum's message plus the difference's; what it tells its
        # sum factor is that value less the sum's message.
        tp, tt = (sp + mp) - sp, (st + mt) - st
        tm = _mean(tp, tt)
        # What each performance tells the sum factor (precision, mean): rounded once updated.
        qp = list(pp)
        qm = list(pm)
        out: list[Pair] = []
        for i, ci in enumerate(cs):
            # The sum factor solved for player i: coefficient 1 / c_i for the team, -c_j / c_i
            # for the others; a coefficient of -1 at i gives both in one expression.
            terms = list(cs)
            terms[i] = -1.0
            qp[i], qm[i] = tp, tm
            gp, gt = _sum([-c / ci for c in terms], qp, qm)
            fp, ft = pp[i] + gp, pt[i] + gt  # the performance's new value
            qp[i] = fp - gp
            qm[i] = _mean(qp[i], ft - gt)
            # The likelihood factor, up: the performance's message to the rating.
            lp, lt = fp - pp[i], ft - pt[i]
            a = 1.0 / (1.0 + beta2 * lp)
            zp, zt = rp[i] + a * lp, rt[i] + a * lt
            mu, sigma = zt / zp, math.sqrt(1 / zp)
            pi = sigma**-2  # the Rating the package returns, read back
            out.append((pi * mu / pi, math.sqrt(1 / pi)))
        return out


def _sum(coeffs: Sequence[float], pis: Sequence[float], means: Sequence[float]) -> Pair:
    """The package's sum factor (``SumFactor.update``): the precision and precision-adjusted
    mean of ``sum(c * x)`` for independent terms of the given precisions and means, in
    their order. A term of precision 0 makes the sum's precision 0, as in the package."""
    mean: float = 0
    inv: float = 0
    for c, p, m in zip(coeffs, pis, means):
        mean += c * m
        if inv != math.inf:
            inv = inv + c**2 / p if p else math.inf
    pi = 1.0 / inv
    return pi, pi * mean


def _mean(pi: float, tau: float) -> float:
    """A Gaussian's mean as the package reads it: 0 for a precision of 0."""
    return pi and tau / pi
