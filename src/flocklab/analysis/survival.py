r"""Survival analysis of censored times, as pure functions on arrays.

Some per-run outputs are the time until an event that may not happen within the run (the
group turning to a new goal, the first capture): a run without the event gives only a lower
bound, the time at which it was *censored* (right censoring). Means and ranks of such times
mix events with lower bounds; the methods here use each run for what it shows.

* :func:`kaplan_meier` — the product-limit estimate of the survival function
  :math:`S(t) = P(T > t)` (the share of runs without the event by :math:`t`), Greenwood's
  standard error and a pointwise interval on the log-log scale;
* :func:`median_survival` — the median time with the Brookmeyer–Crowley interval (or "not
  reached" where :math:`S` stays above 1/2);
* :func:`logrank` — the log-rank test of equal survival in :math:`k` groups;
* :func:`logrank_trend` — the log-rank test for a trend over ordered groups, weighted by the
  levels or their ranks, with a permutation p-value (exact for small samples);
* :func:`survival_trend` — the :class:`~flocklab.analysis.verdicts.Verdict` of a claim that
  the time decreases or increases with a factor.

Every time is paired with an event indicator: 1 where the event happened at that time,
0 where the run was censored then. Events and censorings at the same time: the censored runs
count as still at risk at that time (the usual convention).

References
----------
E. L. Kaplan and P. Meier, "Nonparametric estimation from incomplete observations", *J. Am.
Stat. Assoc.* **53**, 457 (1958). M. Greenwood, "The natural duration of cancer", *Reports on
Public Health and Medical Subjects* **33**, HMSO (1926). N. Mantel, "Evaluation of survival
data and two new rank order statistics arising in its consideration", *Cancer Chemother.
Rep.* **50**, 163 (1966). R. Brookmeyer and J. Crowley, "A confidence interval for the median
survival time", *Biometrics* **38**, 29 (1982). D. Collett, *Modelling Survival Data in
Medical Research*, 3rd ed., CRC Press (2015), §2.1–2.6 and §3.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from flocklab.analysis.verdicts import (
    ALPHA,
    EXACT_UP_TO,
    PERMUTATION_SEED,
    PERMUTATIONS,
    Verdict,
    detectable_effect,
    format_p,
    permutation_p,
)


def _z(alpha: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(1.0 - alpha / 2.0))


def censored_sample(times: np.ndarray, events: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``times`` and ``events`` as float and bool arrays of shape (n,), checked.

    Raises
    ------
    ValueError
        Shapes differ, a time is not finite or negative, or an indicator is not 0 or 1.
    """
    times, events = np.asarray(times, float).ravel(), np.asarray(events, float).ravel()
    if times.shape != events.shape:
        raise ValueError(f"{times.size} times but {events.size} event indicators")
    if not np.all(np.isfinite(times)) or np.any(times < 0):
        raise ValueError("survival times must be finite and >= 0")
    if not np.all((events == 0) | (events == 1)):
        raise ValueError("event indicators must be 0 (censored) or 1 (event)")
    return times, events.astype(bool)


