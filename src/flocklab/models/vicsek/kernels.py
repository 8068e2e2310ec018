"""Numba kernels of the Vicsek model (pure functions on arrays; see :mod:`flocklab.models.vicsek`
for the equations and the model declaration)."""

from __future__ import annotations

import math

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

# --------------------------------------------------------------------------- kernels


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
            if vectorial:
                xi = math.pi * (2.0 * u - 1.0)
                sx += eta * n * math.cos(xi)
                sy += eta * n * math.sin(xi)
            norm = math.sqrt(sx * sx + sy * sy)
            if norm > 0.0:
                nx = sx / norm
                ny = sy / norm
            else:
                nx = exs[k]
                ny = eys[k]
            if vectorial:
                ex_new[k] = nx
                ey_new[k] = ny
            else:
                dtheta = eta * (u - 0.5)
                cos_d = math.cos(dtheta)
                sin_d = math.sin(dtheta)
                ex_new[k] = cos_d * nx - sin_d * ny
                ey_new[k] = sin_d * nx + cos_d * ny


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
            work_int, cell_start, cell_fill, work_float, order_parameter, record_of_step,
            frame_of_step, snap_x, snap_y, snap_theta):  # pragma: no cover
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
        _new_headings(xs, ys, exs, eys, ids, cell_start, m, box, radius, key, t, eta,
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


def vicsek_step(x: np.ndarray, y: np.ndarray, theta: np.ndarray, key: int, step: int,
                box: float, radius: float, v0: float, eta: float, noise: str = "angular",
                update: str = "forward") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    noise, update : str
        ``"angular"|"vectorial"``, ``"forward"|"backward"``.
    """
    n = x.shape[0]
    m = cells_per_side(box, radius)
    state = np.array([x, y, np.cos(theta), np.sin(theta)], dtype=np.float64)
    ident = np.arange(n, dtype=np.int64)
    order_parameter = np.empty(1)
    record_of_step = np.full(step + 1, -1, dtype=np.int64)
    frame_of_step = np.full(step + 1, -1, dtype=np.int64)
    frame_of_step[step] = 0
    snapshots = [np.empty((1, n)) for _ in range(3)]
    advance(state, ident, np.uint64(key), step - 1, 1, float(box),
            float(radius), m, float(v0), float(eta), noise == "vectorial", update == "forward",
            np.empty((3, n), dtype=np.int64), np.empty(m * m + 1, dtype=np.int64),
            np.empty(m * m, dtype=np.int64), np.empty((6, n)), order_parameter, record_of_step,
            frame_of_step, *snapshots)
    return snapshots[0][0], snapshots[1][0], snapshots[2][0]


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
_move_serial = serial_variant(_move)
advance_serial = serial_variant(advance, {"_new_headings": _new_headings_serial,
                                          "_move": _move_serial,
                                          "bin_particles": bin_particles_serial,
                                          "gather_sorted": gather_sorted_serial})


def advance_kernel() -> object:
    """:func:`advance`, or its serial twin when numba runs one thread."""
    import numba

    return advance_serial if numba.get_num_threads() == 1 else advance
