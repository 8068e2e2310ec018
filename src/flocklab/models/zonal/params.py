"""Parameters of the zonal model: declarations, defaults and validation.

Scalars are :class:`flocklab.core.parameters.ParameterSpec` declarations; the structured
parameters ``predators`` (list), ``obstacles`` (list), ``subgroups`` (list) and ``food``
(mapping or None) are checked by :func:`check_structured`. Every error is one line naming
the key (``obstacles[1].radius``) and the allowed range, raised before anything runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError, ParameterSpec, resolve_parameters

#: The interaction rules (kernels in :mod:`flocklab.models.zonal.rules`).
RULES = ("couzin2002", "couzin2005", "boids")

_F = "float"
SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("rule", "choice", "couzin2002", "interaction rule", choices=RULES),
    ParameterSpec("N", "int", 100, "number of agents", low=1),
    ParameterSpec("dim", "int", 3, "spatial dimension", low=2, high=3),
    ParameterSpec("box", _F, 0.0, "side of a periodic box (0: open space)", "1", low=0.0),
    ParameterSpec("dt", _F, 0.1, "time step", "s", low=0.0, low_inclusive=False),
    ParameterSpec("speed", _F, 3.0, "cruising speed (boids: maximum speed)", "s-1",
                  low=0.0, low_inclusive=False),
    ParameterSpec("noise", _F, 0.05, "s.d. of the Gaussian rotation of the desired direction",
                  "rad", low=0.0),
    ParameterSpec("turning_rate", _F, 40.0, "maximum turning rate", "degree s-1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("field_of_view", _F, 270.0, "field of perception (blind cone behind)", "degree",
                  low=0.0, high=360.0, low_inclusive=False),
    ParameterSpec("r_r", _F, 1.0, "radius of the zone of repulsion (couzin2002)", "1",
                  low=0.0, low_inclusive=False),
    ParameterSpec("delta_o", _F, 2.5, "width of the zone of orientation (couzin2002)", "1",
                  low=0.0),
    ParameterSpec("delta_a", _F, 14.0, "width of the zone of attraction (couzin2002)", "1",
                  low=0.0),
    ParameterSpec("self_in_orientation", "bool", True,
                  "own heading included in d_o when the zone of orientation is occupied"),
    ParameterSpec("alpha", _F, 1.0, "minimum distance (couzin2005)", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("rho", _F, 6.0, "interaction range (couzin2005)", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("omega", _F, 0.5, "weight of the preferred direction of informed agents",
                  low=0.0),
    ParameterSpec("informed_fraction", _F, 0.0, "share of informed agents", low=0.0, high=1.0),
    ParameterSpec("preferred_angle", _F, 0.0, "preferred direction g of informed agents "
                  "(angle from the x axis in the xy plane)", "degree"),
    ParameterSpec("vision", _F, 10.0, "vision radius (boids)", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("separation", _F, 1.0, "separation radius (boids)", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("w_inertia", _F, 0.1, "boids weight of the own heading", low=0.0),
    ParameterSpec("w_cohesion", _F, 0.1, "boids weight toward the neighbours' centre", low=0.0),
    ParameterSpec("w_alignment", _F, 0.1, "boids weight of the neighbours' heading", low=0.0),
    ParameterSpec("w_separation", _F, 0.3, "boids weight away from close neighbours", low=0.0),
    ParameterSpec("w_centre", _F, 0.1, "boids weight toward the group centre", low=0.0),
    ParameterSpec("w_heading", _F, 0.3, "boids weight of the group's mean heading", low=0.0),
    ParameterSpec("speed_min", _F, 0.5, "boids minimum speed", "s-1", low=0.0),
    ParameterSpec("speed_exponent", _F, 1.0, "boids speed = speed * consensus**exponent",
                  low=0.0),
    ParameterSpec("escape_speed", _F, 6.0, "mean limit speed of fleeing prey", "s-1",
                  low=0.0, low_inclusive=False),
    ParameterSpec("speed_spread", _F, 0.2, "relative half-width of the prey limit speeds",
                  low=0.0, high=1.0, high_inclusive=False),
    ParameterSpec("k_e", _F, 0.7, "escape weight of evasion", low=0.0),
    ParameterSpec("k_c", _F, 0.3, "escape weight of cohesion (social direction)", low=0.0),
    ParameterSpec("predator_target", "choice", "nearest", "predators' target rule (a predator's "
                  "own 'target' wins; sweepable)",
                  choices=("nearest", "optimal")),
    ParameterSpec("predator_w_d", _F, 1.0, "distance weight w_d of the predators' optimal "
                  "score (a predator's own wins)", "s", low=0.0),
    ParameterSpec("predator_w_v", _F, 1.0, "speed weight w_v of the predators' optimal "
                  "score (0: the nearest-prey rule; a predator's own wins)",
                  "s2", low=0.0),
    ParameterSpec("obstacle_k", _F, 5.0, "obstacles' push strength k (velocity change "
                  "k (R - r) per unit time; an obstacle's own wins)", "s-2", low=0.0),
    ParameterSpec("start_radius", _F, 5.0, "agents start uniformly in a ball of this radius "
                  "around the origin (open space)", "1", low=0.0, low_inclusive=False),
    ParameterSpec("start", "choice", "ball", "initial positions: uniform in the start ball, "
                  "or uniform in the whole periodic box", choices=("ball", "box")),
    ParameterSpec("initial", "choice", "random", "initial headings", choices=("random",
                                                                              "aligned")),
)
STRUCTURED_DEFAULTS: dict[str, Any] = {"predators": [], "obstacles": [], "subgroups": [],
                                       "food": None, "schedule": []}
PREDATOR_DEFAULTS: dict[str, Any] = {
    "speed": 8.0, "stalk_speed": 1.0, "detection_range": 8.0, "capture_radius": 0.5,
    "c1": 0.5, "c2": 2.0, "w_d": 1.0, "w_v": 1.0, "target": "nearest",
    "max_attack_time": 10.0, "rest_time": 5.0,
}
#: Predator keys whose default is a model scalar (so that studies can sweep them).
PREDATOR_SCALARS = {"target": "predator_target", "w_d": "predator_w_d", "w_v": "predator_w_v"}
OBSTACLE_KEYS = ("centre", "radius", "influence", "k")


def interaction_range(p: Mapping[str, Any]) -> float:
    """Neighbour-search radius of the rule (the outer edge of the outermost zone)."""
    if p["rule"] == "couzin2002":
        return p["r_r"] + p["delta_o"] + p["delta_a"]
    if p["rule"] == "couzin2005":
        return max(p["rho"], p["alpha"])
    return max(p["vision"], p["separation"])


def contact_radius(p: Mapping[str, Any]) -> tuple[str, float]:
    """The rule's repulsion radius (name, value): no agent may move farther per step."""
    if p["rule"] == "couzin2002":
        return "r_r", p["r_r"]
    if p["rule"] == "couzin2005":
        return "alpha", p["alpha"]
    return "separation", p["separation"]