def _risk_table(times: np.ndarray, events: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct event times (m,), the runs at risk just before each and the events at
    each (int arrays (m,)), of a checked sample (:func:`censored_sample`)."""
    event_times = np.unique(times[events])
    at_risk = times.size - np.searchsorted(np.sort(times), event_times, side="left")
    deaths = np.array([np.count_nonzero(events & (times == t)) for t in event_times], int)
    return event_times, at_risk, deaths


@dataclass(frozen=True)
class KaplanMeier:
    """A Kaplan–Meier estimate at its distinct event times (all arrays shape (m,)).

    Attributes
    ----------
    time : ndarray
        Distinct times at which an event happened, ascending.
    at_risk, events : ndarray of int
        Runs still at risk just before each time, and events at it.
    survival : ndarray
        :math:`\\hat S(t)` just after each time.
    se : ndarray
        Greenwood standard error of :math:`\\hat S` (NaN where :math:`\\hat S = 0`).
    low, high : ndarray
        Pointwise interval (log-log transform; NaN where :math:`\\hat S = 0`).
    censored : ndarray
        The censoring times, ascending, shape (c,).
    n : int
        Runs.
    """

    time: np.ndarray
    at_risk: np.ndarray
    events: np.ndarray
    survival: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    censored: np.ndarray
    n: int

    def at(self, t: np.ndarray | float) -> np.ndarray:
        """:math:`\\hat S(t)` (right-continuous step function; 1 before the first event)."""
        index = np.searchsorted(self.time, np.asarray(t, float), side="right")
        return np.concatenate([[1.0], self.survival])[index]


def kaplan_meier(times: np.ndarray, events: np.ndarray, alpha: float = ALPHA) -> KaplanMeier:
    r"""Kaplan–Meier estimate of the survival function with Greenwood errors.

    .. math::

        \hat S(t) = \prod_{t_j \le t} \Bigl(1 - \frac{d_j}{n_j}\Bigr), \qquad
        \widehat{\mathrm{Var}}\,\hat S(t) = \hat S(t)^2 \sum_{t_j \le t}
        \frac{d_j}{n_j (n_j - d_j)},

    with :math:`d_j` events among the :math:`n_j` runs at risk at the event time :math:`t_j`
    (Kaplan and Meier 1958; Greenwood 1926). The :math:`1-\alpha` interval is
    :math:`\hat S^{\exp(\pm z\, \sigma)}` with
    :math:`\sigma = \sqrt{\sum d_j/(n_j(n_j-d_j))}\,/\,|\log \hat S|`, the Greenwood interval of
    :math:`\log(-\log S)` transformed back (Collett 2015, §2.2.3): it stays inside [0, 1].
    Without censoring :math:`\hat S` is one minus the empirical distribution function.

    Parameters
    ----------
    times : ndarray, shape (n,)
        Time of the event or of the censoring of every run (same units out).
    events : ndarray, shape (n,)
        1 for an event, 0 for a censoring.
    alpha : float
        One minus the interval's level.
    """
    times, events = censored_sample(times, events)
    event_times, at_risk, deaths = _risk_table(times, events)
    survival = np.cumprod(1.0 - deaths / at_risk)
    with np.errstate(divide="ignore", invalid="ignore"):
        greenwood = np.cumsum(deaths / (at_risk * (at_risk - deaths)))
        se = np.where(survival > 0, survival * np.sqrt(greenwood), np.nan)
        sigma = np.sqrt(greenwood) / np.abs(np.log(survival))
        z = _z(alpha)
        low = np.where(survival > 0, survival ** np.exp(z * sigma), np.nan)
        high = np.where(survival > 0, survival ** np.exp(-z * sigma), np.nan)
    return KaplanMeier(event_times, at_risk, deaths, survival, se, low, high,
                       np.sort(times[~events]), int(times.size))


def median_survival(km: KaplanMeier) -> tuple[float, float, float]:
    r"""Median time and its Brookmeyer–Crowley interval from a Kaplan–Meier estimate.

    The median is :math:`\inf\{t : \hat S(t) \le 1/2\}`. Its interval holds the times at
    which :math:`S(t) = 1/2` is inside the pointwise interval of :func:`kaplan_meier`: from
    the first time whose lower limit is at most 1/2 to the first time whose upper limit is
    (Brookmeyer and Crowley 1982; Collett 2015, §2.4). NaN where the curve does not get there
    within the data: the median or a limit is *not reached* (it lies beyond the last time).

    Returns
    -------
    median, low, high : float
    """

    def first(values: np.ndarray) -> float:
        hit = np.flatnonzero(np.nan_to_num(values, nan=0.0) <= 0.5)
        return float(km.time[hit[0]]) if hit.size else math.nan

    return first(km.survival), first(km.low), first(km.high)


def median_text(median: float, low: float, high: float, spec: str = ".3g") -> str:
    """``"12.5 [8, 20]"``, ``"12.5 [8, not reached]"`` or ``"not reached"``."""
    if math.isnan(median):
        return "not reached"
    bound = ["not reached" if math.isnan(v) else f"{v:{spec}}" for v in (low, high)]
    return f"{median:{spec}} [{bound[0]}, {bound[1]}]"


def logrank_scores(times: np.ndarray, events: np.ndarray) -> np.ndarray:
    r"""Log-rank scores :math:`a_i = \delta_i - \hat\Lambda(t_i)`, shape (n,).

    :math:`\hat\Lambda(t) = \sum_{t_j \le t} d_j/n_j` is the Nelson–Aalen cumulative hazard
    of the pooled sample. Summed over a group, the scores give the log-rank
    :math:`O - E` of the group; they sum to 0 and do not depend on the group labels, so that
    permuting the labels permutes a linear statistic (Collett 2015, §2.6.3).
    """
    times, events = censored_sample(times, events)
    event_times, at_risk, deaths = _risk_table(times, events)
    cumulative = np.concatenate([[0.0], np.cumsum(deaths / at_risk)])
    return events - cumulative[np.searchsorted(event_times, times, side="right")]


def _hypergeometric_terms(times: np.ndarray, events: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At each distinct event time: runs at risk (mask (m, n)), the variance factor
    :math:`d(n-d)/(n-1)` and :math:`n_j`, shapes (m, n), (m,), (m,)."""
    event_times, n_j, d_j = _risk_table(times, events)
    risk = times[None, :] >= event_times[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(n_j > 1, d_j * (n_j - d_j) / (n_j - 1), 0.0)
    return risk, factor, n_j


@dataclass(frozen=True)
class LogRank:
    """A log-rank test.

    Attributes
    ----------
    statistic : float
        :math:`\\chi^2` (k groups) or :math:`Z` (trend).
    df : int
        Degrees of freedom of :math:`\\chi^2` (1 for the trend's :math:`Z^2`).
    p_asymptotic : float
        Two-sided p from the :math:`\\chi^2` or normal distribution.
    p : float
        Two-sided permutation p (exact up to :data:`~flocklab.analysis.verdicts.EXACT_UP_TO`
        runs, otherwise from :data:`~flocklab.analysis.verdicts.PERMUTATIONS` random
        permutations of the group labels with a fixed seed).
    exact : bool
        Whether ``p`` enumerates every permutation.
    observed_minus_expected : ndarray
        :math:`O - E` per group (k groups) or :math:`U = \\sum_g w_g (O_g - E_g)` (trend,
        shape (1,)).
    variance : float
        The hypergeometric variance of :math:`U` (trend; NaN for k groups).
    null : ndarray
        The permutation distribution of the statistic ``p`` is computed from.
    """

    statistic: float
    df: int
    p_asymptotic: float
    p: float
    exact: bool
    observed_minus_expected: np.ndarray
    variance: float
    null: np.ndarray


def _label_orders(labels: np.ndarray) -> tuple[np.ndarray, bool]:
    """Every ordering of ``labels`` (n,) up to :data:`EXACT_UP_TO` runs, else
    :data:`PERMUTATIONS` random ones from :data:`PERMUTATION_SEED`: shape (m, n)."""
    if labels.size <= EXACT_UP_TO:
        return np.array(list(itertools.permutations(labels))), True
    rng = np.random.default_rng(PERMUTATION_SEED)
    return rng.permuted(np.tile(labels, (PERMUTATIONS, 1)), axis=1), False


def logrank(times: np.ndarray, events: np.ndarray, groups: np.ndarray) -> LogRank:
    r"""Log-rank test that ``k`` groups share one survival function (Mantel 1966).

    .. math::

        \chi^2 = (\mathbf O - \mathbf E)^\top V^{-}(\mathbf O - \mathbf E), \quad
        E_g = \sum_j d_j \frac{n_{gj}}{n_j}, \quad
        V_{gh} = \sum_j \frac{d_j (n_j - d_j)}{n_j - 1}\frac{n_{gj}}{n_j}
        \Bigl(\delta_{gh} - \frac{n_{hj}}{n_j}\Bigr),

    on :math:`k - 1` degrees of freedom (the first :math:`k - 1` groups; Collett 2015,
    §2.6.2). The permutation p uses the permutation-equivalent statistic
    :math:`\sum_g (O_g - E_g)^2 / n_g`, whose null distribution comes from permuting the
    group labels (:func:`logrank_scores`).

    Parameters
    ----------
    times, events : ndarray, shape (n,)
        As in :func:`kaplan_meier`.
    groups : ndarray, shape (n,)
        Group label of every run (at least two distinct labels).
    """
    from scipy import stats

    times, events = censored_sample(times, events)
    groups = np.asarray(groups).ravel()
    names, codes = np.unique(groups, return_inverse=True)
    if names.size < 2:
        raise ValueError("the log-rank test needs at least two groups")
    members = codes[None, :] == np.arange(names.size)[:, None]           # (k, n)
    scores = logrank_scores(times, events)
    o_e = members.astype(float) @ scores
    risk, factor, n_j = _hypergeometric_terms(times, events)
    share = (risk[None, :, :] & members[:, None, :]).sum(axis=2) / np.maximum(n_j, 1)  # (k, m)
    v = np.einsum("j,gj,hj->gh", factor, share, -share) + np.diag(share @ factor)
    chi2 = float(o_e[:-1] @ np.linalg.pinv(v[:-1, :-1]) @ o_e[:-1])
    orders, exact = _label_orders(codes)
    one_hot = orders[:, None, :] == np.arange(names.size)[None, :, None]  # (m, k, n)
    sizes = members.sum(axis=1)
    null = ((one_hot @ scores) ** 2 / sizes).sum(axis=1)
    observed = float((o_e**2 / sizes).sum())
    p = permutation_p(observed, null, exact)  # both >= 0: the upper tail
    return LogRank(chi2, names.size - 1, float(stats.chi2.sf(chi2, names.size - 1)), p,
                   exact, o_e, math.nan, null)


def logrank_trend(times: np.ndarray, events: np.ndarray, levels: np.ndarray,
                  weights: str = "values") -> LogRank:
    r"""Log-rank test for a trend in the hazard over ordered groups.

    .. math::

        U = \sum_g w_g (O_g - E_g), \qquad
        \mathrm{Var}\,U = \sum_j \frac{d_j (n_j - d_j)}{n_j - 1}
        \Bigl[\sum_g w_g^2 \frac{n_{gj}}{n_j} - \Bigl(\sum_g w_g \frac{n_{gj}}{n_j}\Bigr)^2
        \Bigr], \qquad Z = U / \sqrt{\mathrm{Var}\,U},

    with the group weights :math:`w_g` the level values or their ranks (Collett 2015,
    §2.7.2). :math:`U > 0`: more events than expected at the larger levels, i.e. the hazard
    rises and the times shorten with the level. With two groups :math:`Z^2` is the log-rank
    :math:`\chi^2`. The permutation p is that of :math:`|U|` under permutations of the runs'
    levels, exact up to :data:`~flocklab.analysis.verdicts.EXACT_UP_TO` runs.

    Parameters
    ----------
    times, events : ndarray, shape (n,)
        As in :func:`kaplan_meier`.
    levels : ndarray, shape (n,)
        The ordered factor value of every run.
    weights : {"values", "ranks"}
        The level values themselves or their mid-ranks among the distinct levels.
    """
    from scipy import stats

    times, events = censored_sample(times, events)
    levels = np.asarray(levels, float).ravel()
    if weights not in ("values", "ranks"):
        raise ValueError(f"weights must be 'values' or 'ranks', got {weights!r}")
    distinct, codes = np.unique(levels, return_inverse=True)
    w = (distinct if weights == "values" else np.arange(1.0, distinct.size + 1))[codes]
    scores = logrank_scores(times, events)
    u = float(w @ scores)
    risk, factor, n_j = _hypergeometric_terms(times, events)
    n_safe = np.maximum(n_j, 1)
    mean_w = (risk @ w) / n_safe
    variance = float(factor @ ((risk @ (w * w)) / n_safe - mean_w**2))
    z = u / math.sqrt(variance) if variance > 0 else math.nan
    orders, exact = _label_orders(w)
    null = orders @ scores
    p = permutation_p(u, null, exact) if variance > 0 else math.nan
    p_asymptotic = float(2 * stats.norm.sf(abs(z))) if math.isfinite(z) else math.nan
    return LogRank(z, 1, p_asymptotic, p, exact, np.array([u]), variance, null)


def hazard_ratio(test: LogRank, alpha: float = ALPHA) -> tuple[float, float, float]:
    r"""Hazard ratio per unit weight and its :math:`1-\alpha` interval from a trend test.

    The one-step (score) estimate of the Cox coefficient of the weight,
    :math:`\hat\beta = U / \mathrm{Var}\,U` with standard error
    :math:`1/\sqrt{\mathrm{Var}\,U}` (Collett 2015, §3.9 on the score test and the
    one-step estimate): :math:`e^{\hat\beta}` and :math:`e^{\hat\beta \pm z/\sqrt{V}}`. Close to
    the maximum-likelihood estimate for moderate effects; it shrinks large ones toward 1.
    """
    if not test.variance > 0:
        return math.nan, math.nan, math.nan
    beta, half = float(test.observed_minus_expected[0]) / test.variance, (
        _z(alpha) / math.sqrt(test.variance))
    return math.exp(beta), math.exp(beta - half), math.exp(beta + half)


def _level_medians(levels: np.ndarray, times: np.ndarray, events: np.ndarray) -> str:
    """``"0: not reached; 3: 12 [8, 20]"``: the median time at each level."""
    parts = []
    for level in np.unique(levels):
        inside = levels == level
        km = kaplan_meier(times[inside], events[inside])
        parts.append(f"{level:g}: {median_text(*median_survival(km))}")
    return "; ".join(parts)


def survival_trend(claim: str, levels: np.ndarray, times: np.ndarray, events: np.ndarray,
                   trend: str, weights: str = "values", alpha: float = ALPHA) -> Verdict:
    r"""Does a censored time fall (``decreasing``) or rise (``increasing``) with a factor?

    The log-rank test for trend (:func:`logrank_trend`) over the factor's levels, two-sided
    permutation p. A time that decreases with the factor means a hazard that rises with it
    (:math:`U > 0`). Holds when the test is significant at ``alpha`` in the claimed
    direction, fails when significant in the other, inconclusive otherwise (stating the hazard
    ratio per level the design could have detected). Untestable with fewer than three runs,
    one level, or no event at all. The effect is the hazard ratio per unit of the weight
    with its 95 % interval (:func:`hazard_ratio`); the evidence adds the censored runs and the
    median time at each level (:func:`median_survival`).

    Parameters
    ----------
    claim : str
    levels : ndarray, shape (K,)
        Factor values.
    times, events : ndarray, shape (K, R)
        Time of each replicate at each level and 1 for an event, 0 for a censoring (NaN
        times: runs without a value, left out).
    trend : {"increasing", "decreasing"}
        The claimed direction of the *time*.
    weights : {"values", "ranks"}
        Weights of the levels in the trend test.
    """
    times, events = np.asarray(times, float), np.asarray(events, float)
    x = np.repeat(np.asarray(levels, float), times.shape[1])
    keep = np.isfinite(times.ravel())
    return survival_trend_runs(claim, x[keep], times.ravel()[keep], events.ravel()[keep],
                               trend, weights, alpha)


def survival_trend_runs(claim: str, x: np.ndarray, t: np.ndarray, e: np.ndarray, trend: str,
                        weights: str = "values", alpha: float = ALPHA) -> Verdict:
    """:func:`survival_trend` of runs given one by one: factor value ``x``, time ``t`` and
    event indicator ``e`` of every run, each shape (n,)."""
    claimed = {"decreasing": 1.0, "increasing": -1.0}[trend]
    x, t, e = (np.asarray(column, float).ravel() for column in (x, t, e))
    n, censored = int(t.size), int(np.count_nonzero(e == 0))
    if n < 3 or np.unique(x).size < 2 or not np.any(e):
        why = f"{n} runs" if n < 3 else ("one level" if np.unique(x).size < 2 else
                                          f"no event in {n} runs (all censored)")
        return Verdict(claim, "untestable", f"{why}; no log-rank test possible", "", n)
    test = logrank_trend(t, e, x, weights)
    if not math.isfinite(test.p):
        return Verdict(claim, "untestable", f"the log-rank statistic has no variance over "
                       f"{n} runs", "", n)
    ratio, low, high = hazard_ratio(test, alpha)
    unit = "level" if weights == "values" else "rank step of the level"
    name = (f"log-rank test for trend (weights: level {weights}), "
            + ("exact permutation test" if test.exact else
               f"{test.null.size} random permutations"))
    evidence = (f"hazard ratio per {unit} {ratio:.3g} [{low:.3g}, {high:.3g}] (95 %, one-step "
                f"estimate), Z = {test.statistic:+.2f}, {format_p(test.p)} "
                f"({'exact' if test.exact else 'permutation'}, {n} runs, {censored} "
                f"censored); median time by level {_level_medians(x, t, e)}")
    u = float(test.observed_minus_expected[0])
    if test.p < alpha:
        verdict = "holds" if u * claimed > 0 else "fails"
        return Verdict(claim, verdict, evidence, name, n, ratio, low, high, test.p)
    smallest = detectable_effect(test.null, test.exact, alpha)
    detect = math.exp(smallest / test.variance) if math.isfinite(smallest) else math.nan
    evidence += ("; no outcome of this design reaches p < 0.05" if math.isnan(detect) else
                 f"; the design detects hazard ratios per {unit} beyond {detect:.3g} "
                 f"(or below {1 / detect:.3g})")
    return Verdict(claim, "inconclusive", evidence, name, n, ratio, low, high, test.p, detect)
