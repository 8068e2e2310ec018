"""Claim verdicts: exact and permutation p-values against brute force, their error rate
under the null, interval coverage, deterministic runs counted once, and the four verdicts."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from flocklab.analysis.verdicts import (
    PERMUTATIONS,
    Verdict,
    detectable_effect,
    exponent_in_range,
    format_p,
    mean_in_range,
    mean_interval,
    power_law_fit,
    rank_trend,
    rho_interval,
    spearman_null,
)


def brute_force_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided exact p of Spearman's rho: every ordering of y, rho by scipy."""
    observed = abs(stats.spearmanr(x, y)[0])
    values = [abs(stats.spearmanr(x, order)[0]) for order in itertools.permutations(y)]
    return float(np.mean(np.asarray(values) >= observed - 1e-12))


@pytest.mark.parametrize("y", [[3.0, 1.0, 2.0, 5.0, 4.0], [1.0, 2.0, 2.0, 4.0, 3.0, 6.0],
                               [0.1, 0.4, 0.2, 0.3, 0.9, 0.5, 0.7]])
def test_exact_p_equals_brute_force_enumeration(y):
    x = np.arange(len(y), dtype=float)
    verdict = rank_trend("c", x, np.asarray(y)[:, None], "increasing")
    assert verdict.p == pytest.approx(brute_force_p(x, np.asarray(y)), abs=1e-12)
    assert verdict.test.endswith("exact permutation test")


def test_the_smallest_p_of_five_runs_is_two_of_five_factorial():
    """A perfect monotone order over 5 runs: exactly 2 of the 120 orderings are as extreme
    (rising and falling), p = 1/60; scipy's t approximation would print 1.4e-24."""
    verdict = rank_trend("c", np.arange(5.0), np.arange(5.0)[:, None], "increasing")
    assert verdict.verdict == "holds" and verdict.p == pytest.approx(2 / 120)
    assert "p = 0.017" in verdict.evidence and "exact, 5 runs" in verdict.evidence
    assert verdict.n == 5 and verdict.effect == pytest.approx(1.0)


def test_sampled_p_agrees_with_scipy_permutation_test():
    """Above eight runs the p comes from 19 999 random permutations: within four binomial
    standard errors of scipy's own permutation test (another 99 999 permutations)."""
    rng = np.random.default_rng(3)
    x = np.repeat(np.arange(4.0), 5)
    y = 0.3 * x + rng.normal(size=x.size)
    verdict = rank_trend("c", np.arange(4.0), y.reshape(4, 5), "increasing")
    rx = stats.rankdata(x) - stats.rankdata(x).mean()

    def rho(v, axis=-1):
        ry = stats.rankdata(v, axis=axis)
        ry = ry - ry.mean(axis=axis, keepdims=True)
        return (ry @ rx) / np.sqrt((ry * ry).sum(axis=axis) * (rx @ rx))

    reference = stats.permutation_test((y,), rho, permutation_type="pairings",
                                       vectorized=True, n_resamples=99_999,
                                       random_state=7).pvalue
    sigma = math.sqrt(reference * (1 - reference) / PERMUTATIONS)
    assert abs(verdict.p - reference) < 4 * sigma + 1e-4
    assert verdict.p >= 1 / (PERMUTATIONS + 1)


def test_p_is_never_zero_and_never_printed_as_zero():
    x = np.repeat(np.arange(10.0), 6)
    verdict = rank_trend("c", np.arange(10.0), np.arange(60.0).reshape(10, 6), "increasing")
    assert verdict.p == pytest.approx(1 / (PERMUTATIONS + 1))
    assert "p < 0.0001" in verdict.evidence and "p = 0 " not in verdict.evidence
    assert format_p(0.0) == "p < 0.0001" and format_p(0.04) == "p = 0.04"
    assert x.size == verdict.n


@pytest.mark.parametrize(("n", "exact"), [(6, True), (12, False)])
def test_false_claims_hold_at_most_five_percent_of_the_time(n, exact):
    """Under the null (no trend) a claimed increase holds in at most alpha/2 = 2.5 % of
    studies (two-sided test, one sign); over 400 studies the count of 'holds' or 'fails'
    is Binomial(400, <= 0.05): mean <= 20, s.d. 4.4; it must stay below 20 + 3.5 s.d. = 35
    and, for the sampled test, above 20 - 3.5 s.d. = 5 (the exact test with ties-free data
    reaches its discrete size 0.0333 at n = 6, so there the lower bound is 13 - 3.5 x 3.6)."""
    rng = np.random.default_rng(11)
    significant = 0
    for _ in range(400):
        y = rng.normal(size=(n, 1))
        verdict = rank_trend("c", np.arange(float(n)), y, "increasing")
        significant += verdict.verdict in ("holds", "fails")
        assert (verdict.p < 0.05) == (verdict.verdict != "inconclusive")
    assert (1 if exact else 5) <= significant <= 35


