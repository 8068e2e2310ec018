"""The finite-N floor of the polar order parameter against closed forms and sampling."""

import doctest
import math

import numpy as np
import pytest

from flocklab.analysis import order


def test_doctests():
    assert doctest.testmod(order, raise_on_error=False).failed == 0


def test_two_headings_closed_form():
    """|e1 + e2| = 2 |cos(phi/2)| with phi uniform: E P = 2/pi, E P^2 = 1/2."""
    mean, sd = order.random_heading_order(2)
    assert mean == pytest.approx(2 / math.pi, rel=1e-8)
    assert sd == pytest.approx(math.sqrt(0.5 - 4 / math.pi**2), rel=1e-7)


@pytest.mark.parametrize("n", [3, 5, 10, 40])
def test_mean_and_spread_match_sampling(n):
    """Sample mean within 4 s.e. of the exact mean; sample s.d. within 4 of its s.e.
    (sqrt(2/M) relative for M samples, a generous bound for these light-tailed P)."""
    samples = 100_000
    rng = np.random.default_rng(n)
    theta = rng.uniform(-np.pi, np.pi, (samples, n))
    p = np.hypot(np.cos(theta).sum(axis=1), np.sin(theta).sum(axis=1)) / n
    mean, sd = order.random_heading_order(n)
    assert abs(p.mean() - mean) < 4 * sd / math.sqrt(samples)
    assert abs(p.std() / sd - 1) < 4 * math.sqrt(2 / samples)


def test_large_n_limit():
    """Exact and Rayleigh forms agree to O(1/n) and differ at small n (5: by 1.3 %)."""
    for n in (100, 1000):
        exact, approx = order.random_heading_order(n), order.random_heading_order_large_n(n)
        assert exact[0] == pytest.approx(approx[0], rel=1.0 / n)
        assert exact[1] == pytest.approx(approx[1], rel=2.0 / n)
    assert order.random_heading_order(5)[0] / order.random_heading_order_large_n(5)[0] > 1.01


def test_count_checked():
    with pytest.raises(ValueError, match="integer >= 1"):
        order.random_heading_order(0)
