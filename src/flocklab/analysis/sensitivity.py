r"""Sensitivity analysis: designs and indices, as pure functions on arrays.

Three methods share one registry (:data:`METHODS`), each a pair of functions: a
*design* (the parameter points to run) and an *analysis* (indices from the model
outputs at those points). Nothing here runs a model or touches a file; the
pipeline stage :mod:`flocklab.stages.sensitivity` does the I/O, so the same code
serves any model.

* ``oat`` — one factor at a time around a baseline: for each factor :math:`x_i` and
  level :math:`v`, the mean output :math:`\bar y_i(v)` over replicates with its
  standard error, and the *swing* :math:`\max_v \bar y_i(v) - \min_v \bar y_i(v)`.
* ``morris`` — elementary effects on a grid of ``levels`` levels along random
  trajectories (Morris 1991, with the :math:`\mu^*` of Campolongo et al. 2007):
  :math:`EE_i = [y(x + \Delta e_i) - y(x)]/\Delta` in units of the factor's range,
  :math:`\mu^* = \langle |EE_i| \rangle` (importance), :math:`\sigma = \mathrm{sd}(EE_i)`
  (non-linearity and interactions); bootstrap interval of :math:`\mu^*`.
* ``sobol`` — variance-based first-order and total indices,
  :math:`S_i = V[E(y|x_i)]/V(y)`, :math:`S_{T,i} = E[V(y|x_{\sim i})]/V(y)`,
  estimated from Saltelli's cross-sampled Sobol' sequence with
  :math:`N(D+2)` model evaluations (Saltelli 2002; Saltelli et al. 2010 estimators;
  Jansen's for :math:`S_T`), with bootstrap confidence intervals.

Morris and Sobol use SALib (Herman & Usher 2017; Iwanaga et al. 2022), which
implements all three of sampling, the estimators and their bootstrap intervals in
one maintained library; ``scipy.stats.sobol_indices`` has no Morris method.

References
----------
M. D. Morris, Technometrics 33, 161 (1991). F. Campolongo, J. Cariboni, A. Saltelli,
Environ. Model. Softw. 22, 1509 (2007). A. Saltelli, Comput. Phys. Commun. 145, 280
(2002). A. Saltelli et al., Comput. Phys. Commun. 181, 259 (2010). T. Ishigami,
T. Homma, Proc. ISUMA (1990) (test function). J. Herman, W. Usher, J. Open Source
Softw. 2, 97 (2017).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Significant digits kept of sampled factor values, so run labels stay readable and exact.
DESIGN_DIGITS = 6


@dataclass(frozen=True)
class Factor:
    """One input factor of a sensitivity study.

    Parameters
    ----------
    name : str
        A model parameter or a model's derived factor (``density`` for the Vicsek model).
    low, high : float
        Range (uniform distribution, or the truncation of a normal one).
    dist : {"uniform", "truncnorm"}
        Sampling distribution of ``morris`` and ``sobol`` designs.
    mean, sd : float, optional
        Location and scale of ``truncnorm``.
    values : tuple of float
        Levels of an ``oat`` design.
    """

    name: str
    low: float = math.nan
    high: float = math.nan
    dist: str = "uniform"
    mean: float = math.nan
    sd: float = math.nan
    values: tuple[float, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Design:
    """Rows of factor values to run, with what the analysis needs to read them back.

    Attributes
    ----------
    values : ndarray, shape (rows, factors)
        Factor values of every model evaluation, in the order the method's analysis
        expects (duplicated rows are evaluated once by the pipeline).
    oat_factor, oat_level : ndarray of int, shape (rows,)
        For ``oat``: the factor varied in each row and its level index; -1 elsewhere.
    """

    method: str
    factors: tuple[Factor, ...]
    values: np.ndarray
    oat_factor: np.ndarray
    oat_level: np.ndarray

    @property
    def names(self) -> list[str]:
        return [factor.name for factor in self.factors]


def round_values(values: np.ndarray, digits: int = DESIGN_DIGITS) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (0 stays 0)."""
    values = np.asarray(values, dtype=np.float64)
    scale = np.where(values == 0.0, 1.0, 10.0 ** (digits - 1 - np.floor(np.log10(
        np.abs(np.where(values == 0.0, 1.0, values))))))
    return np.round(values * scale) / scale


