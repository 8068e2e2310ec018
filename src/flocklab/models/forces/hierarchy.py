r"""Leaders, sub-leaders and how fast a new goal spreads (the A/R paper's claim, measured).

Leaders know the goal, which turns by ``turn_angle`` at ``turn_time``; each sub-leader steers
to the predicted position :math:`x_L + \tau v_L` of its leader (:math:`\tau` the prediction
step); followers know neither. The *turn time* is the time after the turn until the mean
velocity of the group is within :math:`\arccos 0.9 \approx 26^\circ` of the new goal
(:func:`turn_time_of_run`; censored at the end of the run).

The paper concludes that the number of sub-leaders and the prediction step govern how fast
information spreads, and that too many sub-leaders do not help. :func:`verdicts` tests the
three parts on the grid of :func:`turn_times`:

1. *sub-leaders govern the spread*: Spearman's rank correlation of turn time with the number
   of sub-leaders (all runs) is negative with p < 0.05;
2. *the prediction step governs it*: the turn times of the runs with sub-leaders, centred on
   the mean of their number of sub-leaders, differ between prediction steps
   (Kruskal–Wallis, p < 0.05);
3. *too many sub-leaders do not help*: the largest count does not turn the group
   significantly faster than the next largest (one-sided Mann–Whitney, p >= 0.05 holds;
   needs two counts above 0).

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

#: Significance level of the verdicts.
ALPHA = 0.05


def turn_time_of_run(params: Mapping[str, Any], seed: int, dt: float, t_max: float,
                     check_every: float = 0.25) -> float:
    """Turn time of one run (stopped as soon as the group has turned); ``t_max -
    turn_time`` if it never turns by ``t_max``."""
    sim = ForcesSimulation(params, np.random.default_rng(seed), dt)
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


def verdicts(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The three verdicts of the module docstring, each with its evidence."""
    from scipy import stats

    counts = np.array([row["subleaders"] for row in rows], dtype=float)
    taus = np.array([row["prediction_step"] for row in rows], dtype=float)
    times = np.array([row["turn_time"] for row in rows], dtype=float)
    out = []
    rho, p_rho = stats.spearmanr(counts, times)
    holds = bool(rho < 0 and p_rho < ALPHA)
    out.append({"claim": "The number of sub-leaders governs how fast the new goal spreads "
                         "(more sub-leaders, shorter turn time)",
                "verdict": "holds" if holds else "fails",
                "evidence": f"Spearman rho(sub-leaders, turn time) = {rho:.3f}, p = "
                            f"{p_rho:.2g} over {times.size} runs"})
    with_subs = counts > 0
    centred = times.copy()
    for count in np.unique(counts):
        centred[counts == count] -= times[counts == count].mean()
    groups = [centred[with_subs & (taus == tau)] for tau in np.unique(taus)]
    if len(groups) > 1 and all(g.size for g in groups):
        h, p_kw = stats.kruskal(*groups)
        rho_t, p_t = stats.spearmanr(taus[with_subs], centred[with_subs])
        means = ", ".join(f"tau = {tau:g}: {g.mean():+.2f}" for tau, g in
                          zip(np.unique(taus), groups, strict=True))
        out.append({"claim": "The prediction step governs how fast the new goal spreads",
                    "verdict": "holds" if p_kw < ALPHA else "fails",
                    "evidence": f"Kruskal-Wallis over prediction steps of the turn times "
                                f"centred per number of sub-leaders (runs with sub-leaders): "
                                f"H = {h:.2f}, p = {p_kw:.2g}; mean offsets {means}; "
                                f"Spearman rho(tau, offset) = {rho_t:.3f} (p = {p_t:.2g})"})
    levels = np.unique(counts[counts > 0])
    if levels.size >= 2:
        top, next_top = levels[-1], levels[-2]
        a, b = times[counts == top], times[counts == next_top]
        _, p_mw = stats.mannwhitneyu(a, b, alternative="less")
        out.append({"claim": "Too many sub-leaders do not help (the largest number does not "
                             "turn the group faster than the next largest)",
                    "verdict": "holds" if p_mw >= ALPHA else "fails",
                    "evidence": f"mean turn time {a.mean():.2f} with {top:g} sub-leaders "
                                f"against {b.mean():.2f} with {next_top:g}; one-sided "
                                f"Mann-Whitney p = {p_mw:.2g} (fails if < {ALPHA})"})
    return out


def summary_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Mean, standard error and share turned per (sub-leaders, prediction step)."""
    keys = sorted({(row["subleaders"], row["prediction_step"]) for row in rows})
    table = []
    for count, tau in keys:
        values = np.array([row["turn_time"] for row in rows
                           if row["subleaders"] == count and row["prediction_step"] == tau])
        turned = np.mean([row["turned"] for row in rows
                          if row["subleaders"] == count and row["prediction_step"] == tau])
        sem = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else math.nan
        table.append({"subleaders": count, "prediction_step": tau,
                      "turn_time_mean": float(values.mean()), "turn_time_sem": float(sem),
                      "turned_share": float(turned), "runs": int(values.size)})
    return table
