r"""The Vicsek model of self-propelled particles.

N point particles move at constant speed :math:`v_0` in an :math:`L \times L`
periodic box and, every unit time step, take the mean heading of all particles
within distance :math:`r` (minimum image, the particle itself included), up to
noise. With :math:`S_i = \sum_{|r_j - r_i| \le r} e^{i\theta_j(t)}` and
:math:`n_i` the number of terms:

* ``noise="angular"`` (Vicsek et al. 1995):
  :math:`\theta_i(t+1) = \arg S_i + \Delta\theta_i`, :math:`\Delta\theta_i \sim U[-\eta/2, \eta/2]`,
  :math:`\eta \in [0, 2\pi]`;
* ``noise="vectorial"`` (Grégoire & Chaté 2004):
  :math:`\theta_i(t+1) = \arg[S_i + \eta\, n_i\, e^{i\xi_i}]`, :math:`\xi_i \sim U[-\pi, \pi]`,
  :math:`\eta \in [0, 1]`.

Positions: ``update="forward"`` :math:`x_i(t+1) = x_i(t) + v_0 e(\theta_i(t+1))` (the paper's
rule); ``update="backward"`` uses :math:`e(\theta_i(t))`.

The order parameter is :math:`v_a(t) = |\sum_i e(\theta_i(t))| / N`.

The kernel stores headings as unit vectors and applies the angular noise as a
rotation of the normalised neighbour sum, so a step costs one sin/cos pair per
particle and no atan2. The state is kept sorted by cell (counting sort every
step), so memory access stays local, and the pair loop over the 3 × 3 stencil is
branch-free. Initial positions and headings come from the run's NumPy
``Generator``; the noise of particle ``i`` at step ``t`` is a counter-based
random number of (key, t, i) (:mod:`flocklab.random`), and each neighbour sum
runs in a fixed cell order, so results do not depend on the number of threads,
on chunking, or on checkpoints. Where :math:`S_i = 0` exactly (measure zero) the
particle keeps its heading before noise.

References
----------
T. Vicsek, A. Czirók, E. Ben-Jacob, I. Cohen, O. Shochet, "Novel type of phase
transition in a system of self-driven particles", Phys. Rev. Lett. 75, 1226 (1995).
G. Grégoire, H. Chaté, "Onset of collective and cohesive motion",
Phys. Rev. Lett. 92, 025702 (2004).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numba import njit, prange

from flocklab.models.base import (
    CriticalControl,
    Model,
    Observable,
    Resources,
    SnapshotVariable,
    TimeGrid,
)
from flocklab.neighbours import bin_particles, cells_per_side, gather_sorted, neighbour_sum_one
from flocklab.parameters import ParameterError, ParameterSpec
from flocklab.random import counter_uniform, noise_key

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.record import RunRecord

TWO_PI = 2.0 * math.pi
NOISE_KINDS = ("angular", "vectorial")
UPDATE_RULES = ("forward", "backward")
INITIAL_CONDITIONS = ("random", "aligned")


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
        ``counter_uniform(key, t * N + i)`` (see :mod:`flocklab.random`).
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
        ``flocklab.random.step_uniforms(key, step, N)``).
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
    the step's U[0, 1) numbers by particle (:func:`flocklab.random.step_uniforms`).
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


# --------------------------------------------------------------------------- model


class Vicsek(Model):
    """Vicsek model (see module docstring for the equations)."""

    name = "vicsek"
    description = "Vicsek model of self-propelled particles with local alignment and noise"
    reference = "T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995)"
    title = "Vicsek model simulation"
    observables = (Observable("order_parameter", "polar order parameter v_a = |sum_i "
                              "e(theta_i)| / N", "1", 0.0, 1.0, "v_a"),)
    primary_observable = "order_parameter"
    size_parameter = "N"
    critical_controls = (
        CriticalControl("eta", "eta", "below", "beta", r"\eta", needs=("eta",)),
        CriticalControl("rho", "density", "above", "delta", r"\rho", needs=("N", "L")),
    )
    entity_dim = "particle"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("particle x position", "length"),
        "y": SnapshotVariable("particle y position", "length"),
        "theta": SnapshotVariable("heading angle", "rad"),
    }
    parameters = (
        ParameterSpec("N", "int", 300, "number of particles", "1", low=1),
        ParameterSpec("L", "float", 7.0, "side of the periodic square box", "length",
                      low=0.0, low_inclusive=False),
        ParameterSpec("v0", "float", 0.03, "speed (distance moved per time step)",
                      "length/step", low=0.0),
        ParameterSpec("r", "float", 1.0, "interaction radius", "length", low=0.0,
                      low_inclusive=False),
        ParameterSpec("eta", "float", 2.0,
                      "noise amplitude: angular in [0, 2pi] (rad), vectorial in [0, 1]",
                      "rad (angular) or 1 (vectorial)", low=0.0, high=TWO_PI),
        ParameterSpec("noise", "choice", "angular", "noise kind", choices=NOISE_KINDS),
        ParameterSpec("update", "choice", "forward",
                      "position update with the new heading (forward: Gregoire & Chate 2004) "
                      "or the old one (backward: Vicsek et al. 1995, eq. 1)",
                      choices=UPDATE_RULES),
        ParameterSpec("init", "choice", "random",
                      "initial headings: uniform in [-pi, pi) or all along +x",
                      choices=INITIAL_CONDITIONS),
    )

    def check(self, params: dict[str, Any]) -> None:
        if params["noise"] == "vectorial":
            self.spec("eta").check_range(params["eta"], 0.0, 1.0, " for noise 'vectorial'")
        if not params["v0"] < params["L"]:
            raise ParameterError("v0", f"parameter 'v0' = {params['v0']!r} is out of range: "
                                       f"allowed is a number >= 0 and < L = {params['L']!r}")

    def derived(self, params: Mapping[str, Any]) -> dict[str, tuple[float, dict[str, str]]]:
        return {"density": (params["N"] / params["L"] ** 2,
                            {"long_name": "particle density N/L^2", "units": "length^-2"})}

    #: A sensitivity study varies the density through N = round(density L^2) at fixed L.
    factor_targets: ClassVar[dict[str, str]] = {"density": "N"}

    def set_derived_factor(self, params: dict[str, Any], name: str, value: float) -> None:
        params["N"] = max(1, round(value * params["L"] ** 2))

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Uniform positions, random or aligned headings, the noise key and work space.

        State arrays: ``state`` (4, N) rows x, y, e_x, e_y in cell order and ``ident``
        (N,) the particle in each slot; ``_work_*`` arrays are scratch space.
        """
        x, y, theta = self.initial_positions(params, rng)
        n = params["N"]
        m = cells_per_side(params["L"], params["r"])
        return {
            "state": np.array([x, y, np.cos(theta), np.sin(theta)]),
            "ident": np.arange(n, dtype=np.int64),
            "_key": noise_key(rng),
            "_cells": m,
            "_work_int": np.empty((3, n), dtype=np.int64),
            "_cell_start": np.empty(m * m + 1, dtype=np.int64),
            "_cell_fill": np.empty(m * m, dtype=np.int64),
            "_work_float": np.empty((6, n)),
        }

    def initial_positions(self, params: Mapping[str, Any], rng: np.random.Generator
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Uniform positions and (random or aligned) headings: ``(x, y, theta)``, shape (N,)."""
        n, box = params["N"], params["L"]
        x = rng.random(n) * box
        y = rng.random(n) * box
        if params["init"] == "random":
            theta = rng.uniform(-math.pi, math.pi, n)
        else:
            theta = np.zeros(n)
        return x, y, theta

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """``k`` steps of the compiled kernel, recording v_a and frames inside it."""
        frames = record.frames
        advance(state["state"], state["ident"], state["_key"], first_step, k,
                float(params["L"]), float(params["r"]), state["_cells"], float(params["v0"]),
                float(params["eta"]), params["noise"] == "vectorial",
                params["update"] == "forward", state["_work_int"], state["_cell_start"],
                state["_cell_fill"], state["_work_float"], record.series["order_parameter"],
                record.record_of_step, record.frame_of_step, frames["x"], frames["y"],
                frames["theta"])

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        return {"order_parameter": _order_parameter(state["state"][2], state["state"][3])}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        n = params["N"]
        out = [np.empty((1, n)) for _ in range(3)]
        s = state["state"]
        _record(0, s[0], s[1], s[2], s[3], state["ident"], *out)
        return {"x": out[0][0], "y": out[1][0], "theta": out[2][0]}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """13 words per particle of state and work space, the v_a series and 3 words per
        particle and frame, twice over for the copy made when the file is written."""
        n = params["N"]
        words = 13 * n + len(grid.record_steps) + 3 * n * len(grid.frame_steps)
        return Resources(2 * 8 * words, n * grid.steps / 1.0e6)

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0,
             label: str = "") -> None:
        """Arrows for headings and trails of up to ``trail`` preceding consecutive frames, in
        the periodic box (Vicsek et al. 1995, Fig. 1)."""
        from flocklab.plotting import draw_periodic_arrows

        draw_periodic_arrows(ax, run, frame, float(run.attrs["L"]), trail=trail)
        title = f"{label} L = {run.attrs['L']:g}, η = {run.attrs['eta']:g}, " \
                f"t = {run['frame'].values[frame]:g}"
        ax.set_title(title.strip(), fontsize=9)
