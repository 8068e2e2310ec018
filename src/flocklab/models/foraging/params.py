r"""Parameters of the foraging model: declarations, structured values and cross-rules.

Scalars are :class:`~flocklab.core.parameters.ParameterSpec` declarations with unit, range
and default; the structured parameters ``food`` (explicit patches), ``obstacles`` (polygons
and rectangles) and ``predators`` are checked against JSON-schema fragments, and
:func:`check` adds the rules across keys (``E0 <= E_max``, ``flee_speed >= speed``, every
polygon simple and inside the arena, a step no longer than the perception radius). Every
error is one line naming the key, raised before anything runs. Nothing here imports numba.

Units: lengths in ``length``, time in ``s``, energy in ``energy`` (one unit of stored
energy), food densities in ``energy/length^2``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from flocklab.core.parameters import ParameterError, ParameterSpec

_F = "float"
_POINT = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
_RECT = {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}

FOOD_SCHEMA = {
    "description": "explicit food patches added to the random ones: {rect: [x0, y0, x1, y1], "
                   "density} or {centre: [x, y], radius, density} (density in energy/length^2)",
    "type": "array",
    "items": {"oneOf": [
        {"type": "object", "required": ["rect", "density"], "additionalProperties": False,
         "properties": {"rect": _RECT, "density": {"type": "number", "minimum": 0}}},
        {"type": "object", "required": ["centre", "radius", "density"],
         "additionalProperties": False,
         "properties": {"centre": _POINT, "radius": {"type": "number", "exclusiveMinimum": 0},
                        "density": {"type": "number", "minimum": 0}}},
    ]},
}
OBSTACLE_SCHEMA = {
    "description": "obstacles never entered: {rect: [x0, y0, x1, y1]} or {vertices: [[x, y], "
                   "...]} (a simple polygon, at least 3 vertices, either orientation)",
    "type": "array",
    "items": {"oneOf": [
        {"type": "object", "required": ["rect"], "additionalProperties": False,
         "properties": {"rect": _RECT}},
        {"type": "object", "required": ["vertices"], "additionalProperties": False,
         "properties": {"vertices": {"type": "array", "items": _POINT, "minItems": 3}}},
    ]},
}
PREDATOR_SCHEMA = {
    "description": "predators: position (required), speed (default 1.5), capture_radius "
                   "(default 0.5); each chases the nearest living agent",
    "type": "array",
    "items": {"type": "object", "required": ["position"], "additionalProperties": False,
              "properties": {"position": _POINT,
                             "speed": {"type": "number", "exclusiveMinimum": 0},
                             "capture_radius": {"type": "number", "exclusiveMinimum": 0}}},
}
PREDATOR_DEFAULTS = {"speed": 1.5, "capture_radius": 0.5}


def _positive(name: str, default: float, description: str, unit: str, symbol: str = ""
              ) -> ParameterSpec:
    return ParameterSpec(name, _F, default, description, unit, low=0.0, low_inclusive=False,
                         symbol=symbol)


def _nonnegative(name: str, default: float, description: str, unit: str = "1",
                 symbol: str = "") -> ParameterSpec:
    return ParameterSpec(name, _F, default, description, unit, low=0.0, symbol=symbol)


SPECS: tuple[ParameterSpec, ...] = (
    ParameterSpec("N", "int", 50, "number of agents", low=1, symbol="N"),
    _positive("Lx", 100.0, "arena width (walls at x = 0 and x = Lx)", "1", "L_x"),
    _positive("Ly", 100.0, "arena height (walls at y = 0 and y = Ly)", "1", "L_y"),
    # motion and perception
    _positive("speed", 1.0, "cruising speed v0 (constant unless fleeing)", "s-1", "v_0"),
    _positive("flee_speed", 2.0, "speed while fleeing a predator, v_max >= v0", "s-1",
              "v_{max}"),
    _positive("visual", 5.0, "perception radius R: partners and food samples", "1", "R"),
    ParameterSpec("tries", "int", 5, "try-number: random points sampled per step when "
                  "foraging", low=0, symbol="n_{try}"),
    _nonnegative("crowding", 0.2, "crowding factor delta: swarm/follow only if "
                 "Y_target / n_f > delta Y_own", symbol=r"\delta"),
    _nonnegative("turn_noise", 0.3, "random move: heading turned by a uniform angle of "
                 "variance sigma^2 dt (rotational diffusion sigma^2/2)", "rad/s^0.5",
                 r"\sigma"),
    _nonnegative("safety", 1.0, "safety distance d_sa: partners closer are swum away from "
                 "(priority); clearance kept from obstacles", "1", "d_{sa}"),
    _nonnegative("w_intent", 0.5, "weight lambda_1 of the own intention (forage, swarm, "
                 "follow or random move)", symbol=r"\lambda_1"),
    _nonnegative("w_cohesion", 0.1, "weight lambda_2 toward the partners' centre",
                 symbol=r"\lambda_2"),
    _nonnegative("w_align", 0.4, "weight lambda_3 of the partners' mean heading",
                 symbol=r"\lambda_3"),
    ParameterSpec("social", "bool", True, "grouped: swarm, follow, cohesion and alignment "
                  "on; false: every agent forages alone (separation kept)"),
    # energy
    _positive("E0", 15.0, "initial energy E_0", "1", "E_0"),
    _positive("E_max", 20.0, "maximum energy: no feeding above it", "1", "E_{max}"),
    _nonnegative("k_metabolic", 0.1, "metabolic cost per length travelled, k in mu = k v + b",
                 "1", "k"),
    _nonnegative("b_metabolic", 0.1, "basal metabolic rate b in mu = k v + b", "s-1",
                 "b"),
    _nonnegative("feeding_rate", 0.5, "clearance rate gamma: intake gamma F per unit time on "
                 "food density F", "s-1", r"\gamma"),
    # food
    _positive("food_cell", 1.0, "side of the food grid's cells (nx = ceil(Lx / side))",
              "1", "h"),
    _nonnegative("food_background", 0.0, "food density everywhere", "1", "F_b"),
    ParameterSpec("patches", "int", 10, "random disc patches (centres uniform in the arena, "
                  "drawn from the run's seed)", low=0, symbol="n_p"),
    _positive("patch_radius", 5.0, "radius of the random patches", "1", "r_p"),
    _nonnegative("patch_density", 2.0, "food density inside a random patch",
                 "1", "F_p"),
    ParameterSpec("food", "json", [], "explicit food patches (rectangles, discs)",
                  schema=FOOD_SCHEMA),
    ParameterSpec("depletion", "bool", True, "eaten food is removed from the field"),
    _nonnegative("regrowth", 0.0, "regrowth rate r: F relaxes to its initial value, "
                 "dF/dt = r (F_0 - F)", "1/s", "r"),
    # obstacles, start, predators
    ParameterSpec("obstacles", "json", [], "obstacles (polygons, rectangles)",
                  schema=OBSTACLE_SCHEMA),
    ParameterSpec("group_size", "int", 10, "agents per school at the start (1: all "
                  "dispersed; >= N: one school)", low=1, symbol="G"),
    _positive("spacing", 1.0, "start: a school of G fills a disc of area G spacing^2",
              "1", "a"),
    ParameterSpec("predators", "json", [], "predators (list)", schema=PREDATOR_SCHEMA),
    _positive("flee_range", 5.0, "agents flee a predator closer than this", "1",
              "R_f"),
)


def grid_shape(params: Mapping[str, Any]) -> tuple[int, int]:
    """Cells of the food grid ``(ny, nx)``: :math:`n_x = \\lceil L_x / h \\rceil` (the cells are
    :math:`L_x/n_x \\times L_y/n_y`, at most ``food_cell`` on a side)."""
    h = float(params["food_cell"])
    return (max(1, math.ceil(float(params["Ly"]) / h - 1e-9)),
            max(1, math.ceil(float(params["Lx"]) / h - 1e-9)))


def cell_count(params: Mapping[str, Any]) -> int:
    """Number of food cells, :math:`n_x n_y`."""
    ny, nx = grid_shape(params)
    return nx * ny


def polygons(params: Mapping[str, Any]) -> list[list[tuple[float, float]]]:
    """Every obstacle as a list of vertices (rectangles as their four corners)."""
    out = []
    for item in params["obstacles"]:
        if "rect" in item:
            x0, y0, x1, y1 = item["rect"]
            out.append([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        else:
            out.append([(float(x), float(y)) for x, y in item["vertices"]])
    return out


def nominal_food_density(params: Mapping[str, Any]) -> float:
    r"""Nominal mean food density at the start,
    :math:`F_b + (n_p \pi r_p^2 F_p + \sum \text{explicit}) / (L_x L_y)`, energy/length²
    (random patches counted whole: overlaps, clipping and obstacles ignored)."""
    area = float(params["Lx"]) * float(params["Ly"])
    total = params["patches"] * math.pi * params["patch_radius"] ** 2 * params["patch_density"]
    for patch in params["food"]:
        if "rect" in patch:
            x0, y0, x1, y1 = patch["rect"]
            total += abs(x1 - x0) * abs(y1 - y0) * patch["density"]
        else:
            total += math.pi * patch["radius"] ** 2 * patch["density"]
    return params["food_background"] + total / area


def check(params: Mapping[str, Any]) -> None:
    """Rules across keys; raises :class:`ParameterError` naming the key."""
    if params["E0"] > params["E_max"]:
        raise ParameterError("E0", f"parameter 'E0' = {params['E0']!r} must not exceed "
                                   f"E_max = {params['E_max']!r}")
    if params["flee_speed"] < params["speed"]:
        raise ParameterError("flee_speed", f"parameter 'flee_speed' = {params['flee_speed']!r}"
                                           f" must be at least speed = {params['speed']!r}")
    ny, nx = grid_shape(params)
    if nx * ny > 50_000_000:
        raise ParameterError("food_cell", f"parameter 'food_cell' = {params['food_cell']!r} "
                                          f"gives {nx} x {ny} food cells (more than 5e7)")
    lx, ly = params["Lx"], params["Ly"]
    for k, vertices in enumerate(polygons(params)):
        key = f"obstacles[{k}]"
        _check_polygon(key, vertices, lx, ly)
    for k, predator in enumerate(params["predators"]):
        x, y = predator["position"]
        if not (0.0 <= x <= lx and 0.0 <= y <= ly):
            raise ParameterError(f"predators[{k}].position",
                                 f"parameter 'predators[{k}].position' = {[x, y]} lies outside "
                                 f"the arena [0, {lx:g}] x [0, {ly:g}]")


def _check_polygon(key: str, vertices: Sequence[tuple[float, float]], lx: float, ly: float
                   ) -> None:
    """A polygon inside the arena with a positive area and no crossing edges."""
    for x, y in vertices:
        if not (0.0 <= x <= lx and 0.0 <= y <= ly):
            raise ParameterError(key, f"parameter '{key}' has the vertex {[x, y]} outside the "
                                      f"arena [0, {lx:g}] x [0, {ly:g}]")
    n = len(vertices)
    area = 0.5 * sum(vertices[i][0] * vertices[(i + 1) % n][1]
                     - vertices[(i + 1) % n][0] * vertices[i][1] for i in range(n))
    if abs(area) <= 1e-12:
        raise ParameterError(key, f"parameter '{key}' has zero area")
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # adjacent through the closing edge
            if _segments_cross(vertices[i], vertices[(i + 1) % n], vertices[j],
                               vertices[(j + 1) % n]):
                raise ParameterError(key, f"parameter '{key}' is not a simple polygon: edges "
                                          f"{i} and {j} cross")


def _segments_cross(a: Sequence[float], b: Sequence[float], c: Sequence[float],
                    d: Sequence[float]) -> bool:
    """Whether segments ab and cd intersect (touching counts)."""
    def orient(p, q, r):
        value = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return (value > 0) - (value < 0)

    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if o1 != o2 and o3 != o4:
        return True

    def on(p, q, r):
        return (min(p[0], q[0]) <= r[0] <= max(p[0], q[0])
                and min(p[1], q[1]) <= r[1] <= max(p[1], q[1]))

    return ((o1 == 0 and on(a, b, c)) or (o2 == 0 and on(a, b, d)) or
            (o3 == 0 and on(c, d, a)) or (o4 == 0 and on(c, d, b)))


def check_step(params: Mapping[str, Any], dt: float) -> None:
    """With the run's step: no agent or predator moves farther than the perception radius
    per step (its decisions would skip what it could not see)."""
    fastest = max([params["flee_speed"]] + [p.get("speed", PREDATOR_DEFAULTS["speed"])
                                            for p in params["predators"]])
    if fastest * dt > params["visual"]:
        raise ParameterError("dt", f"dt = {dt:g} s moves the fastest body {fastest * dt:g} "
                                   f"per step, farther than visual = {params['visual']:g}; "
                                   f"take dt <= {params['visual'] / fastest:g}")
