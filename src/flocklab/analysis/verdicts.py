r"""Claims tested against runs: one verdict type and the tests behind it, as pure functions.

A claim ends in one of four verdicts (:data:`VERDICTS`):

* **holds** — the data show the claimed effect at the stated level;
* **fails** — they show the opposite effect (or, for a deterministic model, the exact value
  lies outside the claimed range);
* **inconclusive** — they can decide neither; a null result is not a failure. The verdict
  then says which effect the design could have detected (:attr:`Verdict.detectable`);
* **untestable** — the data cannot carry the test at all (a constant output, fewer runs than
  the test needs).

Every :class:`Verdict` carries its test, the number of independent runs ``n`` (replicates of a
deterministic model are one run), the effect with its 95 % interval and, for a test, the
p-value. P-values are exact where the sample is small (every permutation enumerated) and
from :data:`PERMUTATIONS` random permutations otherwise, so that no p-value is ever below
what the design can produce (the smallest two-sided p of a rank correlation over five runs
is 2/5! ≈ 0.017); :func:`format_p` never prints 0.

The tests:

* :func:`rank_trend` — Spearman's rank correlation of the output with a factor, permutation
  p-value, Fisher-z interval with the Bonett–Wright variance; for a deterministic model the
  sign of every step between levels;
* :func:`mean_in_range` — the mean output against a claimed range: a Student-t interval, the
  Clopper–Pearson interval for a 0/1 output, the exact value for a deterministic model;
* :func:`exponent_in_range` — the exponent b of a power law :math:`y = e^a x^b`, fitted by
  least squares to :math:`\ln y` against :math:`\ln x` over every run, against a claimed
  range (Student-t interval of the slope).

A trend in a censored time (a time the event may not reach within a run) is judged by the
log-rank test for trend instead: :func:`flocklab.analysis.survival.survival_trend`, with the
permutation helpers and :func:`format_p` of this module.

References
----------
D. G. Bonett and T. A. Wright, "Sample size requirements for estimating Pearson, Kendall
and Spearman correlations", *Psychometrika* **65**, 23 (2000). C. J. Clopper and E. S.
Pearson, "The use of confidence or fiducial limits illustrated in the case of the
binomial", *Biometrika* **26**, 404 (1934). N. R. Draper and H. Smith, *Applied Regression
Analysis*, 3rd ed., Wiley (1998), ch. 1 (the slope's t interval). P. Good, *Permutation,
Parametric and Bootstrap Tests of Hypotheses*, Springer (2005).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The four verdicts a claim can end in.
VERDICTS = ("holds", "fails", "inconclusive", "untestable")
#: Significance level of every test (two-sided) and 1 - confidence of every interval.
ALPHA = 0.05
#: Samples up to this size get exact permutation p-values (8! = 40 320 orderings).
EXACT_UP_TO = 8
#: Random permutations above :data:`EXACT_UP_TO` (the smallest p is 1/(PERMUTATIONS + 1)).
PERMUTATIONS = 19_999
#: Seed of those permutations: a verdict depends on its data only.
PERMUTATION_SEED = 20_000_803
#: |ρ| is clipped to this before the Fisher transform (an observed ±1 has no finite z).
RHO_CLIP = 0.99
#: P-values below this print as an upper bound.
P_FLOOR = 1e-4


@dataclass(frozen=True)
class Verdict:
    """The outcome of testing one claim.

    Attributes
    ----------
    claim : str
        The claim as stated.
    verdict : str
        One of :data:`VERDICTS`.
    evidence : str
        One sentence: test, n, effect with its interval, p (what the tables print).
    test : str
        The test's name (``""`` where none was run).
    n : int
        Independent runs the test used (replicates of a deterministic model count once).
    effect : float
        The effect measured (a correlation, a mean, a ratio; NaN where none).
    low, high : float
        Its 95 % interval (NaN where none; equal to ``effect`` for an exact value).
    p : float
        Two-sided p-value (NaN where no test).
    detectable : float
        For an inconclusive trend: the smallest |effect| this design could have called
        significant (NaN otherwise).
    """

    claim: str
    verdict: str
    evidence: str
    test: str = ""
    n: int = 0
    effect: float = math.nan
    low: float = math.nan
    high: float = math.nan
    p: float = math.nan
    detectable: float = math.nan

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready mapping (NaN as ``None``), as documents store them."""
        from dataclasses import asdict

        from flocklab.core.io import json_ready

        return json_ready(asdict(self))

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")


