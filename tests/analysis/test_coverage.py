"""The 68 % intervals of the critical fits contain the truth in 68 % of synthetic studies.

Synthetic studies (:mod:`flocklab.analysis.coverage`): known x_c and exponent, a transition
rounded over a random width by a Gaussian or logistic spread of pseudo-critical points
(a shape the fit does not assume in half of them), AR(1)-correlated runs whose errors come
from their own tau_int, 3, 4 or 6 replicates, for an observable ordered below x_c (noise)
and above it (density). Every case uses a fixed seed, so the tests are deterministic.

* fast lane: the first 60 cases per side of the slow lane's seed set; the coverage must lie
  within 2.5 binomial standard errors of 0.68 (sqrt(0.68 * 0.32 / 60) = 6.0 points, so
  within 15 points: the pure power-law fit with a seed bootstrap, which covered the truth in
  under half of such cases, fails). (A separate seed set was used before; its first 60-100
  cases covered beta in 82-85 % with the present method, 2.5 standard errors above the 70.5 %
  measured on the 600 cases below, so a fast check on it fails about as often as it passes
  by chance. The fast lane is a smoke test; the calibration claim is the slow lane's.)
* slow lane: 600 cases per side, within 7 points of 0.68 (3.7 binomial standard errors);
  measured: eta_c 66.8 %, beta 70.5 %, rho_c 64.5 %, delta 70.5 %
  (benchmarks/results/critical_coverage.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.analysis.coverage import draw_truth, measure_coverage, synthetic_case
from flocklab.analysis.rounded import calibrated_fit, split_half

NOMINAL = 0.68
#: The seed set of both lanes (the fast lane fits the first 60 of the slow lane's cases).
SEED = 2026


def _check(report: dict, tolerance: float) -> None:
    assert report["refused"] <= 0.05 * report["cases"], report
    for name in ("critical", "exponent"):
        entry = report[name]
        assert abs(entry["coverage"] - NOMINAL) <= tolerance, (name, entry)
        # intervals that say something: a median half-width under 10 % of the truth
        assert entry["median_relative_half_width"] < 0.10, (name, entry)


@pytest.mark.parametrize("side", ["below", "above"])
def test_intervals_cover_the_truth_fast(side):
    report = measure_coverage(60, side, seed=SEED)
    _check(report, 2.5 * np.sqrt(NOMINAL * (1 - NOMINAL) / report["fitted"]))


@pytest.mark.slow
@pytest.mark.parametrize("side", ["below", "above"])
def test_intervals_cover_the_truth_slow(side):
    _check(measure_coverage(600, side, seed=SEED), 0.07)


def test_split_halves_agree_and_are_wider_than_the_whole():
    """Five synthetic studies of 6 seeds: the two halves (3 seeds each) agree (z <= 2, a
    test that a correct method fails about 5 % of the time per quantity: allowed twice in
    10, three or more happen with probability 0.01), and
    their intervals are wider than the whole study's in the median (expected about
    sqrt(2) * t_2 / t_5 = 1.7 times: half the seeds, a larger Student factor)."""
    rng = np.random.default_rng(3)
    ratios, disagreements = [], 0
    for _ in range(5):
        truth = {**draw_truth(rng, "below"), "replicates": 6}
        case = synthetic_case(rng, "below", truth)
        args = (case["x"], case["samples"], case["sems"], "below", 0.8, case["independent"])
        halves, full = split_half(*args), calibrated_fit(*args)
        assert halves["replicates"] == [[0, 1, 2], [3, 4, 5]]
        for name in ("critical", "exponent"):
            first, second = halves[name]["halves"]
            disagreements += not halves[name]["agree"]
            ratios.append(np.mean([first["half_width"], second["half_width"]])
                          / full[name]["half_width"])
    assert disagreements <= 2
    assert np.median(ratios) > 1
