r"""Resampling over replicates (pure functions): bootstrap draws, percentile intervals.

Replicates are independent runs (their own seeds), so resampling them — independently at
every parameter point — carries every source of run-to-run noise, the correlated noise
within a run included, into an estimate's interval without a model of the
autocorrelation (B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
Chapman & Hall, 1993, ch. 6 and 13).

With :math:`k` replicates a bootstrap understates the variance of a mean by the factor
:math:`(k-1)/k` (Efron and Tibshirani 1993, eq. 5.11: the plug-in variance divides by
:math:`k`, not :math:`k-1`); :func:`bootstrap_interval` widens the percentile interval by
:math:`\sqrt{k/(k-1)}` about the bootstrap median to undo it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from flocklab.analysis.reading import CriticalFitError

#: Central probability of the reported intervals (one standard deviation).
LEVEL = 0.68


def resample_seeds(rng: np.random.Generator, *arrays: np.ndarray) -> list[np.ndarray]:
    """Resample the last (seed) axis with replacement, independently at every point.

    One draw of seed indices is applied to all ``arrays`` (same shape), so moments of the
    same runs stay together.
    """
    picks = rng.integers(0, arrays[0].shape[-1], size=arrays[0].shape)
    return [np.take_along_axis(array, picks, axis=-1) for array in arrays]


def bootstrap(samples: np.ndarray, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
              fallback_err: np.ndarray, resamples: int, rng: np.random.Generator
              ) -> np.ndarray:
    """Bootstrap over replicates.

    Parameters
    ----------
    samples : ndarray, shape (n_points, n_seeds)
        Per-replicate values (e.g. run means of v_a) at each point.
    statistic : callable
        ``statistic(mean, err) -> ndarray`` of estimates (raises CriticalFitError to skip).
    fallback_err : ndarray, shape (n_points,)
        Used with one seed: then the bootstrap is parametric, ``mean + N(0, err)``.
    resamples : int
    rng : numpy Generator

    Returns
    -------
    ndarray, shape (successful resamples, n_estimates)
    """
    n_points, n_seeds = samples.shape
    results = []
    for _ in range(resamples):
        if n_seeds >= 2:
            (drawn,) = resample_seeds(rng, samples)
            mean = drawn.mean(axis=1)
            err = drawn.std(axis=1, ddof=1) / np.sqrt(n_seeds)
            # a resample of identical seeds has zero spread: keep the original error there
            err = np.where(err > 0, err, fallback_err)
        else:
            mean = samples[:, 0] + rng.normal(size=n_points) * fallback_err
            err = fallback_err
        try:
            results.append(np.asarray(statistic(mean, err), float))
        except CriticalFitError:
            continue
    if not results:
        return np.empty((0, 0))
    return np.array(results).reshape(len(results), -1)


def percentile_interval(values: np.ndarray, level: float = 0.68) -> tuple[float, float]:
    """Central ``level`` interval of bootstrap values (16th–84th percentile for 68 %)."""
    if values.size == 0:
        return (float("nan"), float("nan"))
    tail = 50 * (1 - level)
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def small_sample_factor(replicates: int) -> float:
    r""":math:`\sqrt{k/(k-1)}`, the factor by which a bootstrap over :math:`k` replicates
    understates the standard error of a mean (1 for :math:`k \le 1`)."""
    return float(np.sqrt(replicates / (replicates - 1))) if replicates > 1 else 1.0


def bootstrap_interval(values: np.ndarray, replicates: int, level: float = LEVEL
                       ) -> tuple[float, float]:
    r"""Percentile interval of bootstrap estimates, corrected for few replicates.

    .. math:: [m + c\,(q_{lo} - m),\; m + c\,(q_{hi} - m)], \qquad c = \sqrt{k/(k-1)},

    with :math:`q` the central ``level`` percentiles of the finite ``values``, :math:`m`
    their median and :math:`k` the replicates per point.

    Parameters
    ----------
    values : ndarray, shape (B,)
        One estimate per bootstrap resample (NaN for failed resamples: ignored).
    replicates : int
        Replicates per point that were resampled.
    level : float
        Central probability.

    Returns
    -------
    (low, high) : tuple of float
        NaN when no resample succeeded.
    """
    finite = np.asarray(values, float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    low, high = percentile_interval(finite, level)
    middle = float(np.median(finite))
    factor = small_sample_factor(replicates)
    return (middle + factor * (low - middle), middle + factor * (high - middle))
