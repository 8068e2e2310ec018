r"""Parameters of the force-based swarm: declarations, defaults, validation, derived values.

Scalars are :class:`~flocklab.core.parameters.ParameterSpec` declarations (:data:`SPECS`);
the structured ``predators`` list is checked against :data:`PREDATOR_SCHEMA` and completed
from the ``predator_*`` scalars (so studies can sweep them). :func:`complete` adds the
derived values the engine needs (:func:`cruise_speed`, :func:`equilibrium_distance`, the
neighbour-search radius), :func:`check_consistency` the cross-parameter rules. Nothing here
imports numba.

Units: a length unit (``length``), a time unit (``time``), a mass unit (``mass``); energy is
``mass length^2/time^2``. With the Morse potential the natural choice is :math:`l_a = 1`,
:math:`C_a = 1`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from flocklab.core.parameters import ParameterError, ParameterSpec

FORMS = ("inertial", "non_inertial")
POTENTIALS = ("morse", "generic")
TARGETS = ("densest", "nearest", "chosen")
LEADER_RULES = ("goal", "cosine")
ENERGY = "1"
#: Default linking distance of the groups without a cut-off, in units of l_a: the Morse
#: attraction's force there is e^-5 = 0.7 % of its contact value.
LINK_LENGTHS = 5.0

_F = "float"
_POSITIVE = {"low": 0.0, "low_inclusive": False}
_NONNEGATIVE = {"low": 0.0}


def _rate(name: str, default: float, what: str) -> ParameterSpec:
    return ParameterSpec(name, _F, default, f"weight of {what} (inertial form: relaxation rate, "
                         "1/time; non-inertial form: weight of its unit direction)", "1",
                         **_NONNEGATIVE)


SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("N", "int", 100, "number of agents (prey, leaders, sub-leaders, followers)",
                  low=1),
    ParameterSpec("dim", "int", 2, "spatial dimension", low=2, high=3),
    ParameterSpec("box", _F, 0.0, "side of a periodic box (0: open space)", "1",
                  **_NONNEGATIVE),
    ParameterSpec("form", "choice", "inertial", "equation of motion (inertial: m dv/dt = sum "
                  "of forces, second order; non_inertial: the velocity direction is the weighted "
                  "sum of the influences' unit directions, at the cruise speed)", choices=FORMS),
    ParameterSpec("potential", "choice", "morse", "pair potential U(r): morse = C_r "
                  "exp(-r/l_r) - C_a exp(-r/l_a); generic = a r^2/2 + (b c/2) exp(-r^2/c)",
                  choices=POTENTIALS),
    ParameterSpec("mass", _F, 1.0, "mass m of an agent", "1", **_POSITIVE),
    ParameterSpec("alpha", _F, 1.5, "self-propulsion alpha (negative: linear friction)",
                  "1"),
    ParameterSpec("beta", _F, 0.5, "nonlinear friction beta (cruise speed sqrt(alpha/beta))",
                  "1", **_NONNEGATIVE),
    ParameterSpec("C_r", _F, 2.0, "Morse repulsion strength C_r", ENERGY, **_NONNEGATIVE),
    ParameterSpec("l_r", _F, 0.3, "Morse repulsion length l_r", "1", **_POSITIVE),
    ParameterSpec("C_a", _F, 1.0, "Morse attraction strength C_a", ENERGY, **_NONNEGATIVE),
    ParameterSpec("l_a", _F, 1.0, "Morse attraction length l_a", "1", **_POSITIVE),
    ParameterSpec("a", _F, 0.1, "generic potential: attraction slope a (U = a r^2/2)",
                  "1", **_NONNEGATIVE),
    ParameterSpec("b", _F, 2.0, "generic potential: repulsion amplitude b", "1",
                  **_NONNEGATIVE),
    ParameterSpec("c", _F, 1.0, "generic potential: repulsion range c (length squared)",
                  "1", **_POSITIVE),
    ParameterSpec("r_cut", _F, 5.0, "cut-off of the pair potential (potential shifted to 0 "
                  "there) and of the attraction zone; 0: no cut-off, the potential summed "
                  "over all pairs (open space only)", "1", **_NONNEGATIVE),
    ParameterSpec("r_link", _F, 0.0, "linking distance of the groups (agents closer than it "
                  "are in one group; the states' dispersed test); 0: the cut-off r_cut, or "
                  f"{LINK_LENGTHS:g} l_a without one", "1", **_NONNEGATIVE),
    ParameterSpec("r_align", _F, 2.0, "range of the alignment influence", "1",
                  **_POSITIVE),
    ParameterSpec("w_repulsion", _F, 1.0, "weight of the repulsive part of the potential "
                  "(non-inertial form: of the unit direction away from neighbours closer "
                  "than r*)", **_NONNEGATIVE),
    ParameterSpec("w_attraction", _F, 1.0, "weight of the attractive part of the potential "
                  "(non-inertial form: of the unit direction toward neighbours between r* "
                  "and r_cut)", **_NONNEGATIVE),
    _rate("w_alignment", 0.0, "alignment (toward the neighbours' mean velocity)"),
    _rate("w_temptation", 1.0, "temptation (leaders: toward the goal; sub-leaders: toward "
          "their leader's predicted position)"),
    _rate("w_fear", 2.0, "fear (prey within fear_range of a predator: toward the escape "
          "velocity)"),
    ParameterSpec("w_inertia", _F, 1.0, "weight of the own direction (non-inertial form)",
                  **_NONNEGATIVE),
    ParameterSpec("noise", _F, 0.0, "noise: inertial form, white acceleration noise of this "
                  "amplitude (length/time^1.5); non-inertial form, s.d. of the direction "
                  "noise per sqrt(time)", "1", **_NONNEGATIVE),
    ParameterSpec("initial", "choice", "random", "initial velocities: random directions, all "
                  "along the goal direction, or rotating (counter-clockwise about the start "
                  "centre in the xy plane)", choices=("random", "aligned", "rotating")),
    ParameterSpec("initial_speed", _F, 1.0, "initial speed of every agent", "1",
                  **_NONNEGATIVE),
    ParameterSpec("start_radius", _F, 1.0, "radius of the ball the agents start in, "
                  "uniformly (centred in the box when periodic)", "1", **_POSITIVE),
    ParameterSpec("leaders", "int", 0, "number Q of informed leaders (0: a free-rein group)",
                  low=0),
    ParameterSpec("leader_rule", "choice", "goal", "leaders' goal velocity: goal = s g; "
                  "cosine = w s g + (1 - w) v_F, w = max(0, cos(g, v_F)), v_F the followers' "
                  "mean velocity", choices=LEADER_RULES),
    ParameterSpec("subleaders", "int", 0, "number of sub-leaders (each follows one leader's "
                  "predicted position)", low=0),
    ParameterSpec("prediction_step", _F, 1.0, "prediction step tau of a sub-leader: it "
                  "steers to x_L + tau v_L of its leader", "1", **_NONNEGATIVE),
    ParameterSpec("goal_angle", _F, 0.0, "goal direction g of the leaders (angle from x in "
                  "the xy plane)", "degree"),
    ParameterSpec("turn_time", _F, 0.0, "time at which the goal turns", "1",
                  **_NONNEGATIVE),
    ParameterSpec("turn_angle", _F, 0.0, "angle the goal turns by at the turn time (0: "
                  "never)",
                  "degree", low=-180.0, high=180.0),
    ParameterSpec("fear_range", _F, 4.0, "prey within this distance of a predator fear it",
                  "1", **_POSITIVE),
    ParameterSpec("escape_speed", _F, 2.0, "speed of the escape velocity", "1",
                  **_POSITIVE),
    ParameterSpec("escape_mix", _F, 0.0, "escape direction: 0 = plain flee (away from the "
                  "predator), 1 = the optimised escape velocity, between: normalised blend",
                  low=0.0, high=1.0),
    ParameterSpec("escape_beta", _F, 0.5, "weight beta of the angle term of the escape "
                  "objective (1 - beta: the distance term)", low=0.0, high=1.0),
    ParameterSpec("escape_horizon", _F, 1.0, "look-ahead H of the escape objective",
                  "1", **_POSITIVE),
    ParameterSpec("escape_directions", "int", 64, "candidate directions of the escape "
                  "optimisation (2-D: angles; 3-D: a Fibonacci sphere)", low=4),
    ParameterSpec("predator_speed", _F, 3.0, "predators' speed (a predator's own wins)",
                  "1", **_POSITIVE),
    ParameterSpec("predator_turn_rate", _F, 90.0, "predators' largest turning rate per unit "
                  "time (a predator's own wins)", "degree", **_POSITIVE),
    ParameterSpec("predator_target", "choice", "nearest", "predators' target rule: "
                  "densest (prey with most neighbours), nearest, chosen (its 'prey'); a "
                  "predator's own wins", choices=TARGETS),
    ParameterSpec("capture_radius", _F, 0.3, "predators' capture radius (a predator's own "
                  "wins)", "1", **_POSITIVE),
    ParameterSpec("rest_time", _F, 1.0, "time a predator rests after a capture (a "
                  "predator's own wins)", "1", **_NONNEGATIVE),
    ParameterSpec("surround_radius", _F, 4.0, "radius around the first predator within "
                  "which the surround coverage counts prey", "1", **_POSITIVE),
)

_VECTOR = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3}
_PREDATOR_NUMBERS = ("speed", "turn_rate", "capture_radius", "rest_time")
PREDATOR_SCHEMA = {
    "description": "list of predators: position (required), velocity (initial heading; "
                   "default toward the agents' centre), speed, turn_rate (deg/time), target "
                   "(densest|nearest|chosen), prey (index, for chosen), capture_radius, "
                   "rest_time, potential ({C_r, l_r, C_a, l_a}: a Morse attraction-repulsion "
                   "between it and each prey, as between members of a group; default none); "
                   "missing ones from the scalars predator_speed, "
                   "predator_turn_rate, predator_target, capture_radius, rest_time",
    "type": "array",
    "items": {"type": "object", "required": ["position"], "additionalProperties": False,
              "properties": {"position": _VECTOR, "velocity": _VECTOR,
                             "target": {"enum": list(TARGETS)},
                             "prey": {"type": "integer", "minimum": 0},
                             "potential": {
                                 "type": "object", "additionalProperties": False,
                                 "required": ["C_r", "l_r", "C_a", "l_a"],
                                 "properties": {
                                     "C_r": {"type": "number", "minimum": 0},
                                     "C_a": {"type": "number", "minimum": 0},
                                     "l_r": {"type": "number", "exclusiveMinimum": 0},
                                     "l_a": {"type": "number", "exclusiveMinimum": 0}}},
                             **{key: {"type": "number", "minimum": 0}
                                for key in _PREDATOR_NUMBERS}}},
}
#: Predator keys whose default is a model scalar.
PREDATOR_SCALARS = {"speed": "predator_speed", "turn_rate": "predator_turn_rate",
                    "target": "predator_target", "capture_radius": "capture_radius",
                    "rest_time": "rest_time"}


def cruise_speed(p: Mapping[str, Any]) -> float:
    r"""Cruise speed :math:`s = \sqrt{\alpha/\beta}` (NaN unless alpha > 0 and beta > 0)."""
    if p["alpha"] > 0.0 and p["beta"] > 0.0:
        return math.sqrt(p["alpha"] / p["beta"])
    return math.nan


def equilibrium_distance(p: Mapping[str, Any]) -> float:
    r"""Distance :math:`r^*` where :math:`U'(r^*) = 0` (repulsion inside, attraction outside).

    Morse: :math:`r^* = \ln(C_r l_a / (C_a l_r)) / (1/l_r - 1/l_a)` when it is positive and a
    minimum (:math:`l_r < l_a`, :math:`C_r/l_r > C_a/l_a`); generic:
    :math:`r^* = \sqrt{c \ln(b/a)}` when :math:`b > a`. Purely repulsive potentials give
    ``inf``, purely attractive ones 0.
    """
    if p["potential"] == "generic":
        a, b = p["a"], p["b"]
        if b <= 0.0:
            return 0.0
        if a <= 0.0:
            return math.inf
        return math.sqrt(p["c"] * math.log(b / a)) if b > a else 0.0
    c_r, l_r, c_a, l_a = p["C_r"], p["l_r"], p["C_a"], p["l_a"]
    if c_r <= 0.0:
        return 0.0
    if c_a <= 0.0:
        return math.inf
    slope_0 = c_a / l_a - c_r / l_r  # U'(0)
    if slope_0 >= 0.0:  # attractive at contact
        return 0.0
    if l_r >= l_a:  # repulsion decays no faster: repulsive everywhere
        return math.inf
    return math.log(c_r * l_a / (c_a * l_r)) / (1.0 / l_r - 1.0 / l_a)


def h_number(p: Mapping[str, Any]) -> float:
    r""":math:`C l^d` of the Morse potential, :math:`C = C_r/C_a`, :math:`l = l_r/l_a`
    (H-stable above 1, catastrophic below; D'Orsogna et al. 2006)."""
    if p["C_a"] <= 0.0:
        return math.inf
    return (p["C_r"] / p["C_a"]) * (p["l_r"] / p["l_a"]) ** p["dim"]


def cutoff(p: Mapping[str, Any]) -> float:
    """Cut-off of the pair potential: ``r_cut``, or ``inf`` for ``r_cut = 0`` (all pairs)."""
    return p["r_cut"] if p["r_cut"] > 0.0 else math.inf


def link_distance(p: Mapping[str, Any]) -> float:
    r"""Linking distance of the groups: ``r_link`` if set, else the cut-off (agents farther
    apart do not interact), else :data:`LINK_LENGTHS` :math:`l_a` (no cut-off)."""
    if p["r_link"] > 0.0:
        return p["r_link"]
    return p["r_cut"] if p["r_cut"] > 0.0 else LINK_LENGTHS * p["l_a"]


def search_radius(p: Mapping[str, Any]) -> float:
    """Neighbour-search radius: the larger of the potential cut-off and the alignment range
    (``inf`` without a cut-off: every pair)."""
    return max(cutoff(p), p["r_align"])


def check_predators(value: Any, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Predators with defaults from the ``predator_*`` scalars; vectors of length ``dim``."""
    out = []
    dim = p["dim"]
    for k, raw in enumerate(value or []):
        key = f"predators[{k}]"
        pred = {name: p[scalar] for name, scalar in PREDATOR_SCALARS.items()}
        pred.update(raw)
        for name in ("position", "velocity"):
            if name in raw and len(raw[name]) != dim:
                raise ParameterError(f"{key}.{name}", f"parameter '{key}.{name}' = "
                                     f"{raw[name]!r} must be a list of {dim} numbers")
        for name in ("speed", "turn_rate", "capture_radius"):
            if pred[name] <= 0.0:
                raise ParameterError(f"{key}.{name}", f"parameter '{key}.{name}' = "
                                     f"{pred[name]!r} must be > 0")
        if pred["target"] == "chosen":
            prey = pred.get("prey")
            if prey is None or prey >= p["N"]:
                raise ParameterError(f"{key}.prey", f"parameter '{key}.prey' = {prey!r}: "
                                     f"target 'chosen' needs a prey index < N = {p['N']}")
        out.append(pred)
    return out


def check_consistency(p: Mapping[str, Any]) -> None:
    """Cross-parameter rules; raise ParameterError naming the key."""
    if p["leaders"] + p["subleaders"] > p["N"]:
        raise ParameterError("subleaders", f"parameter 'subleaders': leaders + subleaders = "
                             f"{p['leaders'] + p['subleaders']} exceed N = {p['N']}")
    if p["subleaders"] and not p["leaders"]:
        raise ParameterError("subleaders", "parameter 'subleaders' > 0 needs leaders >= 1 "
                                           "(each sub-leader follows a leader)")
    needs_speed = (p["form"] == "non_inertial" or p["leaders"] > 0 or bool(p["predators"]))
    if needs_speed and not math.isfinite(cruise_speed(p)):
        why = ("the non-inertial form" if p["form"] == "non_inertial" else
               "leaders and predators (their goal and escape velocities)")
        raise ParameterError("alpha" if p["alpha"] <= 0 else "beta",
                             f"parameter 'alpha' = {p['alpha']!r}, 'beta' = {p['beta']!r}: "
                             f"{why} need a cruise speed sqrt(alpha/beta), alpha, beta > 0")
    if p["box"] > 0.0:
        if p["start_radius"] > 0.5 * p["box"]:
            raise ParameterError("start_radius", f"parameter 'start_radius' = "
                                 f"{p['start_radius']!r} must be <= box/2 = {0.5 * p['box']:g}")
        if p["r_cut"] == 0.0:
            raise ParameterError("r_cut", "parameter 'r_cut' = 0 (no cut-off) needs open "
                                 "space (box = 0): a periodic box needs r_cut <= box/2")
        if search_radius(p) > 0.5 * p["box"]:
            raise ParameterError("r_cut", f"parameter 'r_cut' = {p['r_cut']!r} (search radius "
                                 f"{search_radius(p):g}) must be <= box/2 = {0.5 * p['box']:g}"
                                 " (minimum image)")


def complete(p: Mapping[str, Any]) -> dict[str, Any]:
    """Resolved parameters with the derived keys the engine reads (no re-resolution).

    Returns
    -------
    dict
        ``p`` (``predators`` as given: it is recorded), ``predator_specs`` (the predators
        with every key, :func:`check_predators`), and the derived ``cruise_speed``,
        ``r_star`` (:func:`equilibrium_distance`), ``cutoff`` (:func:`cutoff`), ``link``
        (:func:`link_distance`) and ``radius`` (:func:`search_radius`).
    """
    out = dict(p)
    out["predator_specs"] = check_predators(p["predators"], p)
    out["cruise_speed"] = cruise_speed(p)
    out["r_star"] = equilibrium_distance(p)
    out["cutoff"] = cutoff(p)
    out["link"] = link_distance(p)
    out["radius"] = search_radius(p)
    return out


def resolve(given: Mapping[str, Any]) -> dict[str, Any]:
    """The prepared parameters of ``given`` outside a run (engine tests and scripts): the
    model's :meth:`~flocklab.core.model.Model.prepare` (defaults, coercion, element and
    cross-parameter checks, :func:`complete`)."""
    from flocklab.models.forces import Forces

    return Forces().prepare(given)
