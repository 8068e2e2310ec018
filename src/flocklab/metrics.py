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

import numpy as np

#: Sokal's window constant.
SOKAL_WINDOW = 5.0
#: Number of blocks of the jackknife error of χ and G.
JACKKNIFE_BLOCKS = 20
#: Per-run scalar metrics: name -> (key of the statistics, units, long name).
RUN_VARIABLES = {
    "order_parameter_mean": ("mean", "1", "time-averaged order parameter <v_a>"),
    "order_parameter_sem": ("sem", "1", "standard error of <v_a> (autocorrelation-corrected)"),
    "order_parameter_tau": ("tau", "step", "integrated autocorrelation time of v_a"),
    "order_parameter_m2": ("m2", "1", "second moment <v_a^2>"),
    "order_parameter_m4": ("m4", "1", "fourth moment <v_a^4>"),
    "susceptibility": ("susceptibility", "1", "susceptibility N(<v_a^2> - <v_a>^2)"),
    "susceptibility_err": ("susceptibility_err", "1", "block-jackknife error of chi"),
    "binder_cumulant": ("binder_cumulant", "1", "Binder cumulant 1 - <v_a^4>/(3<v_a^2>^2)"),
    "binder_cumulant_err": ("binder_cumulant_err", "1", "block-jackknife error of G"),
    "samples": ("samples", "1", "number of post-burn-in samples"),
    "time_to_order": ("time_to_order", "step",
                      "first step with v_a >= order_threshold (steps + 1: never reached)"),
}
#: Default level of v_a whose first-passage time is ``time_to_order``.
ORDER_THRESHOLD = 0.8


def autocorrelation(series: np.ndarray) -> np.ndarray:
    """Normalised autocorrelation function :math:`\\rho(t)`, ``t = 0..n-1`` (FFT, O(n log n)).

    A constant series returns ``rho = [1, 0, 0, ...]``.
    """
    series = np.asarray(series, dtype=np.float64)
    n = series.size
    if n == 0 or np.all(series == series[0]):
        rho = np.zeros(n)
        rho[:1] = 1.0
        return rho
    centred = series - series.mean()
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(centred, size)
    acov = np.fft.irfft(spectrum * np.conjugate(spectrum), size)[:n] / n
    if acov[0] <= 0.0:
        rho = np.zeros(n)
        rho[0] = 1.0
        return rho
    return acov / acov[0]


def integrated_autocorrelation_time(series: np.ndarray, window_constant: float = SOKAL_WINDOW
                                    ) -> float:
    r"""Integrated autocorrelation time :math:`\tau_{\mathrm{int}} = 1 + 2\sum_{t=1}^{W}\rho(t)`.

    In units of samples; 1 for uncorrelated data, so that
    :math:`\mathrm{Var}(\bar v) = \tau_{\mathrm{int}}\sigma^2/n`. Never less than 1 / n
    and capped at ``n`` for series too short to estimate it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> abs(integrated_autocorrelation_time(rng.normal(size=20000)) - 1) < 0.1
    True
    """
    rho = autocorrelation(series)
    n = rho.size
    tau = 1.0
    for window in range(1, n):
        tau += 2.0 * rho[window]
        if window >= window_constant * tau:
            break
    return float(min(max(tau, 1.0 / n), n))


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


def first_passage_time(series: np.ndarray, threshold: float) -> int:
    r"""First step :math:`t` with :math:`v_a(t) \ge` ``threshold``, or ``series.size`` if none.

    Parameters
    ----------
    series : ndarray, shape (steps + 1,)
        The whole time series from :math:`t = 0`.
    threshold : float
        Level to reach.

    Returns
    -------
    int
        The first-passage time in steps; ``steps + 1`` means "not reached within the run"
        (right-censored).

    Examples
    --------
    >>> first_passage_time(np.array([0.1, 0.5, 0.85, 0.7]), 0.8)
    2
    >>> first_passage_time(np.array([0.1, 0.5]), 0.8)
    2
    """
    reached = np.flatnonzero(np.asarray(series) >= threshold)
    return int(reached[0]) if reached.size else int(np.asarray(series).size)


def _jackknife_error(estimates: np.ndarray) -> float:
    k = estimates.size
    if k < 2:
        return float("nan")
    return float(np.sqrt((k - 1) / k * np.sum((estimates - estimates.mean()) ** 2)))


def series_statistics(series: np.ndarray, n_particles: int, blocks: int = JACKKNIFE_BLOCKS
                      ) -> SeriesStatistics:
    """All statistics of a post-burn-in order-parameter series.

    Parameters
    ----------
    series : ndarray, shape (n,)
        :math:`v_a(t)` after burn-in.
    n_particles : int
        N, for the susceptibility.
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
                      chi_err: np.ndarray, binder_err: np.ndarray, n_particles: np.ndarray,
                      axis: int = -1) -> dict[str, np.ndarray]:
    r"""Average over replicates (equal-length runs) along ``axis``.

    The mean order parameter is the mean of the run means; χ and G are computed
    from the pooled moments :math:`\overline{\langle v^k\rangle}`. Errors: with two
    or more replicates a jackknife over replicates (leave one seed out), which
    for the mean equals the standard error across seeds; with one replicate the
    run's own error.

    Returns
    -------
    dict
        ``order_parameter``, ``susceptibility``, ``binder_cumulant`` and their ``*_err``,
        arrays with ``axis`` removed.
    """
    m1, m2, m4 = (np.moveaxis(np.asarray(a, float), axis, -1) for a in (m1, m2, m4))
    sem, chi_err, binder_err = (np.moveaxis(np.asarray(a, float), axis, -1)
                                for a in (sem, chi_err, binder_err))
    n_particles = np.asarray(n_particles, float)
    k = m1.shape[-1]
    pooled = [a.mean(axis=-1) for a in (m1, m2, m4)]
    with np.errstate(divide="ignore", invalid="ignore"):
        result = {
            "order_parameter": pooled[0],
            "susceptibility": susceptibility(pooled[0], pooled[1], n_particles),
            "binder_cumulant": binder_cumulant(pooled[1], pooled[2]),
        }
        if k == 1:
            result["order_parameter_err"] = sem[..., 0]
            result["susceptibility_err"] = chi_err[..., 0]
            result["binder_cumulant_err"] = binder_err[..., 0]
            return result
        left_out = [(a.sum(axis=-1, keepdims=True) - a) / (k - 1) for a in (m1, m2, m4)]
        estimates = {
            "order_parameter": left_out[0],
            "susceptibility": susceptibility(left_out[0], left_out[1], n_particles[..., None]),
            "binder_cumulant": binder_cumulant(left_out[1], left_out[2]),
        }
        for name, values in estimates.items():
            spread = values - values.mean(axis=-1, keepdims=True)
            result[f"{name}_err"] = np.sqrt((k - 1) / k * np.sum(spread**2, axis=-1))
    return result
