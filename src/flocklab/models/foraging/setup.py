r"""The foraging model's start: food field, obstacle arrays, agents and predators (NumPy).

* Food field on a grid of :math:`n_x \times n_y` cells of side
  :math:`h_x = L_x/n_x, h_y = L_y/n_y` (:func:`flocklab.models.foraging.params.grid_shape`):
  :math:`F = F_b` plus, at every cell whose centre lies in it, the density of each random
  disc patch (``patches`` centres uniform in the arena, from the run's generator) and of
  each explicit rectangle or disc of ``food``; cells whose centre lies inside an obstacle
  hold no food.
* Obstacles as one edge array (``x0, y0, x1, y1`` per edge) with the polygon offsets.
* Agents in :math:`\lceil N/G \rceil` schools of up to ``G`` (one school when ``G >= N``):
  each school's centre uniform over the free arena, its members uniform in the disc of area
  :math:`G a^2` around it (points inside obstacles or within :math:`d_{sa}` of one, or
  outside the arena, drawn again), all with the school's heading (uniform in
  :math:`[0, 2\pi)`); ``G = 1`` scatters everyone.

All draws come from the run's :class:`numpy.random.Generator`, so the start depends only on
the parameters and the seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.models.foraging.params import PREDATOR_DEFAULTS, grid_shape, polygons

#: Draws per point before a start position is declared impossible.
MAX_DRAWS = 10_000


def geometry(params: Mapping[str, Any]) -> np.ndarray:
    """The food grid's geometry vector ``[hx, hy, 1/hx, 1/hy, nx, ny]``."""
    ny, nx = grid_shape(params)
    hx = params["Lx"] / nx
    hy = params["Ly"] / ny
    return np.array([hx, hy, 1.0 / hx, 1.0 / hy, float(nx), float(ny)])


