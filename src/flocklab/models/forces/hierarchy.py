r"""Leaders, sub-leaders and how fast a new goal spreads (the A/R paper's claim, measured).

Leaders know the goal, which turns by ``turn_angle`` at ``turn_time``; each sub-leader steers
to the predicted position :math:`x_L + \tau v_L` of its leader (:math:`\tau` the prediction
step); followers know neither. The *turn time* is the time after the turn until the mean
velocity of the group is within :math:`\arccos 0.9 \approx 26^\circ` of the new goal
(:func:`turn_time_of_run`; censored at the end of the run).

The paper concludes that the number of sub-leaders and the prediction step govern how fast
information spreads, and that too many sub-leaders do not help. :func:`verdicts` tests the
three parts on the grid of :func:`turn_times` (:mod:`flocklab.analysis.verdicts`,
:mod:`flocklab.analysis.survival`). A group that has not turned by the end of its run has a
censored turn time; every run is censored at the same time, so a censored turn time is a
tie above every observed one and the rank tests of 2 stay exact, while means would not
(:func:`summary_table` reports medians and the share turned). The runs without sub-leaders,
listed under every prediction step, count once.

1. *sub-leaders govern the spread*: the log-rank test for trend of the turn time over the
   number of sub-leaders (:func:`flocklab.analysis.survival.survival_trend_runs`): a hazard of
   turning that rises with it at permutation p < 0.05 holds, one that falls fails, neither is
   inconclusive;
2. *the prediction step governs it*: the turn times of the runs with sub-leaders differ
   between prediction steps within each number of sub-leaders (Kruskal–Wallis summed over
   the numbers, permutation within them): holds at p < 0.05, inconclusive otherwise;
3. *too many sub-leaders do not help*: the largest count shortens the median turn time of
   the next largest by less than :data:`NO_HELP_MARGIN` of it — holds when the 95 %
   interval of the shift lies below that margin, fails when above, inconclusive otherwise
   (needs two counts above 0).

A verdict whose data are missing (one prediction step, fewer than two counts above 0) is
left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flocklab.models.forces.engine import ForcesSimulation, goal_direction
from flocklab.models.forces.metrics import TURN_THRESHOLD, goal_alignment

#: "Does not help": the largest number of sub-leaders shortens the turn time of the next
#: largest by less than this share of its median.
NO_HELP_MARGIN = 0.1


def turn_time_of_run(params: Mapping[str, Any], seed: int, dt: float, t_max: float,
                     check_every: float = 0.25) -> float:
    """Turn time of one run (stopped as soon as the group has turned); ``t_max -
    turn_time`` if it never turns by ``t_max``."""
    sim = ForcesSimulation.from_parameters(params, np.random.default_rng(seed), dt)
    p = sim.p
    stride = max(1, round(check_every / dt))
    t_turn, steps = p["turn_time"], round(t_max / dt)
    done = 0
    while done < steps:
        k = min(stride, steps - done)
        sim.advance(k)
        done += k
        t = done * dt
        if t >= t_turn:
            alive = sim.alive
            cosine = goal_alignment(sim.vel[alive, :sim.dim], goal_direction(p, t)[:sim.dim])
            if cosine >= TURN_THRESHOLD:
                return t - t_turn
    return t_max - t_turn


def turn_times(params: Mapping[str, Any], subleaders: Sequence[int],
               prediction_steps: Sequence[float], seeds: int, base_seed: int, dt: float,
               t_max: float) -> list[dict[str, Any]]:
    """One row per run: ``subleaders``, ``prediction_step``, ``seed``, ``turn_time``,
    ``turned``. Without sub-leaders the prediction step plays no part, so those runs are
    made once per seed and listed under every prediction step."""
    rows = []
    cache: dict[tuple[int, int], float] = {}
    for tau in prediction_steps:
        for count in subleaders:
            for replicate in range(seeds):
                key = (count, replicate)
                if count == 0 and key in cache:
                    value = cache[key]
                else:
                    seed = int(np.random.SeedSequence([base_seed, count, replicate])
                               .generate_state(1)[0])
                    value = turn_time_of_run({**params, "subleaders": count,
                                              "prediction_step": tau}, seed, dt, t_max)
                    cache[key] = value
                rows.append({"subleaders": count, "prediction_step": tau, "seed": replicate,
                             "turn_time": value,
                             "turned": int(value < t_max - params["turn_time"])})
    return rows


def verdicts(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The three verdicts of the module docstring (:class:`flocklab.analysis.verdicts.Verdict`
    fields as a dict each)."""
    from flocklab.analysis.survival import survival_trend_runs
    from flocklab.analysis.verdicts import group_difference, no_improvement

    runs = independent_runs(rows)
    counts = np.array([row["subleaders"] for row in runs], dtype=float)
    taus = np.array([row["prediction_step"] for row in runs], dtype=float)
    times = np.array([row["turn_time"] for row in runs], dtype=float)
    turned = np.array([row["turned"] for row in runs], dtype=float)
    by_count = np.argsort(counts, kind="stable")  # runs grouped by level, as in an oat study
    out = [survival_trend_runs("The number of sub-leaders governs how fast the new goal "
                               "spreads (more sub-leaders, shorter turn time)", counts[by_count],
                               times[by_count], turned[by_count], "decreasing")]
    with_subs = counts > 0
    if np.unique(taus[with_subs]).size > 1:
        out.append(group_difference(
            "The prediction step governs how fast the new goal spreads", times[with_subs],
            taus[with_subs], counts[with_subs]))
    levels = np.unique(counts[with_subs])
    if levels.size >= 2:
        top, next_top = levels[-1], levels[-2]
        reference = times[counts == next_top]
        margin = NO_HELP_MARGIN * float(np.median(reference))
        out.append(no_improvement(
            f"Too many sub-leaders do not help ({top:g} shorten the turn time of {next_top:g} "
            f"by less than {NO_HELP_MARGIN:.0%} of its median)", reference,
            times[counts == top], margin, what="turn time shortened by"))
    return [verdict.as_dict() for verdict in out]


