r"""Sensitivity analysis: designs and indices, as pure functions.

Three methods share one registry (:data:`METHODS`), each a pair of functions: a
*design* (the parameter points to run) and an *analysis* (indices from the model
outputs at those points). Nothing here runs a model or touches a file; the
pipeline stage :mod:`flocklab.stages.sensitivity` does the I/O, so the same code
serves any model. The stage files are datasets made here: :func:`design_record_dataset`
(``design.nc``, inverse :func:`read_design`) and :func:`analyse_sensitivity`
(``sensitivity.nc`` and its JSON digest) from the design and the study's summary.

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

import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.io import json_ready
from flocklab.core.provenance import netcdf_attrs

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.analysis.verdicts import Verdict

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


def evaluate_claims(claims: Sequence[Mapping[str, Any]], design: Design, outputs: Sequence[str],
                    runs: np.ndarray, names: Mapping[str, str] | None = None,
                    deterministic: bool = False,
                    survival: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None
                    ) -> list[Verdict]:
    """Test each claim of an ``oat`` study against its runs.

    A claim with ``trend`` is judged by :func:`flocklab.analysis.verdicts.rank_trend` over
    the levels of its ``parameter`` or, where the output is a censored time (in
    ``survival``) of a stochastic model, by the log-rank test for trend
    (:func:`flocklab.analysis.survival.survival_trend`); one with ``exponent``
    (``below`` and/or ``above``) by :func:`flocklab.analysis.verdicts.exponent_in_range`
    (the power law of the output in the parameter, over every run); one with ``at`` (and
    ``below`` and/or ``above``) by :func:`flocklab.analysis.verdicts.mean_in_range` at
    the level nearest ``at``.

    Parameters
    ----------
    claims : sequence of mapping
        ``claim`` (text), ``parameter``, ``output`` and ``trend``, ``exponent`` or
        ``at``/``below``/``above``, as in the config.
    design : Design
        An :func:`oat_design`.
    outputs : sequence of str
        Names of the first axis of ``runs``.
    runs : ndarray, shape (outputs, rows, replicates)
        Every run's output at every design row.
    names : mapping, optional
        What the evidence calls outputs and parameters (e.g. their long names; default:
        their config names).
    deterministic : bool
        Whether the model's runs depend on no seed (its replicates are then one run).
    survival : mapping, optional
        Censored outputs: their times and event indicators, each shaped (rows, replicates)
        (:func:`survival_outputs`).

    Returns
    -------
    list of Verdict
        One per claim, in order.
    """
    from flocklab.analysis.survival import survival_trend
    from flocklab.analysis.verdicts import exponent_in_range, mean_in_range, rank_trend

    verdicts = []
    names = dict(names or {})
    for claim in claims:
        factor = design.names.index(claim["parameter"])
        output = names.get(claim["output"], claim["output"])
        parameter = names.get(claim["parameter"], claim["parameter"])
        rows = np.flatnonzero(design.oat_factor == factor)
        levels = np.asarray(design.factors[factor].values)[design.oat_level[rows]]
        values = runs[outputs.index(claim["output"])][rows]
        censored = (survival or {}).get(claim["output"])
        if "trend" in claim and censored is not None and not deterministic:
            verdict = survival_trend(claim["claim"], levels, censored[0][rows],
                                     censored[1][rows], claim["trend"])
            evidence = f"{output} against {parameter}: {verdict.evidence}"
        elif "trend" in claim:
            verdict = rank_trend(claim["claim"], levels, values, claim["trend"], deterministic)
            evidence = f"{output} against {parameter}: {verdict.evidence}"
        elif "exponent" in claim:
            bounds = claim["exponent"]
            verdict = exponent_in_range(claim["claim"], levels, values, bounds.get("below"),
                                        bounds.get("above"))
            evidence = f"{output} against {parameter} (log-log): {verdict.evidence}"
        else:
            at = int(np.argmin(np.abs(levels - claim["at"])))
            verdict = mean_in_range(claim["claim"], values[at], claim.get("below"),
                                    claim.get("above"), deterministic)
            wanted = " and ".join(f"{sign} {claim[side]}" for side, sign in
                                  (("above", ">"), ("below", "<")) if side in claim)
            evidence = (f"{output} at {parameter} = {levels[at]:g}: "
                        f"{verdict.evidence}; claimed {wanted}")
        verdicts.append(dataclasses.replace(verdict, evidence=evidence))
    return verdicts


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Method:
    """A sensitivity method: every fact about it that the config, the stage and the figures
    use, so that none of them names a method.

    Parameters
    ----------
    name : str
        Registry key (the config's ``method``).
    design, analyse : callable
        The design (rows to run) and the indices from the outputs at those rows.
    indices : tuple of str
        Names of the indices ``analyse`` returns.
    factors_as : {"values", "range"}
        How a factor is given in the config: its levels as ``values`` (a list or a range), or a
        range ``{low, high}`` (uniform, or a truncated normal with ``mean`` and ``sd``).
    claims : bool
        Claims (trends, bounds at a level, exponents) are tested on its studies.
    levels : bool
        It takes the grid ``levels`` setting (passed to ``design`` and ``analyse``).
    rows_per_sample : callable or None
        ``rows_per_sample(d)``: design rows per base sample of ``d`` factors for a sampled
        method (its indices are also reported against the sample size); None for a design
        run point by point (analysed level by level, with per-run responses).
    sample_name : str
        What one sample is (axis label of the convergence in the sample size).
    headline : tuple of str
        The indices drawn against the sample size (first solid, second dashed).
    check : callable
        ``check(samples, levels)``: ``(setting, reason)`` when they cannot be used, else
        None.
    """

    name: str
    design: Callable[..., Design]
    analyse: Callable[..., Indices]
    indices: tuple[str, ...]
    factors_as: str
    claims: bool = False
    levels: bool = False
    rows_per_sample: Callable[[int], int] | None = None
    sample_name: str = ""
    headline: tuple[str, ...] = ()
    check: Callable[[int, int], tuple[str, str] | None] = lambda samples, levels: None


def _sobol_check(samples: int, levels: int) -> tuple[str, str] | None:
    if samples < 8 or samples & (samples - 1):
        return "samples", ("the Sobol' design needs a power of two >= 8 base samples "
                           "(8, 16, 32, ...)")
    return None


def _morris_check(samples: int, levels: int) -> tuple[str, str] | None:
    if samples < 2:
        return "samples", "Morris needs at least 2 trajectories"
    if levels < 2 or levels % 2:
        return "levels", "Morris needs an even number of grid levels >= 2"
    return None


METHODS: dict[str, Method] = {
    "oat": Method("oat", oat_design, oat_indices, ("swing",), factors_as="values",
                  claims=True),
    "morris": Method("morris", morris_design, morris_indices, MORRIS_INDICES,
                     factors_as="range", levels=True, rows_per_sample=lambda d: d + 1,
                     sample_name="trajectories", headline=("mu_star",), check=_morris_check),
    "sobol": Method("sobol", sobol_design, sobol_indices, SOBOL_INDICES, factors_as="range",
                    rows_per_sample=lambda d: d + 2, sample_name="base samples $N$",
                    headline=("S1", "ST"), check=_sobol_check),
}


def check_sample_size(method: str, samples: int, levels: int = 4
                      ) -> tuple[str, str] | None:
    """``(setting, reason)`` if ``samples`` or ``levels`` cannot be used by ``method``."""
    return METHODS[method].check(samples, levels)


# --------------------------------------------------------------------------- stage files

INDEX_LONG_NAMES = {
    "S1": "first-order Sobol' index",
    "S1_conf": "half-width of the confidence interval of S1",
    "ST": "total-order Sobol' index",
    "ST_conf": "half-width of the confidence interval of ST",
    "mu": "mean elementary effect (per full factor range)",
    "mu_star": "mean absolute elementary effect mu* (per full factor range)",
    "mu_star_conf": "half-width of the bootstrap confidence interval of mu*",
    "sigma": "standard deviation of the elementary effects",
    "swing": "max - min over the factor's levels of the mean output (one at a time)",
}


def design_dataset(model_name: str, design: Design, labels: Sequence[str],
                   targets: Mapping[str, Sequence[Any]]) -> xr.Dataset:
    """The design as a dataset (no attributes beyond long names and units).

    ================  ===================  ==================================================
    variable          dimensions           meaning
    ================  ===================  ==================================================
    value             row, parameter       factor value of each design row
    point             row                  label of the run directory of the row's point
    <model param>     row                  the model parameter a factor sets (e.g. N)
    oat_parameter     row                  oat: index of the factor varied (-1 otherwise)
    oat_level         row                  oat: its level index (-1 otherwise)
    level_value       parameter, level     oat: the levels of each factor (NaN-padded)
    low, high         parameter            range of each factor (morris, sobol)
    mean, sd          parameter            truncated-normal location and scale (NaN if
                                           uniform)
    dist              parameter            sampling distribution (uniform or truncnorm)
    ================  ===================  ==================================================

    Parameters
    ----------
    model_name : str
        Model whose parameter specs give units.
    design : Design
        The design.
    labels : sequence of str, length rows
        Point label of every row.
    targets : mapping of str to sequence, each of length rows
        Model-parameter values set by the factors at every row.
    """
    import xarray as xr

    from flocklab.core.registry import get_model

    model = get_model(model_name)
    factors = design.factors
    levels = max((len(f.values) for f in factors), default=0)
    level_value = np.full((len(factors), max(levels, 1)), np.nan)
    for i, factor in enumerate(factors):
        level_value[i, :len(factor.values)] = factor.values
    data = {
        "value": (("row", "parameter"), design.values, {"long_name": "factor value"}),
        "point": ("row", np.asarray(labels, dtype=str),
                  {"long_name": "parameter-point label (run directory)"}),
        "oat_parameter": ("row", design.oat_factor,
                          {"long_name": "index of the factor varied (oat; -1 otherwise)"}),
        "oat_level": ("row", design.oat_level,
                      {"long_name": "level index of the varied factor (oat; -1 otherwise)"}),
        "level_value": (("parameter", "level"), level_value,
                        {"long_name": "factor value of each oat level"}),
        "low": ("parameter", [f.low for f in factors], {"long_name": "lower end of the range"}),
        "high": ("parameter", [f.high for f in factors], {"long_name": "upper end of the range"}),
        "mean": ("parameter", [f.mean for f in factors], {"long_name": "truncnorm mean"}),
        "sd": ("parameter", [f.sd for f in factors], {"long_name": "truncnorm sd"}),
        "dist": ("parameter", np.asarray([f.dist for f in factors], dtype=str),
                 {"long_name": "sampling distribution"}),
    }
    for name, values in targets.items():
        spec = model.spec(name)
        data[name] = ("row", np.asarray(values),
                      {"long_name": f"model parameter {name}: {spec.description}",
                       "units": spec.unit})
    coords = {"parameter": ("parameter", design.names, {"long_name": "input factor"}),
              "row": ("row", np.arange(design.values.shape[0]), {"long_name": "design row"}),
              "level": ("level", np.arange(level_value.shape[1]),
                        {"long_name": "oat level index"})}
    return xr.Dataset(data, coords=coords)


def design_record_dataset(record: Mapping[str, Any], design: Design,
                          points: Sequence[Any]) -> xr.Dataset:
    """The design file of a study: :func:`design_dataset` of its points, with attributes.

    Parameters
    ----------
    record : mapping
        ``name``, ``model``, ``fixed``, ``sensitivity`` (the section's settings the design
        depends on), ``seed``.
    design : Design
        The study's design (:func:`flocklab.config.study.sensitivity_design`).
    points : sequence
        The parameter point of every row (``label`` and ``values``, as made by
        :func:`flocklab.config.study.design_points`).
    """
    targets = {name: [point.values[name] for point in points] for name in points[0].values}
    ds = design_dataset(record["model"], design, [point.label for point in points], targets)
    ds.attrs = netcdf_attrs({
        "title": f"sensitivity design of study {record['name']}",
        "study": record["name"], "model": record["model"], "method": design.method,
        "fixed_parameters": record["fixed"], "settings": record["sensitivity"],
        "seed": record["seed"], "rows": int(design.values.shape[0]),
        "distinct_points": len({point.label for point in points}),
    })
    return ds


def read_design(ds: xr.Dataset) -> Design:
    """Inverse of :func:`design_dataset` (the design's arrays and factors; the method from
    the ``method`` attribute)."""
    factors = []
    for i, name in enumerate(ds["parameter"].values.tolist()):
        levels = ds["level_value"].values[i]
        factors.append(Factor(str(name), float(ds["low"][i]), float(ds["high"][i]),
                              str(ds["dist"].values[i]), float(ds["mean"][i]),
                              float(ds["sd"][i]),
                              tuple(float(v) for v in levels[np.isfinite(levels)])))
    return Design(ds.attrs["method"], tuple(factors), ds["value"].values.astype(np.float64),
                  ds["oat_parameter"].values.astype(np.int64),
                  ds["oat_level"].values.astype(np.int64))


def run_outputs(summary: xr.Dataset, labels: Sequence[str], outputs: Sequence[str],
                censored: Sequence[str] = ()) -> np.ndarray:
    """Per-run outputs at every design row.

    Parameters
    ----------
    summary : xarray.Dataset
        The study's summary (dimensions ``point`` and ``replicate``); rows are matched to
        its points by label.
    labels : sequence of str, length rows
        Point label of every design row.
    outputs : sequence of str
        Per-run metrics of the summary.
    censored : sequence of str
        Outputs that are censored times (:attr:`flocklab.core.model.Metric.censored`): NaN
        is a value of theirs (no event, or none possible), not an error.

    Returns
    -------
    ndarray, shape (outputs, rows, replicates)

    Raises
    ------
    ValueError
        A row without runs, an unknown output, or a non-finite value of an output that is
        not censored.
    """
    known = summary["point"].values.astype(str).tolist()
    missing = sorted(set(labels) - set(known))
    if missing:
        raise ValueError(f"no runs for design point(s) {missing[:3]} ({len(missing)} "
                         f"missing)")
    for output in outputs:
        if output not in summary:
            raise ValueError(f"output '{output}' is not in the summary; per-run metrics: "
                             f"{', '.join(name for name in summary.data_vars)}")
    rows = [known.index(label) for label in labels]
    runs = np.stack([summary[o].transpose("point", "replicate").values[rows]
                     for o in outputs])
    plain = [k for k, output in enumerate(outputs) if output not in censored]
    if not np.all(np.isfinite(runs[plain])):
        raise ValueError("a design point has a non-finite output")
    return runs


def survival_outputs(summary: xr.Dataset, labels: Sequence[str], outputs: Sequence[str],
                     model_name: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The censored outputs among ``outputs`` as survival times and event indicators.

    Which outputs are censored, and how a run records it, is the model's declaration
    (:class:`flocklab.core.model.Metric`: ``event`` or ``censored_at_end``); the run's end is
    the study's ``t_end`` (summary attribute ``time``).

    Returns
    -------
    dict of str to (ndarray, ndarray)
        Per censored output: times and events (1 event, 0 censored, NaN: no value), each of
        shape (rows, replicates) in the order of ``labels``.
    """
    from flocklab.core.registry import get_model

    declared = {metric.name: metric for metric in get_model(model_name).run_metrics}
    time = json.loads(summary.attrs.get("time", "{}"))
    t_end = float(time["t_end"]) if time.get("t_end") is not None else float(
        time.get("steps", math.nan)) * float(time.get("dt", 1.0))
    known = summary["point"].values.astype(str).tolist()
    rows = [known.index(label) for label in labels]

    def values(name: str) -> np.ndarray:
        if name not in summary:
            raise ValueError(f"the event indicator '{name}' of a censored output is not in "
                             f"the summary")
        return summary[name].transpose("point", "replicate").values[rows].astype(float)

    return {output: declared[output].survival_data(
                values(output), values(declared[output].event) if declared[output].event
                else None, t_end)
            for output in outputs if output in declared and declared[output].censored}


def index_variables(results: Mapping[str, Indices], outputs: Sequence[str],
                    index_names: Sequence[str]) -> dict[str, Any]:
    """Dataset variables of the indices: ``<index>`` on (output, parameter) and, where the
    results have convergence rows, ``<index>_convergence`` on (output, sample_size,
    parameter)."""
    data = {}
    for name in index_names:
        data[name] = (("output", "parameter"), np.stack([results[o].values[name]
                                                         for o in outputs]),
                      {"long_name": INDEX_LONG_NAMES[name], "units": "1"})
        if results[outputs[0]].convergence:
            data[f"{name}_convergence"] = (
                ("output", "sample_size", "parameter"),
                np.stack([results[o].convergence[name] for o in outputs]),
                {"long_name": f"{INDEX_LONG_NAMES[name]}, from the first sample_size "
                              f"base samples or trajectories", "units": "1"})
    return data


def analyse_sensitivity(design_ds: xr.Dataset, summary: xr.Dataset,
                        settings: Mapping[str, Any], replicates: int,
                        names: Mapping[str, str] | None = None, deterministic: bool = False
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Indices of every output from a design and the per-run metrics of its runs.

    ================================  ==========================================================
    variable (dimensions)             meaning
    ================================  ==========================================================
    S1, S1_conf, ST, ST_conf          sobol: indices, interval half-widths (output, parameter)
    mu, mu_star, sigma, mu_star_conf  morris: elementary-effect statistics, half-width of mu*'s
                                      interval (output, parameter)
    <index>_convergence               the index from the first designs (output, sample_size,
                                      parameter)
    swing                             oat: max - min of the level means (output, parameter)
    response_mean, _sem               oat: mean output and standard error (output, parameter,
                                      level)
    response                          oat: every run's output (output, parameter, level,
                                      replicate); a censored time (:func:`survival_outputs`)
                                      is its survival time, the censoring time where
                                      response_event is 0
    response_event                    oat, censored outputs: 1 event, 0 censored (as response)
    response_median, _low, _high      oat, censored outputs: Kaplan-Meier median time with its
                                      Brookmeyer-Crowley interval (output, parameter, level)
    level_value                       oat: factor value of each level (parameter, level)
    row_mean                          replicate mean at every design row (output, row)
    claim_*                           oat: text, verdict, evidence, test, runs n and p (claim)
    ================================  ==========================================================

    Attributes: method, settings (JSON), design and bootstrap seeds, study, model, fixed
    parameters; ``notes`` (JSON) says where an index is undefined.

    Parameters
    ----------
    design_ds : xarray.Dataset
        The study's design (:func:`design_record_dataset`).
    summary : xarray.Dataset
        The study's summary (per-run metrics on ``point`` and ``replicate``).
    settings : mapping
        ``outputs``, ``resamples``, ``confidence``, ``levels``, ``claims`` of the
        study's ``sensitivity`` section.
    replicates : int
        Replicates per point.
    names : mapping, optional
        What the claims' evidence calls outputs and factors (:func:`evaluate_claims`).
    deterministic : bool
        Whether the model's runs depend on no seed: the claims then count one run per
        level (:mod:`flocklab.analysis.verdicts`).

    Returns
    -------
    dataset : xarray.Dataset
        As above (no provenance attributes: the stage adds them).
    document : dict
        JSON digest: per output and factor the indices; claims with verdicts.

    References
    ----------
    A. Saltelli et al., Comput. Phys. Commun. 181, 259 (2010); F. Campolongo, J. Cariboni,
    A. Saltelli, Environ. Model. Softw. 22, 1509 (2007).
    """
    import xarray as xr

    design = read_design(design_ds)
    outputs = list(settings["outputs"])
    labels = design_ds["point"].values.astype(str).tolist()
    survival = survival_outputs(summary, labels, outputs, design_ds.attrs["model"])
    runs = run_outputs(summary, labels, outputs, list(survival))
    for output, (times, _) in survival.items():
        runs[outputs.index(output)] = times
    row_mean = runs.mean(axis=2)
    seed = int(design_ds.attrs["seed"]) + 1
    coords: dict[str, Any] = {
        "output": ("output", outputs, {"long_name": "model output explained"}),
        "parameter": ("parameter", design.names, {"long_name": "input factor"}),
        "row": ("row", np.arange(len(labels)), {"long_name": "design row"}),
    }
    data: dict[str, Any] = {
        "row_mean": (("output", "row"), row_mean,
                     {"long_name": "output averaged over replicates at each design row"}),
    }
    document: dict[str, Any] = {"method": design.method, "outputs": {}, "rows": len(labels),
                                "distinct_points": len(set(labels)), "replicates": replicates}
    notes: dict[str, str] = {}
    if METHODS[design.method].rows_per_sample is None:  # run point by point
        results = _oat_analysis(design, design_ds, runs, outputs, settings, replicates,
                                coords, data, document, names, deterministic, survival)
    else:
        results = _sampling_analysis(design, row_mean, outputs, settings, seed, coords,
                                     document, notes)
    data.update(index_variables(results, outputs, METHODS[design.method].indices))
    ds = xr.Dataset(data, coords=coords)
    ds["output"].attrs["units"] = json.dumps({o: summary[o].attrs.get("units", "1")
                                              for o in outputs})
    ds.attrs = netcdf_attrs({
        "title": f"sensitivity analysis ({design.method}) of study "
                 f"{design_ds.attrs['study']}",
        "study": design_ds.attrs["study"], "model": design_ds.attrs["model"],
        "method": design.method, "settings": dict(settings),
        "design": json.loads(design_ds.attrs["settings"]), "design_seed": design_ds.attrs["seed"],
        "bootstrap_seed": seed, "replicates": replicates,
        "fixed_parameters": json.loads(design_ds.attrs["fixed_parameters"]), "notes": notes})
    document["notes"] = notes
    return ds, document


def _oat_analysis(design: Design, design_ds: xr.Dataset, runs: np.ndarray,
                  outputs: list[str], settings: Mapping[str, Any], replicates: int,
                  coords: dict[str, Any], data: dict[str, Any], document: dict[str, Any],
                  names: Mapping[str, str] | None = None, deterministic: bool = False,
                  survival: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None
                  ) -> dict[str, Indices]:
    """One-at-a-time responses, per-run values and claim verdicts (fills ``coords``,
    ``data`` and ``document`` in place); the per-output index results."""
    method = METHODS[design.method]
    d = len(design.factors)
    responses = {o: oat_response(design, runs[k]) for k, o in enumerate(outputs)}
    results = {o: method.analyse(design, runs[k]) for k, o in enumerate(outputs)}
    levels = design_ds["level_value"].values
    per_run = np.full((len(outputs), d, levels.shape[1], replicates), np.nan)
    per_run[:, design.oat_factor, design.oat_level, :] = runs
    coords["level"] = ("level", np.arange(levels.shape[1]), {"long_name": "level index"})
    coords["replicate"] = ("replicate", np.arange(replicates), {"long_name": "replicate index"})
    data["level_value"] = (("parameter", "level"), levels,
                           {"long_name": "factor value of each level"})
    data["response_mean"] = (("output", "parameter", "level"),
                             np.stack([responses[o].mean for o in outputs]),
                             {"long_name": "mean output over replicates"})
    data["response_sem"] = (("output", "parameter", "level"),
                            np.stack([responses[o].sem for o in outputs]),
                            {"long_name": "standard error of the mean output"})
    data["response"] = (("output", "parameter", "level", "replicate"), per_run,
                        {"long_name": "output of every run (a censored time: the censoring "
                                      "time where response_event is 0)"})
    _oat_survival(design, levels, outputs, replicates, survival or {}, data, document)
    verdicts = evaluate_claims(settings.get("claims", []), design, outputs, runs, names,
                               deterministic, survival)
    if verdicts:
        coords["claim"] = ("claim", np.arange(len(verdicts)), {"long_name": "claim index"})
        for name in ("claim", "verdict", "evidence", "test"):
            data[f"claim_{name if name != 'claim' else 'text'}"] = (
                "claim", np.asarray([getattr(v, name) for v in verdicts], dtype=str),
                {"long_name": f"claim {name}"})
        data["claim_n"] = ("claim", np.asarray([v.n for v in verdicts], dtype=np.int64),
                           {"long_name": "independent runs the claim's test used",
                            "units": "1"})
        data["claim_p"] = ("claim", np.asarray([v.p for v in verdicts], dtype=float),
                           {"long_name": "two-sided p-value of the claim's test (NaN: none)",
                            "units": "1"})
    document["claims"] = [v.as_dict() for v in verdicts]
    for output in outputs:
        for i, factor in enumerate(design.factors):
            document["outputs"].setdefault(output, {}).setdefault(factor.name, {}).update({
                "levels": list(factor.values),
                "mean": json_ready(responses[output].mean[i, :len(factor.values)]),
                "sem": json_ready(responses[output].sem[i, :len(factor.values)]),
                "swing": float(responses[output].swing[i])})
    return results


def _oat_survival(design: Design, levels: np.ndarray, outputs: list[str], replicates: int,
                  survival: Mapping[str, tuple[np.ndarray, np.ndarray]], data: dict[str, Any],
                  document: dict[str, Any]) -> None:
    """For the censored outputs of an oat design: every run's event indicator and, per
    level, the Kaplan–Meier median with its Brookmeyer–Crowley interval (fills ``data`` and
    ``document`` in place; NaN for the outputs that are not censored)."""
    from flocklab.analysis.survival import kaplan_meier, median_survival

    if not survival:
        return
    d, k = levels.shape
    event = np.full((len(outputs), d, k, replicates), np.nan)
    median = np.full((3, len(outputs), d, k), np.nan)
    for o, output in enumerate(outputs):
        if output not in survival:
            continue
        times, events = survival[output]
        event[o, design.oat_factor, design.oat_level, :] = events
        for row, (i, level) in enumerate(zip(design.oat_factor, design.oat_level,
                                             strict=True)):
            keep = np.isfinite(times[row])
            if keep.any():
                median[:, o, i, level] = median_survival(kaplan_meier(times[row][keep],
                                                                      events[row][keep]))
        for i, factor in enumerate(design.factors):
            document["outputs"].setdefault(output, {})[factor.name] = {
                "censored_runs": int(np.sum(event[o, i] == 0)),
                **{key: json_ready(median[j, o, i, :len(factor.values)])
                   for j, key in enumerate(("median", "median_low", "median_high"))}}
    data["response_event"] = (("output", "parameter", "level", "replicate"), event, {
        "long_name": "1 where the run's censored time is an event, 0 where it is censored "
                     "(NaN: no value, or an output that is not censored)"})
    for j, (key, what) in enumerate((("median", "Kaplan-Meier median time"),
                                     ("median_low", "lower Brookmeyer-Crowley 95 % limit of "
                                                    "the median"),
                                     ("median_high", "upper Brookmeyer-Crowley 95 % limit of "
                                                     "the median"))):
        data[f"response_{key}"] = (("output", "parameter", "level"), median[j], {
            "long_name": f"{what} (censored outputs; NaN: not reached or not censored)"})


def _sampling_analysis(design: Design, row_mean: np.ndarray, outputs: list[str],
                       settings: Mapping[str, Any], seed: int, coords: dict[str, Any],
                       document: dict[str, Any], notes: dict[str, str]
                       ) -> dict[str, Indices]:
    """Sobol' or Morris indices with their convergence in the sample size (fills
    ``coords``, ``document`` and ``notes`` in place); the per-output index results."""
    method = METHODS[design.method]
    d = len(design.factors)
    options = {"seed": seed, "resamples": settings["resamples"],
               "confidence": settings["confidence"]}
    if method.levels:
        options["levels"] = settings["levels"]
    results = {o: method.analyse(design, row_mean[k], **options) for k, o in enumerate(outputs)}
    sizes = results[outputs[0]].sizes
    per_size = method.rows_per_sample(d)
    coords["sample_size"] = ("sample_size", sizes, {
        "long_name": "base samples (sobol) or trajectories (morris) used"})
    coords["evaluations"] = ("sample_size", sizes * per_size,
                             {"long_name": "model evaluations (design rows) used"})
    for output in outputs:
        document["outputs"][output] = {
            factor.name: {name: json_ready(results[output].values[name][i])
                          for name in method.indices}
            for i, factor in enumerate(design.factors)}
        if results[output].note:
            notes[output] = results[output].note
    return results


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