def salib_problem(factors: Sequence[Factor]) -> dict[str, Any]:
    """SALib problem dictionary (names, bounds, distributions) of ``factors``."""
    bounds, dists = [], []
    for factor in factors:
        if factor.dist == "truncnorm":
            bounds.append([factor.low, factor.high, factor.mean, factor.sd])
            dists.append("truncnorm")
        else:
            bounds.append([factor.low, factor.high])
            dists.append("unif")
    return {"num_vars": len(factors), "names": [f.name for f in factors], "bounds": bounds,
            "dists": dists}


# --------------------------------------------------------------------------- designs


def oat_design(factors: Sequence[Factor], baseline: Mapping[str, float], **_: Any) -> Design:
    """One-at-a-time design: each factor through its ``values``, the others at ``baseline``.

    Returns a :class:`Design` with ``sum(len(f.values))`` rows; row order is factor-major.
    """
    rows, which, level = [], [], []
    for i, factor in enumerate(factors):
        for k, value in enumerate(factor.values):
            rows.append([value if f.name == factor.name else baseline[f.name] for f in factors])
            which.append(i)
            level.append(k)
    return Design("oat", tuple(factors), np.asarray(rows, dtype=np.float64),
                  np.asarray(which, dtype=np.int64), np.asarray(level, dtype=np.int64))


def morris_design(factors: Sequence[Factor], samples: int, seed: int, levels: int = 4,
                  **_: Any) -> Design:
    """Morris trajectories: ``samples`` trajectories of ``D + 1`` rows on a ``levels`` grid."""
    from SALib.sample import morris

    values = morris.sample(salib_problem(factors), samples, num_levels=levels, seed=seed)
    return _sampled("morris", factors, values)


def sobol_design(factors: Sequence[Factor], samples: int, seed: int, **_: Any) -> Design:
    """Saltelli design from a scrambled Sobol' sequence: ``samples * (D + 2)`` rows.

    ``samples`` (the base sample count N) must be a power of two. The first
    ``n (D + 2)`` rows are the design of ``n`` base samples, so smaller designs are
    prefixes of larger ones (used for the convergence curves, and so that doubling N
    keeps every existing run).
    """
    from SALib.sample import sobol

    values = sobol.sample(salib_problem(factors), samples, calc_second_order=False, seed=seed)
    return _sampled("sobol", factors, values)


def _sampled(method: str, factors: Sequence[Factor], values: np.ndarray) -> Design:
    rows = values.shape[0]
    none = np.full(rows, -1, dtype=np.int64)
    return Design(method, tuple(factors), round_values(values), none, none.copy())


# --------------------------------------------------------------------------- analyses


@dataclass
class Indices:
    """Sensitivity indices of one output.

    Attributes
    ----------
    values : dict of str to ndarray, shape (D,)
        Index name (``S1``, ``S1_conf``, ``ST``, ``ST_conf`` or ``mu``, ``mu_star``,
        ``mu_star_conf``, ``sigma``) to one value per factor.
    convergence : dict of str to ndarray, shape (S, D)
        The same indices from the first ``sizes[s]`` base samples or trajectories.
    sizes : ndarray of int, shape (S,)
        Base samples (Sobol) or trajectories (Morris) of each convergence row.
    note : str
        Why indices are undefined (e.g. a constant output), else empty.
    """

    values: dict[str, np.ndarray]
    convergence: dict[str, np.ndarray] = field(default_factory=dict)
    sizes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    note: str = ""


SOBOL_INDICES = ("S1", "S1_conf", "ST", "ST_conf")
MORRIS_INDICES = ("mu", "mu_star", "mu_star_conf", "sigma")