def test_rho_interval_covers_the_population_value_95_percent_of_the_time():
    """Bivariate normal with Pearson r = 0.5: Spearman's population rho is
    (6/pi) asin(r/2) = 0.4826. Over 400 samples of n = 30 the Bonett-Wright interval
    covers it in 95 % (binomial s.d. 1.1 points): between 91 and 98.5 %."""
    rng = np.random.default_rng(5)
    truth = 6 / math.pi * math.asin(0.25)
    covered = 0
    cov = [[1.0, 0.5], [0.5, 1.0]]
    for _ in range(400):
        x, y = rng.multivariate_normal([0, 0], cov, size=30).T
        low, high = rho_interval(stats.spearmanr(x, y)[0], 30)
        covered += low <= truth <= high
    assert 0.91 <= covered / 400 <= 0.985


def test_an_observed_perfect_order_has_a_finite_interval():
    low, high = rho_interval(1.0, 5)
    assert 0.5 < low < 0.9 < high < 1.0
    assert all(math.isnan(v) for v in rho_interval(0.5, 3))


def test_a_null_is_inconclusive_and_says_what_could_have_been_detected():
    """Six runs: only orderings with |rho| >= 0.83 reach p < 0.05 (the exact null of 720
    orderings); four runs cannot reach it at all (smallest p = 2/24)."""
    y = np.array([[2.0], [1.0], [4.0], [3.0], [6.0], [5.0]])[[0, 3, 1, 5, 2, 4]]
    verdict = rank_trend("c", np.arange(6.0), y, "decreasing")
    _, null, exact = spearman_null(np.arange(6.0), y.ravel())
    smallest = detectable_effect(null, exact)
    assert verdict.verdict == "inconclusive" and verdict.detectable == pytest.approx(smallest)
    brute = [abs(r) for r in null if np.mean(np.abs(null) >= abs(r) - 1e-12) < 0.05]
    assert smallest == pytest.approx(min(brute)) and 0.8 < smallest < 0.9
    four = rank_trend("c", np.arange(4.0), np.array([[1.0], [0.0], [3.0], [2.0]]), "increasing")
    assert four.verdict == "inconclusive" and math.isnan(four.detectable)
    assert "no outcome of this design reaches p < 0.05" in four.evidence


def test_a_clear_trend_holds_and_the_opposite_claim_fails():
    rng = np.random.default_rng(0)
    levels = np.array([1.0, 2.0, 3.0, 4.0])
    rising = levels[:, None] + rng.normal(0.0, 0.3, (4, 5))
    assert rank_trend("c", levels, rising, "increasing").verdict == "holds"
    assert rank_trend("c", levels, rising, "decreasing").verdict == "fails"


def test_a_constant_output_is_untestable():
    verdict = rank_trend("c", np.arange(3.0), np.ones((3, 4)), "increasing")
    assert verdict.verdict == "untestable" and verdict.n == 12


def test_deterministic_replicates_are_one_run():
    """A deterministic model's three replicates per level are one run: n is the number of
    levels; every step must go the claimed way; differing replicates break its promise."""
    runs = np.repeat(np.array([[1.0], [2.0], [4.0], [3.0]]), 3, axis=1)
    verdict = rank_trend("c", np.arange(4.0), runs, "increasing", deterministic=True)
    assert verdict.verdict == "inconclusive" and verdict.n == 4 and math.isnan(verdict.p)
    assert "2 of 3 steps" in verdict.evidence and "not monotone" in verdict.evidence
    against = rank_trend("c", np.arange(4.0), runs, "decreasing", deterministic=True)
    assert against.verdict == "fails" and "1 of 3 steps" in against.evidence
    monotone = rank_trend("c", np.arange(4.0), np.sort(runs, axis=0), "increasing",
                          deterministic=True)
    assert monotone.verdict == "holds" and monotone.n == 4
    with pytest.raises(ValueError, match="uses_seed"):
        rank_trend("c", np.arange(2.0), np.array([[1.0, 1.0], [2.0, 2.5]]), "increasing",
                   deterministic=True)
    value = mean_in_range("c", np.array([0.0, 0.0]), below=0.5, above=None, deterministic=True)
    assert value.verdict == "holds" and value.n == 1 and "± 0" not in value.evidence


