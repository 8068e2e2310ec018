"""Small experiments behind the claims in the README's zonal section.

Pure functions of parameters and seeds.

* :func:`collective_memory` — Couzin et al. (2002): the zone of orientation is widened step by
  step and then narrowed again, each step continuing from the previous step's final state;
  P and m on both branches.
* :func:`accuracy_sweep` — Couzin et al. (2005): accuracy of the group's travel toward ``g``
  against the informed fraction, for several group sizes.
* :func:`predation_comparison` — the contest paper's target rules: captures, time to first
  capture, share of captured prey on the convex hull when the attack began, and the share of
  the prey on the hull at those moments (the selfish-herd baseline).

Run ``python benchmarks/zonal_experiments.py`` to print the tables quoted in the README.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from flocklab.models.zonal import metrics
from flocklab.models.zonal.engine import ZonalSimulation

COUZIN_2002 = {"rule": "couzin2002", "N": 100, "dim": 3, "r_r": 1.0, "field_of_view": 270.0,
               "turning_rate": 40.0, "speed": 3.0, "noise": 0.05, "dt": 0.1}
COUZIN_2005 = {"rule": "couzin2005", "dim": 2, "alpha": 1.0, "rho": 6.0, "speed": 1.0,
               "turning_rate": math.degrees(2.0), "noise": 0.01, "dt": 0.2, "omega": 0.5,
               "field_of_view": 360.0}


def _average_order(sim: ZonalSimulation, steps: int, every: int) -> tuple[float, float]:
    p_values, m_values = [], []
    for _ in range(steps // every):
        sim.advance(every)
        obs = sim.observe()
        p_values.append(obs["polarisation_largest"])
        m_values.append(obs["milling_largest"])
    return float(np.mean(p_values)), float(np.mean(m_values))


def collective_memory(delta_os: Sequence[float], delta_a: float, seed: int,
                      steps: int = 1000, params: dict[str, Any] | None = None
                      ) -> dict[str, np.ndarray]:
    """P and m (largest group, averaged over the second half of each step) on the increasing
    and the decreasing branch of ``delta_os``.

    Returns
    -------
    dict with ``delta_o`` (K,), ``up_p``, ``up_m``, ``down_p``, ``down_m`` (K,) — the down
    branch reported at the same ``delta_o`` values.
    """
    delta_os = np.asarray(delta_os, dtype=float)
    sim = ZonalSimulation.from_parameters(
        {**COUZIN_2002, **(params or {}), "delta_o": float(delta_os[0]),
        "delta_a": delta_a}, seed)
    out = {"delta_o": delta_os}
    for branch, values in (("up", delta_os), ("down", delta_os[::-1])):
        results = []
        for delta_o in values:
            sim.set_zone_widths(float(delta_o), delta_a)
            sim.advance(steps // 2)
            results.append(_average_order(sim, steps - steps // 2, 10))
        if branch == "down":
            results = results[::-1]
        out[f"{branch}_p"] = np.array([r[0] for r in results])
        out[f"{branch}_m"] = np.array([r[1] for r in results])
    return out


def accuracy_sweep(sizes: Sequence[int], fractions: Sequence[float], seeds: int,
                   steps: int = 750, window: int = 250) -> dict[str, np.ndarray]:
    """Accuracy toward g of the centroid's displacement over the last ``window`` steps.

    Returns both definitions, shape (len(sizes), len(fractions)), averaged over seeds, and
    the share of runs whose group stayed in one piece.
    """
    shape = (len(sizes), len(fractions))
    acc = np.full(shape, np.nan)
    acc_cos = np.full(shape, np.nan)
    whole = np.full(shape, np.nan)
    g = np.array([1.0, 0.0])
    for a, n in enumerate(sizes):
        for b, fraction in enumerate(fractions):
            displacements, together = [], []
            for seed in range(seeds):
                sim = ZonalSimulation.from_parameters(
                    {**COUZIN_2005, "N": n, "informed_fraction": fraction,
                    "start_radius": max(2.0, 0.6 * math.sqrt(n))}, seed)
                sim.advance(steps - window)
                start = sim.pos[:, :2].mean(axis=0)
                sim.advance(window)
                displacements.append(sim.pos[:, :2].mean(axis=0) - start)
                together.append(metrics.groups(sim.pos[:, :2], sim.p["rho"])[0] == 1)
            acc[a, b], acc_cos[a, b] = metrics.accuracy(np.array(displacements), g)
            whole[a, b] = float(np.mean(together))
    return {"accuracy": acc, "accuracy_cos": acc_cos, "cohesive": whole}


def predation_comparison(seeds: int, steps: int = 600) -> dict[str, dict[str, float]]:
    """Nearest against optimal target choice on the same prey groups (2-D, one predator)."""
    out = {}
    for rule in ("nearest", "optimal"):
        captures, first, on_hull, hull_base = [], [], [], []
        for seed in range(seeds):
            sim = ZonalSimulation.from_parameters({
                "N": 60, "dim": 2, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 4.0,
                "escape_speed": 5.0, "speed_spread": 0.5,
                "predators": [{"position": [-25.0, 0.0], "speed": 9.0, "stalk_speed": 2.0,
                               "detection_range": 6.0, "c1": 0.6, "c2": 1.5,
                               "capture_radius": 0.8, "target": rule, "max_attack_time": 8.0,
                               "rest_time": 1.0}]}, seed)
            seen = 0
            for _ in range(steps):
                sim.advance(1)
                if len(sim.attacks) > seen:
                    seen = len(sim.attacks)
                    hull_base.append(sim.hull_at_attack[0].sum() / sim.alive.sum())
            captured = sim.capture_step >= 0
            captures.append(captured.sum())
            first.append(metrics.time_to_first_capture(sim.capture_step, sim.p["dt"]))
            on_hull.extend(sim.capture_on_hull[captured].tolist())
        out[rule] = {"captures": float(np.mean(captures)),
                     "first_capture_time": float(np.nanmean(first)),
                     "hull_share": metrics.hull_share(np.array(on_hull)),
                     "hull_baseline": float(np.mean(hull_base)) if hull_base else math.nan,
                     "attacks_seen": float(len(hull_base))}
    return out


def main() -> None:  # pragma: no cover - prints the tables of the README's zonal section
    widths = np.arange(0.0, 6.01, 0.5)
    print("collective memory (3-D, N = 100, delta_a = 12), seeds 0-2: P / m")
    for seed in range(3):
        res = collective_memory(widths, 12.0, seed)
        print("delta_o", " ".join(f"{w:5.1f}" for w in widths))
        for key in ("up_p", "up_m", "down_p", "down_m"):
            print(f"{key:7s}", " ".join(f"{v:5.2f}" for v in res[key]))
    fractions = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5]
    sizes = [10, 30, 100, 200]
    sweep = accuracy_sweep(sizes, fractions, seeds=10)
    print("accuracy (1 - <|d|>/pi ; <cos d> ; share cohesive), fractions", fractions)
    for a, n in enumerate(sizes):
        print(n, " | ".join(f"{sweep['accuracy'][a, b]:.2f} ; {sweep['accuracy_cos'][a, b]:.2f}"
                            f" ; {sweep['cohesive'][a, b]:.1f}" for b in range(len(fractions))))
    print("predation", predation_comparison(seeds=10))


if __name__ == "__main__":  # pragma: no cover
    main()
