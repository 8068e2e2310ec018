r"""Statistics of an order-parameter time series.

For a stationary series :math:`v_t`, :math:`t = 1..n` (after burn-in):

* moments :math:`\langle v\rangle, \langle v^2\rangle, \langle v^4\rangle`;
* susceptibility :math:`\chi = N(\langle v^2\rangle - \langle v\rangle^2)`;
* Binder cumulant :math:`G = 1 - \langle v^4\rangle / (3\langle v^2\rangle^2)`
  (→ 2/3 in an ordered phase with small fluctuations, → 1/3 for a
  two-dimensional Gaussian order parameter in the disordered phase);
* standard error of the mean from the integrated autocorrelation time,
  :math:`\sigma_{\bar v} = \sqrt{\tau_{\mathrm{int}}\,\sigma^2 / n}` with
  :math:`\tau_{\mathrm{int}} = 1 + 2\sum_{t=1}^{W}\rho(t)`, the window :math:`W`
  chosen by Sokal's rule (smallest :math:`W \ge c\,\tau_{\mathrm{int}}(W)`, c = 5);
* errors of χ and G by a block jackknife (blocks much longer than τ make it valid).

References
----------
A. D. Sokal, "Monte Carlo methods in statistical mechanics: foundations and new
algorithms", in *Functional Integration*, Springer (1997), §3.
K. Binder, Z. Phys. B 43, 119 (1981).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from flocklab.core.autocorrelation import (
    integrated_autocorrelation_time,
)

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

#: Number of blocks of the jackknife error of χ and G.
JACKKNIFE_BLOCKS = 20


def primary_variables(name: str, symbol: str, time_units: str, has_size: bool = True,
                      order: bool = True) -> dict[str, tuple[str, str, str]]:
    """Per-run statistics of a model's primary observable ``name``.

    Returns ``variable -> (key of SeriesStatistics, "independent", "drift" or
    "time_to_order", units, long name)``;
    for the Vicsek model (``name = "order_parameter"``) ``order_parameter_mean``,
    ``order_parameter_sem``, ..., ``susceptibility``, ``binder_cumulant``,
    ``time_to_order``. Without a size parameter (``has_size``) the susceptibility is left
    out; unless the observable is an order parameter (``order``, the model's
    ``primary_is_order_parameter``) the Binder cumulant and ``time_to_order`` are.
    """
    s = symbol or name
    table = {
        f"{name}_mean": ("mean", "1", f"time-averaged {s} after burn-in"),
        f"{name}_sem": ("sem", "1", f"standard error of <{s}> (autocorrelation-corrected)"),
        f"{name}_tau": ("tau", "1", f"integrated autocorrelation time of {s} "
                                         f"(in records)"),
        f"{name}_m2": ("m2", "1", f"second moment <{s}^2>"),
        f"{name}_m4": ("m4", "1", f"fourth moment <{s}^4>"),
        "susceptibility": ("susceptibility", "1", f"susceptibility N(<{s}^2> - <{s}>^2)"),
        "susceptibility_err": ("susceptibility_err", "1", "block-jackknife error of chi"),
        "binder_cumulant": ("binder_cumulant", "1", f"Binder cumulant 1 - <{s}^4>/"
                                                    f"(3<{s}^2>^2)"),
        "binder_cumulant_err": ("binder_cumulant_err", "1", "block-jackknife error of G"),
        "samples": ("samples", "1", "number of post-burn-in samples"),
        f"{name}_independent": ("independent", "1", f"independent samples of {s} after "
                                                     f"burn-in, n / tau_int"),
        f"{name}_drift": ("drift", "1", f"burn-in check: z of the mean of {s} over the first "
                                        f"third of the kept records against the last third"),
        "time_to_order": ("time_to_order", time_units,
                          f"first time with {s} >= order_threshold (t_end + one record "
                          f"interval: never reached, right-censored)"),
    }
    if not has_size:
        del table["susceptibility"], table["susceptibility_err"]
    if not order:
        del table["binder_cumulant"], table["binder_cumulant_err"], table["time_to_order"]
    return table


def run_variables(model: Model) -> dict[str, tuple[str, str]]:
    """Every per-run metric of ``model``: ``name -> (units, long name)``."""
    primary = model.observable(model.primary_observable)
    table = {name: (units, long_name) for name, (_, units, long_name) in primary_variables(
        primary.name, primary.symbol, model.time_units, model.size_parameter is not None,
        model.primary_is_order_parameter).items()}
    for obs in model.observables:
        if obs.name != primary.name:
            table[f"{obs.name}_mean"] = (obs.units, f"time average of {obs.long_name} after "
                                                    f"burn-in")
            table[f"{obs.name}_sem"] = (obs.units, f"standard error of {obs.name}_mean "
                                                   f"(autocorrelation-corrected)")
    for metric in model.run_metrics:
        if metric.name in table:
            raise ValueError(f"model '{model.name}' declares run metric '{metric.name}', "
                             f"which the summary already computes from its observables")
        table[metric.name] = (metric.units, metric.long_name)
    return table


def summary_quantities(model: Model) -> list[str]:
    """Names ``y`` whose ``replicate_<y>`` a summary holds (for curve figures)."""
    names = [model.primary_observable]
    if model.size_parameter is not None:
        names.append("susceptibility")
    if model.primary_is_order_parameter:
        names.append("binder_cumulant")
    skip = {*names, "susceptibility_err", "binder_cumulant_err"}
    return names + [name for name in run_variables(model) if name not in skip and
                    not name.startswith(f"{model.primary_observable}_")]


#: Default level of v_a whose first-passage time is ``time_to_order``.
ORDER_THRESHOLD = 0.8


#: |z| above which :func:`burn_in_drift` says the kept series is not yet stationary.
DRIFT_Z = 3.0


def burn_in_drift(series: np.ndarray) -> float:
    r"""Burn-in check from the data: the first third of the kept series against the last.

    .. math::

        z = \frac{\bar v_{\mathrm{first}} - \bar v_{\mathrm{last}}}
                 {\sqrt{2\,\tau_{\mathrm{last}}\, s_{\mathrm{last}}^2 / (n/3)}}

    with :math:`\tau_{\mathrm{int}}` and the variance of the last third, the part most
    likely stationary (a trend in the first third would inflate its own). A stationary
    series gives :math:`z \approx \mathcal N(0, 1)`; :math:`|z| > 3` (:data:`DRIFT_Z`)
    means the burn-in was too short (the start is not forgotten) or the run is still
    relaxing. This is the two-part comparison of Geweke's diagnostic, with equal parts.

    Returns
    -------
    float
        z (0 for a constant series).

    References
    ----------
    J. Geweke, "Evaluating the accuracy of sampling-based approaches to the calculation of
    posterior moments", in *Bayesian Statistics 4*, Oxford University Press (1992).

    Examples
    --------
    >>> abs(burn_in_drift(np.random.default_rng(0).normal(size=3000))) < 3
    True
    >>> burn_in_drift(1 + np.exp(-np.arange(300) / 30) + np.sin(np.arange(300))) > 3
    True
    """
    series = np.asarray(series, dtype=np.float64)
    third = series.size // 3
    if third < 2:
        return 0.0
    first, last = series[:third], series[-third:]
    variance = 2 * integrated_autocorrelation_time(last) * last.var(ddof=1) / third
    difference = float(first.mean() - last.mean())
    if variance <= 0:
        return 0.0 if difference == 0 else float(np.sign(difference) * np.inf)
    return difference / float(np.sqrt(variance))


def susceptibility(m1: float | np.ndarray, m2: float | np.ndarray, n_particles: int
                   ) -> float | np.ndarray:
    r""":math:`\chi = N(\langle v^2\rangle - \langle v\rangle^2)`."""
    return n_particles * (m2 - m1 * m1)


def binder_cumulant(m2: float | np.ndarray, m4: float | np.ndarray) -> float | np.ndarray:
    r""":math:`G = 1 - \langle v^4\rangle / (3\langle v^2\rangle^2)`."""
    return 1.0 - m4 / (3.0 * m2 * m2)


@dataclass(frozen=True)
class SeriesStatistics:
    """Statistics of one order-parameter series (see module docstring)."""

    mean: float
    sem: float
    tau: float
    m2: float
    m4: float
    susceptibility: float
    susceptibility_err: float
    binder_cumulant: float
    binder_cumulant_err: float
    samples: int

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def first_passage_time(series: np.ndarray, times: np.ndarray, threshold: float) -> float:
    r"""First recorded time :math:`t` with :math:`x(t) \ge` ``threshold``.

    Parameters
    ----------
    series : ndarray, shape (R,)
        The whole recorded series from :math:`t = 0`.
    times : ndarray, shape (R,)
        Record times (equally spaced).
    threshold : float
        Level to reach.

    Returns
    -------
    float
        The time, or ``times[-1] + (times[1] - times[0])`` if the level is never reached
        (right-censored; ``steps + 1`` for a stepped model recorded every step).

    Examples
    --------
    >>> first_passage_time(np.array([0.1, 0.5, 0.9, 0.95]), np.arange(4), 0.8)
    2.0
    """
    reached = np.flatnonzero(np.asarray(series) >= threshold)
    if reached.size:
        return float(times[reached[0]])
    interval = times[1] - times[0] if len(times) > 1 else 1
    return float(times[-1] + interval)


def _jackknife_error(estimates: np.ndarray) -> float:
    k = estimates.size
    if k < 2:
        return float("nan")
    return float(np.sqrt((k - 1) / k * np.sum((estimates - estimates.mean()) ** 2)))


def series_statistics(series: np.ndarray, n_particles: float, blocks: int = JACKKNIFE_BLOCKS
                      ) -> SeriesStatistics:
    """All statistics of a post-burn-in order-parameter series.

    Parameters
    ----------
    series : ndarray, shape (n,)
        :math:`v_a(t)` after burn-in.
    n_particles : float
        N, for the susceptibility (NaN where the model declares no size).
    blocks : int
        Jackknife blocks for the errors of χ and G (fewer if n is smaller).
    """
    series = np.asarray(series, dtype=np.float64)
    n = series.size
    if n < 2:
        raise ValueError("need at least two samples after burn-in")
    m1 = series.mean()
    m2 = np.mean(series**2)
    m4 = np.mean(series**4)
    tau = integrated_autocorrelation_time(series)
    variance = series.var(ddof=1)
    sem = float(np.sqrt(tau * variance / n))

    k = min(blocks, n)
    edges = np.linspace(0, n, k + 1).astype(int)
    sums = np.array([[np.sum(series[a:b] ** p) for p in (1, 2, 4)]
                     for a, b in itertools.pairwise(edges)])
    counts = np.diff(edges).astype(float)
    left_out = (sums.sum(axis=0)[None, :] - sums) / (n - counts)[:, None]
    chi_jack = susceptibility(left_out[:, 0], left_out[:, 1], n_particles)
    with np.errstate(divide="ignore", invalid="ignore"):
        binder_jack = binder_cumulant(left_out[:, 1], left_out[:, 2])
        binder = binder_cumulant(m2, m4)
    return SeriesStatistics(
        mean=float(m1), sem=sem, tau=tau, m2=float(m2), m4=float(m4),
        susceptibility=float(susceptibility(m1, m2, n_particles)),
        susceptibility_err=_jackknife_error(chi_jack),
        binder_cumulant=float(binder), binder_cumulant_err=_jackknife_error(binder_jack),
        samples=n,
    )


def replicate_average(m1: np.ndarray, m2: np.ndarray, m4: np.ndarray, sem: np.ndarray,
                      chi_err: np.ndarray | None, binder_err: np.ndarray | None,
                      n_particles: np.ndarray, axis: int = -1, *, observable: str
                      ) -> dict[str, np.ndarray]:
    r"""Average over replicates (equal-length runs) along ``axis``.

    The mean order parameter is the mean of the run means; χ and G are computed
    from the pooled moments :math:`\overline{\langle v^k\rangle}`. Errors: with two
    or more replicates a jackknife over replicates (leave one seed out), which
    for the mean equals the standard error across seeds; with one replicate the
    run's own error.

    Parameters
    ----------
    m1, m2, m4, sem : ndarray
        Per-run moments :math:`\langle P\rangle, \langle P^2\rangle, \langle P^4\rangle`
        and the standard error of :math:`\langle P\rangle`, replicates along ``axis``.
    chi_err, binder_err : ndarray or None
        Per-run errors of χ and G (used with one replicate); None leaves that statistic
        out (a model without a size parameter, or whose primary observable is no order
        parameter).
    n_particles : ndarray
        The size N of χ, shaped as the result.

    Returns
    -------
    dict
        ``<observable>``, ``susceptibility``, ``binder_cumulant`` (those not left out) and
        their ``*_err``, arrays with ``axis`` removed (``observable`` names the averaged
        quantity, the model's primary observable).
    """
    m1, m2, m4, sem = (np.moveaxis(np.asarray(a, float), axis, -1) for a in (m1, m2, m4, sem))
    run_errors = {name: np.moveaxis(np.asarray(err, float), axis, -1) for name, err in
                  (("susceptibility", chi_err), ("binder_cumulant", binder_err))
                  if err is not None}
    n_particles = np.asarray(n_particles, float)
    k = m1.shape[-1]

    def statistics(moments: list[np.ndarray], size: np.ndarray) -> dict[str, np.ndarray]:
        out = {observable: moments[0]}
        if "susceptibility" in run_errors:
            out["susceptibility"] = susceptibility(moments[0], moments[1], size)
        if "binder_cumulant" in run_errors:
            out["binder_cumulant"] = binder_cumulant(moments[1], moments[2])
        return out

    with np.errstate(divide="ignore", invalid="ignore"):
        result = statistics([a.mean(axis=-1) for a in (m1, m2, m4)], n_particles)
        if k == 1:
            result[f"{observable}_err"] = sem[..., 0]
            result.update({f"{name}_err": err[..., 0] for name, err in run_errors.items()})
            return result
        left_out = [(a.sum(axis=-1, keepdims=True) - a) / (k - 1) for a in (m1, m2, m4)]
        estimates = statistics(left_out, n_particles[..., None])
        for name, values in estimates.items():
            spread = values - values.mean(axis=-1, keepdims=True)
            result[f"{name}_err"] = np.sqrt((k - 1) / k * np.sum(spread**2, axis=-1))
    return result
