r"""Autocorrelation of a stationary series: the function, its integrated time and the number
of independent samples it holds.

Shared numerics of the run controls (the driver lengthens a run until its primary observable
holds ``min_independent_samples``) and of the time-series statistics
(:mod:`flocklab.analysis.timeseries`).

References
----------
A. D. Sokal, "Monte Carlo methods in statistical mechanics: foundations and new algorithms",
in *Functional Integration*, Plenum (1997) — the automatic window :math:`W \ge c\,\tau`.
"""

from __future__ import annotations

import numpy as np

#: Sokal's window constant.
SOKAL_WINDOW = 5.0


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


def independent_samples(series: np.ndarray) -> float:
    r"""Number of independent samples :math:`n_{\mathrm{eff}} = n / \tau_{\mathrm{int}}`
    of a stationary series (:func:`integrated_autocorrelation_time`).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> 0.9 < independent_samples(rng.normal(size=4000)) / 4000 < 1.1
    True
    """
    series = np.asarray(series, dtype=np.float64)
    return float(series.size / integrated_autocorrelation_time(series))