def format_p(p: float) -> str:
    """``"p = 0.017"``; below :data:`P_FLOOR` ``"p < 0.0001"``; never ``p = 0``.

    >>> format_p(2 / 120), format_p(3e-9)
    ('p = 0.017', 'p < 0.0001')
    """
    if not math.isfinite(p):
        return "p undefined"
    if p < P_FLOOR:
        return f"p < {P_FLOOR:g}"
    return f"p = {p:.2g}"


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy import stats

    return stats.rankdata(values)


def _rank_correlations(x_ranks: np.ndarray, y_orders: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``x_ranks`` (n,) with every row of ``y_orders`` (m, n)."""
    x = x_ranks - x_ranks.mean()
    y = y_orders - y_orders.mean(axis=1, keepdims=True)
    return (y @ x) / (np.sqrt((y * y).sum(axis=1)) * math.sqrt(float(x @ x)))


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's ρ of ``x`` and ``y`` (shape (n,)): Pearson's correlation of their mid-ranks."""
    return float(_rank_correlations(_ranks(np.asarray(x, float)),
                                    _ranks(np.asarray(y, float))[None, :])[0])


def spearman_null(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, bool]:
    """Spearman's ρ of ``x`` and ``y`` (shape (n,)) and its permutation distribution.

    Under the null hypothesis of no association every pairing of the y-ranks with the
    x-ranks is equally likely (ties keep their mid-ranks). Up to :data:`EXACT_UP_TO` runs
    every ordering is enumerated; above, :data:`PERMUTATIONS` random ones are drawn from a
    fixed seed.

    Returns
    -------
    rho : float
    null : ndarray, shape (m,)
        ρ of each ordering.
    exact : bool
        Whether ``null`` holds every ordering.
    """
    rho = spearman_rho(x, y)
    x_ranks, y_ranks = _ranks(np.asarray(x, float)), _ranks(np.asarray(y, float))
    n = y_ranks.size
    if n <= EXACT_UP_TO:
        orders = np.array(list(itertools.permutations(y_ranks)))
        return rho, _rank_correlations(x_ranks, orders), True
    rng = np.random.default_rng(PERMUTATION_SEED)
    chunk = max(1, 2_000_000 // n)        # at most 2e6 ranks (16 MB) in memory at once
    null = np.concatenate([
        _rank_correlations(x_ranks, rng.permuted(np.tile(y_ranks, (min(chunk, left), 1)),
                                                 axis=1))
        for left in range(PERMUTATIONS, 0, -chunk)])
    return rho, null, False


def permutation_p(statistic: float, null: np.ndarray, exact: bool) -> float:
    """Two-sided p of ``|statistic|`` against its null distribution: the share of orderings
    at least as extreme, counting the observed one when they are sampled
    (``(1 + k)/(m + 1)``), so that p is never 0."""
    tolerance = 1e-12 * max(1.0, abs(statistic))
    extreme = int(np.count_nonzero(np.abs(null) >= abs(statistic) - tolerance))
    return extreme / null.size if exact else (1 + extreme) / (null.size + 1)


def detectable_effect(null: np.ndarray, exact: bool, alpha: float = ALPHA) -> float:
    """The smallest |statistic| that reaches two-sided p < ``alpha`` against ``null``
    (NaN where no value can: too few runs)."""
    magnitudes = np.sort(np.abs(null))
    candidates = np.unique(magnitudes)
    at_least = magnitudes.size - np.searchsorted(magnitudes, candidates * (1 - 1e-12), "left")
    p = at_least / null.size if exact else (1 + at_least) / (null.size + 1)
    significant = candidates[p < alpha]
    return float(significant.min()) if significant.size else math.nan


def rho_interval(rho: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    r"""Approximate :math:`1-\alpha` interval of a Spearman correlation over ``n`` runs.

    :math:`\tanh(\operatorname{artanh}\rho \mp z_{1-\alpha/2}\,\sigma)` with the
    Bonett–Wright variance :math:`\sigma^2 = (1 + \rho^2/2)/(n - 3)`; |ρ| is clipped to
    :data:`RHO_CLIP` first, so that an observed ±1 from a few runs does not give a
    zero-width interval. NaN below four runs.
    """
    from scipy import stats

    if n < 4 or not math.isfinite(rho):
        return math.nan, math.nan
    r = float(np.clip(rho, -RHO_CLIP, RHO_CLIP))
    sigma = math.sqrt((1.0 + r * r / 2.0) / (n - 3))
    z = float(stats.norm.ppf(1.0 - alpha / 2.0))
    return math.tanh(math.atanh(r) - z * sigma), math.tanh(math.atanh(r) + z * sigma)


def _interval_text(low: float, high: float, spec: str = "+.2f") -> str:
    """`` [low, high]`` in format ``spec``, or nothing where there is no interval."""
    return "" if not math.isfinite(low) else f" [{low:{spec}}, {high:{spec}}]"


def _deterministic_values(runs: np.ndarray) -> np.ndarray:
    """The one value per level of a deterministic model's runs (shape (K, R) -> (K,));
    replicates that differ break the model's promise and raise."""
    runs = np.asarray(runs, float)
    if not np.array_equal(runs, np.repeat(runs[:, :1], runs.shape[1], axis=1), equal_nan=True):
        raise ValueError("a deterministic model gave different outputs for the same "
                         "parameters; its uses_seed() promise is broken")
    return runs[:, 0]


def rank_trend(claim: str, levels: np.ndarray, runs: np.ndarray, trend: str,
               deterministic: bool = False, alpha: float = ALPHA) -> Verdict:
    """Is the output monotonically ``increasing`` or ``decreasing`` in the factor?

    Stochastic model: Spearman's ρ of every run's output with its factor value, two-sided
    permutation p (:func:`spearman_null`); holds when ρ has the claimed sign with
    p < ``alpha``, fails when it has the other sign with p < ``alpha``, inconclusive
    otherwise (stating the smallest |ρ| the design could have detected). Deterministic
    model: one run per level; holds when every step between consecutive levels goes the
    claimed way, fails when ρ over the levels (the effect) has the other sign or is 0, and
    is inconclusive when the tendency is the claimed one but some steps go against it (a
    response that is not monotone). Untestable when the output is constant or there are
    fewer than three runs.

    Parameters
    ----------
    claim : str
    levels : ndarray, shape (K,)
        Factor values.
    runs : ndarray, shape (K, R)
        Output of each replicate at each level (NaN: a run without a value, left out).
    trend : {"increasing", "decreasing"}
    deterministic : bool
        Whether the model's runs depend on no seed (replicates are then one run).
    """
    levels = np.asarray(levels, float)
    claimed = {"increasing": 1.0, "decreasing": -1.0}[trend]
    if deterministic:
        return _deterministic_trend(claim, levels, _deterministic_values(runs), claimed)
    x = np.repeat(levels, np.asarray(runs).shape[1])
    return rank_correlation(claim, x, np.asarray(runs, float).ravel(), claimed, alpha)


def rank_correlation(claim: str, x: np.ndarray, y: np.ndarray, claimed: float,
                     alpha: float = ALPHA) -> Verdict:
    """Spearman's ρ of independent runs' ``y`` with ``x`` (both shape (n,); NaN in ``y``
    left out) against the claimed sign (+1 or -1): holds, fails, inconclusive (with the
    smallest detectable |ρ|) or untestable, as :func:`rank_trend` describes.

    Values censored at one common time (runs stopped at the same end, every censored value
    set to it) are ties above every observed value: ranks stay exact, means would not.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(y)
    x, y = x[keep], y[keep]
    if y.size < 3 or np.ptp(y) == 0.0 or np.ptp(x) == 0.0:
        why = "the output does not change" if y.size >= 3 else f"{y.size} runs"
        return Verdict(claim, "untestable", f"{why}; no rank test possible", "", int(y.size))
    rho, null, exact = spearman_null(x, y)
    p = permutation_p(rho, null, exact)
    low, high = rho_interval(rho, y.size, alpha)
    test = "Spearman rank correlation, " + ("exact permutation test" if exact else
                                           f"{null.size} random permutations")
    evidence = (f"Spearman ρ = {rho:+.2f}{_interval_text(low, high)} (95 %), {format_p(p)} "
                f"({'exact' if exact else 'permutation'}, {y.size} runs)")
    if p < alpha:
        verdict = "holds" if rho * claimed > 0 else "fails"
        return Verdict(claim, verdict, evidence, test, int(y.size), rho, low, high, p)
    smallest = detectable_effect(null, exact, alpha)
    evidence += ("; no outcome of this design reaches p < 0.05" if math.isnan(smallest)
                 else f"; the design detects |ρ| ≥ {smallest:.2f}")
    return Verdict(claim, "inconclusive", evidence, test, int(y.size), rho, low, high, p,
                   smallest)


def _deterministic_trend(claim: str, levels: np.ndarray, values: np.ndarray,
                         claimed: float) -> Verdict:
    order = np.argsort(levels)
    values = values[order]
    keep = np.isfinite(values)
    values = values[keep]
    n = int(values.size)
    test = "every step between levels (deterministic model)"
    if n < 2 or np.ptp(values) == 0.0:
        return Verdict(claim, "untestable", f"the output does not change over {n} levels "
                       "(deterministic model)", test, n)
    steps = np.sign(np.diff(values)) * claimed
    rho = spearman_rho(levels[order][keep], values)
    went = int(np.count_nonzero(steps > 0))
    verdict = ("holds" if went == steps.size else "fails" if rho * claimed <= 0 else
               "inconclusive")
    evidence = (f"{went} of {steps.size} steps between levels go the claimed way, Spearman ρ "
                f"= {rho:+.2f} over {n} levels (deterministic model: one run per level)")
    if verdict == "inconclusive":
        evidence += "; the tendency is the claimed one but the response is not monotone"
    return Verdict(claim, verdict, evidence, test, n, rho, rho, rho)


def mean_interval(values: np.ndarray, alpha: float = ALPHA) -> tuple[float, float, float, str]:
    """Mean of independent runs and its ``1 - alpha`` interval: Clopper–Pearson when every
    value is 0 or 1, Student t otherwise (NaN with one run). Returns ``(mean, low, high,
    method)``."""
    from scipy import stats

    values = np.asarray(values, float)
    n = values.size
    mean = float(values.mean())
    if np.all((values == 0.0) | (values == 1.0)):
        ci = stats.binomtest(int(values.sum()), n).proportion_ci(1 - alpha, "exact")
        return mean, float(ci.low), float(ci.high), "Clopper-Pearson interval of a share"
    if n < 2:
        return mean, math.nan, math.nan, "one run"
    half = float(stats.t.ppf(1 - alpha / 2, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half, "Student t interval of the mean"


def mean_in_range(claim: str, runs: np.ndarray, below: float | None, above: float | None,
                  deterministic: bool = False, alpha: float = ALPHA) -> Verdict:
    """Is the mean output inside ``(above, below)``?

    Holds when the 95 % interval of the mean (:func:`mean_interval`) lies inside, fails when
    it lies wholly beyond one bound, inconclusive otherwise. A deterministic model has one
    run and an exact value: holds inside, fails outside.

    Parameters
    ----------
    runs : ndarray, shape (R,)
        The output of each replicate at the level the claim is about (NaN left out).
    """
    if deterministic:
        value = float(_deterministic_values(np.asarray(runs, float)[None, :])[0])
        inside = (below is None or value < below) and (above is None or value > above)
        return Verdict(claim, "holds" if inside else "fails",
                       f"{value:.4g} (deterministic model: one run, an exact value)",
                       "exact value (deterministic model)", 1, value, value, value)
    values = np.asarray(runs, float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return Verdict(claim, "untestable", "no run has a value", "", 0)
    mean, low, high, method = mean_interval(values, alpha)
    evidence = f"mean {mean:.4g}"
    if math.isnan(low):
        return Verdict(claim, "inconclusive", evidence + " (one run: no interval)", method, 1,
                       mean)
    evidence += f" [{low:.4g}, {high:.4g}] (95 %, {method}, {values.size} runs)"
    verdict = range_verdict(low, high, below, above)
    return Verdict(claim, verdict, evidence, method, int(values.size), mean, low, high)


def range_verdict(low: float, high: float, below: float | None, above: float | None) -> str:
    """holds if the interval [low, high] lies inside (above, below), fails if it lies wholly
    beyond one bound, inconclusive otherwise."""
    inside = (below is None or high < below) and (above is None or low > above)
    outside = (below is not None and low >= below) or (above is not None and high <= above)
    return "holds" if inside else "fails" if outside else "inconclusive"


def power_law_fit(x: np.ndarray, y: np.ndarray, alpha: float = ALPHA
                  ) -> tuple[float, float, float, float, int]:
    r"""Least-squares fit of :math:`\ln y = a + b \ln x` over paired samples.

    Parameters
    ----------
    x, y : ndarray, shape (n,)
        Positive abscissae (e.g. the factor's level of each run) and outputs; pairs with a
        non-finite or non-positive member are left out.
    alpha : float
        1 - confidence of the slope's interval.

    Returns
    -------
    a, b : float
        Intercept and exponent.
    low, high : float
        The ``1 - alpha`` Student-t interval of ``b`` (n - 2 degrees of freedom; NaN below
        three points or with a single distinct x).
    n : int
        Pairs used.

    References
    ----------
    N. R. Draper and H. Smith, *Applied Regression Analysis*, 3rd ed., Wiley (1998), §1.4.
    """
    from scipy import stats

    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    lx, ly = np.log(x[keep]), np.log(y[keep])
    n = int(lx.size)
    if n < 2 or np.ptp(lx) == 0:
        return math.nan, math.nan, math.nan, math.nan, n
    fit = stats.linregress(lx, ly)
    if n < 3:
        return float(fit.intercept), float(fit.slope), math.nan, math.nan, n
    half = float(stats.t.ppf(1 - alpha / 2, n - 2) * fit.stderr)
    return (float(fit.intercept), float(fit.slope), float(fit.slope) - half,
            float(fit.slope) + half, n)


def exponent_in_range(claim: str, levels: np.ndarray, runs: np.ndarray, below: float | None,
                      above: float | None, alpha: float = ALPHA) -> Verdict:
    r"""Is the exponent b of :math:`y \propto x^b` inside ``(above, below)``?

    Every run is one point :math:`(\ln x, \ln y)` (:func:`power_law_fit`); holds when the
    95 % interval of b lies inside the range, fails when it lies wholly beyond one bound,
    inconclusive otherwise (the evidence then states the interval's half-width: the
    resolution of the design). Untestable with fewer than three usable runs or one level.

    Parameters
    ----------
    levels : ndarray, shape (L,)
        Positive factor values.
    runs : ndarray, shape (L, R)
        The output of each replicate at each level (positive; others left out).
    """
    runs = np.asarray(runs, float)
    x = np.repeat(np.asarray(levels, float), runs.shape[1])
    a, b, low, high, n = power_law_fit(x, runs.ravel(), alpha)
    test = "least-squares fit of ln y on ln x, Student t interval of the slope"
    if not math.isfinite(low):
        return Verdict(claim, "untestable", f"{n} usable runs at fewer than two levels or "
                       "fewer than three runs: no interval for the exponent", test, n, b)
    wanted = " and ".join(f"{sign} {bound:g}" for bound, sign in ((above, ">"), (below, "<"))
                          if bound is not None)
    evidence = (f"exponent {b:.3f} [{low:.3f}, {high:.3f}] (95 %, {n} runs; "
                f"prefactor e^a = {math.exp(a):.3g}); claimed {wanted}")
    verdict = range_verdict(low, high, below, above)
    detectable = math.nan
    if verdict == "inconclusive":
        detectable = (high - low) / 2
        evidence += f"; the design resolves the exponent to ±{detectable:.3f}"
    return Verdict(claim, verdict, evidence, test, n, b, low, high, math.nan, detectable)


def _kruskal_h(ranks: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Kruskal–Wallis H (no tie correction) of ``ranks`` (m,) under each row of ``labels``
    (B, m) with group values ``groups``: shape (B,)."""
    m = ranks.size
    total = np.zeros(labels.shape[0])
    for group in groups:
        member = labels == group
        size = member[0].sum()
        total += (member * ranks).sum(axis=1) ** 2 / size
    return 12.0 / (m * (m + 1)) * total - 3.0 * (m + 1)


def group_difference(claim: str, values: np.ndarray, groups: np.ndarray,
                     strata: np.ndarray | None = None, alpha: float = ALPHA,
                     resamples: int = 2000) -> Verdict:
    r"""Does the output differ between ``groups`` (within each stratum)?

    The statistic is the Kruskal–Wallis :math:`H` summed over the strata (ranks within each
    stratum, so a stratum's level does not matter); its null distribution comes from
    :data:`PERMUTATIONS` permutations of the group labels within each stratum. Holds when
    p < ``alpha``; otherwise inconclusive (no difference shown is not "no difference"),
    stating the effect the design detects. Effect: :math:`\epsilon^2 = H/(n - 1)` (1: the
    groups separate completely) less its mean under the permutation null (the chance level
    a small sample reaches without any difference), with a 95 % basic-bootstrap interval
    from ``resamples`` resamples of the runs within each stratum and group.

    Parameters
    ----------
    values, groups : ndarray, shape (n,)
        One value per independent run and its group label.
    strata : ndarray, shape (n,), optional
        Stratum labels (default: one stratum).
    """
    from scipy import stats

    values, groups = np.asarray(values, float), np.asarray(groups)
    strata = np.zeros(values.size) if strata is None else np.asarray(strata)
    rng = np.random.default_rng(PERMUTATION_SEED)
    observed, null, n = 0.0, np.zeros(PERMUTATIONS), values.size
    for stratum in np.unique(strata):
        inside = strata == stratum
        labels, ranks = groups[inside], stats.rankdata(values[inside])
        present = np.unique(labels)
        if present.size < 2:
            continue
        observed += float(_kruskal_h(ranks, labels[None, :], present)[0])
        null += _kruskal_h(ranks, rng.permuted(np.tile(labels, (PERMUTATIONS, 1)), axis=1),
                           present)
    if not null.any() or np.ptp(values) == 0.0:
        return Verdict(claim, "untestable", "fewer than two groups in every stratum, or a "
                       "constant output", "", n)
    p = (1 + int(np.count_nonzero(null >= observed - 1e-9))) / (PERMUTATIONS + 1)
    chance = float(null.mean()) / (n - 1)
    effect = observed / (n - 1) - chance
    q_low, q_high = _bootstrap_epsilon(values, groups, strata, rng, resamples)
    # basic bootstrap (2 x estimate - quantiles: resampling inflates H), less the chance level
    low, high = 2 * (effect + chance) - q_high - chance, 2 * (effect + chance) - q_low - chance
    test = "Kruskal-Wallis H summed over strata, permutation test within strata"
    evidence = (f"ε² above chance = {effect:+.2f} [{low:+.2f}, {high:+.2f}] (95 %), "
                f"{format_p(p)} (permutation, {n} runs, {np.unique(groups).size} groups)")
    if p < alpha:
        return Verdict(claim, "holds", evidence, test, n, effect, low, high, p)
    critical = float(np.quantile(null, 1 - alpha)) / (n - 1) - chance
    evidence += f"; the design detects ε² above chance ≥ {critical:.2f}"
    return Verdict(claim, "inconclusive", evidence, test, n, effect, low, high, p, critical)


def _bootstrap_epsilon(values: np.ndarray, groups: np.ndarray, strata: np.ndarray,
                       rng: np.random.Generator, resamples: int = 2000
                       ) -> tuple[float, float]:
    """95 % percentile interval of ε² from resampling runs within each (stratum, group)."""
    from scipy import stats

    cells = [np.flatnonzero((strata == s) & (groups == g))
             for s in np.unique(strata) for g in np.unique(groups)]
    cells = [cell for cell in cells if cell.size]
    estimates = np.empty(resamples)
    for b in range(resamples):
        pick = np.concatenate([rng.choice(cell, cell.size) for cell in cells])
        h = 0.0
        for stratum in np.unique(strata[pick]):
            inside = pick[strata[pick] == stratum]
            labels = groups[inside]
            if np.unique(labels).size > 1:
                h += float(_kruskal_h(stats.rankdata(values[inside]), labels[None, :],
                                      np.unique(labels))[0])
        estimates[b] = h / (values.size - 1)
    low, high = np.quantile(estimates, [ALPHA / 2, 1 - ALPHA / 2])
    return float(low), float(high)


def shift_interval(reference: np.ndarray, candidate: np.ndarray, alpha: float = ALPHA
                   ) -> tuple[float, float, float]:
    r"""Hodges–Lehmann shift ``reference - candidate`` and its :math:`1 - \alpha` interval.

    The estimate is the median of the :math:`mn` pairwise differences; the interval runs
    from the :math:`k`-th smallest to the :math:`k`-th largest, with
    :math:`k = \lfloor mn/2 - z_{1-\alpha/2}\sqrt{mn(m+n+1)/12} \rfloor` from the
    Mann–Whitney distribution (Hollander and Wolfe 1999, §4.3). NaN limits where ``k < 1``
    (too few runs for any interval).
    """
    from scipy import stats

    differences = np.sort(np.subtract.outer(np.asarray(reference, float),
                                            np.asarray(candidate, float)).ravel())
    m, n = len(reference), len(candidate)
    z = float(stats.norm.ppf(1 - alpha / 2))
    k = math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12))
    estimate = float(np.median(differences))
    if k < 1:
        return estimate, math.nan, math.nan
    return estimate, float(differences[k - 1]), float(differences[-k])


def no_improvement(claim: str, reference: np.ndarray, candidate: np.ndarray, margin: float,
                   what: str = "improvement", alpha: float = ALPHA) -> Verdict:
    """Does ``candidate`` improve on ``reference`` by no more than ``margin``?

    An equivalence claim ("too many do not help"): the improvement is the Hodges–Lehmann
    shift ``reference - candidate`` (:func:`shift_interval`; positive: the candidate is
    lower, i.e. better for a time). Holds when its 95 % interval lies below ``margin``;
    fails when it lies wholly above; inconclusive otherwise — a non-significant test alone
    never makes such a claim hold.
    """
    estimate, low, high = shift_interval(reference, candidate, alpha)
    n = len(reference) + len(candidate)
    test = "Hodges-Lehmann shift with its Mann-Whitney interval, against a margin"
    if math.isnan(low):
        return Verdict(claim, "inconclusive", f"{what} {estimate:+.3g}; {n} runs are too few "
                       "for an interval", test, n, estimate)
    evidence = (f"{what} {estimate:+.3g} [{low:+.3g}, {high:+.3g}] (95 %, {n} runs) against "
                f"a margin of {margin:.3g}")
    verdict = "holds" if high < margin else "fails" if low > margin else "inconclusive"
    return Verdict(claim, verdict, evidence, test, n, estimate, low, high)


def paired_difference(claim: str, gain: np.ndarray, what: str = "gain",
                      alpha: float = ALPHA) -> Verdict:
    """Is a paired difference (positive: the claimed direction) different from zero?

    Wilcoxon's signed-rank test, two-sided, with its permutation distribution (every sign
    pattern up to 2^n = :data:`PERMUTATIONS`, otherwise that many random ones); effect: the
    mean difference with its Student interval. Holds when p < ``alpha`` and the signed ranks
    lean the claimed way, fails when they lean the other way, inconclusive otherwise (stating
    the interval half-width: the mean difference the design resolves). Untestable when every
    difference is zero.

    Parameters
    ----------
    gain : ndarray, shape (n,)
        One paired difference per seed, oriented so that positive supports the claim.
    """
    from scipy import stats

    gain = np.asarray(gain, float)
    gain = gain[np.isfinite(gain)]
    n = int(gain.size)
    if n == 0 or not np.any(gain):
        return Verdict(claim, "untestable", f"all {n} paired differences are zero", "", n)
    method = stats.PermutationMethod(n_resamples=PERMUTATIONS, random_state=PERMUTATION_SEED)
    p = float(stats.wilcoxon(gain, method=method).pvalue)
    ranks = stats.rankdata(np.abs(gain[gain != 0]))
    lean = float(np.sum(np.sign(gain[gain != 0]) * ranks))
    mean, low, high, _ = mean_interval(gain, alpha)
    test = "Wilcoxon signed-rank test, permutation distribution"
    evidence = (f"mean {what} {mean:+.3g}{_interval_text(low, high, '+.3g')}"
                f" (95 %), {int(np.sum(gain > 0))} of {n} pairs in the claimed direction, "
                f"{int(np.sum(gain < 0))} against; {format_p(p)} ({n} paired runs)")
    if p < alpha:
        verdict = "holds" if lean > 0 else "fails"
        return Verdict(claim, verdict, evidence, test, n, mean, low, high, p)
    half = (high - low) / 2 if math.isfinite(low) else math.nan
    evidence += f"; the design resolves mean differences beyond ±{half:.3g}"
    return Verdict(claim, "inconclusive", evidence, test, n, mean, low, high, p, half)
