"""Numba kernels of the Vicsek model (pure functions on arrays; see :mod:`flocklab.models.vicsek`
for the equations and the model declaration)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit, prange

from flocklab.core.random import counter_uniform
from flocklab.core.variants import serial_variant
from flocklab.geometry.cell_list import (
    bin_particles,
    bin_particles_serial,
    cells_per_side,
    gather_sorted,
    gather_sorted_serial,
    neighbour_sum_one,
)
from flocklab.geometry.topological import (
    knn_cells_per_side,
    knn_one,
    periodic_delaunay_neighbours,
)

#: Neighbour rules, by the code :func:`advance` takes.
RULES = ("metric", "knn", "voronoi")

# --------------------------------------------------------------------------- kernels


@njit(cache=True, inline="always")
def _noisy_heading(sx, sy, n, ex_old, ey_old, u, eta, vectorial):  # pragma: no cover
    """New unit heading from the neighbour sum ``(sx, sy)`` of ``n`` terms and the
    particle's uniform ``u``: angular noise rotates the normalised sum by ``eta (u - 1/2)``,
    vectorial noise adds ``eta n e(xi)`` before normalising; a zero sum keeps the old heading."""
    if vectorial:
        xi = math.pi * (2.0 * u - 1.0)
        sx += eta * n * math.cos(xi)
        sy += eta * n * math.sin(xi)
    norm = math.sqrt(sx * sx + sy * sy)
    if norm > 0.0:
        nx = sx / norm
        ny = sy / norm
    else:
        nx = ex_old
        ny = ey_old
    if vectorial:
        return nx, ny
    dtheta = eta * (u - 0.5)
    cos_d = math.cos(dtheta)
    sin_d = math.sin(dtheta)
    return cos_d * nx - sin_d * ny, sin_d * nx + cos_d * ny


@njit(cache=True, parallel=True)
def _new_headings(xs, ys, exs, eys, ids, cell_start, m, box, radius, key, step, eta, vectorial,
                  ex_new, ey_new):  # pragma: no cover
    radius_sq = radius * radius
    counter_base = np.uint64(step) * np.uint64(xs.shape[0])
    for c in prange(m * m):
        cy = c // m
        cx = c - cy * m
        for k in range(cell_start[c], cell_start[c + 1]):
            sx, sy, n = neighbour_sum_one(k, cx, cy, m, xs, ys, exs, eys, cell_start, box,
                                          radius_sq)
            u = counter_uniform(key, counter_base + np.uint64(ids[k]))
            ex_new[k], ey_new[k] = _noisy_heading(sx, sy, n, exs[k], eys[k], u, eta,
                                                  vectorial)


@njit(cache=True, parallel=True)
def _knn_headings(xs, ys, exs, eys, ids, cell_start, m, box, neighbours, key, step, eta,
                  vectorial, ex_new, ey_new):  # pragma: no cover
    """New headings with the particle itself and its ``neighbours`` nearest others
    (:func:`flocklab.geometry.topological.knn_one`), summed nearest first."""
    counter_base = np.uint64(step) * np.uint64(xs.shape[0])
    for cy in prange(m):
        best_d2 = np.empty(neighbours)
        best_id = np.empty(neighbours, np.int64)
        best_slot = np.empty(neighbours, np.int64)
        for cx in range(m):
            c = cy * m + cx
            for k in range(cell_start[c], cell_start[c + 1]):
                knn_one(k, cx, cy, m, xs, ys, ids, cell_start, box, neighbours, best_d2,
                        best_id, best_slot)
                sx = exs[k]
                sy = eys[k]
                for q in range(neighbours):
                    sx += exs[best_slot[q]]
                    sy += eys[best_slot[q]]
                u = counter_uniform(key, counter_base + np.uint64(ids[k]))
                ex_new[k], ey_new[k] = _noisy_heading(sx, sy, neighbours + 1, exs[k], eys[k],
                                                      u, eta, vectorial)


@njit(cache=True, parallel=True)
def _listed_headings(exs, eys, ids, ex, ey, slot_of, indptr, indices, key, step, eta,
                     vectorial, ex_new, ey_new):  # pragma: no cover
    """New headings with the particle itself and the neighbours listed by identity
    (``indices[indptr[i]:indptr[i+1]]`` for particle ``i``, in increasing identity, the
    summation order); ``ex, ey`` are the headings of the unsorted slots ``slot_of[i]``."""
    counter_base = np.uint64(step) * np.uint64(exs.shape[0])
    for k in prange(exs.shape[0]):
        i = ids[k]
        sx = exs[k]
        sy = eys[k]
        for position in range(indptr[i], indptr[i + 1]):
            j = slot_of[indices[position]]
            sx += ex[j]
            sy += ey[j]
        n = 1 + indptr[i + 1] - indptr[i]
        u = counter_uniform(key, counter_base + np.uint64(i))
        ex_new[k], ey_new[k] = _noisy_heading(sx, sy, n, exs[k], eys[k], u, eta, vectorial)


@njit(cache=True, parallel=True)
def _move(x, y, ex, ey, v0, box):  # pragma: no cover
    for i in prange(x.shape[0]):
        xi = x[i] + v0 * ex[i]
        yi = y[i] + v0 * ey[i]
        if xi >= box:
            xi -= box
        elif xi < 0.0:
            xi += box
            if xi >= box:  # -tiny + L rounds to L
                xi = 0.0
        if yi >= box:
            yi -= box
        elif yi < 0.0:
            yi += box
            if yi >= box:
                yi = 0.0
        x[i] = xi
        y[i] = yi


@njit(cache=True)
def _order_parameter(ex, ey):  # pragma: no cover
    sx = 0.0
    sy = 0.0
    for i in range(ex.shape[0]):
        sx += ex[i]
        sy += ey[i]
    return math.sqrt(sx * sx + sy * sy) / ex.shape[0]


@njit(cache=True)
def _record(frame, x, y, ex, ey, ident, snap_x, snap_y, snap_theta):  # pragma: no cover
    for k in range(x.shape[0]):
        i = ident[k]
        snap_x[frame, i] = x[k]
        snap_y[frame, i] = y[k]
        snap_theta[frame, i] = math.atan2(ey[k], ex[k])


@njit(cache=True)
def advance(state, ident, key, first_step, steps, box, radius, m, v0, eta, vectorial, forward,
            rule, neighbours, slot_of, indptr, indices, work_int, cell_start, cell_fill,
            work_float, order_parameter, record_of_step, frame_of_step, snap_x, snap_y,
            snap_theta):  # pragma: no cover
    """Advance the state in place by ``steps`` Vicsek steps.

    The state is kept in cell order (re-sorted every step; particles move little, so the
    sort is nearly the identity and memory access stays local) with ``ident`` naming the
    particle in each slot. Noise is looked up by identity, so results depend neither on
    the slot order nor on the number of threads.

    Parameters
    ----------
    state : ndarray, shape (4, N)
        Rows x, y, e_x, e_y (positions and unit headings), updated in place.
    ident : ndarray of int64, shape (N,)
        Particle index of each slot, updated in place.
    key : uint64
        Noise key: the noise of particle ``i`` on the way to step ``t`` is
        ``counter_uniform(key, t * N + i)`` (see :mod:`flocklab.core.random`).
    first_step : int
        Global index of the step the state is at.
    steps : int
        Number of steps to take.
    box, radius, m, v0, eta : float, float, int, float, float
        Box side, interaction radius, cells per side, speed, noise amplitude.
    vectorial, forward : bool
        Noise kind and position-update rule.
    rule : int
        Neighbour rule, index into :data:`RULES`: 0 metric (within ``radius``), 1 the
        ``neighbours`` nearest (``m`` then from
        :func:`~flocklab.geometry.topological.knn_cells_per_side`), 2 listed: the
        neighbours of particle ``i`` are ``indices[indptr[i]:indptr[i+1]]`` (identities)
        and ``slot_of[i]`` is its slot in the state arrays (one step per call: the list
        describes the current positions).
    neighbours : int
        ``k`` of the nearest-neighbour rule.
    slot_of, indptr, indices : ndarray of int64
        The listed rule's neighbours (shapes (N,), (N + 1,), (E,); ignored otherwise).
    work_int : ndarray of int64, shape (3, N)
        Work space (cell of each slot, cell order, sorted identities).
    cell_start, cell_fill : ndarray of int64, shapes (m*m + 1,), (m*m,)
        Work space of the cell list.
    work_float : ndarray, shape (6, N)
        Work space (sorted copies and new headings).
    order_parameter : ndarray, shape (R,)
        Output: :math:`v_a(t)` at record ``record_of_step[t]`` for the steps taken.
    record_of_step, frame_of_step : ndarray of int64, shape (total steps + 1,)
        Record / frame index to write at each global step, ``-1`` for none.
    snap_x, snap_y, snap_theta : ndarray, shape (F, N)
        Output snapshots, by particle identity.
    """
    ident_out = ident
    x, y, ex, ey = state[0], state[1], state[2], state[3]
    cell_of, order, ids = work_int[0], work_int[1], work_int[2]
    xs, ys, exs, eys = work_float[0], work_float[1], work_float[2], work_float[3]
    ex_new, ey_new = work_float[4], work_float[5]
    for s in range(steps):
        bin_particles(x, y, box, m, cell_of, cell_start, cell_fill, order)
        gather_sorted(order, x, y, ex, ey, ident, xs, ys, exs, eys, ids)
        t = first_step + s + 1
        if rule == 0:
            _new_headings(xs, ys, exs, eys, ids, cell_start, m, box, radius, key, t, eta,
                          vectorial, ex_new, ey_new)
        elif rule == 1:
            _knn_headings(xs, ys, exs, eys, ids, cell_start, m, box, neighbours, key, t, eta,
                          vectorial, ex_new, ey_new)
        else:
            _listed_headings(exs, eys, ids, ex, ey, slot_of, indptr, indices, key, t, eta,
                             vectorial, ex_new, ey_new)
        if forward:
            _move(xs, ys, ex_new, ey_new, v0, box)
        else:
            _move(xs, ys, exs, eys, v0, box)
        # The sorted, moved arrays become the state; the old state arrays become work space.
        x, xs = xs, x
        y, ys = ys, y
        ex, exs, ex_new = ex_new, ex, exs
        ey, eys, ey_new = ey_new, ey, eys
        ident, ids = ids, ident
        record = record_of_step[t]
        if record >= 0:
            order_parameter[record] = _order_parameter(ex, ey)
        frame = frame_of_step[t]
        if frame >= 0:
            _record(frame, x, y, ex, ey, ident, snap_x, snap_y, snap_theta)
    # Hand the final state back in the caller's arrays: x, y and ident cycle through two
    # buffers and the headings through three, so they are elsewhere unless K divides evenly.
    if steps % 2 == 1:
        state[0, :] = x
        state[1, :] = y
        ident_out[:] = ident
    if steps % 3 != 0:
        state[2, :] = ex
        state[3, :] = ey


#: Placeholder neighbour lists of the rules that do not use them.
_NO_LIST = np.zeros(1, dtype=np.int64)


def work_space(n: int, m: int) -> dict[str, np.ndarray]:
    """Scratch arrays of :func:`advance` for ``n`` particles on an ``m × m`` cell list."""
    return {"_work_int": np.empty((3, n), dtype=np.int64),
            "_cell_start": np.empty(m * m + 1, dtype=np.int64),
            "_cell_fill": np.empty(m * m, dtype=np.int64),
            "_work_float": np.empty((6, n))}


def advance_state(state: dict, params: Mapping[str, Any], first_step: int, steps: int,
                  record: Any) -> None:
    """``steps`` steps of :func:`advance` on the model's state dict, any neighbour rule.

    The metric and nearest-neighbour rules run the whole stretch in one compiled call. The
    Voronoi rule triangulates the current positions (taken in identity order, so the
    triangulation depends on the state alone) before each one-step call
    (:func:`flocklab.geometry.topological.periodic_delaunay_neighbours`); the margin that
    passed is kept in ``state["_margin"]`` as the next step's first try.

    Parameters
    ----------
    state : dict
        :meth:`flocklab.models.vicsek.Vicsek.initial_state`'s dict, updated in place.
    params : mapping
        Resolved parameters (``L, r, v0, eta, noise, update, neighbours, k``).
    first_step, steps : int
        Global index of the step the state is at; number of steps to take.
    record : RunRecord
        Its ``series["order_parameter"]``, ``record_of_step``, ``frame_of_step`` and
        ``frames`` receive the records.
    """
    rule = RULES.index(params["neighbours"])
    box = float(params["L"])
    frames = record.frames

    def call(first: int, count: int, slot_of: np.ndarray, indptr: np.ndarray,
             indices: np.ndarray) -> None:
        advance_kernel()(state["state"], state["ident"], state["_key"], first, count, box,
                         float(params["r"]), state["_cells"], float(params["v0"]),
                         float(params["eta"]), params["noise"] == "vectorial",
                         params["update"] == "forward", rule, int(params["k"]), slot_of,
                         indptr, indices, state["_work_int"], state["_cell_start"],
                         state["_cell_fill"], state["_work_float"],
                         record.series["order_parameter"], record.record_of_step,
                         record.frame_of_step, frames["x"], frames["y"], frames["theta"])

    if rule != RULES.index("voronoi"):
        call(first_step, steps, _NO_LIST, _NO_LIST, _NO_LIST)
        return
    n = state["ident"].shape[0]
    for s in range(steps):
        slot_of = np.empty(n, dtype=np.int64)
        slot_of[state["ident"]] = np.arange(n)
        positions = state["state"][:2, slot_of]
        indptr, indices, state["_margin"] = periodic_delaunay_neighbours(
            positions[0], positions[1], box, state.get("_margin"))
        call(first_step + s, 1, slot_of, indptr, indices)


def vicsek_step(x: np.ndarray, y: np.ndarray, theta: np.ndarray, key: int, step: int,
                box: float, radius: float, v0: float, eta: float, noise: str = "angular",
                update: str = "forward", neighbours: str = "metric", k: int = 7
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of the production kernel on copies of the state: new ``(x, y, theta)``.

    Parameters
    ----------
    x, y, theta : ndarray, shape (N,)
        Positions in ``[0, L)`` and headings (rad), by particle.
    key, step : int
        Noise key and the index of the step being taken (its noise is
        ``flocklab.core.random.step_uniforms(key, step, N)``).
    box, radius, v0, eta : float
        ``L``, ``r``, ``v0``, ``eta``.
    noise, update, neighbours : str
        ``"angular"|"vectorial"``, ``"forward"|"backward"``, ``"metric"|"knn"|"voronoi"``.
    k : int
        Neighbours of the ``knn`` rule.
    """
    from types import SimpleNamespace

    n = x.shape[0]
    m = cells_for(neighbours, n, box, radius, k)
    state = {"state": np.array([x, y, np.cos(theta), np.sin(theta)], dtype=np.float64),
             "ident": np.arange(n, dtype=np.int64), "_key": np.uint64(key), "_cells": m,
             **work_space(n, m)}
    frame_of_step = np.full(step + 1, -1, dtype=np.int64)
    frame_of_step[step] = 0
    record = SimpleNamespace(series={"order_parameter": np.empty(1)},
                             record_of_step=np.full(step + 1, -1, dtype=np.int64),
                             frame_of_step=frame_of_step,
                             frames={name: np.empty((1, n)) for name in ("x", "y", "theta")})
    params = {"L": box, "r": radius, "v0": v0, "eta": eta, "noise": noise, "update": update,
              "neighbours": neighbours, "k": k}
    advance_state(state, params, step - 1, 1, record)
    return record.frames["x"][0], record.frames["y"][0], record.frames["theta"][0]


