r"""Finite-size scaling of a summary with intervals: the estimators rerun on resamples.

:func:`finite_size_scaling` gathers the summary's run moments per size
(:func:`~.data.fss_data`), applies every estimator of :mod:`.estimate` to the data, then
to ``resamples`` bootstrap resamples of the replicates (drawn independently at every point;
each resample reruns the whole chain — peaks, crossings, their extrapolation, the slopes,
the fits and the collapse from its own starts), and reports each quantity as
``{"value", "ci"}``: the data's estimate with the 68 % percentile interval of the
resamples, widened by :math:`\sqrt{k/(k-1)}` for :math:`k` replicates
(:func:`flocklab.analysis.resampling.bootstrap_interval`). Resamples in which an estimator
fails are counted (``failed_resamples``), never silently dropped; an estimate the data
cannot give is ``refused`` with its reason.

Corrections to scaling are shown, not hidden: every headline estimate is repeated without
the smallest size, and the shift with its bootstrap interval is reported
(``drift_without_smallest``); a shift beyond two half-widths is named in the verdict.

References
----------
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993).
M. E. J. Newman and G. T. Barkema, *Monte Carlo Methods in Statistical Physics*, Oxford
University Press (1999), ch. 8.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from flocklab.analysis.fss.data import (
    FssData,
    draw_picks,
    jackknife_errors,
    sample_curves,
)
from flocklab.analysis.fss.estimate import Estimates, Options, estimate
from flocklab.analysis.reading import CriticalFitError
from flocklab.analysis.resampling import LEVEL, bootstrap_interval, small_sample_factor

#: The headline estimates, repeated without the smallest size.
HEADLINE = ("x_c", "nu", "beta_over_nu", "gamma_over_nu")

#: Bootstrap resamples by default.
RESAMPLES = 200

#: Shift (in half-widths of its interval) beyond which dropping the smallest size counts as
#: a visible correction to scaling.
DRIFT_Z = 2.0

#: Fraction of failed resamples above which an interval is flagged as unreliable.
FAILED_FRACTION = 0.1


@dataclass(frozen=True)
class Resampled:
    """The data's estimates and the resamples' values of every quantity.

    Attributes
    ----------
    full : Estimates
        On the data.
    samples : dict of str to ndarray, shape (B, ...)
        Each quantity per resample (NaN where the estimator failed).
    replicates : int
        Replicates per point (the interval's small-sample factor).
    """

    full: Estimates
    samples: dict[str, np.ndarray]
    replicates: int

    def interval(self, name: str) -> np.ndarray:
        """(low, high) of ``name``, shape (2, ...) (NaN where every resample failed)."""
        values = self.samples[name]
        flat = values.reshape(values.shape[0], -1)
        pairs = [bootstrap_interval(flat[:, j], self.replicates) for j in range(flat.shape[1])]
        return np.array(pairs).T.reshape((2, *values.shape[1:]))

    def failed(self, name: str) -> np.ndarray:
        """Resamples in which ``name`` could not be estimated (per element)."""
        return np.sum(~np.isfinite(self.samples[name]), axis=0)


def resample(data: FssData, options: Options, resamples: int, rng: np.random.Generator,
             sizes: slice = slice(None)) -> Resampled:
    """:func:`~.estimate.estimate` on the data's sizes ``sizes`` and on ``resamples``
    bootstrap resamples of its replicates."""
    errors = jackknife_errors(data)
    full = estimate(sample_curves(data, errors).subset(sizes), options)
    stacks: dict[str, list[np.ndarray]] = {name: [] for name in full.values}
    for _ in range(resamples):
        found = estimate(sample_curves(data, errors, draw_picks(data, rng)).subset(sizes),
                         options)
        for name, value in found.values.items():
            stacks[name].append(value)
    samples = {name: np.array(values, float).reshape(resamples, *full.values[name].shape)
               for name, values in stacks.items()}
    return Resampled(full, samples, data.replicates)


def entry(result: Resampled, name: str, index: int | None = None) -> dict[str, Any]:
    """``{"value", "ci", "failed_resamples"}`` of a quantity (element ``index`` of a
    per-size or per-pair one), or ``{"value": None, "refused": reason}``."""
    value = result.full.values[name]
    low, high = result.interval(name)
    failed = result.failed(name)
    if index is not None:
        value, low, high, failed = value[index], low[index], high[index], failed[index]
    if not np.isfinite(value):
        return {"value": None, "ci": None,
                "refused": result.full.reasons.get(name, "not estimable from these data")}
    ci = [float(low), float(high)] if np.isfinite(low) and np.isfinite(high) else None
    return {"value": float(value), "ci": ci, "failed_resamples": int(failed)}


def drift_entries(data: FssData, full: Resampled, options: Options, resamples: int,
                  rng: np.random.Generator) -> dict[str, Any]:
    """Each headline estimate without the smallest size: value, shift from the estimate on
    all sizes, the shift's interval (same resamples' difference) and z = shift / half-width.
    """
    if data.lengths.size < 3:
        return {"refused": "needs at least three sizes"}
    quick = Options(**{**options.__dict__, "collapse": False})
    reduced = resample(data, quick, resamples, rng, slice(1, None))
    out: dict[str, Any] = {"sizes": data.sizes[1:].tolist()}
    for name in HEADLINE:
        value, base = reduced.full.values[name], full.full.values[name]
        if not (np.isfinite(value) and np.isfinite(base)):
            out[name] = {"value": None, "refused": reduced.full.reasons.get(
                name, full.full.reasons.get(name, "not estimable"))}
            continue
        difference = reduced.samples[name] - full.samples[name]
        low, high = bootstrap_interval(difference, data.replicates)
        shift = float(value - base)
        half = 0.5 * (high - low)
        z = abs(shift) / half if np.isfinite(half) and half > 0 else np.nan
        out[name] = {"value": float(value), "shift": shift,
                     "ci": [float(low), float(high)] if np.isfinite(half) else None,
                     "z": None if not np.isfinite(z) else float(z),
                     "significant": bool(np.isfinite(z) and z > DRIFT_Z)}
    return out


def finite_size_analysis(data: FssData, options: Options, resamples: int = RESAMPLES,
                         seed: int = 0) -> tuple[Resampled, dict[str, Any]]:
    """Estimates with intervals and the drift without the smallest size.

    Parameters
    ----------
    data : FssData
    options : Options
    resamples, seed : int
        Bootstrap resamples and the seed of their draws.

    Returns
    -------
    result : Resampled
    drift : dict
        :func:`drift_entries`.

    Raises
    ------
    CriticalFitError
        Fewer than two replicates per point (no resampling possible).
    """
    if data.replicates < 2:
        raise CriticalFitError("finite-size scaling needs at least two replicates per point "
                               "(the intervals resample them)")
    rng = np.random.default_rng(seed)
    result = resample(data, options, resamples, rng)
    return result, drift_entries(data, result, options, resamples, rng)


def bootstrap_record(result: Resampled, resamples: int) -> dict[str, Any]:
    """How the intervals were made, with the failed resamples of every scalar."""
    scalars = [name for name, value in result.full.values.items() if value.ndim == 0]
    return {"resamples": resamples, "replicates": result.replicates, "level": LEVEL,
            "small_sample_factor": small_sample_factor(result.replicates),
            "failed": {name: int(result.failed(name)) for name in scalars}}


def flagged_intervals(result: Resampled, resamples: int) -> list[str]:
    """Headline quantities whose resamples failed more often than :data:`FAILED_FRACTION`."""
    return [name for name in HEADLINE
            if np.isfinite(result.full.values[name])
            and result.failed(name) > FAILED_FRACTION * resamples]


def options_from(settings: Mapping[str, Any], side: str) -> Options:
    """:class:`~.estimate.Options` from a config's or command line's ``fss`` settings."""
    return Options(side=side, dimension=float(settings.get("dimension", 2)),
                   correction_exponent=float(settings.get("correction_exponent", 1.0)),
                   collapse_window=float(settings.get("collapse_window", 1.0)),
                   points=int(settings.get("points", 5)),
                   collapse=bool(settings.get("collapse", True)))