def obstacle_arrays(params: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Edges ``(M, 4)`` and polygon offsets ``(P + 1,)`` of the obstacles."""
    edges = []
    start = [0]
    for vertices in polygons(params):
        ring = np.asarray(vertices, dtype=float)
        edges.append(np.hstack([ring, np.roll(ring, -1, axis=0)]))
        start.append(start[-1] + ring.shape[0])
    if not edges:
        return np.zeros((0, 4)), np.zeros(1, np.int64)
    return np.ascontiguousarray(np.vstack(edges)), np.asarray(start, np.int64)


def points_blocked(x: np.ndarray, y: np.ndarray, edges: np.ndarray, poly_start: np.ndarray,
                   clearance: float = 0.0) -> np.ndarray:
    """Vectorised :func:`flocklab.models.foraging.kernels.point_blocked`: inside an obstacle
    (crossing number) or closer than ``clearance`` to an edge; shape of ``x``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    blocked = np.zeros(x.shape, bool)
    for p in range(poly_start.shape[0] - 1):
        inside = np.zeros(x.shape, bool)
        for x0, y0, x1, y1 in edges[poly_start[p]:poly_start[p + 1]]:
            crosses = (y0 > y) != (y1 > y)
            with np.errstate(divide="ignore", invalid="ignore"):
                xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            inside ^= crosses & (x < xc)
            if clearance > 0.0:
                blocked |= edge_distance(x, y, x0, y0, x1, y1) < clearance
        blocked |= inside
    return blocked


def edge_distance(x: np.ndarray, y: np.ndarray, x0: float, y0: float, x1: float, y1: float
                  ) -> np.ndarray:
    """Distance from points to the segment ``(x0, y0)``–``(x1, y1)``."""
    ex, ey = x1 - x0, y1 - y0
    length_sq = ex * ex + ey * ey
    s = np.zeros_like(x) if length_sq == 0 else ((x - x0) * ex + (y - y0) * ey) / length_sq
    s = np.clip(s, 0.0, 1.0)
    return np.hypot(x0 + s * ex - x, y0 + s * ey - y)


def food_field(params: Mapping[str, Any], rng: np.random.Generator, edges: np.ndarray,
               poly_start: np.ndarray) -> np.ndarray:
    """The initial food density on the cells, flattened ``iy * nx + ix``, energy/length²."""
    ny, nx = grid_shape(params)
    hx, hy = params["Lx"] / nx, params["Ly"] / ny
    xc, yc = np.meshgrid((np.arange(nx) + 0.5) * hx, (np.arange(ny) + 0.5) * hy)
    field = np.full((ny, nx), float(params["food_background"]))
    centres = rng.uniform((0.0, 0.0), (params["Lx"], params["Ly"]), (params["patches"], 2))
    for cx, cy in centres:
        inside = (xc - cx) ** 2 + (yc - cy) ** 2 <= params["patch_radius"] ** 2
        field[inside] += params["patch_density"]
    for patch in params["food"]:
        if "rect" in patch:
            x0, y0, x1, y1 = patch["rect"]
            inside = ((min(x0, x1) <= xc) & (xc <= max(x0, x1)) & (min(y0, y1) <= yc)
                      & (yc <= max(y0, y1)))
        else:
            cx, cy = patch["centre"]
            inside = (xc - cx) ** 2 + (yc - cy) ** 2 <= patch["radius"] ** 2
        field[inside] += patch["density"]
    if edges.shape[0]:
        field[points_blocked(xc, yc, edges, poly_start)] = 0.0
    return field.ravel()


def _free_point(rng: np.random.Generator, params: Mapping[str, Any], edges: np.ndarray,
                poly_start: np.ndarray, centre: tuple[float, float] | None, radius: float,
                key: str) -> tuple[float, float]:
    """A point uniform in the arena (``centre`` None) or in the disc, free of obstacles."""
    lx, ly, clearance = params["Lx"], params["Ly"], params["safety"]
    for _ in range(MAX_DRAWS):
        if centre is None:
            x, y = rng.uniform(0.0, lx), rng.uniform(0.0, ly)
        else:
            r, angle = radius * math.sqrt(rng.uniform()), rng.uniform(0.0, 2 * math.pi)
            x, y = centre[0] + r * math.cos(angle), centre[1] + r * math.sin(angle)
            if not (0.0 <= x <= lx and 0.0 <= y <= ly):
                continue
        if not points_blocked(np.array([x]), np.array([y]), edges, poly_start, clearance)[0]:
            return x, y
    raise ParameterError(key, f"no free start position found in {MAX_DRAWS} draws: the "
                              f"obstacles leave too little room (parameter '{key}')")


def agents(params: Mapping[str, Any], rng: np.random.Generator, edges: np.ndarray,
           poly_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start positions ``(N, 3)`` (z = 0) and unit headings ``(N, 2)`` of the schools."""
    n = params["N"]
    size = min(params["group_size"], n)
    radius = params["spacing"] * math.sqrt(size / math.pi)
    pos = np.zeros((n, 3))
    head = np.zeros((n, 2))
    for first in range(0, n, size):
        centre = _free_point(rng, params, edges, poly_start, None, 0.0, "obstacles")
        angle = rng.uniform(0.0, 2 * math.pi)
        for i in range(first, min(first + size, n)):
            pos[i, :2] = centre if size == 1 else _free_point(
                rng, params, edges, poly_start, centre, radius, "spacing")
            head[i] = math.cos(angle), math.sin(angle)
    return pos, head


def predators(params: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predator positions ``(P, 2)``, speeds and capture radii ``(P,)``."""
    entries = params["predators"]
    ppos = np.array([p["position"] for p in entries], dtype=float).reshape(-1, 2)
    speed = np.array([p.get("speed", PREDATOR_DEFAULTS["speed"]) for p in entries], float)
    capture = np.array([p.get("capture_radius", PREDATOR_DEFAULTS["capture_radius"])
                        for p in entries], float)
    return ppos, speed, capture
