"""Parameters, set-up and one-call simulation of the bench-dragon agent model.

:data:`PARAMETERS` declares every model parameter once (range-checked by
:func:`flocklab.core.parameters.resolve_parameters`; :func:`check` adds the path and the
cross-parameter rules); :func:`build_system` turns resolved parameters into a
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

from flocklab.core.model import ON_BLOWUP
from flocklab.core.parameters import ParameterError, ParameterSpec, resolve_parameters
from flocklab.models.dragon_agents.dynamics import NEIGHBOUR_MODES, DragonSystem
from flocklab.models.dragon_agents.guidance import (
    GUIDANCE_LAWS,
    PATH_KEYS,
    build_path,
    check_path_spec,
    make_guide,
)
from flocklab.models.dragon_agents.solve import METHODS, Solution, integrate, integrate_delayed

#: Spawn key of the gain stream (ASCII "gain").
GAIN_STREAM = 0x6761696E
STARTS = ("behind", "article")
ARTICLE_PATH = {"kind": "circle", "radius": 15.0, "angular_speed": 0.3}

PATH_SCHEMA = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"enum": list(PATH_KEYS)}},
    "description": "a path: {kind: line|circle|s_curve|figure_eight|spiral|turnaround, ...}",
}


def _gain(name: str, default: float, text: str, unit: str = "1/s") -> ParameterSpec:
    return ParameterSpec(name, "float", default, text, unit, low=0.0)


PARAMETERS: tuple[ParameterSpec, ...] = (
    ParameterSpec("N", "int", 20, "number of units (head = unit 0)", "1", low=2),
    ParameterSpec("L", "float", 1.0, "link rest length", "m", low=0.0, low_inclusive=False),
    ParameterSpec("m", "float", 1.0, "unit mass", "kg", low=0.0, low_inclusive=False),
    _gain("k_a", 2.0, "alignment gain (force per velocity difference)", "kg/s"),
    _gain("k_c", 5.0, "cohesion stiffness toward both chain neighbours", "N/m"),
    _gain("k_p", 3.0, "head path-following gain", "kg/s"),
    _gain("k_d", 0.5, "damping coefficient", "kg/s"),
    _gain("k_penalty", 500.0, "penalty-constraint stiffness of a link", "N/m"),
    ParameterSpec("neighbours", "choice", "front", "alignment neighbours (front: the "
                  "article's code)", choices=NEIGHBOUR_MODES),
    ParameterSpec("path", "json", ARTICLE_PATH, "head path", schema=PATH_SCHEMA),
    ParameterSpec("guidance", "choice", "tangent", "desired head velocity: tangent at the "
                  "head's projection (the article) or a moving reference point",
                  choices=GUIDANCE_LAWS),
    ParameterSpec("cross_track_gain", "float", 0.0, "pull of the desired velocity toward "
                  "the path (0: the article's pure tangent)", "1/s", low=0.0),
    ParameterSpec("start", "choice", "behind", "straight chain at rest: behind the path's "
                  "start along its tangent, or the article's x-axis line from the origin",
                  choices=STARTS),
    ParameterSpec("method", "choice", "Radau", "solve_ivp method", choices=METHODS),
    ParameterSpec("rtol", "float", 1e-6, "relative tolerance", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("atol", "float", 1e-9, "absolute tolerance", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("max_step", "float", 0.0, "largest solver step (0: unlimited)", "s",
                  low=0.0),
    ParameterSpec("delay", "float", 0.0, "perception delay tau of the control terms", "s",
                  low=0.0),
    ParameterSpec("look_ahead", "float", 0.0, "look-ahead horizon of the alignment "
                  "(0: plain alignment)", "s", low=0.0),
    ParameterSpec("gain_cv", "float", 0.0, "coefficient of variation of the per-unit "
                  "gains k_a, k_c, k_d (lognormal, mean = nominal)", "1", low=0.0),
    ParameterSpec("gain_seed", "int", -1, "seed of the gain draws (-1: the run seed)", "1",
                  low=-1),
    ParameterSpec("blowup_stretch", "float", 3.0, "stop when a link exceeds this "
                  "multiple of L", "1", low=1.0, low_inclusive=False),
    ON_BLOWUP,
)


def check(params: dict[str, Any]) -> None:
    """Path and cross-parameter rules (in place: the path gets its defaults)."""
    params["path"] = check_path_spec(params["path"])


def resolve(given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults filled and everything checked; ParameterError names the key."""
    params = resolve_parameters(PARAMETERS, given)
    check(params)
    return params


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
        Any subset of :data:`PARAMETERS` (defaults: the article's example).
    t_record : ndarray, shape (T,)
        Record times from 0 (s).
    seed : int
        Run seed (only used by the gain draws).
    """
    p = resolve(params)
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
