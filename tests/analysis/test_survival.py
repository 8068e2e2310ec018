"""Survival analysis: Kaplan-Meier, Greenwood, medians and log-rank tests against closed forms,
textbook values and scipy; the size and power of the trend test; the survival verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from flocklab.analysis.sensitivity import Factor, evaluate_claims, oat_design, survival_outputs
from flocklab.analysis.survival import (
    hazard_ratio,
    kaplan_meier,
    logrank,
    logrank_scores,
    logrank_trend,
    median_survival,
    median_text,
    survival_trend,
)
from flocklab.core.registry import get_model

# Acute myelogenous leukaemia, maintained and non-maintained groups (Miller, *Survival
# Analysis*, Wiley 1981; Collett 2015 uses the same kind of table): weeks in remission,
# event 0 = censored.
AML_MAINTAINED = (np.array([9, 13, 13, 18, 23, 28, 31, 34, 45, 48, 161.]),
                  np.array([1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0]))
AML_NOT = (np.array([5, 5, 8, 8, 12, 16, 23, 27, 30, 33, 43, 45.]),
           np.array([1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1]))


def _censored(times, events):
    return stats.CensoredData(uncensored=times[events == 1], right=times[events == 0])


def test_without_censoring_km_is_one_minus_the_empirical_distribution():
    rng = np.random.default_rng(1)
    times = np.round(rng.exponential(2.0, 40), 1)          # rounded: ties
    km = kaplan_meier(times, np.ones_like(times))
    empirical = np.array([np.mean(times > t) for t in km.time])
    np.testing.assert_allclose(km.survival, empirical, atol=1e-12)
    np.testing.assert_array_equal(km.time, np.unique(times))
    assert km.at(-1.0) == 1.0 and km.at(times.max()) == 0.0


@pytest.mark.filterwarnings("ignore:The confidence interval is undefined")
def test_km_and_its_log_log_interval_match_scipy_on_censored_data():
    rng = np.random.default_rng(2)
    times = np.round(rng.exponential(3.0, 60), 1)
    censor = np.round(rng.uniform(0, 6, 60), 1)
    observed, events = np.minimum(times, censor), (times <= censor).astype(float)
    km = kaplan_meier(observed, events)
    result = stats.ecdf(_censored(observed, events)).sf
    np.testing.assert_allclose(km.survival, result.evaluate(km.time), rtol=1e-12)
    band = result.confidence_interval(0.95, method="log-log")
    finite = km.survival > 0
    np.testing.assert_allclose(km.low[finite], band.low.evaluate(km.time)[finite], rtol=1e-9)
    np.testing.assert_allclose(km.high[finite], band.high.evaluate(km.time)[finite], rtol=1e-9)


def test_greenwood_errors_of_the_textbook_example():
    # Greenwood by hand at the first event: S = 10/11, se = S sqrt(1/(11 x 10)) = 0.0867; the
    # rest as printed by the survival package for this group
    km = kaplan_meier(*AML_MAINTAINED)
    np.testing.assert_array_equal(km.time, [9, 13, 18, 23, 31, 34, 48])
    np.testing.assert_array_equal(km.at_risk, [11, 10, 8, 7, 5, 4, 2])
    np.testing.assert_allclose(km.survival, [0.909, 0.818, 0.716, 0.614, 0.491, 0.368, 0.184],
                               atol=5e-4)
    np.testing.assert_allclose(km.se, [0.0867, 0.1163, 0.1397, 0.1526, 0.1642, 0.1627, 0.1535],
                               atol=5e-5)
    assert km.se[0] == pytest.approx(10 / 11 * math.sqrt(1 / 110), rel=1e-12)
    np.testing.assert_array_equal(km.censored, [13, 28, 45, 161])


def test_median_and_its_brookmeyer_crowley_interval():
    km = kaplan_meier(*AML_MAINTAINED)
    median, low, high = median_survival(km)
    # S drops to 0.491 at 31; the lower band reaches 0.5 at 13 (0.447), the upper never
    assert (median, low) == (31.0, 13.0) and math.isnan(high)
    assert median_text(median, low, high) == "31 [13, not reached]"
    # no censoring, 1..4: the median is inf{t : S(t) <= 1/2} = 2
    assert median_survival(kaplan_meier(np.arange(1.0, 5.0), np.ones(4)))[0] == 2.0
    # one event of four, S = 3/4 to the end: the median and its upper limit are not reached;
    # the lower limit is where the band first reaches 1/2
    never = median_survival(kaplan_meier(np.array([1.0, 5, 5, 5]), np.array([1, 0, 0, 0])))
    assert math.isnan(never[0]) and math.isnan(never[2]) and never[1] == 1.0
    assert median_text(*never) == "not reached"


def test_logrank_matches_scipy_and_the_textbook_for_two_groups():
    times, events = (np.r_[a, b] for a, b in zip(AML_MAINTAINED, AML_NOT, strict=True))
    groups = np.r_[np.zeros(11), np.ones(12)]
    test = logrank(times, events, groups)
    reference = stats.logrank(_censored(*AML_MAINTAINED), _censored(*AML_NOT))
    assert test.statistic == pytest.approx(reference.statistic**2, rel=1e-10)
    assert test.p_asymptotic == pytest.approx(reference.pvalue, rel=1e-10)
    assert test.statistic == pytest.approx(3.396, abs=1e-3)      # survdiff: chisq 3.4, 1 df
    # with two groups the trend test is the same test: Z^2 = chi^2, the same permutation p
    trend = logrank_trend(times, events, groups)
    assert trend.statistic**2 == pytest.approx(test.statistic, rel=1e-10)
    assert trend.p == pytest.approx(test.p, abs=1e-12)
    assert abs(trend.p - test.p_asymptotic) < 0.01
    np.testing.assert_allclose(test.observed_minus_expected.sum(), 0.0, atol=1e-12)


def test_logrank_k_groups_does_not_depend_on_the_labels_and_scores_sum_to_zero():
    rng = np.random.default_rng(3)
    times, events = rng.exponential(1.0, 30), (rng.random(30) < 0.8).astype(float)
    groups = np.repeat([0, 1, 2], 10)
    first = logrank(times, events, groups)
    renamed = logrank(times, events, np.array(["c", "a", "b"])[groups])
    assert first.df == 2 and first.statistic == pytest.approx(renamed.statistic, rel=1e-10)
    assert logrank_scores(times, events).sum() == pytest.approx(0.0, abs=1e-12)


def test_exact_permutation_p_for_small_samples():
    # 6 runs, two levels, the three events of level 1 before every run of level 0: the most
    # extreme of the 6!/(3!3!) = 20 splits in either direction, p = 2/20
    times, events = np.array([1.0, 2, 3, 4, 5, 6]), np.ones(6)
    test = logrank_trend(times, events, np.array([1, 1, 1, 0, 0, 0]))
    assert test.exact and test.null.size == 720
    assert test.p == pytest.approx(2 / 20)
    assert test.observed_minus_expected[0] > 0                   # level 1 fails earlier


def _exponential_sample(rng, levels, per_level, beta, censor_at):
    x = np.repeat(levels, per_level).astype(float)
    times = rng.exponential(1.0 / np.exp(beta * x))
    return x, np.minimum(times, censor_at), (times <= censor_at).astype(float)


@pytest.mark.slow
def test_trend_test_size_under_the_null():
    # 600 seeded datasets without any effect (5 levels x 3 runs, censored at t = 1.5: about
    # 22 % censored): the permutation test rejects at most at its level, within 3 binomial
    # standard errors (sqrt(0.05 x 0.95 / 600) = 0.0089)
    rng = np.random.default_rng(20)
    rejections = asymptotic = 0
    datasets = 600
    for _ in range(datasets):
        x, t, e = _exponential_sample(rng, np.arange(5), 3, 0.0, 1.5)
        if not e.any():
            continue
        test = logrank_trend(t, e, x)
        rejections += test.p < 0.05
        asymptotic += test.p_asymptotic < 0.05
    tolerance = 3 * math.sqrt(0.05 * 0.95 / datasets)
    assert abs(rejections / datasets - 0.05) < tolerance
    assert abs(asymptotic / datasets - 0.05) < tolerance + 0.02   # asymptotics at n = 15


def test_trend_test_power_against_a_hazard_trend():
    # log hazard rising by 0.4 per level over 5 levels x 8 runs, censored at t = 2: the
    # expected Z is about beta sqrt(V) = 0.4 sqrt(events x var(levels)) ~ 0.4 sqrt(30 x 2)
    # = 3.1, a power of about 0.87; 100 datasets must reject at least 70 times (the
    # binomial 3-sigma lower bound at 0.87 is 0.77)
    rng = np.random.default_rng(21)
    rejections = sum(logrank_trend(*_exponential_sample(rng, np.arange(5), 8, 0.4, 2.0)[1:],
                                   np.repeat(np.arange(5.0), 8)).p < 0.05 for _ in range(100))
    assert rejections >= 70


@pytest.mark.slow
def test_one_step_hazard_ratio_of_a_large_sample():
    # beta = 0.1 per level, 2000 runs: the one-step estimate is within 3 standard errors
    rng = np.random.default_rng(22)
    x, t, e = _exponential_sample(rng, np.arange(5), 400, 0.1, 3.0)
    ratio, low, high = hazard_ratio(logrank_trend(t, e, x))
    se = (math.log(high) - math.log(low)) / (2 * 1.96)
    assert abs(math.log(ratio) - 0.1) < 3 * se and low < math.exp(0.1) < high


def _levels_and_runs(rng, beta, censor_at=2.0, replicates=6):
    levels = np.arange(5.0)
    times = rng.exponential(1.0 / np.exp(beta * levels)[:, None], (5, replicates))
    return levels, np.minimum(times, censor_at), (times <= censor_at).astype(float)


def test_survival_verdicts_hold_fail_and_stay_inconclusive():
    rng = np.random.default_rng(30)
    levels, times, events = _levels_and_runs(rng, 0.8)          # later levels turn earlier
    holds = survival_trend("faster with more", levels, times, events, "decreasing")
    assert holds.verdict == "holds" and holds.effect > 1 and holds.low > 1
    assert holds.n == 30 and f"{int(np.sum(events == 0))} censored" in holds.evidence
    fails = survival_trend("slower with more", levels, times, events, "increasing")
    assert fails.verdict == "fails" and fails.p == holds.p
    levels, times, events = _levels_and_runs(np.random.default_rng(31), 0.0, replicates=2)
    null = survival_trend("no effect", levels, times, events, "decreasing")
    assert null.verdict == "inconclusive" and null.p >= 0.05
    assert null.detectable > 1 and "the design detects hazard ratios" in null.evidence
    assert null.low < 1 < null.high


def test_survival_verdict_is_untestable_without_events_and_leaves_out_missing_runs():
    levels = np.array([0.0, 1.0])
    everyone_censored = survival_trend("c", levels, np.full((2, 3), 5.0), np.zeros((2, 3)),
                                       "decreasing")
    assert everyone_censored.verdict == "untestable" and "all censored" in \
        everyone_censored.evidence
    times = np.array([[1.0, np.nan, 2.0], [0.5, 0.7, np.nan]])
    events = np.array([[1.0, np.nan, 1.0], [1.0, 1.0, np.nan]])
    assert survival_trend("c", levels, times, events, "decreasing").n == 4


def test_metrics_declare_their_censoring():
    forces = {metric.name: metric for metric in get_model("forces").run_metrics}
    assert forces["turn_time"].event == "turned" and forces["turn_time"].censored
    assert forces["first_capture_time"].censored_at_end and not forces["captures"].censored
    times, events = forces["turn_time"].survival_data(np.array([3.0, 35.0, np.nan]),
                                                      np.array([1.0, 0.0, np.nan]))
    np.testing.assert_array_equal(times, [3.0, 35.0, np.nan])
    np.testing.assert_array_equal(events, [1.0, 0.0, np.nan])
    times, events = forces["first_capture_time"].survival_data(np.array([4.0, np.nan]),
                                                               t_end=30.0)
    assert times.tolist() == [4.0, 30.0] and events.tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="'captures' is not a censored time"):
        forces["captures"].survival_data(np.ones(2))


def test_oat_claims_on_a_censored_output_use_the_log_rank_trend_test():
    design = oat_design([Factor("leaders", values=(0.0, 3.0, 6.0))], {"leaders": 3.0})
    labels = ["a", "b", "c"]
    # level 0 never turns within the run (35 = censoring time), the others do, faster at 6
    turn = np.array([[35.0, 35.0, 35.0, 35.0], [9.0, 11.0, 12.0, 35.0], [4.0, 5.0, 6.0, 7.0]])
    turned = np.array([[0.0, 0, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]])
    summary = xr.Dataset({"turn_time": (("point", "replicate"), turn),
                          "turned": (("point", "replicate"), turned),
                          "captures": (("point", "replicate"), np.zeros((3, 4)))},
                         coords={"point": labels, "replicate": np.arange(4)},
                         attrs={"time": '{"t_end": 40.0}'})
    survival = survival_outputs(summary, labels, ["turn_time", "captures"], "forces")
    assert list(survival) == ["turn_time"]
    claim = {"claim": "more leaders, faster", "parameter": "leaders", "output": "turn_time",
             "trend": "decreasing"}
    runs = np.stack([turn])
    (verdict,) = evaluate_claims([claim], design, ["turn_time"], runs, survival=survival)
    assert verdict.test.startswith("log-rank test for trend") and verdict.verdict == "holds"
    assert "5 censored" in verdict.evidence and verdict.effect > 1
    (deterministic,) = evaluate_claims([claim], design, ["turn_time"], runs[:, :, :1],
                                       deterministic=True, survival=survival)
    assert deterministic.test.startswith("every step")
