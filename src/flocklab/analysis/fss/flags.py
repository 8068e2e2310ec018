r"""Signs of a discontinuous transition: a Binder-cumulant dip, a bimodal order-parameter
distribution, hysteresis between ordered and disordered starts.

At a discontinuous (phase-coexistence) transition the Binder cumulant of a large system
falls to negative values between the ordered and disordered phases, the distribution of
the order parameter has two peaks, and runs from an ordered and from a disordered start
stay apart near the transition (G. Grégoire and H. Chaté, "Onset of collective and cohesive
motion", Phys. Rev. Lett. 92, 025702 (2004); H. Chaté, F. Ginelli, G. Grégoire and
F. Raynaud, "Collective motion of self-propelled particles interacting without cohesion",
Phys. Rev. E 77, 046113 (2008)). None of these needs to know the order parameter's number
of components: a dip is measured against the cumulant's own value at the disordered end.
"""

from __future__ import annotations

import itertools

import numpy as np

#: Standard errors by which a dip must lie below the disordered end.
DIP_Z = 3.0


def binder_dip(binder: np.ndarray, err: np.ndarray, side: str, z: float = DIP_Z) -> bool:
    r"""Whether :math:`U(x)` has an interior minimum below its disordered end.

    With :math:`k` the grid point of the smallest :math:`U` and :math:`U_{dis}` the value
    at the disordered end of the range (the last point for ``side`` = "below", the first
    for "above"): :math:`k` is not that end and
    :math:`U_k < U_{dis} - z\sqrt{\sigma_k^2 + \sigma_{dis}^2}`.

    Parameters
    ----------
    binder, err : ndarray, shape (n,)
        One size's Binder cumulant in increasing control and its standard errors (NaN:
        absent).
    side : {"below", "above"}
        Ordered side.
    z : float
        Significance.
    """
    good = np.flatnonzero(np.isfinite(binder) & np.isfinite(err))
    if good.size < 3:
        return False
    end = good[-1] if side == "below" else good[0]
    k = good[np.argmin(binder[good])]
    if k == end:
        return False
    return bool(binder[k] < binder[end] - z * np.hypot(err[k], err[end]))


def is_bimodal(histogram: np.ndarray, prominence: float = 0.2) -> bool:
    """True if a histogram has two interior peaks each at least ``prominence`` × its
    maximum above the lowest point between them (after a 3-bin moving average).

    Peaks in the first or last bin do not count: the magnitude of a scalar order parameter
    (Ising) piles up at zero above the transition without any coexistence.

    Parameters
    ----------
    histogram : ndarray, shape (bins,)
        Counts or fractions per bin.
    prominence : float
        Required depth of the valley, as a fraction of the (smoothed) maximum.
    """
    padded = np.pad(np.nan_to_num(np.asarray(histogram, float)), 1, mode="edge")
    counts = np.convolve(padded, np.ones(3) / 3, mode="valid")  # edges not pulled down
    if counts.max() <= 0:
        return False
    peaks = [k for k in range(1, counts.size - 1)
             if counts[k] >= counts[k - 1] and counts[k] > counts[k + 1]]
    height = prominence * counts.max()
    for a, b in itertools.pairwise(peaks):
        valley = counts[a:b + 1].min()
        if counts[a] - valley >= height and counts[b] - valley >= height:
            return True
    return False


def hysteresis_z(first: np.ndarray, second: np.ndarray, first_sem: np.ndarray | None = None,
                 second_sem: np.ndarray | None = None) -> np.ndarray:
    r"""Per point, how far the mean order parameter of two sets of runs (e.g. ordered and
    disordered starts) lie apart,

    .. math:: z = |\bar P_1 - \bar P_2| / \sqrt{v_1 + v_2}, \qquad
              v_j = \max\bigl(s_j^2,\ \overline{\mathrm{sem}_j^2}\bigr)/k_j,

    over the :math:`k_j` runs of each set (last axis), :math:`s_j^2` their sample variance
    and :math:`\mathrm{sem}` each run's autocorrelation-corrected standard error: with two
    runs per set the sample variance alone is so uncertain that two runs agreeing by chance
    would make any difference look significant. NaN with fewer than two runs in a set.

    Parameters
    ----------
    first, second : ndarray, shape (..., k)
        Per-run means of the two sets.
    first_sem, second_sem : ndarray, shape (..., k), optional
        Their standard errors (without them only the sample variance enters).
    """
    def mean_var(runs: np.ndarray, sem: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.sum(np.isfinite(runs), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = np.nanvar(runs, axis=-1, ddof=1)
            if sem is not None:
                spread = np.fmax(spread, np.nanmean(np.asarray(sem, float) ** 2, axis=-1))
            return np.nanmean(runs, axis=-1), spread / k, k

    (a, va, ka), (b, vb, kb) = mean_var(first, first_sem), mean_var(second, second_sem)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(a - b) / np.sqrt(va + vb)
    return np.where((ka >= 2) & (kb >= 2), z, np.nan)