@pytest.mark.parametrize(("below", "above", "verdict"), [
    (14.8, None, "holds"),        # the 95 % t interval of runs 1 and 3 is 2 -+ 12.706
    (14.6, None, "inconclusive"),
    (None, -10.8, "holds"),
    (None, -10.6, "inconclusive"),
    (-10.8, None, "fails"),       # wholly beyond the bound
    (None, 14.8, "fails"),
])
def test_mean_range_uses_the_student_interval(below, above, verdict):
    """Runs 1 and 3: mean 2, standard error 1, t(0.975, 1 d.o.f.) = 12.706."""
    assert mean_in_range("c", np.array([1.0, 3.0]), below, above).verdict == verdict


def test_student_interval_covers_95_percent_with_three_runs():
    rng = np.random.default_rng(2)
    hits = sum(low <= 1.0 <= high for low, high in
               (mean_interval(rng.normal(1.0, 2.0, 3))[1:3] for _ in range(1000)))
    assert 0.93 <= hits / 1000 <= 0.97   # binomial s.d. 0.7 points


def test_a_share_gets_the_clopper_pearson_interval():
    """0 of 10 runs: upper limit 1 - 0.025^(1/10) = 0.3085 (Clopper and Pearson 1934); two
    runs cannot show that a share is below 0.5 (upper limit 0.84)."""
    verdict = mean_in_range("c", np.zeros(10), below=0.5, above=None)
    assert verdict.verdict == "holds"
    assert verdict.high == pytest.approx(1 - 0.025 ** 0.1, rel=1e-9)
    assert mean_in_range("c", np.zeros(2), below=0.5, above=None).verdict == "inconclusive"


def test_only_the_four_verdicts_exist():
    with pytest.raises(ValueError, match="untestable"):
        Verdict("c", "maybe", "")


def test_an_exact_power_law_gives_its_exponent_and_prefactor():
    x = np.array([50.0, 100.0, 200.0, 400.0])
    a, b, low, high, n = power_law_fit(np.repeat(x, 3), np.repeat(0.6 * x ** 0.5, 3))
    assert (b, math.exp(a), n) == (pytest.approx(0.5, abs=1e-12), pytest.approx(0.6), 12)
    assert low == pytest.approx(0.5, abs=1e-9) and high == pytest.approx(0.5, abs=1e-9)


def test_the_exponent_interval_covers_95_percent():
    """R_g-like data: 4 sizes x 3 seeds, y = 0.6 N^0.5 times log-normal noise (s.d. 0.05);
    1000 repetitions, binomial s.d. of the coverage 0.7 points."""
    rng = np.random.default_rng(11)
    x = np.repeat([50.0, 100.0, 200.0, 400.0], 3)
    hits = 0
    for _ in range(1000):
        _, _, low, high, _ = power_law_fit(x, 0.6 * x ** 0.5 * np.exp(rng.normal(0, 0.05, 12)))
        hits += low <= 0.5 <= high
    assert 0.93 <= hits / 1000 <= 0.97


@pytest.mark.parametrize(("exponent", "bounds", "verdict"), [
    (0.5, {"above": 0.4, "below": 0.6}, "holds"),
    (0.0, {"above": 0.4, "below": 0.6}, "fails"),
    (0.0, {"below": 0.5}, "holds"),
    (0.5, {"below": 0.5}, "inconclusive"),   # the interval straddles the bound
    (1.0, {"below": 0.5}, "fails"),
])
def test_exponent_claims_hold_fail_or_stay_open(exponent, bounds, verdict):
    rng = np.random.default_rng(3)
    levels = np.array([50.0, 100.0, 200.0, 400.0])
    runs = 1.5 * levels[:, None] ** exponent * np.exp(rng.normal(0, 0.02, (4, 3)))
    result = exponent_in_range("c", levels, runs, bounds.get("below"), bounds.get("above"))
    assert result.verdict == verdict
    assert result.n == 12 and result.low <= result.effect <= result.high
    assert (result.verdict == "inconclusive") == math.isfinite(result.detectable)


def test_an_exponent_needs_two_levels():
    verdict = exponent_in_range("c", np.array([100.0]), np.array([[1.0, 1.1, 0.9]]), 0.5,
                                None)
    assert verdict.verdict == "untestable"