def convergence_sizes(total: int, smallest: int, power_of_two: bool) -> np.ndarray:
    """Sizes for convergence curves: halvings of ``total`` down to ``smallest``."""
    sizes = [total]
    while sizes[-1] // 2 >= smallest and (not power_of_two or sizes[-1] % 2 == 0):
        sizes.append(sizes[-1] // 2)
    return np.asarray(sorted(sizes), dtype=np.int64)


def _undefined(names: Sequence[str], d: int, sizes: np.ndarray, note: str) -> Indices:
    nan = {name: np.full(d, np.nan) for name in names}
    return Indices(nan, {name: np.full((sizes.size, d), np.nan) for name in names}, sizes, note)


def sobol_indices(design: Design, outputs: np.ndarray, seed: int, resamples: int = 1000,
                  confidence: float = 0.95) -> Indices:
    """First-order and total Sobol' indices of one output with bootstrap intervals.

    Parameters
    ----------
    design : Design
        A :func:`sobol_design`.
    outputs : ndarray, shape (rows,)
        Model output at every design row.
    seed : int
        Seed of the bootstrap resampling (> 0).
    resamples : int
        Bootstrap resamples.
    confidence : float
        Level of the intervals; ``*_conf`` are their half-widths (normal approximation
        of the bootstrap distribution, as in SALib).
    """
    from SALib.analyze import sobol

    d = len(design.factors)
    total = outputs.size // (d + 2)
    sizes = convergence_sizes(total, 8, power_of_two=True)
    if not np.all(np.isfinite(outputs)) or np.ptp(outputs) == 0.0:
        return _undefined(SOBOL_INDICES, d, sizes,
                          "output is constant or not finite: variance-based indices undefined")
    problem = salib_problem(design.factors)

    def analyse(n: int) -> dict[str, np.ndarray]:
        subset = outputs[: n * (d + 2)]
        if np.ptp(subset) == 0.0:
            return {name: np.full(d, np.nan) for name in SOBOL_INDICES}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = sobol.analyze(problem, subset, calc_second_order=False,
                                   num_resamples=resamples, conf_level=confidence,
                                   seed=max(int(seed), 1))
        return {name: np.asarray(result[name], dtype=np.float64) for name in SOBOL_INDICES}

    return _with_convergence(analyse, sizes, SOBOL_INDICES)


def morris_indices(design: Design, outputs: np.ndarray, seed: int, resamples: int = 1000,
                   confidence: float = 0.95, levels: int = 4) -> Indices:
    """Morris :math:`\\mu`, :math:`\\mu^*` (with bootstrap half-width) and :math:`\\sigma`.

    Elementary effects are in output units per full range of the factor.
    """
    from SALib.analyze import morris

    d = len(design.factors)
    trajectories = outputs.size // (d + 1)
    sizes = convergence_sizes(trajectories, 2, power_of_two=False)
    if not np.all(np.isfinite(outputs)):
        return _undefined(MORRIS_INDICES, d, sizes, "output not finite")
    problem = salib_problem(design.factors)

    def analyse(n: int) -> dict[str, np.ndarray]:
        rows = n * (d + 1)
        result = morris.analyze(problem, design.values[:rows], outputs[:rows].astype(float),
                                num_resamples=resamples, conf_level=confidence,
                                num_levels=levels, seed=max(int(seed), 1))
        return {name: np.asarray(result[name], dtype=np.float64) for name in MORRIS_INDICES}

    return _with_convergence(analyse, sizes, MORRIS_INDICES)


def _with_convergence(analyse: Callable[[int], dict[str, np.ndarray]], sizes: np.ndarray,
                      names: Sequence[str]) -> Indices:
    rows = [analyse(int(n)) for n in sizes]
    convergence = {name: np.stack([row[name] for row in rows]) for name in names}
    return Indices(dict(rows[-1]), convergence, sizes)


@dataclass
class OneAtATime:
    """One-at-a-time response of one output.

    Attributes
    ----------
    mean, sem : ndarray, shape (D, K)
        Mean over replicates and its standard error at each factor level (NaN-padded
        where a factor has fewer than K levels; sem is NaN with one replicate).
    swing : ndarray, shape (D,)
        :math:`\\max_v \\bar y - \\min_v \\bar y` over each factor's levels.
    """

    mean: np.ndarray
    sem: np.ndarray
    swing: np.ndarray


def oat_response(design: Design, runs: np.ndarray) -> OneAtATime:
    """Level means of an ``oat`` design.

    Parameters
    ----------
    design : Design
        An :func:`oat_design`.
    runs : ndarray, shape (rows, R)
        Output of every replicate at every design row.
    """
    d = len(design.factors)
    k = max(len(f.values) for f in design.factors)
    mean = np.full((d, k), np.nan)
    sem = np.full((d, k), np.nan)
    replicates = runs.shape[1]
    mean[design.oat_factor, design.oat_level] = runs.mean(axis=1)
    if replicates > 1:
        sem[design.oat_factor, design.oat_level] = runs.std(axis=1, ddof=1) / math.sqrt(
            replicates)
    swing = np.nanmax(mean, axis=1) - np.nanmin(mean, axis=1)
    return OneAtATime(mean, sem, swing)


def oat_indices(design: Design, outputs: np.ndarray, **_: Any) -> Indices:
    """The swing of each factor as the one-at-a-time index (``outputs``: rows × replicates)."""
    return Indices({"swing": oat_response(design, outputs).swing})


# --------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Verdict:
    """Outcome of testing one claim against one-at-a-time data.

    ``verdict`` is ``"holds"``, ``"fails"`` or ``"inconclusive"``; ``evidence`` says
    what was measured.
    """

    claim: str
    verdict: str
    evidence: str


def trend_verdict(levels: np.ndarray, runs: np.ndarray, trend: str, alpha: float = 0.05
                  ) -> tuple[str, str]:
    """Is the output monotonically ``increasing``/``decreasing`` in the factor?

    Spearman's rank correlation of every run's output with its factor value; the claim
    holds when the correlation has the claimed sign with two-sided p < ``alpha``, fails
    when it has the other sign with p < ``alpha``, and is inconclusive otherwise.

    Parameters
    ----------
    levels : ndarray, shape (K,)
        Factor values.
    runs : ndarray, shape (K, R)
        Output of each replicate at each level.
    """
    from scipy import stats

    x = np.repeat(levels, runs.shape[1])
    y = runs.ravel()
    if np.ptp(y) == 0.0:
        return "fails" if trend != "flat" else "holds", "the output does not change at all"
    rho, p = stats.spearmanr(x, y)
    evidence = f"Spearman rho = {rho:+.2f} (p = {p:.2g}, {y.size} runs)"
    claimed = 1.0 if trend == "increasing" else -1.0
    if p < alpha:
        return ("holds" if rho * claimed > 0 else "fails"), evidence
    return "inconclusive", evidence


def bound_verdict(runs: np.ndarray, below: float | None, above: float | None,
                  z: float = 2.0) -> tuple[str, str]:
    """Is the mean output inside ``(above, below)``?

    Holds when mean ± ``z`` standard errors lies inside, fails when it lies wholly
    outside one bound, inconclusive otherwise.

    Parameters
    ----------
    runs : ndarray, shape (R,)
        Output of each replicate at the level the claim is about.
    """
    mean = float(np.mean(runs))
    sem = float(np.std(runs, ddof=1) / math.sqrt(runs.size)) if runs.size > 1 else 0.0
    low, high = mean - z * sem, mean + z * sem
    evidence = f"mean {mean:.4g} ± {sem:.2g} (s.e., {runs.size} runs)"
    inside = (below is None or high < below) and (above is None or low > above)
    outside = (below is not None and low >= below) or (above is not None and high <= above)
    return ("holds" if inside else "fails" if outside else "inconclusive"), evidence


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Method:
    """A sensitivity method: its design, its analysis and the index names it returns."""

    name: str
    design: Callable[..., Design]
    analyse: Callable[..., Indices]
    indices: tuple[str, ...]


METHODS: dict[str, Method] = {
    "oat": Method("oat", oat_design, oat_indices, ("swing",)),
    "morris": Method("morris", morris_design, morris_indices, MORRIS_INDICES),
    "sobol": Method("sobol", sobol_design, sobol_indices, SOBOL_INDICES),
}


def check_sample_size(method: str, samples: int, levels: int = 4
                      ) -> tuple[str, str] | None:
    """``(setting, reason)`` if ``samples`` or ``levels`` cannot be used by ``method``."""
    if method == "sobol" and (samples < 8 or samples & (samples - 1)):
        return "samples", ("the Sobol' design needs a power of two >= 8 base samples "
                           "(8, 16, 32, ...)")
    if method == "morris":
        if samples < 2:
            return "samples", "Morris needs at least 2 trajectories"
        if levels < 2 or levels % 2:
            return "levels", "Morris needs an even number of grid levels >= 2"
    return None


# --------------------------------------------------------------------------- test functions


def ishigami(x: np.ndarray, a: float = 7.0, b: float = 0.1) -> np.ndarray:
    r"""Ishigami function :math:`\sin x_1 + a \sin^2 x_2 + b x_3^4 \sin x_1`, ``x``: (n, 3)."""
    return np.sin(x[:, 0]) + a * np.sin(x[:, 1]) ** 2 + b * x[:, 2] ** 4 * np.sin(x[:, 0])


def ishigami_indices(a: float = 7.0, b: float = 0.1) -> dict[str, np.ndarray]:
    """Analytic first-order and total indices of :func:`ishigami` on :math:`[-\\pi, \\pi]^3`."""
    v1 = 0.5 * (1.0 + b * math.pi**4 / 5.0) ** 2
    v2 = a**2 / 8.0
    v13 = b**2 * math.pi**8 * (1.0 / 18.0 - 1.0 / 50.0)
    total = v1 + v2 + v13
    return {"S1": np.array([v1, v2, 0.0]) / total,
            "ST": np.array([v1 + v13, v2, v13]) / total}
