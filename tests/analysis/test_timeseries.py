r"""Time-series statistics of :mod:`flocklab.analysis.timeseries` against closed forms.

Every assertion compares with a number derived from theory. Two kinds of test:

* **exact** tests on hand-made or deterministic series (closed-form finite-sample
  values); tolerance ``rel=1e-12`` (round-off only), so an error of any size in a
  formula, constant or factor fails them;
* **statistical** tests on random series with fixed seeds; the tolerance is the
  standard error of the estimator at the sample size used (closed form given in each
  test), times 4 (two-sided Gaussian tail 6e-5 per assertion), plus any known
  deterministic bias of the estimator, which is stated.

AR(1) series ``x_t = phi x_{t-1} + e_t`` (``e_t ~ N(0, 1)``, started from the stationary
law) are generated with :func:`scipy.signal.lfilter`; their closed forms:
``rho(t) = phi^t``, ``sigma^2 = 1 / (1 - phi^2)``, ``tau_int = (1 + phi) / (1 - phi)``.

Standard errors used below (references: Priestley, *Spectral analysis and time
series* (1981) §5.3 for Bartlett's formula; Madras & Sokal, J. Stat. Phys. 50, 109
(1988) eq. (2.19)/(A.15) for the window estimator of tau_int):

* ``Var rho_hat(t) = (1/n) [(1 + phi^2)(1 - phi^{2t}) / (1 - phi^2) - 2 t phi^{2t}]``
  (Bartlett, AR(1));
* ``Var tau_hat / tau^2 = 2 (2 W + 1) / n`` with ``W`` the window;
* ``Var s^2 / sigma^4 = (2/n) sum_k rho(k)^2 = (2/n) (1 + phi^2) / (1 - phi^2)``.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, fields

import numpy as np
import pytest
from scipy.signal import lfilter
from scipy.stats import norm

from flocklab.analysis.timeseries import (
    JACKKNIFE_BLOCKS,
    SeriesStatistics,
    binder_cumulant,
    first_passage_time,
    primary_variables,
    replicate_average,
    run_variables,
    series_statistics,
    summary_quantities,
    susceptibility,
)
from flocklab.core.autocorrelation import (
    SOKAL_WINDOW,
    autocorrelation,
    integrated_autocorrelation_time,
)
from flocklab.core.model import Metric, Observable

EXACT = 1e-12
#: Multiple of the standard error allowed in statistical tests (two-sided 6e-5).
Z = 4.0


# --------------------------------------------------------------------------- helpers


def ar1(phi: float, shape: int | tuple[int, ...], seed: int) -> np.ndarray:
    """Stationary Gaussian AR(1) series along the last axis (vectorised, lfilter)."""
    noise = np.random.default_rng(seed).normal(size=shape)
    noise[..., 0] /= np.sqrt(1.0 - phi**2)  # x_0 ~ N(0, 1 / (1 - phi^2))
    return lfilter([1.0], [1.0, -phi], noise, axis=-1)


LONG = 1 << 21  # 2.1e6 samples


@functools.cache
def long_ar1(phi: float) -> np.ndarray:
    """One long AR(1) series per phi, shared by the tau, sem and rho tests."""
    series = ar1(phi, LONG, seed=1000 + round(100 * phi))
    series.flags.writeable = False
    return series



def tau_ar1(phi: float) -> float:
    return (1 + phi) / (1 - phi)


def rho_direct(x: np.ndarray) -> np.ndarray:
    """Reference rho_hat(t) = sum_s c_s c_{s+t} / sum_s c_s^2, c = x - mean (np.correlate)."""
    c = np.asarray(x, float) - np.mean(x)
    acov = np.correlate(c, c, mode="full")[c.size - 1:]
    return acov / acov[0]


def sokal_reference(rho: np.ndarray, c: float) -> tuple[float, int]:
    """tau(W) = 1 + 2 sum_{t<=W} rho(t), smallest W >= c tau(W); clipped to [1/n, n]."""
    n = rho.size
    partial = 1.0 + 2.0 * np.cumsum(rho[1:])  # partial[W-1] = tau(W)
    windows = np.arange(1, n)
    closed = np.flatnonzero(windows >= c * partial)
    if closed.size:
        w = int(windows[closed[0]])
        tau = float(partial[closed[0]])
    else:
        w, tau = n - 1, float(partial[-1]) if n > 1 else 1.0
    return min(max(tau, 1.0 / n), n), w


def sinusoid_rho(n: int, m: int) -> np.ndarray:
    r"""Closed-form rho_hat of x_t = cos(w t), t = 0..n-1, w = 2 pi m / n (0 < m < n/2).

    The mean is 0 exactly and sum x^2 = n/2; with sum_{s<n-t} cos(w s) cos(w (s+t))
    = (n-t) cos(wt)/2 + (1/2) sum_{s<n-t} cos(w(2s+t)) and the last sum
    = sin((n-t) w) cos((n-1) w) / sin w = -sin(w t) cos(w) / sin(w):
    ``rho_hat(t) = [(n - t) cos(w t) - sin(w t) cot(w)] / n``.
    """
    w = 2 * np.pi * m / n
    t = np.arange(n)
    return ((n - t) * np.cos(w * t) - np.sin(w * t) / np.tan(w)) / n


# --------------------------------------------------------------------------- autocorrelation


@pytest.mark.parametrize("n", [2, 5, 37, 64, 1000])
def test_autocorrelation_equals_the_direct_biased_estimator(n):
    # Exact: the FFT (zero-padded, no circular wrap) must equal the O(n^2) definition.
    x = np.random.default_rng(n).normal(size=n) + 3.0
    rho = autocorrelation(x)
    np.testing.assert_allclose(rho, rho_direct(x), rtol=0, atol=1e-12)
    assert rho[0] == pytest.approx(1.0, abs=EXACT)


def test_autocorrelation_lags_sum_to_minus_one_half():
    # Exact identity of the biased estimator: sum over all lags -(n-1)..(n-1) of the
    # centred autocovariance is (sum c)^2 / n = 0, so sum_{t=1}^{n-1} rho_hat(t) = -1/2.
    # (This is why tau(n-1) = 0 for every series.)
    for n in (2, 3, 17, 500):
        x = np.random.default_rng(n).random(n)
        assert autocorrelation(x)[1:].sum() == pytest.approx(-0.5, abs=EXACT)


@pytest.mark.parametrize("n", [0, 1, 3, 100])
def test_autocorrelation_of_a_constant_series_is_a_unit_impulse(n):
    rho = autocorrelation(np.full(n, 0.7))
    expected = np.zeros(n)
    expected[:1] = 1.0
    np.testing.assert_array_equal(rho, expected)


@pytest.mark.parametrize(("n", "m"), [(1000, 5), (999, 7), (256, 3)])
def test_autocorrelation_of_a_sinusoid_closed_form(n, m):
    # Exact finite-sample value (derivation in sinusoid_rho) at every lag ...
    x = np.cos(2 * np.pi * m / n * np.arange(n))
    rho = autocorrelation(x)
    np.testing.assert_allclose(rho, sinusoid_rho(n, m), rtol=0, atol=1e-10)
    # ... and the large-n limit cos(w t): |rho_hat - cos(w t)| <= (t + |cot w|) / n.
    w = 2 * np.pi * m / n
    t = np.arange(20)
    assert np.all(np.abs(rho[t] - np.cos(w * t)) <= (t + abs(1 / np.tan(w))) / n + 1e-12)


@pytest.mark.parametrize("phi", [0.5, 0.9])
def test_autocorrelation_of_ar1_is_phi_to_the_lag(phi):
    # rho(t) = phi^t. Tolerance: 4 x Bartlett's standard error (module docstring) plus
    # the O(1/n) bias of the biased estimator, |bias| <= (t + tau) / n.
    n = LONG
    rho = autocorrelation(long_ar1(phi))
    for t in (1, 2, 5, 10, 20):
        var = ((1 + phi**2) * (1 - phi ** (2 * t)) / (1 - phi**2)
               - 2 * t * phi ** (2 * t)) / n
        tol = Z * np.sqrt(var) + (t + tau_ar1(phi)) / n
        assert rho[t] == pytest.approx(phi**t, abs=tol), t


# --------------------------------------------------------------------------- tau_int


def test_sokal_constant_is_five():
    assert SOKAL_WINDOW == 5.0


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_integrated_autocorrelation_time_of_ar1(phi):
    # tau_int = (1 + phi) / (1 - phi) = 1, 3, 19. Window W ~ 5 tau (5, 15, 95).
    # Standard error: tau sqrt(2 (2W + 1) / n) = 0.3 %, 0.5 %, 1.3 % at n = 2^21.
    # Biases (both negative): truncation 2 phi^{W+1} / (1 - phi) (< 1e-3) and the
    # mean-subtraction / 1 - t/n bias of rho_hat, (2 W tau + 2 phi/(1-phi)^2) / n (< 2e-3).
    n, tau = LONG, tau_ar1(phi)
    w = math.ceil(SOKAL_WINDOW * tau)
    sigma = tau * np.sqrt(2 * (2 * w + 1) / n)
    bias = 2 * phi ** (w + 1) / (1 - phi) + (2 * w * tau + 2 * phi / (1 - phi) ** 2) / n
    got = integrated_autocorrelation_time(long_ar1(phi))
    assert got == pytest.approx(tau, abs=Z * sigma + bias)


def test_integrated_autocorrelation_time_of_white_noise_is_one():
    # tau = 1, W = 5: standard error sqrt(2 * 11 / n); bias -2 W / n (mean subtraction).
    n = 1 << 18
    x = np.random.default_rng(7).normal(size=n)
    assert integrated_autocorrelation_time(x) == pytest.approx(
        1.0, abs=Z * np.sqrt(22 / n) + 10 / n)


@pytest.mark.parametrize("n", [6, 10, 20, 50])
def test_sokal_window_on_a_spike_closed_form(n):
    r"""Exact: x = (1, 0, ..., 0) has rho_hat(t) = -t / (n (n - 1)).

    Centred values c_0 = 1 - 1/n, c_s = -1/n: sum c^2 = (n-1)/n and
    sum_s c_s c_{s+t} = -(1 - 1/n)/n + (n-1-t)/n^2 = -t/n^2. Hence
    tau(W) = 1 - W (W + 1) / (n (n - 1)); the window is the smallest W with
    W >= 5 tau(W). For n = 10: tau(3) = 13/15 > 3/5, tau(4) = 7/9 <= 4/5, so
    tau_int = 7/9 (with c = 6 it would be tau(5) = 2/3; with a factor 1.9 instead of 2,
    1 - 1.9 * 10/90 = 0.789).
    """
    x = np.zeros(n)
    x[0] = 1.0
    w_all = np.arange(1, n)
    tau_w = 1 - w_all * (w_all + 1) / (n * (n - 1))
    window = w_all[np.flatnonzero(w_all >= 5 * tau_w)[0]]
    expected = tau_w[window - 1]
    assert integrated_autocorrelation_time(x) == pytest.approx(expected, rel=EXACT)
    # any affine image a + b x has the same rho, hence the same tau
    assert integrated_autocorrelation_time(3.0 - 0.25 * x) == pytest.approx(expected, rel=EXACT)
    if n == 10:
        assert expected == pytest.approx(7 / 9, rel=EXACT)


@pytest.mark.parametrize(("n", "m"), [(1000, 5), (2000, 3), (4096, 7)])
def test_sokal_window_on_a_sinusoid_closed_form(n, m):
    # Exact truncated sum 1 + 2 sum_{t<=W} rho_hat(t) with rho_hat in closed form
    # (sinusoid_rho) and W from Sokal's rule, c = 5. The partial sums of cos(w t) swing
    # by ~1/w, so the result depends strongly on c (> 2 %, asserted below). A factor 1.9
    # instead of 2 moves it less (0.4-1.6 %: near the crossing tau(W) ~ W/5 the window
    # barely moves), still 1e6 times the tolerance (also asserted).
    x = np.cos(2 * np.pi * m / n * np.arange(n))
    rho = sinusoid_rho(n, m)
    expected, _ = sokal_reference(rho, 5.0)
    assert integrated_autocorrelation_time(x) == pytest.approx(expected, rel=1e-9)
    assert abs(sokal_reference(rho, 6.0)[0] / expected - 1) > 0.02
    assert abs(sokal_reference(0.95 * rho, 5.0)[0] / expected - 1) > 1e-3


@pytest.mark.parametrize("c", [1.0, 2.0, 5.0, 10.0])
def test_sokal_window_on_an_ar1_realisation_exact(c):
    # Exact truncated sum on one fixed AR(1) realisation (phi = 0.9, n = 3000), rho_hat
    # from np.correlate, for the default and explicit window constants.
    x = ar1(0.9, 3000, seed=11)
    rho = rho_direct(x)
    expected, _ = sokal_reference(rho, c)
    assert integrated_autocorrelation_time(x, window_constant=c) == pytest.approx(
        expected, rel=1e-9)
    if c == 5.0:
        assert integrated_autocorrelation_time(x) == pytest.approx(expected, rel=1e-9)


def test_tau_bounds_for_very_short_series():
    # Closed forms: n = 1 -> 1 (no lag); n = 2 -> rho_hat(1) = -1/2, tau(1) = 0,
    # floored to 1/n; alternating +-1 (n even) -> rho_hat(1) = -(n-1)/n, tau(1) < 0 -> 1/n;
    # a ramp of 3 or 4 -> tau reaches tau(n-1) = 0 (the lags sum to -1/2) -> 1/n.
    # The cap n cannot bind for c >= 1 (the window closes only with tau <= W/c < n);
    # it is checked as a bound on many random short series.
    assert integrated_autocorrelation_time(np.array([0.3])) == 1.0
    assert integrated_autocorrelation_time(np.array([0.3, 0.9])) == pytest.approx(0.5)
    for n in (2, 4, 10, 100):
        alternating = np.resize([1.0, -1.0], n)
        assert integrated_autocorrelation_time(alternating) == pytest.approx(1 / n, rel=EXACT)
    for n in (3, 4):
        assert integrated_autocorrelation_time(np.arange(n, dtype=float)) == pytest.approx(
            1 / n, rel=EXACT)
    assert integrated_autocorrelation_time(np.full(3, 2.0)) == 1.0
    rng = np.random.default_rng(12)
    for n in range(1, 13):
        for c in (0.1, 1.0, 5.0):
            for x in (rng.normal(size=n), np.cumsum(rng.normal(size=n))):
                tau = integrated_autocorrelation_time(x, window_constant=c)
                assert 1 / n - 1e-15 <= tau <= n


# --------------------------------------------------------------------------- sem


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_sem_of_ar1_matches_the_analytic_standard_error(phi):
    # sem = sqrt(tau sigma^2 / n) with tau = (1+phi)/(1-phi), sigma^2 = 1/(1-phi^2).
    # Relative standard error of sem <= (1/2)(sqrt(2(2W+1)/n) + sqrt(2(1+phi^2)/((1-phi^2)n)))
    # (sum of the two relative errors: conservative for correlated errors); plus half
    # the relative bias of tau (see the tau test).
    n, tau = LONG, tau_ar1(phi)
    x = long_ar1(phi)
    stats = series_statistics(x, 1)
    expected = np.sqrt(tau / (1 - phi**2) / n)
    w = math.ceil(SOKAL_WINDOW * tau)
    rel = 0.5 * (np.sqrt(2 * (2 * w + 1) / n) + np.sqrt(2 * (1 + phi**2) / (1 - phi**2) / n))
    rel_bias = 0.5 * (2 * phi ** (w + 1) / (1 - phi) + 2 * w * tau / n) / tau
    assert stats.sem == pytest.approx(expected, rel=Z * rel + rel_bias)
    assert stats.mean == pytest.approx(0.0, abs=Z * expected)
    assert stats.samples == n


def test_sem_coverage_of_ar1_series():
    r"""Coverage of mean +- z sem over M = 1000 independent AR(1) series (phi = 0.8, n = 4096).

    True mean 0; x_bar is exactly Gaussian with variance tau sigma^2/n (1 - O(1/n)).
    Nominal coverage 2 Phi(z) - 1: 0.6827 (z = 1), 0.9545 (z = 2). The estimated sem
    sqrt(tau_hat s^2/n) has relative error eps with E eps ~ -1.7 % (bias of tau_hat,
    -(2 W tau + 2 phi/(1-phi)^2)/n = -2.3 %, halved, and Jensen -Var(tau_hat)/(8 tau^2))
    and E eps^2 ~ 0.011 (rel. s.d. of tau_hat sqrt(2(2W+1)/n) = 0.21, halved). Expanding
    2 Phi(z (1 + eps)) - 1, the expected coverage is lower by
    2 z phi(z) |E eps| + z^3 phi(z) E eps^2 = 0.011 (z = 1) and 0.009 (z = 2).
    Tolerance: 4 binomial standard errors sqrt(p (1 - p)/M) plus that shift.
    (Without the tau correction the z = 1 coverage would be 2 Phi(1/3) - 1 = 0.26.)
    """
    m, n, phi = 1000, 4096, 0.8
    series = ar1(phi, (m, n), seed=21)
    ratio = np.array([abs(s.mean) / s.sem for s in map(lambda r: series_statistics(r, 1),
                                                        series)])
    for z, shift in ((1.0, 0.011), (2.0, 0.009)):
        p = 2 * norm.cdf(z) - 1
        coverage = np.mean(ratio < z)
        assert coverage == pytest.approx(p, abs=Z * np.sqrt(p * (1 - p) / m) + shift), z


# --------------------------------------------------------------------------- chi and G


def test_susceptibility_and_binder_formulas():
    assert susceptibility(0.5, 0.3, 100) == pytest.approx(100 * (0.3 - 0.25), rel=EXACT)
    assert binder_cumulant(0.5, 0.5) == pytest.approx(1 - 0.5 / 0.75, rel=EXACT)
    np.testing.assert_allclose(susceptibility(np.array([0.1, 0.2]), np.array([0.02, 0.05]),
                                              np.array([10.0, 20.0])), [0.1, 0.2], rtol=EXACT)
    np.testing.assert_allclose(binder_cumulant(np.array([1.0, 2.0]), np.array([1.0, 12.0])),
                               [2 / 3, 0.0], rtol=EXACT, atol=EXACT)


@pytest.mark.parametrize("a", [0.3, 1.0, 7.5])
def test_two_valued_series(a):
    # +-a with a fraction p of +a: m2 = a^2, m4 = a^4 -> G = 1 - 1/3 = 2/3 exactly;
    # m1 = (2p - 1) a -> chi = N a^2 (1 - (2p - 1)^2) = 4 p (1 - p) N a^2.
    n_plus, n_minus, N = 30, 10, 50
    x = np.r_[np.full(n_plus, a), np.full(n_minus, -a)]
    p = n_plus / (n_plus + n_minus)
    stats = series_statistics(x, N)
    assert stats.binder_cumulant == pytest.approx(2 / 3, rel=EXACT)
    assert stats.susceptibility == pytest.approx(4 * p * (1 - p) * N * a**2, rel=EXACT)
    assert stats.m2 == pytest.approx(a**2, rel=EXACT)
    assert stats.m4 == pytest.approx(a**4, rel=EXACT)


def test_constant_series():
    # sigma = 0: chi = 0, tau = 1 (rho is a unit impulse), sem = 0, G = 1 - v^4/(3 v^4).
    stats = series_statistics(np.full(1000, 0.7), 100)
    assert stats.mean == pytest.approx(0.7, rel=EXACT)
    assert stats.tau == 1.0
    assert stats.sem < 1e-15
    assert stats.susceptibility == pytest.approx(0.0, abs=1e-12)
    assert stats.binder_cumulant == pytest.approx(2 / 3, rel=EXACT)
    assert stats.susceptibility_err == pytest.approx(0.0, abs=1e-12)
    assert stats.binder_cumulant_err == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("n", [100, 1001, 1 << 14])
def test_uniform_grid_moments_exact(n):
    r"""Midpoints x_i = (i + 1/2)/n of [0, 1] (Euler-Maclaurin, exact for polynomials):

    m1 = 1/2, m2 = 1/3 - 1/(12 n^2), m4 = 1/5 - 1/(6 n^2) + 7/(240 n^4)
    -> chi = N (1/12 - 1/(12 n^2)), G = 1 - m4 / (3 m2^2) -> 1 - (1/5)/(3 (1/3)^2) = 0.4.
    """
    N = 40
    x = (np.arange(n) + 0.5) / n
    m2 = 1 / 3 - 1 / (12 * n**2)
    m4 = 1 / 5 - 1 / (6 * n**2) + 7 / (240 * n**4)
    stats = series_statistics(x, N)
    assert stats.mean == pytest.approx(0.5, rel=EXACT)
    assert stats.m2 == pytest.approx(m2, rel=1e-12)
    assert stats.m4 == pytest.approx(m4, rel=1e-12)
    assert stats.susceptibility == pytest.approx(N * (1 / 12 - 1 / (12 * n**2)), rel=1e-10)
    assert stats.binder_cumulant == pytest.approx(1 - m4 / (3 * m2**2), rel=1e-12)
    # the limit: |G - 0.4| = O(1/n^2)
    assert stats.binder_cumulant == pytest.approx(0.4, abs=1 / n**2)
    assert stats.binder_cumulant == pytest.approx(0.4, rel=1e-3)


def test_rayleigh_order_parameter():
    r"""v = |z|, z a 2-D standard Gaussian (sigma = 0.3): Rayleigh.

    u = v^2 ~ sigma^2 Exp(2): E u^k = 2^k k! sigma^{2k}, so <v^2> = 2 sigma^2,
    <v^4> = 8 sigma^4 and G = 1 - 8/(3 * 4) = 1/3; <v> = sigma sqrt(pi/2), so
    chi/N = (2 - pi/2) sigma^2. Delta-method standard errors (n samples):
    sd(m2) = 2 sigma^2/sqrt(n), sd(m4) = sqrt(384 - 64) sigma^4/sqrt(n),
    sd(G) = sqrt(g2^2 Var u + g4^2 Var u^2 + 2 g2 g4 Cov(u, u^2)) / sqrt(n)
          = sqrt(16/9 + 320/144 - 128/36) / sqrt(n) = (2/3)/sqrt(n)
    (g2 = 2 m4/(3 m2^3) = 2/3, g4 = -1/(3 m2^2) = -1/12 at sigma = 1),
    sd(chi/N) = sqrt(Var(v^2 - 2<v> v)) / sqrt(n) = sqrt(4 + 2 pi - pi^2) sigma^2/sqrt(n).
    """
    n, sigma, N = 1 << 20, 0.3, 10
    v = sigma * np.hypot(*np.random.default_rng(3).normal(size=(2, n)))
    stats = series_statistics(v, N)
    root = np.sqrt(n)
    assert stats.m2 == pytest.approx(2 * sigma**2, abs=Z * 2 * sigma**2 / root)
    assert stats.m4 == pytest.approx(8 * sigma**4, abs=Z * np.sqrt(320) * sigma**4 / root)
    assert stats.mean == pytest.approx(sigma * np.sqrt(np.pi / 2),
                                       abs=Z * sigma * np.sqrt((4 - np.pi) / 2) / root)
    assert stats.binder_cumulant == pytest.approx(1 / 3, abs=Z * (2 / 3) / root)
    assert stats.susceptibility == pytest.approx(
        N * (2 - np.pi / 2) * sigma**2, abs=Z * N * np.sqrt(4 + 2 * np.pi - np.pi**2)
        * sigma**2 / root)


def test_jackknife_error_of_chi_for_iid_gaussian_data():
    r"""Block jackknife (20 blocks) vs the exact error of chi for iid Gaussian data.

    (n-1) s^2/sigma^2 ~ chi^2_{n-1} and chi/N = m2 - m1^2 = (n-1) s^2/n, so
    E chi = N sigma^2 (n-1)/n and Var chi = N^2 sigma^4 2 (n-1)/n^2 exactly.
    Over M = 1000 series of n = 2000:
    * mean of chi: relative s.e. sqrt(2/n)/sqrt(M) = 0.1 %;
    * mean of the jackknife variance err^2: with k = 20 blocks err^2 ~ Var chi^2_{19}/19,
      relative s.e. sqrt(2/19)/sqrt(M) = 1.0 % (the jackknife's own bias is O(1/n)).
    """
    m, n, sigma, N = 1000, 2000, 1.5, 50
    x = 0.4 + sigma * np.random.default_rng(31).normal(size=(m, n))
    stats = [series_statistics(row, N) for row in x]
    chi = np.array([s.susceptibility for s in stats])
    err2 = np.array([s.susceptibility_err for s in stats]) ** 2
    var_exact = N**2 * sigma**4 * 2 * (n - 1) / n**2
    assert chi.mean() == pytest.approx(N * sigma**2 * (n - 1) / n,
                                       rel=Z * np.sqrt(2 / n / m))
    assert err2.mean() == pytest.approx(var_exact,
                                        rel=Z * np.sqrt(2 / (JACKKNIFE_BLOCKS - 1) / m))


def test_jackknife_error_of_binder_cumulant_for_rayleigh_data():
    # Delta method (test_rayleigh_order_parameter): Var G = (4/9)/n. Mean of the block
    # jackknife variance over M = 1000 series of n = 2000: relative s.e. sqrt(2/19/M) = 1 %;
    # O(1/n) nonlinearity bias added (1/n relative = 0.05 %).
    m, n = 1000, 2000
    v = np.hypot(*np.random.default_rng(32).normal(size=(2, m, n)))
    err2 = np.array([series_statistics(row, 1).binder_cumulant_err for row in v]) ** 2
    assert err2.mean() == pytest.approx(4 / 9 / n, rel=Z * np.sqrt(2 / 19 / m) + 1 / n)


# --------------------------------------------------------------------------- series_statistics


def test_series_statistics_on_a_hand_computed_series():
    r"""x = (2, 1, 1, 1, 1, 1, 1, 1, 1, 1), N = 100, default 20 blocks -> k = n = 10.

    mean 1.1, m2 = 13/10, m4 = 25/10; s^2 (ddof 1) = 0.9/9 = 0.1; x is 1 + spike, so
    tau = 7/9 (test_sokal_window_on_a_spike_closed_form) and sem = sqrt(7/9 * 0.1/10).
    chi = 100 (1.3 - 1.21) = 9; G = 1 - 2.5/(3 * 1.69).
    Leave-one-out: without the 2, all ones -> chi = 0, G = 2/3; without a 1 (9 times):
    m1 = 10/9, m2 = 4/3, m4 = 8/3 -> chi = 100 * 8/81, G = 1/2. Jackknife
    sqrt((k-1)/k sum (theta_i - theta_bar)^2) = 100 * 4/45 for chi, 3/20 for G.
    """
    x = np.r_[2.0, np.ones(9)]
    stats = series_statistics(x, 100)
    expected = SeriesStatistics(
        mean=1.1, sem=np.sqrt(7 / 9 * 0.1 / 10), tau=7 / 9, m2=1.3, m4=2.5,
        susceptibility=9.0, susceptibility_err=400 / 45,
        binder_cumulant=1 - 2.5 / (3 * 1.69), binder_cumulant_err=0.15, samples=10)
    for field in fields(SeriesStatistics):
        assert getattr(stats, field.name) == pytest.approx(getattr(expected, field.name),
                                                           rel=1e-12), field.name
    assert isinstance(stats.samples, int)
    assert stats.as_dict()["binder_cumulant_err"] == pytest.approx(0.15, rel=1e-12)


@pytest.mark.parametrize(("n", "blocks"), [(10, 3), (23, 5), (100, 20), (7, 7)])
def test_block_jackknife_equals_explicit_leave_block_out(n, blocks):
    # Exact: blocks from int(linspace(0, n, k+1)); each estimate recomputed from the
    # kept samples; error sqrt((k-1)/k sum (theta_i - theta_bar)^2).
    x = np.random.default_rng(n).random(n) + 0.2
    N = 25.0
    edges = np.linspace(0, n, blocks + 1).astype(int)
    chi, g = [], []
    for a, b in itertools.pairwise(edges):
        kept = np.r_[x[:a], x[b:]]
        chi.append(N * (np.mean(kept**2) - np.mean(kept) ** 2))
        g.append(1 - np.mean(kept**4) / (3 * np.mean(kept**2) ** 2))
    k = blocks
    err = [np.sqrt((k - 1) / k * np.sum((np.array(e) - np.mean(e)) ** 2)) for e in (chi, g)]
    stats = series_statistics(x, N, blocks=blocks)
    assert stats.susceptibility_err == pytest.approx(err[0], rel=1e-10)
    assert stats.binder_cumulant_err == pytest.approx(err[1], rel=1e-10)


def test_series_statistics_without_a_size():
    stats = series_statistics(np.random.default_rng(5).random(50), np.nan)
    assert np.isnan(stats.susceptibility) and np.isnan(stats.susceptibility_err)
    assert np.isfinite([stats.mean, stats.sem, stats.binder_cumulant]).all()


@pytest.mark.parametrize("x", [[], [0.5]])
def test_series_statistics_needs_two_samples(x):
    with pytest.raises(ValueError, match="at least two"):
        series_statistics(np.array(x), 10)


def test_series_statistics_two_samples():
    # n = 2: tau = 1/2 (floor, see the short-series test), s^2 = (a-b)^2/2,
    # sem = sqrt(1/2 * s^2 / 2) = |a - b| / (2 sqrt 2); k = 2 leave-one-out: chi_i = 0
    # for both -> err 0; chi = N (a-b)^2/4.
    a, b, N = 0.2, 0.6, 10
    stats = series_statistics(np.array([a, b]), N)
    assert stats.tau == pytest.approx(0.5, rel=EXACT)
    assert stats.sem == pytest.approx(abs(a - b) / (2 * np.sqrt(2)), rel=EXACT)
    assert stats.susceptibility == pytest.approx(N * (a - b) ** 2 / 4, rel=1e-12)
    assert stats.susceptibility_err == pytest.approx(0.0, abs=1e-15)


# --------------------------------------------------------------------------- first passage


SERIES = np.array([0.05, 0.3, 0.79, 0.8, 0.6, 0.95])


def test_first_passage_time_unit_spacing():
    times = np.arange(6.0)
    assert first_passage_time(SERIES, times, 0.8) == 3.0  # reaching the level counts
    assert first_passage_time(SERIES, times, 0.9) == 5.0
    assert first_passage_time(SERIES, times, 0.05) == 0.0  # reached at t = 0
    assert first_passage_time(SERIES, times, -1.0) == 0.0
    # never reached: right-censored at t_end + one interval = steps + 1
    assert first_passage_time(SERIES, times, 0.99) == 6.0
    assert isinstance(first_passage_time(SERIES, times, 0.8), float)


def test_first_passage_time_non_unit_spacing_and_offset():
    times = 2.5 + 0.5 * np.arange(6)  # 2.5, 3.0, ..., 5.0
    assert first_passage_time(SERIES, times, 0.8) == pytest.approx(4.0)
    assert first_passage_time(SERIES, times, 0.0) == pytest.approx(2.5)  # at the first record
    assert first_passage_time(SERIES, times, 0.99) == pytest.approx(5.5)  # 5.0 + 0.5
    times = 10 * np.arange(6)
    assert first_passage_time(SERIES, times, 0.99) == pytest.approx(60.0)


def test_first_passage_time_single_sample():
    times = np.array([7.0])
    assert first_passage_time(np.array([0.9]), times, 0.8) == 7.0
    assert first_passage_time(np.array([0.5]), times, 0.8) == 8.0  # interval defaults to 1


def test_first_passage_time_nan_records_do_not_count():
    # A run stopped at a blow-up leaves NaN records: NaN >= threshold is False.
    series = np.array([0.1, 0.5, np.nan, np.nan])
    assert first_passage_time(series, 0.25 * np.arange(4), 0.8) == pytest.approx(1.0)


# --------------------------------------------------------------------------- replicates


def _replicates(m1, m2, m4, n_particles, sem=None, chi_err=None, g_err=None, **kw):
    m1 = np.asarray(m1, float)
    zeros = np.zeros_like(m1)
    return replicate_average(m1, m2, m4, zeros if sem is None else sem,
                             zeros if chi_err is None else chi_err,
                             zeros if g_err is None else g_err, n_particles,
                             observable="order_parameter", **kw)


def test_replicate_average_two_seeds_by_hand():
    r"""k = 2, N = 100. A: (m1, m2, m4) = (0.5, 0.3, 0.1); B: (0.7, 0.5, 0.3).

    Pooled moments (0.6, 0.4, 0.2): chi = 100 (0.4 - 0.36) = 4 (the mean of the
    per-seed chi, (5 + 1)/2 = 3, would be wrong); G = 1 - 0.2/0.48 = 7/12.
    With k = 2 the leave-one-out estimates are the other seed's, so every jackknife
    error is |f(A) - f(B)|/2: mean 0.1 (= std(ddof=1)/sqrt 2), chi |5 - 1|/2 = 2,
    G |17/27 - 3/5|/2 = 2/135.
    """
    result = _replicates([0.5, 0.7], [0.3, 0.5], [0.1, 0.3], 100.0)
    expected = {"order_parameter": 0.6, "susceptibility": 4.0, "binder_cumulant": 7 / 12,
                "order_parameter_err": 0.1, "susceptibility_err": 2.0,
                "binder_cumulant_err": 2 / 135}
    assert set(result) == set(expected)
    for name, value in expected.items():
        assert float(result[name]) == pytest.approx(value, rel=1e-12), name


@pytest.mark.parametrize("k", [2, 3, 5, 12])
def test_replicate_error_of_the_mean_is_the_standard_error_across_seeds(k):
    # Jackknife of a mean: L_i - L_bar = -(m_i - m_bar)/(k-1), so
    # (k-1)/k sum (L_i - L_bar)^2 = sum (m_i - m_bar)^2 / (k (k-1)) = s^2/k exactly.
    rng = np.random.default_rng(k)
    m1 = rng.random((4, k))
    m2 = m1**2 + 0.01
    result = _replicates(m1, m2, m2**2 * 1.1, np.full(4, 100.0))
    np.testing.assert_allclose(result["order_parameter"], m1.mean(axis=1), rtol=1e-13)
    np.testing.assert_allclose(result["order_parameter_err"],
                               m1.std(axis=1, ddof=1) / np.sqrt(k), rtol=1e-12)


def test_replicate_chi_and_g_errors_equal_explicit_leave_one_seed_out():
    # Exact: recompute chi and G from the pooled moments of the other k-1 seeds.
    k, N = 4, 30.0
    rng = np.random.default_rng(41)
    m1 = 0.5 + 0.1 * rng.random(k)
    m2 = m1**2 + 0.02 * rng.random(k)
    m4 = m2**2 * (1 + 0.3 * rng.random(k))
    chi_i, g_i = [], []
    for i in range(k):
        keep = np.arange(k) != i
        a, b, c = m1[keep].mean(), m2[keep].mean(), m4[keep].mean()
        chi_i.append(N * (b - a * a))
        g_i.append(1 - c / (3 * b * b))
    result = _replicates(m1, m2, m4, N)
    for name, est in (("susceptibility", chi_i), ("binder_cumulant", g_i)):
        est = np.array(est)
        err = np.sqrt((k - 1) / k * np.sum((est - est.mean()) ** 2))
        assert float(result[f"{name}_err"]) == pytest.approx(err, rel=1e-12), name
    assert float(result["susceptibility"]) == pytest.approx(
        N * (m2.mean() - m1.mean() ** 2), rel=1e-12)
    assert float(result["binder_cumulant"]) == pytest.approx(
        1 - m4.mean() / (3 * m2.mean() ** 2), rel=1e-12)


def test_replicate_average_with_one_seed_uses_the_run_errors():
    one = np.ones((2, 1))
    result = _replicates(0.5 * one, 0.3 * one, 0.1 * one, np.full(2, 10.0),
                         sem=0.01 * one, chi_err=0.2 * one, g_err=0.03 * one)
    np.testing.assert_allclose(result["order_parameter"], 0.5, rtol=EXACT)
    np.testing.assert_allclose(result["susceptibility"], 10 * (0.3 - 0.25), rtol=1e-12)
    np.testing.assert_allclose(result["binder_cumulant"], 1 - 0.1 / 0.27, rtol=1e-12)
    np.testing.assert_allclose(result["order_parameter_err"], 0.01, rtol=EXACT)
    np.testing.assert_allclose(result["susceptibility_err"], 0.2, rtol=EXACT)
    np.testing.assert_allclose(result["binder_cumulant_err"], 0.03, rtol=EXACT)
    assert result["order_parameter_err"].shape == (2,)


def test_replicate_average_broadcasts_over_a_grid_axis():
    # Shape (P, k) with per-point N equals P separate 1-D calls; axis=0 on the transpose
    # gives the same result.
    P, k = 3, 5
    rng = np.random.default_rng(43)
    m1 = rng.random((P, k))
    m2 = m1**2 + 0.05 * rng.random((P, k))
    m4 = m2**2 * (1 + rng.random((P, k)))
    sizes = np.array([10.0, 100.0, 1000.0])
    grid = _replicates(m1, m2, m4, sizes)
    columns = _replicates(m1.T, m2.T, m4.T, sizes, axis=0)
    for name, values in grid.items():
        assert values.shape == (P,)
        np.testing.assert_allclose(columns[name], values, rtol=1e-13)
        for p in range(P):
            single = _replicates(m1[p], m2[p], m4[p], sizes[p])
            assert float(single[name]) == pytest.approx(values[p], rel=1e-12), (name, p)
    np.testing.assert_allclose(grid["susceptibility"],
                               sizes * (m2.mean(1) - m1.mean(1) ** 2), rtol=1e-12)


# --------------------------------------------------------------------------- variable tables


@dataclass
class StandIn:
    """The attributes run_variables / summary_quantities read from a model."""

    size_parameter: str | None
    primary_is_order_parameter: bool = True
    name: str = "standin"
    time_units: str = "s"
    primary_observable: str = "order_parameter"
    observables: tuple = (Observable("order_parameter", "polar order", "1", 0.0, 1.0, "v_a"),
                          Observable("speed", "mean speed", "m/s"))
    run_metrics: tuple = (Metric("stable", "1 if the run did not blow up"),
                          Metric("t_blowup", "time of blow-up", "s"))

    def observable(self, name):
        return next(o for o in self.observables if o.name == name)


PRIMARY_KEYS = {
    "order_parameter_mean": ("mean", "1"), "order_parameter_sem": ("sem", "1"),
    "order_parameter_tau": ("tau", "1"), "order_parameter_m2": ("m2", "1"),
    "order_parameter_m4": ("m4", "1"), "susceptibility": ("susceptibility", "1"),
    "susceptibility_err": ("susceptibility_err", "1"),
    "binder_cumulant": ("binder_cumulant", "1"),
    "binder_cumulant_err": ("binder_cumulant_err", "1"), "samples": ("samples", "1"),
    "order_parameter_independent": ("independent", "1"),
    "order_parameter_drift": ("drift", "1"),
    "time_to_order": ("time_to_order", "s"),
}


@pytest.mark.parametrize("has_size", [True, False])
def test_primary_variables(has_size):
    table = primary_variables("order_parameter", "v_a", "s", has_size)
    expected = dict(PRIMARY_KEYS)
    if not has_size:
        del expected["susceptibility"], expected["susceptibility_err"]
    assert list(table) == list(expected)  # order is the file's variable order
    assert {k: v[:2] for k, v in table.items()} == expected
    # every key but these is a field of SeriesStatistics (analysis.summary reads it)
    names = {f.name for f in fields(SeriesStatistics)}
    assert {key for key, _, _ in table.values()} - names == {"time_to_order", "independent",
                                                             "drift"}
    assert "v_a" in table["order_parameter_m2"][2]
    # no symbol: the name stands in
    assert "<x^4>" in primary_variables("x", "", "step")["x_m4"][2]


@pytest.mark.parametrize("size", ["N", None])
def test_run_variables_and_summary_quantities_of_a_stand_in(size):
    model = StandIn(size)
    table = run_variables(model)
    primary = [k for k in PRIMARY_KEYS if size or not k.startswith("susceptibility")]
    assert list(table) == [*primary, "speed_mean", "speed_sem", "stable", "t_blowup"]
    assert table["order_parameter_tau"][0] == "1"
    assert table["time_to_order"][0] == "s"
    assert table["speed_mean"][0] == table["speed_sem"][0] == "m/s"
    assert table["t_blowup"] == ("s", "time of blow-up")
    rest = ["samples", "time_to_order", "speed_mean", "speed_sem", "stable", "t_blowup"]
    head = ["order_parameter", "susceptibility", "binder_cumulant"] if size else \
        ["order_parameter", "binder_cumulant"]
    assert summary_quantities(model) == head + rest


def test_run_variables_rejects_a_metric_that_shadows_an_observable_statistic():
    model = StandIn("N", run_metrics=(Metric("speed_mean", "duplicate"),))
    with pytest.raises(ValueError, match="speed_mean"):
        run_variables(model)


def test_registered_vicsek_model_tables():
    from flocklab.core.registry import get_model

    model = get_model("vicsek")
    assert summary_quantities(model) == ["order_parameter", "susceptibility",
                                         "binder_cumulant", "samples", "time_to_order"]
    table = run_variables(model)
    assert {k: v[0] for k, v in table.items()} == {
        k: (model.time_units if k == "time_to_order" else u)
        for k, (_, u) in PRIMARY_KEYS.items()}
    assert model.time_units == "1"    # steps: a count, dimensionless in UDUNITS


def test_burn_in_drift_is_near_standard_normal_when_stationary_and_large_for_a_relaxation():
    """AR(1) series (phi = 0.9, tau_int = 19, n = 3000): z has mean 0 (within 4 standard
    errors, 4/sqrt(300)) and a spread a little above 1, because tau_int of the last third
    is itself noisy (Sokal: relative s.d. sqrt(2 (2W + 1) / n) = 0.6 for W = 5 tau = 95,
    n = 1000); between 0.9 and 1.4, with under 5 % of |z| > 3 (the flag's false alarms).
    An exponential relaxation over the first third gives z > 3."""
    from scipy import signal

    from flocklab.analysis.timeseries import DRIFT_Z, burn_in_drift

    rng = np.random.default_rng(4)
    phi = 0.9
    noise = signal.lfilter([1.0], [1.0, -phi], rng.normal(size=(300, 3200)) *
                           np.sqrt(1 - phi**2), axis=-1)[:, 200:]
    z = np.array([burn_in_drift(row) for row in noise])
    assert abs(z.mean()) < 4 / np.sqrt(300)
    assert 0.9 < z.std() < 1.4
    assert np.mean(np.abs(z) > DRIFT_Z) < 0.05
    relaxing = noise[0] * 0.05 + 0.5 + 0.3 * np.exp(-np.arange(3000) / 300)
    assert burn_in_drift(relaxing) > DRIFT_Z


def test_tables_without_an_order_parameter_leave_out_binder_and_time_to_order():
    """A primary observable that is no order parameter (a tip distance, a survival
    fraction) keeps its moments and χ but has no Binder cumulant and no time to order."""
    model = StandIn("N", primary_is_order_parameter=False)
    dropped = {"binder_cumulant", "binder_cumulant_err", "time_to_order"}
    assert set(PRIMARY_KEYS) - set(run_variables(model)) == dropped
    assert summary_quantities(model)[:2] == ["order_parameter", "susceptibility"]
    assert not dropped & set(summary_quantities(model))
    assert set(primary_variables("x", "", "s", order=False)) == \
        {k.replace("order_parameter", "x") for k in PRIMARY_KEYS} - dropped


def test_replicate_average_leaves_out_what_has_no_run_errors():
    """None for the run errors of χ and G leaves them out; the mean and its error are those
    of the full call."""
    rng = np.random.default_rng(3)
    m1 = rng.uniform(0.2, 0.8, (4, 3))
    m2, m4, sem = m1**2 + 0.01, m1**4 + 0.02, np.full((4, 3), 0.01)
    full = replicate_average(m1, m2, m4, sem, sem, sem, np.full(4, 50.0), observable="p")
    for chi, binder in ((None, None), (sem, None), (None, sem)):
        part = replicate_average(m1, m2, m4, sem, chi, binder, np.full(4, 50.0),
                                 observable="p")
        kept = {"p", *(["susceptibility"] if chi is not None else []),
                *(["binder_cumulant"] if binder is not None else [])}
        assert set(part) == kept | {f"{name}_err" for name in kept}
        for name in part:
            np.testing.assert_array_equal(part[name], full[name])
