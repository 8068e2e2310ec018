"""Time-series statistics against analytic cases."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.metrics import (
    binder_cumulant,
    first_passage_time,
    integrated_autocorrelation_time,
    replicate_average,
    series_statistics,
    susceptibility,
)


def _ar1(phi, n, rng):
    noise = rng.normal(size=n)
    series = np.empty(n)
    series[0] = noise[0] / np.sqrt(1 - phi**2)
    for t in range(1, n):
        series[t] = phi * series[t - 1] + noise[t]
    return series


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_integrated_autocorrelation_time_of_ar1(phi):
    # AR(1): rho(t) = phi^t, tau_int = (1 + phi) / (1 - phi). Tolerance 10 %.
    rng = np.random.default_rng(1)
    tau = integrated_autocorrelation_time(_ar1(phi, 200_000, rng))
    assert tau == pytest.approx((1 + phi) / (1 - phi), rel=0.1)


def test_standard_error_covers_the_true_mean_at_nominal_rate():
    # 68 % of 1-sigma intervals from correlated series should contain the true mean 0.
    rng = np.random.default_rng(2)
    hits = 0
    trials = 200
    for _ in range(trials):
        stats = series_statistics(_ar1(0.8, 4000, rng) + 0.0, 1)
        hits += abs(stats.mean) < stats.sem
    # binomial(200, 0.68): standard deviation 6.6 hits; allow 3 sigma
    assert abs(hits - 0.68 * trials) < 20


def test_constant_series():
    stats = series_statistics(np.full(1000, 0.7), 100)
    assert stats.mean == pytest.approx(0.7)
    assert stats.tau == 1.0
    assert stats.sem < 1e-15
    assert stats.susceptibility == pytest.approx(0.0, abs=1e-12)
    assert stats.binder_cumulant == pytest.approx(2 / 3)


def test_binder_cumulant_of_a_two_dimensional_gaussian_order_parameter():
    # v = |(g1, g2)|, g Gaussian: <v^4> = 2 <v^2>^2, so G = 1 - 2/3 = 1/3.
    rng = np.random.default_rng(3)
    v = np.hypot(*rng.normal(size=(2, 400_000)))
    stats = series_statistics(v, 10)
    assert stats.binder_cumulant == pytest.approx(1 / 3, abs=0.005)
    assert abs(stats.binder_cumulant - 1 / 3) < 4 * stats.binder_cumulant_err


def test_susceptibility_and_binder_formulas():
    assert susceptibility(0.5, 0.3, 100) == pytest.approx(100 * (0.3 - 0.25))
    assert binder_cumulant(0.5, 0.5) == pytest.approx(1 - 0.5 / 0.75)


def test_replicate_average_of_the_mean_is_the_standard_error_across_seeds():
    rng = np.random.default_rng(4)
    m1 = rng.random((3, 5))
    m2 = m1**2 + 0.01
    m4 = m2**2 * 1.1
    zeros = np.zeros_like(m1)
    result = replicate_average(m1, m2, m4, zeros, zeros, zeros, np.full(3, 100.0))
    np.testing.assert_allclose(result["order_parameter"], m1.mean(axis=1))
    np.testing.assert_allclose(result["order_parameter_err"],
                               m1.std(axis=1, ddof=1) / np.sqrt(5))
    pooled_chi = 100 * (m2.mean(axis=1) - m1.mean(axis=1) ** 2)
    np.testing.assert_allclose(result["susceptibility"], pooled_chi)


def test_replicate_average_with_one_seed_uses_the_run_errors():
    one = np.ones((2, 1))
    result = replicate_average(0.5 * one, 0.3 * one, 0.1 * one, 0.01 * one, 0.2 * one,
                               0.03 * one, np.full(2, 10.0))
    np.testing.assert_allclose(result["order_parameter_err"], 0.01)
    np.testing.assert_allclose(result["susceptibility_err"], 0.2)
    np.testing.assert_allclose(result["binder_cumulant_err"], 0.03)


def test_first_passage_time_and_censoring():
    series = np.array([0.05, 0.3, 0.79, 0.8, 0.6, 0.95])
    assert first_passage_time(series, 0.8) == 3  # reaching the level counts
    assert first_passage_time(series, 0.05) == 0
    assert first_passage_time(series, 0.99) == series.size  # never: steps + 1