def independent_runs(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``rows`` with the runs without sub-leaders once (they are listed under every
    prediction step but were run once per seed)."""
    seen: set[int] = set()
    out = []
    for row in rows:
        if row["subleaders"] == 0:
            if row["seed"] in seen:
                continue
            seen.add(row["seed"])
        out.append(row)
    return out


def summary_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per (sub-leaders, prediction step): the median turn time with its quartiles, the
    share of runs that turned and the number of runs.

    Every run is censored at the same time, so an order statistic is known whenever the
    runs at or below it all turned; a quartile or median that falls on a censored run is
    NaN (``turn_time_median_censored`` says so for the median): it lies beyond the run.
    """
    keys = sorted({(row["subleaders"], row["prediction_step"]) for row in rows})
    table = []
    for count, tau in keys:
        cell = [row for row in rows
                if row["subleaders"] == count and row["prediction_step"] == tau]
        values = np.array([row["turn_time"] for row in cell], dtype=float)
        turned = np.array([row["turned"] for row in cell], dtype=bool)
        quartiles = [_censored_quantile(values, turned, q) for q in (0.25, 0.5, 0.75)]
        table.append({"subleaders": count, "prediction_step": tau,
                      "turn_time_median": quartiles[1], "turn_time_q25": quartiles[0],
                      "turn_time_q75": quartiles[2],
                      "turn_time_median_censored": bool(math.isnan(quartiles[1])),
                      "turned_share": float(turned.mean()), "runs": len(cell)})
    return table


def _censored_quantile(values: np.ndarray, turned: np.ndarray, q: float) -> float:
    """The ``q`` quantile (linear interpolation) of turn times censored at one common time;
    NaN when it depends on a censored run."""
    order = np.argsort(values, kind="stable")
    position = q * (values.size - 1)
    needed = order[: math.floor(position) + (position % 1 > 0) + 1]
    return float(np.quantile(values, q)) if turned[needed].all() else math.nan
