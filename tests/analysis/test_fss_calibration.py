"""The finite-size scaling intervals cover exactly known answers at their stated rate.

Slow lane: 50 independent copies of a finite-size study of the 2-D Ising model (Wolff
clusters, L = 24 … 64, 4 replicates of 3000 steps at 12 points per size) are analysed, and
the 68 % intervals must hold the exact T_c, nu, beta/nu and gamma/nu in 55–80 % of copies
each (a binomial standard error of 6.6 points at 50 copies: an interval 40 % too narrow or too
wide fails). The three-state Potts model then checks that the tool returns that model's
nu = 5/6, not Ising's 1. About 15 minutes on two cores.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.validation import calibrate, coverage

pytestmark = pytest.mark.slow

ISING = {"x_c": 2.0 / math.log(1.0 + math.sqrt(2.0)), "nu": 1.0, "beta_over_nu": 0.125,
         "gamma_over_nu": 1.75}
POTTS = {"x_c": 1.0 / math.log(1.0 + math.sqrt(3.0)), "nu": 5.0 / 6.0,
         "beta_over_nu": 2.0 / 15.0, "gamma_over_nu": 26.0 / 15.0}
SETTINGS = {"resamples": 200, "collapse": False}


def test_intervals_cover_the_exact_ising_values_at_their_stated_rate():
    copies = calibrate("ising", "T", [24, 32, 48, 64], ISING["x_c"], 1.0, range(1000, 1050),
                       steps=3000, replicates=4, settings=SETTINGS, workers=2)
    table = coverage(copies, ISING)
    for name, row in table.items():
        assert row["n"] == 50, (name, row)                       # nothing refused
        assert 0.55 <= row["covered"] <= 0.80, (name, row)
        # the intervals are as wide as the spread of the estimates (within 35 %)
        assert 0.65 < 2 * row["median_half_width"] / (2 * row["sd"]) < 1.35, (name, row)


def test_the_potts_model_gives_its_own_exponents_not_isings():
    copies = calibrate("potts", "T", [16, 32, 64], POTTS["x_c"], 1.2, range(2000, 2004),
                       params={"q": 3, "clusters": 8}, steps=3000, replicates=4,
                       settings=SETTINGS, workers=2)
    nu = np.array([c["nu"]["value"] for c in copies])
    half = np.array([(c["nu"]["ci"][1] - c["nu"]["ci"][0]) / 2 for c in copies])
    # the mean of four copies lies within 3 of its standard errors of 5/6 and more than 3
    # away from Ising's 1
    error = half.mean() / math.sqrt(len(copies))
    assert abs(nu.mean() - POTTS["nu"]) < 3 * error
    assert abs(nu.mean() - 1.0) > 3 * error
    x_c = np.array([c["x_c"]["value"] for c in copies])
    assert abs(x_c.mean() - POTTS["x_c"]) < 0.003