def _number(key: str, value: Any, low: float | None = None, high: float | None = None,
            low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value):
        raise ParameterError(key, f"parameter '{key}' = {value!r} must be a finite number")
    if low is not None and (value < low or (low_open and value == low)):
        raise ParameterError(key, f"parameter '{key}' = {value!r} is out of range: allowed is "
                                  f"{'>' if low_open else '>='} {low:g}")
    if high is not None and value > high:
        raise ParameterError(key, f"parameter '{key}' = {value!r} is out of range: allowed is "
                                  f"<= {high:g}")
    return float(value)


def _vector(key: str, value: Any, dim: int, nonzero: bool = False) -> np.ndarray:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != dim:
        raise ParameterError(key, f"parameter '{key}' = {value!r} must be a list of {dim} "
                                  f"numbers")
    vec = np.array([_number(f"{key}[{a}]", x) for a, x in enumerate(value)])
    if nonzero and not np.any(vec):
        raise ParameterError(key, f"parameter '{key}' = {value!r} must not be the zero vector")
    return vec


def _mapping(key: str, value: Any, allowed: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ParameterError(key, f"parameter '{key}' must be a mapping with keys "
                                  f"{', '.join(allowed)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ParameterError(f"{key}.{unknown[0]}", f"unknown parameter '{key}.{unknown[0]}'; "
                                                    f"allowed: {', '.join(allowed)}")
    return value


def _list(key: str, value: Any) -> Sequence[Any]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise ParameterError(key, f"parameter '{key}' must be a list")
    return value


def check_predators(value: Any, dim: int, defaults: Mapping[str, Any] | None = None
                    ) -> list[dict[str, Any]]:
    """Validated predators with defaults filled in (``position`` is required); ``defaults``
    overrides :data:`PREDATOR_DEFAULTS` (the model scalars ``predator_*``)."""
    base = {**PREDATOR_DEFAULTS, **(defaults or {})}
    out = []
    for k, raw in enumerate(_list("predators", value)):
        key = f"predators[{k}]"
        raw = _mapping(key, raw, ("position", *PREDATOR_DEFAULTS))
        if "position" not in raw:
            raise ParameterError(f"{key}.position", f"parameter '{key}.position' is required")
        pred = {**base, **raw}
        pred["position"] = _vector(f"{key}.position", raw["position"], dim)
        for name in ("speed", "detection_range", "capture_radius", "max_attack_time"):
            pred[name] = _number(f"{key}.{name}", pred[name], 0.0, low_open=True)
        for name in ("stalk_speed", "c1", "w_d", "w_v", "rest_time"):
            pred[name] = _number(f"{key}.{name}", pred[name], 0.0)
        pred["c2"] = _number(f"{key}.c2", pred["c2"], pred["c1"], low_open=True)
        if pred["target"] not in ("nearest", "optimal"):
            raise ParameterError(f"{key}.target", f"parameter '{key}.target' = "
                                 f"{pred['target']!r} is not allowed: one of nearest, optimal")
        out.append(pred)
    return out


def check_obstacles(value: Any, dim: int, k_default: float = 5.0) -> np.ndarray:
    """Obstacles as an array (K, 6): centre (3), radius a, influence R > a, strength k
    (``k_default`` where an obstacle gives none)."""
    rows = []
    for k, raw in enumerate(_list("obstacles", value)):
        key = f"obstacles[{k}]"
        raw = _mapping(key, raw, OBSTACLE_KEYS)
        for name in ("centre", "radius"):
            if name not in raw:
                raise ParameterError(f"{key}.{name}", f"parameter '{key}.{name}' is required")
        centre = np.zeros(3)
        centre[:dim] = _vector(f"{key}.centre", raw["centre"], dim)
        radius = _number(f"{key}.radius", raw["radius"], 0.0, low_open=True)
        influence = _number(f"{key}.influence", raw.get("influence", 2.0 * radius), radius,
                            low_open=True)
        strength = _number(f"{key}.k", raw.get("k", k_default), 0.0)
        rows.append([*centre, radius, influence, strength])
    return np.array(rows, dtype=float).reshape(-1, 6)


def check_subgroups(value: Any, dim: int) -> list[tuple[float, np.ndarray]]:
    """Informed subgroups as (fraction, unit preferred direction), fractions summing to <= 1."""
    out = []
    for k, raw in enumerate(_list("subgroups", value)):
        key = f"subgroups[{k}]"
        raw = _mapping(key, raw, ("fraction", "direction"))
        if "fraction" not in raw or "direction" not in raw:
            raise ParameterError(key, f"parameter '{key}' needs 'fraction' and 'direction'")
        fraction = _number(f"{key}.fraction", raw["fraction"], 0.0, 1.0)
        direction = _vector(f"{key}.direction", raw["direction"], dim, nonzero=True)
        out.append((fraction, direction / np.linalg.norm(direction)))
    if sum(f for f, _ in out) > 1.0 + 1e-12:
        raise ParameterError("subgroups", "parameter 'subgroups': the fractions sum to more "
                                          "than 1")
    return out


def check_food(value: Any, dim: int) -> np.ndarray | None:
    """Food position (3,) or None."""
    if value is None:
        return None
    raw = _mapping("food", value, ("position",))
    if "position" not in raw:
        raise ParameterError("food.position", "parameter 'food.position' is required")
    out = np.zeros(3)
    out[:dim] = _vector("food.position", raw["position"], dim)
    return out


def check_schedule(value: Any, rule: str) -> list[dict[str, float]]:
    """Zone-width schedule: entries ``{time, delta_o?, delta_a?}`` at strictly increasing
    times > 0 (couzin2002 only); from ``time`` on the given widths apply."""
    out = []
    entries = _list("schedule", value)
    if entries and rule != "couzin2002":
        raise ParameterError("schedule", f"parameter 'schedule' changes the couzin2002 zone "
                                         f"widths; rule is {rule!r}")
    previous = 0.0
    for k, raw in enumerate(entries):
        key = f"schedule[{k}]"
        raw = _mapping(key, raw, ("time", "delta_o", "delta_a"))
        if "time" not in raw or not {"delta_o", "delta_a"} & set(raw):
            raise ParameterError(key, f"parameter '{key}' needs 'time' and at least one of "
                                      f"'delta_o', 'delta_a'")
        entry = {"time": _number(f"{key}.time", raw["time"], previous, low_open=True)}
        for name in ("delta_o", "delta_a"):
            if name in raw:
                entry[name] = _number(f"{key}.{name}", raw[name], 0.0)
        previous = entry["time"]
        out.append(entry)
    return out


def schedule_steps(schedule: Sequence[Mapping[str, float]], dt: float,
                   steps: int | None = None) -> np.ndarray:
    """Step at which each schedule entry applies (checked: whole steps of ``dt`` and, when
    ``steps`` is given, before the end of the run)."""
    out = np.empty(len(schedule), dtype=np.int64)
    for k, entry in enumerate(schedule):
        ratio = entry["time"] / dt
        out[k] = round(ratio)
        if abs(ratio - out[k]) > 1e-9 * max(1.0, ratio):
            raise ParameterError(f"schedule[{k}].time", f"parameter 'schedule[{k}].time' = "
                                 f"{entry['time']!r} is not a whole number of steps dt = {dt!r}")
        if steps is not None and out[k] >= steps:
            raise ParameterError(f"schedule[{k}].time", f"parameter 'schedule[{k}].time' = "
                                 f"{entry['time']!r} is not before the end of the run "
                                 f"({steps * dt:g})")
    return out


def zone_widths(p: Mapping[str, Any], change_steps: np.ndarray, step: int
                ) -> tuple[float, float]:
    """``(delta_o, delta_a)`` in force for the step from ``step`` to ``step + 1``."""
    delta_o, delta_a = p["delta_o"], p["delta_a"]
    for entry, start in zip(p["schedule"], change_steps, strict=True):
        if start > step:
            break
        delta_o = entry.get("delta_o", delta_o)
        delta_a = entry.get("delta_a", delta_a)
    return delta_o, delta_a


def max_prey_speed(p: Mapping[str, Any]) -> float:
    """Largest speed a prey can have: cruising, or limit speed while fleeing."""
    fastest = p["speed"]
    if p["predators"]:
        fastest = max(fastest, p["escape_speed"] * (1.0 + p["speed_spread"]))
    return fastest


def start_centre(p: Mapping[str, Any]) -> np.ndarray:
    """Centre of the start ball: the origin, or the box centre in a periodic box."""
    centre = np.zeros(3)
    if p["box"] > 0:
        centre[: p["dim"]] = 0.5 * p["box"]
    return centre


def check_step_length(p: Mapping[str, Any], dt: float) -> None:
    """No agent or predator may move farther than the repulsion radius in one step of ``dt``
    (it could pass through a neighbour or, in one step, through a thin obstacle)."""
    name, radius = contact_radius(p)
    step = max_prey_speed(p) * dt
    if step > radius:
        raise ParameterError("dt", f"parameter 'dt' = {dt!r} is too large: agents move "
                                   f"{step:g} > {name} = {radius:g} per step (allowed dt <= "
                                   f"{radius / max_prey_speed(p):g})")
    for k, pred in enumerate(p["predator_specs"]):
        if pred["speed"] * dt > radius:
            raise ParameterError("dt", f"parameter 'dt' = {dt!r} is too large: predators"
                                       f"[{k}] moves {pred['speed'] * dt:g} > {name} = "
                                       f"{radius:g} per step")


def check_consistency(p: Mapping[str, Any], check_step: bool = True) -> None:
    """Cross-parameter checks: step length, start region, obstacles, informed shares."""
    if check_step:
        check_step_length(p, p["dt"])
    if p["start"] == "box" and (p["box"] <= 0 or len(p["obstacle_rows"])):
        raise ParameterError("start", "parameter 'start' = 'box' needs a periodic box "
                                      "(box > 0) and no obstacles")
    if p["box"] > 0 and p["start_radius"] > 0.5 * p["box"]:
        raise ParameterError("start_radius", f"parameter 'start_radius' = {p['start_radius']!r}"
                                             f" must be <= box/2 = {0.5 * p['box']:g}")
    informed = p["informed_fraction"] + sum(f for f, _ in p["subgroup_directions"])
    if informed > 1.0 + 1e-12:
        raise ParameterError("informed_fraction", "parameter 'informed_fraction' plus the "
                                                  "subgroup fractions exceed 1")
    _check_obstacle_layout(p)


def _check_obstacle_layout(p: Mapping[str, Any]) -> None:
    obstacles = p["obstacle_rows"]
    origin = start_centre(p)
    for k, row in enumerate(obstacles):
        gap = np.linalg.norm(row[:3] - origin) - row[3]
        if gap < p["start_radius"]:
            raise ParameterError(f"obstacles[{k}]", f"parameter 'obstacles[{k}]' overlaps the "
                                                    f"start region (ball of radius start_radius "
                                                    f"= {p['start_radius']:g})")
        for m in range(k):
            if np.linalg.norm(row[:3] - obstacles[m, :3]) < row[3] + obstacles[m, 3]:
                raise ParameterError(f"obstacles[{k}]", f"parameter 'obstacles[{k}]' overlaps "
                                                        f"obstacles[{m}]")
        for j, pred in enumerate(p["predator_specs"]):
            centre = np.zeros(3)
            centre[: p["dim"]] = pred["position"]
            if np.linalg.norm(centre - row[:3]) < row[3]:
                raise ParameterError(f"predators[{j}].position", f"parameter 'predators[{j}]."
                                     f"position' lies inside obstacles[{k}]")


def complete(p: Mapping[str, Any]) -> dict[str, Any]:
    """Resolved parameters with the structured ones in the engine's form (no re-resolution).

    The declared ``predators``, ``obstacles``, ``subgroups``, ``food`` and ``schedule`` stay
    as given (they are recorded); their elements are checked (errors name the element) and
    added as ``predator_specs`` (list of dicts with every key), ``obstacle_rows`` (array
    (K, 6)), ``subgroup_directions`` (list of (fraction, unit direction)) and
    ``food_position`` ((3,) array or None).
    """
    dim = p["dim"]
    out = dict(p)
    out["predator_specs"] = check_predators(p["predators"] or [], dim,
                                            {key: p[name] for key, name
                                             in PREDATOR_SCALARS.items()})
    out["obstacle_rows"] = check_obstacles(p["obstacles"] or [], dim, p["obstacle_k"])
    out["subgroup_directions"] = check_subgroups(p["subgroups"] or [], dim)
    out["food_position"] = check_food(p["food"], dim)
    check_schedule(p["schedule"] or [], p["rule"])
    return out


def resolve(given: Mapping[str, Any], check_step: bool = True) -> dict[str, Any]:
    """The prepared parameters of ``given`` outside a run (engine tests and scripts):
    defaults filled in, every value coerced and checked, :func:`complete`; raises
    ParameterError.

    Parameters
    ----------
    given : mapping
        Any subset of the scalar names in :data:`SPECS` (``dt`` included) and of
        ``predators``, ``obstacles``, ``subgroups``, ``food``, ``schedule``.
    check_step : bool
        Check the step length against ``dt``.

    Returns
    -------
    dict
        As :func:`complete`.
    """
    scalars = {k: v for k, v in given.items() if k not in STRUCTURED_DEFAULTS}
    p = resolve_parameters(SPECS, scalars)
    p.update({name: given.get(name, default) for name, default in STRUCTURED_DEFAULTS.items()})
    p = complete(p)
    check_consistency(p, check_step)
    return p
