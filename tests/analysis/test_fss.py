"""Pieces of the finite-size scaling (flocklab.analysis.fss) against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.analysis import fss

X_PEAK = 2.33
X = np.linspace(0.0, 4.0, 41)


def _moments_with_parabolic_chi(n_particles: float, seeds: int, sizes: int = 2):
    """Per-run moments whose chi = N (<P^2> - <P>^2) is 5 - (x - X_PEAK)^2 in every run."""
    m1 = np.full((sizes, X.size, seeds), 0.5)
    m2 = (0.25 + (5.0 - (X - X_PEAK) ** 2) / n_particles)[None, :, None] + 0.0 * m1
    return m1, m2, np.full((sizes, X.size), n_particles)


def test_peak_bootstrap_of_identical_seeds_is_the_parabola_vertex():
    # Every resample of identical runs gives chi = 5 - (x - 2.33)^2, whose three-point
    # parabola is exact: the 68 % interval collapses onto the vertex x* = 2.33.
    m1, m2, n = _moments_with_parabolic_chi(400.0, seeds=3)
    intervals = fss.peak_bootstrap(X, m1, m2, n, 10, np.random.default_rng(0))
    assert intervals.shape == (2, 2)
    np.testing.assert_allclose(intervals, X_PEAK, atol=1e-9)
    # one seed: no bootstrap (N is then not needed)
    m1, m2, _ = _moments_with_parabolic_chi(400.0, seeds=1)
    assert np.isnan(fss.peak_bootstrap(X, m1, m2, None, 10, np.random.default_rng(0))).all()


def test_binder_crossings_of_straight_lines_and_the_ordered_plateau():
    # G1 - G2 = (0.6 - 0.1 x) - (0.7 - 0.15 x) = 0.05 x - 0.1: zero at x = 2 (between grid
    # points of a grid with step 0.3, so the linear interpolation is exact for lines).
    x = np.arange(0.1, 4.0, 0.3)
    assert fss.binder_crossings(x, 0.6 - 0.1 * x, 0.7 - 0.15 * x) == pytest.approx([2.0])
    # both within 0.02 of 2/3: touching on the ordered plateau is no crossing
    plateau = np.full(x.size, 2 / 3)
    assert fss.binder_crossings(x, plateau, plateau + 0.01 * np.sin(5 * x)) == []
    # a crossing exactly on a grid point is reported once, at that point
    grid = np.array([0.0, 1.0, 2.0, 3.0])
    assert fss.binder_crossings(grid, 0.5 - 0.125 * grid, 0.25 + 0.0 * grid) == [2.0]


def _linear_scaling(sizes, critical=2.5, beta_over_nu=0.3, inverse_nu=0.8):
    """P_L(x) = L^(-beta/nu) (0.5 - 0.1 (x - x_c) L^(1/nu)): a linear scaling function, so
    the collapse's linear interpolation between scaled points is exact."""
    x = np.round(np.arange(2.0, 3.01, 0.05), 10)
    scaled = (x[None, :] - critical) * sizes[:, None] ** inverse_nu
    return x, sizes[:, None] ** (-beta_over_nu) * (0.5 - 0.1 * scaled)


def test_collapse_quality_of_an_exact_linear_scaling_form_is_zero():
    sizes = np.array([8.0, 16.0, 32.0])
    x, v = _linear_scaling(sizes)
    err = np.full(v.shape, 0.01)
    # at the true exponents every scaled point lies on Y = 0.5 - 0.1 X: S = 0
    assert fss.collapse_quality([2.5, 0.3, 0.8], x, v, err, sizes, 0.2) == pytest.approx(
        0.0, abs=1e-20)
    assert fss.collapse_quality([2.5, 0.4, 0.8], x, v, err, sizes, 0.2) > 1.0
    # no scaled point covered by another size: undefined, inf
    assert fss.collapse_quality([2.5, 0.3, 0.8], x, v, err, sizes, 0.0) == np.inf


def test_collapse_bootstrap_of_identical_seeds_stays_at_the_optimum():
    sizes = np.array([8.0, 16.0, 32.0])
    x, v = _linear_scaling(sizes)
    err = np.full(v.shape, 0.01)
    best = fss.collapse(x, v, err, sizes, guess=[2.45, 0.35, 0.9], window=0.2)
    assert (best.critical, best.beta_over_nu, best.inverse_nu) == pytest.approx(
        (2.5, 0.3, 0.8), abs=2e-3)
    m1 = np.repeat(v[..., None], 3, axis=2)   # three identical seeds
    rows = fss.collapse_bootstrap(x, m1, sizes, best, 0.2, 4, np.random.default_rng(1), err)
    assert rows.shape == (4, 3)
    np.testing.assert_allclose(
        rows, np.tile([best.critical, best.beta_over_nu, best.inverse_nu], (4, 1)), atol=1e-3)
    assert fss.collapse_bootstrap(x, m1[..., :1], sizes, best, 0.2, 4,
                                  np.random.default_rng(1), err).shape == (0, 3)


def test_extrapolation_entry_and_the_collapse_start():
    # x_c(L) = 2 + 1.5 L^(-0.7) exactly
    lengths = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    peaks = np.column_stack([2.0 + 1.5 * lengths ** (-0.7), np.ones(5)])
    err = np.full(5, 1e-4)
    scalars, entry, guess = fss.extrapolation_entry(lengths, peaks, err, np.linspace(1, 3, 9))
    assert scalars == entry
    assert scalars["inf"] == pytest.approx(2.0, abs=1e-3)
    assert scalars["inverse_nu"] == pytest.approx(0.7, abs=0.01)
    assert scalars["extrapolation_amplitude"] == pytest.approx(1.5, rel=0.02)
    assert guess == [scalars["inf"], 0.5, scalars["inverse_nu"]]
    # x_c(inf) outside the control range: start at the largest size's peak
    _, _, guess = fss.extrapolation_entry(lengths, peaks, err, np.linspace(2.5, 3, 9))
    assert guess == [peaks[-1, 0], 0.5, 1.0]
    # three sizes: no extrapolation, the reason instead
    scalars, entry, guess = fss.extrapolation_entry(lengths[:3], peaks[:3], err[:3],
                                                    np.linspace(1, 3, 9))
    assert scalars == {} and ">= 4 sizes" in entry["error"]
    assert guess == [peaks[2, 0], 0.5, 1.0]
