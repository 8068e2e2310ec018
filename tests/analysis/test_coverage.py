"""The 68 % intervals of the critical fits contain the truth in 68 % of synthetic studies.

Synthetic studies (:mod:`flocklab.analysis.coverage`): known x_c and exponent, a transition
rounded over a random width by a Gaussian or logistic spread of pseudo-critical points
(a shape the fit does not assume in half of them), AR(1)-correlated runs whose errors come
from their own tau_int, 3, 4 or 6 replicates, for an observable ordered below x_c (noise)
and above it (density). Every case uses a fixed seed, so the tests are deterministic.

* fast lane: 60 cases per side; the coverage must lie within 2.5 binomial standard errors
  of 0.68 (sqrt(0.68 * 0.32 / 60) = 6.0 points, so within 15 points: the pure power-law fit
  with a seed bootstrap, which covered the truth in under half of such cases, fails);
* slow lane: 600 cases per side, within 7 points of 0.68 (3.7 binomial standard errors).
"""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.analysis.coverage import draw_truth, measure_coverage, synthetic_case
from flocklab.analysis.rounded import calibrated_fit, split_half

NOMINAL = 0.68


def _check(report: dict, tolerance: float) -> None:
    assert report["refused"] <= 0.05 * report["cases"], report
    for name in ("critical", "exponent"):
        entry = report[name]
        assert abs(entry["coverage"] - NOMINAL) <= tolerance, (name, entry)
        # intervals that say something: a median half-width under 10 % of the truth
        assert entry["median_relative_half_width"] < 0.10, (name, entry)


@pytest.mark.parametrize("side", ["below", "above"])
def test_intervals_cover_the_truth_fast(side):
    report = measure_coverage(60, side, seed=7)
    _check(report, 2.5 * np.sqrt(NOMINAL * (1 - NOMINAL) / report["fitted"]))


@pytest.mark.slow
@pytest.mark.parametrize("side", ["below", "above"])
def test_intervals_cover_the_truth_slow(side):
    _check(measure_coverage(600, side, seed=2026), 0.07)


def test_split_halves_of_one_study_agree_and_differ_by_their_noise():
    rng = np.random.default_rng(3)
    truth = {**draw_truth(rng, "below"), "replicates": 6, "width": 0.03}
    case = synthetic_case(rng, "below", truth)
    halves = split_half(case["x"], case["samples"], case["sems"], "below", 0.8,
                        case["independent"])
    full = calibrated_fit(case["x"], case["samples"], case["sems"], "below", 0.8,
                          case["independent"])
    for name in ("critical", "exponent"):
        first, second = halves[name]["halves"]
        assert halves[name]["agree"] is True and halves[name]["z"] <= 2
        # each half has fewer seeds: its interval is wider than the full study's
        assert min(first["half_width"], second["half_width"]) > full[name]["half_width"]
    assert halves["replicates"] == [[0, 1, 2], [3, 4, 5]]