def cells_for(neighbours: str, n: int, box: float, radius: float, k: int) -> int:
    """Cells per side of a rule's cell list: side >= ``r`` (metric), from the density
    (``knn``: :func:`~flocklab.geometry.topological.knn_cells_per_side`), one (Voronoi)."""
    if neighbours == "metric":
        return cells_per_side(box, radius)
    if neighbours == "knn":
        return knn_cells_per_side(n, k)
    return 1


# --------------------------------------------------------------------------- reference


def reference_step(x: np.ndarray, y: np.ndarray, theta: np.ndarray, uniforms: np.ndarray,
                   box: float, radius: float, v0: float, eta: float,
                   noise: str = "angular", update: str = "forward"
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Vicsek step written directly from the equations, O(N²), for tests.

    Uses the full minimum-image distance matrix and ``atan2``; ``uniforms`` are
    the step's U[0, 1) numbers by particle (:func:`flocklab.core.random.step_uniforms`).
    Returns new ``(x, y, theta)`` with positions wrapped into ``[0, L)``.
    """
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    dx -= box * np.round(dx / box)
    dy -= box * np.round(dy / box)
    within = dx * dx + dy * dy <= radius * radius
    sum_x = within @ np.cos(theta)
    sum_y = within @ np.sin(theta)
    count = within.sum(axis=1)
    if noise == "angular":
        new_theta = np.arctan2(sum_y, sum_x) + eta * (uniforms - 0.5)
    else:
        xi = np.pi * (2.0 * uniforms - 1.0)
        new_theta = np.arctan2(sum_y + eta * count * np.sin(xi), sum_x + eta * count * np.cos(xi))
    moving = new_theta if update == "forward" else theta
    new_x = np.mod(x + v0 * np.cos(moving), box)
    new_y = np.mod(y + v0 * np.sin(moving), box)
    return new_x, new_y, np.angle(np.exp(1j * new_theta))




# Serial twins for single-threaded runs (flocklab.core.variants): same results, no
# parallel start-up cost.
_new_headings_serial = serial_variant(_new_headings)
_knn_headings_serial = serial_variant(_knn_headings)
_listed_headings_serial = serial_variant(_listed_headings)
_move_serial = serial_variant(_move)
advance_serial = serial_variant(advance, {"_new_headings": _new_headings_serial,
                                          "_knn_headings": _knn_headings_serial,
                                          "_listed_headings": _listed_headings_serial,
                                          "_move": _move_serial,
                                          "bin_particles": bin_particles_serial,
                                          "gather_sorted": gather_sorted_serial})


def advance_kernel() -> object:
    """:func:`advance`, or its serial twin when numba runs one thread."""
    import numba

    return advance_serial if numba.get_num_threads() == 1 else advance
