"""Set-up and one-call simulation of the bench-dragon agent model.

:func:`build_system` turns resolved parameters (declared in
:mod:`flocklab.models.dragon_agents`) into a
:class:`~flocklab.models.dragon_agents.dynamics.DragonSystem`, :func:`initial_state` gives the
straight-line start at rest, and :func:`simulate_dragon` runs it.

Heterogeneity: with ``gain_cv = c > 0`` each unit's :math:`k_a, k_c, k_d` is drawn
independently from a lognormal distribution with mean the nominal gain and coefficient of
variation :math:`c`: :math:`\\ln k \\sim \\mathcal N(\\ln \\bar k - \\sigma^2/2, \\sigma^2)`,
:math:`\\sigma^2 = \\ln(1 + c^2)`. The draws come from
``SeedSequence(gain_seed, spawn_key=(GAIN_STREAM,))`` (``gain_seed = -1``: the run seed),
so the gains have their own stream and do not depend on anything else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.models.dragon_agents.dynamics import DragonSystem
from flocklab.models.dragon_agents.guidance import (
    build_path,
    make_guide,
)
from flocklab.models.dragon_agents.solve import Solution, integrate, integrate_delayed

#: Spawn key of the gain stream (ASCII "gain").
GAIN_STREAM = 0x6761696E


def describe(params: Mapping[str, Any]) -> str:
    """One-line JSON of the parameters for error messages."""
    return json.dumps(dict(params), sort_keys=True, default=str)


def lognormal_gains(mean: float, cv: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` lognormal draws with mean ``mean`` and coefficient of variation ``cv``."""
    if cv == 0 or mean == 0:
        return np.full(n, float(mean))
    sigma2 = math.log1p(cv * cv)
    return rng.lognormal(math.log(mean) - 0.5 * sigma2, math.sqrt(sigma2), n)


def unit_gains(params: Mapping[str, Any], seed: int) -> dict[str, np.ndarray]:
    """Per-unit ``k_a, k_c, k_d`` (shape (N,)), heterogeneous when ``gain_cv > 0``."""
    source = seed if params["gain_seed"] < 0 else params["gain_seed"]
    rng = np.random.default_rng(np.random.SeedSequence(source, spawn_key=(GAIN_STREAM,)))
    return {name: lognormal_gains(params[name], params["gain_cv"], params["N"], rng)
            for name in ("k_a", "k_c", "k_d")}


def build_system(params: Mapping[str, Any], seed: int = 0) -> DragonSystem:
    """The :class:`DragonSystem` of resolved ``params`` (gains drawn with ``seed``)."""
    gains = unit_gains(params, seed)
    guide = make_guide(params["path"], params["guidance"], params["cross_track_gain"])
    return DragonSystem(L=params["L"], m=params["m"], k_p=params["k_p"],
                        k_penalty=params["k_penalty"], guide=guide,
                        neighbours=params["neighbours"], look_ahead=params["look_ahead"],
                        **gains)


def initial_state(params: Mapping[str, Any]) -> np.ndarray:
    """Straight chain at rest, links exactly ``L`` (interleaved layout, shape (4N,)).

    ``start="behind"``: head at the path's start, units behind it along minus its tangent;
    ``"article"``: unit i at (i L, 0) (the article's example).
    """
    n, rest = params["N"], params["L"]
    state = np.zeros((n, 4))
    index = np.arange(n)[:, None]
    if params["start"] == "article":
        state[:, :2] = index * np.array([rest, 0.0])
    else:
        path, _ = build_path(params["path"])
        point, tangent = path.frame(0.0)
        state[:, :2] = point - index * rest * tangent
    return state.ravel()


def simulate_dragon(params: Mapping[str, Any], t_record: np.ndarray, seed: int = 0,
                    jacobian: str = "analytic") -> Solution:
    """Resolve ``params``, build the system and integrate (delay: method of steps).

    Parameters
    ----------
    params : mapping
        Any subset of the model's parameters (defaults: the article's example).
    t_record : ndarray, shape (T,)
        Record times from 0 (s).
    seed : int
        Run seed (only used by the gain draws).
    """
    from flocklab.models.dragon_agents import DragonAgents

    p = DragonAgents().prepare(params)
    times = np.asarray(t_record, dtype=float)
    if times.ndim != 1 or times.size < 2 or times[0] != 0 or np.any(np.diff(times) <= 0):
        raise ParameterError("t_record", "record times must be ascending from 0")
    return solve(p, build_system(p, seed), initial_state(p), times, jacobian)


def solve(params: Mapping[str, Any], system: DragonSystem, y0: np.ndarray,
          t_record: np.ndarray, jacobian: str = "analytic") -> Solution:
    """Integrate ``system`` from ``y0`` with the method, tolerances and blow-up handling of
    resolved ``params``: :func:`~flocklab.models.dragon_agents.solve.integrate`, or the method of
    steps (:func:`~flocklab.models.dragon_agents.solve.integrate_delayed`) when ``delay > 0``.

    ``y0`` has shape (4N,); ``t_record`` (s) ascends from 0.
    """
    options = {"method": params["method"], "rtol": params["rtol"], "atol": params["atol"],
               "max_step": params["max_step"] or np.inf,
               "blowup_stretch": params["blowup_stretch"], "describe": describe(params),
               "on_blowup": params["on_blowup"]}
    if params["delay"] > 0:
        return integrate_delayed(system, y0, t_record, params["delay"], **options)
    return integrate(system, y0, t_record, jacobian=jacobian, **options)
