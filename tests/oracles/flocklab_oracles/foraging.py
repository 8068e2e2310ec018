r"""All-pairs NumPy reference of one foraging step (tests and the benchmark).

The same step as :func:`flocklab.models.foraging.engine.advance` — decide and move, then
metabolism, feeding and depletion, regrowth, predators — written with whole-array NumPy
operations on the full :math:`N \times N` distance matrix instead of the hashed cell list
and the compiled per-agent loops: O(N²) time and memory per step. It draws the same
counter-based random numbers (a vectorised SplitMix64), so for the same state it gives the
same result up to rounding (sums over partners run in another order); the tests compare
the two and the benchmark times them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from flocklab.core.random import (
    GOLDEN_GAMMA,
    MIX_1,
    MIX_2,
    SHIFT_11,
    SHIFT_27,
    SHIFT_30,
    SHIFT_31,
    TWO_POW_MINUS_53,
)
from flocklab.models.foraging import kernels as kr


def counter_uniforms(key: np.uint64, counters: np.ndarray) -> np.ndarray:
    """Vectorised :func:`flocklab.core.random.counter_uniform` (SplitMix64 finaliser)."""
    with np.errstate(over="ignore"):
        z = np.uint64(key) + counters.astype(np.uint64) * GOLDEN_GAMMA
        z = (z ^ (z >> SHIFT_30)) * MIX_1
        z = (z ^ (z >> SHIFT_27)) * MIX_2
        z = z ^ (z >> SHIFT_31)
    return (z >> SHIFT_11).astype(np.float64) * TWO_POW_MINUS_53


def food(field: np.ndarray, x: np.ndarray, y: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """:math:`F(\\mathbf{x})` at many points (as :func:`kernels.food_at`)."""
    return field[cells(x, y, geo)]


def cells(x: np.ndarray, y: np.ndarray, geo: np.ndarray) -> np.ndarray:
    nx, ny = int(geo[kr.NX]), int(geo[kr.NY])
    ix = np.clip(np.trunc(x * geo[kr.INV_HX]), 0, nx - 1).astype(np.int64)
    iy = np.clip(np.trunc(y * geo[kr.INV_HY]), 0, ny - 1).astype(np.int64)
    return iy * nx + ix


def _unit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    norm = np.hypot(x, y)
    safe = np.where(norm > 0, norm, 1.0)
    return np.where(norm > 0, x / safe, 0.0), np.where(norm > 0, y / safe, 0.0)


def partners(pos: np.ndarray, head: np.ndarray, alive: np.ndarray, field: np.ndarray,
             geo: np.ndarray, par: np.ndarray) -> dict[str, np.ndarray]:
    """Partner sums of every agent from the full distance matrix (as ``kernels._partners``)."""
    x, y = pos[:, 0], pos[:, 1]
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    r = np.hypot(dx, dy)
    mask = (r <= par[kr.VISUAL]) & alive[None, :] & alive[:, None]
    np.fill_diagonal(mask, False)
    close = mask & (r < par[kr.SAFETY]) & (r > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sep_x = -np.where(close, dx / r, 0.0).sum(axis=1)
        sep_y = -np.where(close, dy / r, 0.0).sum(axis=1)
    n_f = mask.sum(axis=1)
    values = food(field, x, y, geo)
    ranked = np.where(mask, values[None, :], -1.0)
    best_y = ranked.max(axis=1)
    best_j = np.argmax(ranked == best_y[:, None], axis=1)  # lowest index on ties
    best_y = np.where(n_f > 0, best_y, -1.0)
    count = np.maximum(n_f, 1)
    return {"n_f": n_f, "cx": np.where(n_f > 0, (mask @ x) / count, x),
            "cy": np.where(n_f > 0, (mask @ y) / count, y), "ax": mask @ head[:, 0],
            "ay": mask @ head[:, 1], "sep_x": sep_x, "sep_y": sep_y, "n_sep": close.sum(1),
            "best_y": best_y, "bx": x[best_j], "by": y[best_j]}


def intentions(pos: np.ndarray, head: np.ndarray, field: np.ndarray, geo: np.ndarray,
               edges: np.ndarray, poly_start: np.ndarray, par: np.ndarray, key: np.uint64,
               step: int, near: Mapping[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """Intention d_1 and behaviour code of every agent (as ``kernels._intention``)."""
    from flocklab.models.foraging.setup import points_blocked

    n = pos.shape[0]
    x, y = pos[:, 0], pos[:, 1]
    own = food(field, x, y, geo)
    cost = par[kr.K_METABOLIC] * par[kr.SPEED] + par[kr.B_METABOLIC]
    worth = cost / par[kr.FEEDING] if par[kr.FEEDING] > 0 else np.inf
    tries = int(par[kr.TRIES])
    base = (np.uint64(step) * np.uint64(n) + np.arange(n, dtype=np.uint64)) * np.uint64(
        2 * tries + 1)
    dx, dy = np.zeros(n), np.zeros(n)
    code = np.full(n, kr.WANDER, np.int8)
    todo = np.ones(n, bool)
    if par[kr.SOCIAL] > 0:
        n_f = near["n_f"]
        centre = food(field, near["cx"], near["cy"], geo)
        limit = par[kr.CROWDING] * own
        with np.errstate(divide="ignore", invalid="ignore"):
            follow = (n_f > 0) & (near["best_y"] > own) & (near["best_y"] > worth) & (
                near["best_y"] / n_f > limit)
            swarm = (n_f > 0) & (centre > own) & (centre > worth) & (centre / n_f > limit)
        for chosen, tx, ty, label in (
                (follow & (~swarm | (near["best_y"] >= centre)), near["bx"], near["by"],
                 kr.FOLLOW), (swarm, near["cx"], near["cy"], kr.SWARM)):
            ux, uy = _unit(tx - x, ty - y)
            take = todo & chosen & ((ux != 0) | (uy != 0))
            dx[take], dy[take], code[take] = ux[take], uy[take], label
            todo &= ~take
    for m in range(tries):
        u1 = counter_uniforms(key, base + np.uint64(2 * m))
        u2 = counter_uniforms(key, base + np.uint64(2 * m + 1))
        radius = par[kr.VISUAL] * np.sqrt(u1)
        px = x + radius * np.cos(2 * math.pi * u2)
        py = y + radius * np.sin(2 * math.pi * u2)
        value = food(field, px, py, geo)
        ok = todo & (px >= 0) & (px <= par[kr.LX]) & (py >= 0) & (py <= par[kr.LY]) & (
            value >= own) & (value > worth)
        if edges.shape[0]:
            ok &= ~points_blocked(px, py, edges, poly_start, par[kr.SAFETY])
        ux, uy = _unit(px - x, py - y)
        take = ok & ((ux != 0) | (uy != 0))
        dx[take], dy[take], code[take] = ux[take], uy[take], kr.FORAGE
        todo &= ~take
    u = counter_uniforms(key, base + np.uint64(2 * tries))
    turn = (2 * u - 1) * par[kr.NOISE] * math.sqrt(3 * par[kr.DT])
    c, s = np.cos(turn), np.sin(turn)
    dx = np.where(todo, c * head[:, 0] - s * head[:, 1], dx)
    dy = np.where(todo, s * head[:, 0] + c * head[:, 1], dy)
    return dx, dy, code


def directions(pos: np.ndarray, head: np.ndarray, alive: np.ndarray, field: np.ndarray,
               geo: np.ndarray, edges: np.ndarray, poly_start: np.ndarray, ppos: np.ndarray,
               par: np.ndarray, key: np.uint64, step: int) -> tuple[np.ndarray, ...]:
    """Direction, speed and behaviour of every agent (as ``kernels.decide_one``)."""
    near = partners(pos, head, alive, field, geo, par)
    dx, dy, code = intentions(pos, head, field, geo, edges, poly_start, par, key, step, near)
    x, y = pos[:, 0], pos[:, 1]
    wx, wy = par[kr.W_INTENT] * dx, par[kr.W_INTENT] * dy
    if par[kr.SOCIAL] > 0:
        has = near["n_f"] > 0
        ux, uy = _unit(near["cx"] - x, near["cy"] - y)
        vx, vy = _unit(near["ax"], near["ay"])
        wx = wx + np.where(has, par[kr.W_COHESION] * ux + par[kr.W_ALIGN] * vx, 0.0)
        wy = wy + np.where(has, par[kr.W_COHESION] * uy + par[kr.W_ALIGN] * vy, 0.0)
    ux, uy = _unit(wx, wy)
    ix, iy = _unit(dx, dy)
    zero = (ux == 0) & (uy == 0)
    ux, uy = np.where(zero, ix, ux), np.where(zero, iy, uy)
    zero = (ux == 0) & (uy == 0)
    ux, uy = np.where(zero, head[:, 0], ux), np.where(zero, head[:, 1], uy)
    sx, sy = _unit(near["sep_x"], near["sep_y"])
    apart = (near["n_sep"] > 0) & ((sx != 0) | (sy != 0))
    ux, uy = np.where(apart, sx, ux), np.where(apart, sy, uy)
    speed = np.full(pos.shape[0], par[kr.SPEED])
    if ppos.shape[0]:
        fx, fy = _flee(x, y, ppos, par[kr.FLEE_RANGE])
        flee = (fx != 0) | (fy != 0)
        ux, uy = np.where(flee, fx, ux), np.where(flee, fy, uy)
        speed[flee] = par[kr.FLEE_SPEED]
        code[flee] = kr.FLEE
    return ux, uy, speed, code


def _flee(x: np.ndarray, y: np.ndarray, ppos: np.ndarray, flee_range: float
          ) -> tuple[np.ndarray, np.ndarray]:
    dx = x[:, None] - ppos[None, :, 0]
    dy = y[:, None] - ppos[None, :, 1]
    d2 = dx * dx + dy * dy
    nearest = np.argmin(d2, axis=1)
    rows = np.arange(x.shape[0])
    fx, fy = _unit(dx[rows, nearest], dy[rows, nearest])
    exact = (fx == 0) & (fy == 0)
    fx = np.where(exact, 1.0, fx)
    inside = d2[rows, nearest] < flee_range * flee_range
    return np.where(inside, fx, 0.0), np.where(inside, fy, 0.0)


def moves(x: np.ndarray, y: np.ndarray, ex: np.ndarray, ey: np.ndarray, length: np.ndarray,
          par: np.ndarray, edges: np.ndarray, poly_start: np.ndarray, clearance: float
          ) -> tuple[np.ndarray, ...]:
    """Vectorised :func:`kernels.move` (walls, then slide or stay at obstacles)."""
    lx, ly = par[kr.LX], par[kr.LY]
    dx, dy = length * ex, length * ey
    flip_x = (x + dx < 0) | (x + dx > lx)
    flip_y = (y + dy < 0) | (y + dy > ly)
    dx, ex = np.where(flip_x, -dx, dx), np.where(flip_x, -ex, ex)
    dy, ey = np.where(flip_y, -dy, dy), np.where(flip_y, -ey, ey)
    nx, ny = np.clip(x + dx, 0, lx), np.clip(y + dy, 0, ly)
    if not edges.shape[0]:
        return nx, ny, ex, ey
    blocked = _blocked(x, y, nx, ny, edges, poly_start, clearance)
    from flocklab.models.foraging.setup import edge_distance

    distance = np.array([edge_distance(x, y, *edge) for edge in edges])
    e = edges[np.argmin(distance, axis=0)]
    tx, ty = e[:, 2] - e[:, 0], e[:, 3] - e[:, 1]
    norm = np.hypot(tx, ty)
    tx, ty = tx / norm, ty / norm
    along = dx * tx + dy * ty
    sx, sy = np.clip(x + along * tx, 0, lx), np.clip(y + along * ty, 0, ly)
    slide_ok = ~_blocked(x, y, sx, sy, edges, poly_start, clearance)
    sign = np.where(along >= 0, 1.0, -1.0)
    normal = ex * (-ty) + ey * tx
    stay_ex, stay_ey = ex + 2 * normal * ty, ey - 2 * normal * tx
    out_x = np.where(blocked, np.where(slide_ok, sx, x), nx)
    out_y = np.where(blocked, np.where(slide_ok, sy, y), ny)
    out_ex = np.where(blocked, np.where(slide_ok, sign * tx, stay_ex), ex)
    out_ey = np.where(blocked, np.where(slide_ok, sign * ty, stay_ey), ey)
    return out_x, out_y, out_ex, out_ey


def _blocked(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, edges: np.ndarray,
             poly_start: np.ndarray, clearance: float) -> np.ndarray:
    """Vectorised :func:`kernels.move_blocked`."""
    from flocklab.models.foraging.setup import points_blocked

    blocked = points_blocked(x1, y1, edges, poly_start, clearance)
    for cx, cy, dx, dy in edges:
        blocked |= _intersect(x0, y0, x1, y1, cx, cy, dx, dy)
    return blocked


def _intersect(ax, ay, bx, by, cx, cy, dx, dy):
    """Vectorised :func:`kernels.segments_intersect` (arrays or floats)."""
    def orient(px, py, qx, qy, rx, ry):
        return (qx - px) * (ry - py) - (qy - py) * (rx - px)

    def on_box(px, py, qx, qy, rx, ry):
        return ((np.minimum(px, qx) <= rx) & (rx <= np.maximum(px, qx))
                & (np.minimum(py, qy) <= ry) & (ry <= np.maximum(py, qy)))

    d1, d2 = orient(cx, cy, dx, dy, ax, ay), orient(cx, cy, dx, dy, bx, by)
    d3, d4 = orient(ax, ay, bx, by, cx, cy), orient(ax, ay, bx, by, dx, dy)
    proper = (((d1 > 0) & (d2 < 0)) | ((d1 < 0) & (d2 > 0))) & (
        ((d3 > 0) & (d4 < 0)) | ((d3 < 0) & (d4 > 0)))
    touch = (((d1 == 0) & on_box(cx, cy, dx, dy, ax, ay))
             | ((d2 == 0) & on_box(cx, cy, dx, dy, bx, by))
             | ((d3 == 0) & on_box(ax, ay, bx, by, cx, cy))
             | ((d4 == 0) & on_box(ax, ay, bx, by, dx, dy)))
    return proper | touch


def feed(state: dict[str, Any], moved: np.ndarray, par: np.ndarray, t_old: float) -> None:
    """Vectorised :func:`kernels.feed` (``np.add.at`` sums in agent order, as the kernel)."""
    alive, energy, field, geo = state["alive"], state["energy"], state["field"], state["_geo"]
    dt, area, e_max = par[kr.DT], geo[kr.HX] * geo[kr.HY], par[kr.E_MAX]
    c = cells(state["pos"][:, 0], state["pos"][:, 1], geo)
    cost = par[kr.K_METABOLIC] * moved + par[kr.B_METABOLIC] * dt
    demand = np.where(alive, np.minimum(par[kr.FEEDING] * field[c] * dt,
                                        np.maximum(e_max - (energy - cost), 0.0)), 0.0)
    total = np.zeros_like(field)
    np.add.at(total, c[alive], demand[alive])
    share = np.ones(c.shape)
    if par[kr.DEPLETION] > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            scarce = total[c] > field[c] * area
            share = np.where(scarce, field[c] * area / total[c], 1.0)
    first = alive & (field[c] > 0) & (state["first_food"] < 0)
    state["first_food"][first] = t_old + dt
    got = share * demand
    new = np.minimum(energy - cost + got, e_max)
    state["eaten"][alive] += got[alive]
    dead = alive & (new <= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        state["death_time"][dead] = t_old + dt * energy[dead] / (energy[dead] - new[dead])
    state["cause"][dead] = kr.STARVED
    new[dead] = 0.0
    energy[alive] = new[alive]
    alive[dead] = False
    if par[kr.DEPLETION] > 0:
        used = np.unique(c[total[c] > 0])
        share_cell = np.minimum(1.0, field[used] * area / total[used])
        field[used] = np.maximum(field[used] - share_cell * total[used] / area, 0.0)


def step(state: dict[str, Any], params: Mapping[str, Any], step_index: int) -> None:
    """One step of the whole model on an engine ``state`` (predators as the kernel)."""
    from flocklab.models.foraging.engine import parameter_vector

    par = parameter_vector(params, state["_dt"])
    pos, head, alive = state["pos"], state["head"], state["alive"]
    ux, uy, speed, code = directions(pos, head, alive, state["field"], state["_geo"],
                                     state["_edges"], state["_poly_start"], state["ppos"],
                                     par, state["_key"], step_index)
    x, y, ex, ey = moves(pos[:, 0], pos[:, 1], ux, uy, speed * par[kr.DT], par,
                         state["_edges"], state["_poly_start"], par[kr.SAFETY])
    x, y = np.where(alive, x, pos[:, 0]), np.where(alive, y, pos[:, 1])
    moved = np.where(alive, np.hypot(x - pos[:, 0], y - pos[:, 1]), 0.0)
    head[alive] = np.c_[ex, ey][alive]
    state["behaviour"][alive] = code[alive]
    pos[:, 0], pos[:, 1] = x, y
    state["travelled"] += moved
    feed(state, moved, par, step_index * par[kr.DT])
    if params["regrowth"] > 0 and params["depletion"]:
        decay = math.exp(-params["regrowth"] * par[kr.DT])
        state["field"][:] = state["_field0"] - (state["_field0"] - state["field"]) * decay
    if state["ppos"].shape[0]:
        kr.hunt(state["ppos"], state["_pspeed"], state["_pcapture"], pos, alive, par,
                state["_edges"], state["_poly_start"], (step_index + 1) * par[kr.DT],
                state["death_time"], state["cause"])
