r"""Reading a study summary for an analysis (pure functions): which model, control,
observable and replicate dimension it holds.

A summary written by flocklab names its model (``attrs["model"]``) and primary observable
(``attrs["primary_observable"]``); the model declares its critical controls
(:class:`flocklab.core.model.CriticalControl`: coordinate, ordered side, exponent, symbol).
A summary from another simulator needs only per-replicate run moments ``<P>_mean`` (and
``<P>_m2``, ``<P>_m4`` for finite-size scaling, ``<P>_sem`` with one replicate) on the
control, the size and a ``replicate`` (or ``seed``) dimension; the caller then names the
ordered side and the exponent.

The critical fits (:mod:`flocklab.analysis.critical`) and the finite-size scaling
(:mod:`flocklab.analysis.fss`) both read summaries through these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from flocklab.analysis.timeseries import replicate_average
from flocklab.core.model import CriticalControl
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model


class CriticalFitError(ValueError):
    """The data cannot support a fit (too few points, no transition in range)."""



#: Names of the replicate dimension: ``replicate`` (flocklab summaries), ``seed`` (older or
#: foreign summaries).
REPLICATE_DIMS = ("replicate", "seed")


def summary_model(summary: xr.Dataset) -> Model | None:
    """The registered model the summary names, or None (no ``model`` attribute, or a model
    of another package that is not installed: the summary is then treated as foreign)."""
    name = summary.attrs.get("model")
    if not name or name == "none":
        return None
    try:
        return get_model(str(name))
    except ParameterError:
        return None


def control_declaration(summary: xr.Dataset, key: str, side: str | None = None,
                        exponent: str | None = None, *, need_side: bool = True
                        ) -> CriticalControl:
    """The critical control ``key`` of the summary's model.

    With a registered ``model`` attribute the model's declaration is used (``side`` and
    ``exponent``, if given, must agree with it). Without one (a summary from another
    simulator) the control is the coordinate ``key``, on the given ``side`` with exponent
    ``exponent`` (default ``"exponent"``).

    Raises
    ------
    ParameterError
        A control the model does not declare, a disagreeing side or exponent, or no
        registered model and no side (when ``need_side``).
    """
    if side is not None and side not in ("below", "above"):
        raise ParameterError("side", f"side must be 'below' or 'above', got {side!r}")
    model = summary_model(summary)
    if model is not None:
        declared = model.critical_control(key)
        for option, given, value in (("side", side, declared.ordered_side),
                                     ("exponent", exponent, declared.exponent)):
            if given is not None and given != value:
                raise ParameterError(option, f"model '{model.name}' declares {option} "
                                             f"'{value}' for control '{key}', not '{given}'")
        return declared
    if side is None and need_side:
        named = summary.attrs.get("model")
        which = (f"names model '{named}', which is not registered" if named and named != "none"
                 else "names no model")
        raise ParameterError("side", f"the summary {which}: give the ordered side "
                                     f"(--side below|above)")
    return CriticalControl(key, key, side or "below", exponent or "exponent", key)


def observable_name(summary: xr.Dataset, observable: str | None = None) -> str:
    """``observable``, else the summary's ``primary_observable``, else the one ``<P>`` with a
    per-replicate ``<P>_mean`` in the summary.

    Raises
    ------
    CriticalFitError
        If none is given or declared and the summary has no or several ``<P>_mean``.
    """
    if observable or summary.attrs.get("primary_observable"):
        return str(observable or summary.attrs["primary_observable"])
    candidates = sorted(str(name).removesuffix("_mean") for name in summary.data_vars
                        if str(name).endswith("_mean"))
    if len(candidates) != 1:
        raise CriticalFitError(
            f"the summary names no primary_observable and has {len(candidates)} per-replicate "
            f"<P>_mean variables ({', '.join(candidates) or 'none'}): give the observable "
            f"(--observable NAME)")
    return candidates[0]


def observable_symbol(summary: xr.Dataset, observable: str) -> str:
    """LaTeX symbol of the observable from the model's declaration (its name otherwise)."""
    model = summary_model(summary)
    try:
        symbol = model.observable(observable).symbol if model is not None else ""
    except (KeyError, ValueError):
        symbol = ""
    return symbol or rf"\mathrm{{{observable}}}".replace("_", r"\_")


def replicate_dimension(summary: xr.Dataset, variable: str) -> str:
    """The replicate dimension (``replicate`` or ``seed``) of a per-run variable.

    Raises
    ------
    CriticalFitError
        No such variable, or it has neither dimension.
    """
    if variable not in summary:
        raise CriticalFitError(f"summary has no per-replicate variable '{variable}'; "
                               f"variables: {', '.join(map(str, summary.data_vars)) or 'none'}")
    found = [dim for dim in REPLICATE_DIMS if dim in summary[variable].dims]
    if not found:
        raise CriticalFitError(f"'{variable}' has no replicate dimension "
                               f"({' or '.join(REPLICATE_DIMS)}); dimensions: "
                               f"{', '.join(map(str, summary[variable].dims)) or 'none'}")
    return found[0]


def with_replicate_means(summary: xr.Dataset, observable: str) -> tuple[xr.Dataset, str]:
    r"""The summary with ``replicate_<P>`` and ``replicate_<P>_err``, and its replicate dim.

    Where they are absent they are computed from the per-replicate ``<P>_mean`` (and
    ``<P>_sem``, used with one replicate) by
    :func:`flocklab.analysis.timeseries.replicate_average`: mean over the :math:`k`
    replicates, :math:`\bar P = \frac1k\sum_r P_r`, with the jackknife error over seeds
    (= the standard error across seeds, :math:`s/\sqrt k`).

    Raises
    ------
    CriticalFitError
        No ``<P>_mean`` with a replicate dimension, or one replicate and no ``<P>_sem``.
    """
    mean_name, sem_name = f"{observable}_mean", f"{observable}_sem"
    dim = replicate_dimension(summary, mean_name)
    targets = (f"replicate_{observable}", f"replicate_{observable}_err")
    if all(name in summary for name in targets):
        return summary, dim
    m1 = summary[mean_name]
    count = summary.sizes[dim]
    if sem_name not in summary and count < 2:
        raise CriticalFitError(f"one replicate and no '{sem_name}': the points have no "
                               f"standard error")
    sem = summary[sem_name].broadcast_like(m1) if sem_name in summary else xr.full_like(
        m1, np.nan, dtype=float)
    axis = m1.dims.index(dim)
    missing = np.full(m1.shape, np.nan)
    averaged = replicate_average(m1.values, missing, missing, sem.transpose(*m1.dims).values,
                                 None, None, np.nan, axis=axis, observable=observable)
    dims = [d for d in m1.dims if d != dim]
    summary = summary.copy()
    summary[targets[0]] = (dims, averaged[observable],
                           {"long_name": f"{observable} averaged over replicates"})
    summary[targets[1]] = (dims, averaged[f"{observable}_err"],
                           {"long_name": f"standard error of replicate_{observable} "
                                         f"(across seeds; the run's sem with one seed)"})
    return summary, dim
