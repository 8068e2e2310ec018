r"""The five questions of the 2024 CUMCM problem A ("板凳龙" 闹元宵) as pure functions.

Units: metres, seconds, m/s. Time ``t`` maps to the head arc length ``s = s_0 + v t``.

* Q1 :func:`q1_spiral`: handles on the in-spiral of pitch 0.55 m, head at 1 m/s from point A
  on the 16th turn (:math:`\theta_0 = 32\pi`, A = (8.8, 0)), t = 0..300 s.
* Q2 :func:`q2_collision`: first contact of two boards as the head spirals in.
* Q3 :func:`q3_min_pitch`: smallest pitch for which the head reaches the turnaround circle
  (diameter 9 m) with no contact at any head position on the way.
* Q4 :func:`q4_turnaround`: pitch 1.7 m, S-curve of two tangent arcs (radius ratio 2:1)
  from the in-spiral to the mirrored out-spiral, t = -100..100 s with t = 0 on entry.
* Q5 :func:`q5_max_speed`: largest constant head speed on the Q4 path keeping every handle
  at or below 2 m/s, over continuous time and all handles.

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from flocklab.core.parameters import ParameterError
from flocklab.geometry.chain import (
    ChainState,
    chain_state,
    path_frames,
    solve_chain,
    speed_ratios,
)
from flocklab.geometry.paths import TWO_PI, Spiral, Turnaround
from flocklab.models.dragon_chain.collision import first_contact, touching_pairs
from flocklab.models.dragon_chain.geometry import (
    BenchGeometry,
    in_spiral,
    innermost_head_arc_length,
    positive,
    turnaround,
)

FloatArray = NDArray[np.float64]


def _times(t_start: float, t_end: float, t_step: float) -> FloatArray:
    positive("t_step", t_step, "s")
    if not t_end >= t_start:
        raise ParameterError("t_end", f"parameter 't_end' = {t_end!r} must be >= t_start")
    n = math.floor((t_end - t_start) / t_step + 1e-9) + 1
    return t_start + t_step * np.arange(n)


# --------------------------------------------------------------------------- Q1


@dataclass(frozen=True)
class Trajectory:
    """Handle states at a sequence of times: ``state`` arrays have shape (T, H, ...)."""

    times: FloatArray
    state: ChainState
    info: dict = field(default_factory=dict)


def q1_spiral(pitch: float = 0.55, start_turn: float = 16.0, head_speed: float = 1.0,
              t_start: float = 0.0, t_end: float = 300.0, t_step: float = 1.0,
              geometry: BenchGeometry | None = None) -> Trajectory:
    """Q1: positions and speeds of all handles on the in-spiral at ``t_start..t_end``.

    Raises ParameterError (key ``t_end``) if the head would reach the spiral's centre, where
    the head bench no longer fits half a turn.
    """
    geometry = geometry or BenchGeometry()
    spiral = in_spiral(pitch, start_turn)
    positive("head_speed", head_speed, "m s-1")
    times = _times(t_start, t_end, t_step)
    s_head = head_speed * times
    limit = innermost_head_arc_length(spiral, geometry)
    if s_head.max() > limit:
        raise ParameterError("t_end", f"parameter 't_end' = {t_end!r}: the head reaches the "
                             f"spiral's centre after {limit / head_speed:.3f} s")
    state = chain_state(spiral, s_head, geometry.spacings, head_speed)
    return Trajectory(times, state, {"pitch": pitch, "start_turn": start_turn})


# --------------------------------------------------------------------------- Q2


def q2_collision(pitch: float = 0.55, start_turn: float = 16.0, head_speed: float = 1.0,
                 step: float = 0.1, geometry: BenchGeometry | None = None) -> dict:
    """Q2: first time two boards touch as the head spirals in from point A.

    Returns a dict with ``time`` (s), ``head_radius`` (m), ``touching`` (pairs of bench
    indices with their separation, all pairs checked at that instant), ``state``
    (:class:`ChainState` with one instant) and the scan statistics.
    """
    geometry = geometry or BenchGeometry()
    spiral = in_spiral(pitch, start_turn)
    positive("head_speed", head_speed, "m s-1")
    search = first_contact(spiral, 0.0, innermost_head_arc_length(spiral, geometry), geometry, step)
    if search.s_contact is None:
        return {"time": None, "min_separation": search.min_separation}
    if search.s_contact < 0:
        raise ParameterError("pitch", f"parameter 'pitch' = {pitch!r}: boards overlap at start")
    state = chain_state(spiral, np.array([search.s_contact]), geometry.spacings, head_speed)
    return {
        "time": search.s_contact / head_speed,
        "head_arc_length": search.s_contact,
        "head_radius": float(np.hypot(*state.xy[0, 0])),
        "touching": touching_pairs(state.xy[0], geometry),
        "state": state,
        "evaluations": search.evaluations,
    }


# --------------------------------------------------------------------------- Q3


def contact_radius(pitch: float, r_start: float = 8.8, r_end: float = 0.0, step: float = 0.1,
                   geometry: BenchGeometry | None = None) -> float | None:
    """Head radius (m) at the first contact while spiralling in from ``r_start`` to ``r_end``.

    ``None`` if there is no contact down to ``r_end`` (or to where the solver stops, near the
    centre). This is the staircase function of pitch behind Q3.
    """
    geometry = geometry or BenchGeometry()
    positive("pitch", pitch, "m")
    positive("r_start", r_start, "m")
    spiral = Spiral(pitch, r_start * TWO_PI / pitch, 0.0)
    s_end = min(float(spiral.arc_length_at(r_end * TWO_PI / pitch)),
                innermost_head_arc_length(spiral, geometry))
    search = first_contact(spiral, 0.0, s_end, geometry, step)
    if search.s_contact is None:
        return None
    return float(spiral.b * spiral.theta(search.s_contact))


def contact_radius_curve(pitches: ArrayLike, r_start: float = 8.8, r_end: float = 0.0,
                         step: float = 0.1, geometry: BenchGeometry | None = None) -> FloatArray:
    """:func:`contact_radius` for each pitch (NaN where there is no contact): the staircase."""
    return np.array([np.nan if (r := contact_radius(float(p), r_start, r_end, step, geometry))
                     is None else r for p in np.atleast_1d(pitches)])


def q3_min_pitch(turn_diameter: float = 9.0, r_start: float = 8.8, p_low: float = 0.40,
                 p_high: float = 0.56, grid_step: float = 0.02, tol: float = 1e-8,
                 step: float = 0.1, geometry: BenchGeometry | None = None) -> dict:
    r"""Q3: smallest pitch whose head reaches radius ``turn_diameter / 2`` with no contact.

    Reading: "no collision anywhere on the way" — every head position from ``r_start`` down
    to the circle is checked (:func:`contact_radius` with ``r_end`` = the circle). Because
    contact depends on how the handles fall on the turns, ``free(p)`` need not be monotone;
    so pitches are first scanned on a grid, the answer is bracketed between the last
    colliding grid pitch and the first grid pitch above which all grid pitches are free,
    bisected to ``tol``, and the neighbourhood above the answer is re-checked on a fine grid.
    """
    geometry = geometry or BenchGeometry()
    radius = 0.5 * positive("turn_diameter", turn_diameter, "m")

    def free(p: float) -> bool:
        return contact_radius(p, r_start, radius, step, geometry) is None

    grid = np.round(np.arange(p_low, p_high + 0.5 * grid_step, grid_step), 12)
    flags = np.array([free(p) for p in grid])
    if not flags[-1]:
        raise ParameterError("p_high", f"parameter 'p_high' = {p_high}: still collides")
    last_bad = np.nonzero(~flags)[0]
    if last_bad.size == 0:
        raise ParameterError("p_low", f"parameter 'p_low' = {p_low}: already free")
    lo, hi = float(grid[last_bad[-1]]), float(grid[last_bad[-1] + 1])
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if free(mid) else (mid, hi)
    check = np.linspace(hi, hi + grid_step, 6)
    check_flags = [free(p) for p in check]
    return {"min_pitch": hi, "bracket": (lo, hi), "grid": grid, "grid_free": flags,
            "neighbourhood": check, "neighbourhood_free": np.array(check_flags),
            "contact_radius_below": contact_radius(lo, r_start, 0.0, step, geometry)}


# --------------------------------------------------------------------------- Q4


def s_curve_geometry(path: Turnaround) -> dict:
    """Radii, centres, sweeps, junction points and lengths of the S-curve (JSON-ready)."""
    arc1, arc2 = path.arcs
    points = [path.path.position(s).tolist() for s in
              (path.s_enter, path.s_enter + arc1.length, path.s_exit)]
    return {
        "radii": [arc1.radius, arc2.radius],
        "centres": [list(arc1.center), list(arc2.center)],
        "sweeps_rad": [arc1.sweep, arc2.sweep],
        "arc_lengths": [arc1.length, arc2.length],
        "s_curve_length": path.s_curve_length,
        "entry_point": points[0], "junction_point": points[1], "exit_point": points[2],
    }


def s_curve_length_vs_ratio(pitch: float = 1.7, turn_diameter: float = 9.0,
                            ratios: ArrayLike = (0.25, 0.5, 1, 2, 3, 5, 10)) -> FloatArray:
    r"""S-curve length for each radius ratio, all tangencies kept (entry and exit fixed).

    With equal end tangents :math:`R_1 + R_2 = |D|^2/(2|D\cdot N|)` and both arcs turn the
    same angle :math:`\alpha` (the direction of :math:`C_1C_2` depends on :math:`R_1+R_2`
    only), so the length :math:`(R_1+R_2)\alpha` does not depend on the ratio.
    """
    return np.array([turnaround(pitch, turn_diameter, float(k)).s_curve_length for k in ratios])


def q4_turnaround(pitch: float = 1.7, turn_diameter: float = 9.0, ratio: float = 2.0,
                  head_speed: float = 1.0, t_start: float = -100.0, t_end: float = 100.0,
                  t_step: float = 1.0, geometry: BenchGeometry | None = None) -> Trajectory:
    """Q4: all handles on the turnaround path; ``t = 0`` when the head enters the S-curve."""
    geometry = geometry or BenchGeometry()
    path = turnaround(pitch, turn_diameter, ratio, geometry)
    positive("head_speed", head_speed, "m s-1")
    times = _times(t_start, t_end, t_step)
    state = chain_state(path.path, path.s_enter + head_speed * times, geometry.spacings,
                        head_speed)
    info = {"pitch": pitch, "turn_diameter": turn_diameter, "ratio": ratio,
            "s_curve": s_curve_geometry(path)}
    return Trajectory(times, state, info)


# --------------------------------------------------------------------------- Q5


def _max_ratio(path: Turnaround, s_head: FloatArray, geometry: BenchGeometry):
    s = solve_chain(path.path, s_head, geometry.spacings)
    xy, tangent = path_frames(path.path, s)
    ratios = speed_ratios(xy, tangent)
    return ratios.max(axis=-1), ratios.argmax(axis=-1)


def peak_ratio_curve(pitch: float = 1.7, turn_diameter: float = 9.0, ratio: float = 2.0,
                     times: ArrayLike = (), geometry: BenchGeometry | None = None
                     ) -> tuple[FloatArray, NDArray[np.intp]]:
    """Largest handle speed over head speed, and the first handle attaining it, at ``times``
    (s of 1 m/s travel; 0 = head enters the S-curve) on the Q4 path (the Q5 figure)."""
    geometry = geometry or BenchGeometry()
    path = turnaround(pitch, turn_diameter, ratio, geometry)
    return _max_ratio(path, path.s_enter + np.asarray(times, dtype=float), geometry)


def _zoom(path: Turnaround, centre: float, width: float, geometry: BenchGeometry,
          xtol: float) -> tuple[float, float, int]:
    """Local maximum of the peak ratio near ``centre``: 33-point grids shrinking by 16."""
    lo, hi = centre - width, centre + width
    while True:
        s = np.linspace(lo, hi, 33)
        value, handle = _max_ratio(path, s, geometry)
        k = int(np.argmax(value))
        if hi - lo < xtol:
            return float(s[k]), float(value[k]), int(handle[k])
        h = s[1] - s[0]
        lo, hi = s[k] - h, s[k] + h


def q5_max_speed(pitch: float = 1.7, turn_diameter: float = 9.0, ratio: float = 2.0,
                 limit: float = 2.0, t_start: float = -200.0, t_end: float | None = None,
                 step: float = 0.1, n_peaks: int = 8, xtol: float = 1e-9,
                 geometry: BenchGeometry | None = None) -> dict:
    r"""Q5: the largest constant head speed with every handle at or below ``limit``.

    Speeds scale with the head speed (the positions depend on the head's arc length only), so
    :math:`v_{\max} = \text{limit} / \max_{s,i} v_i/v_0`. The peak ratio is scanned over
    head positions from ``t_start`` to ``t_end`` seconds of 1 m/s travel after the entry
    (default: until the tail has left the S-curve plus 100 m) on a grid of ``step`` m, over
    all handles; the ``n_peaks`` best local maxima are refined to ``xtol`` m.
    ``binding_handles`` lists every handle within 1e-9 (relative) of the peak ratio (handles
    sharing one arc move at the same speed) and ``binding_segments`` their path segments
    (0 in-spiral, 1 first arc, 2 second arc, 3 out-spiral).
    """
    geometry = geometry or BenchGeometry()
    path = turnaround(pitch, turn_diameter, ratio, geometry)
    positive("limit", limit, "m s-1")
    if t_end is None:
        t_end = path.s_curve_length + geometry.length * 1.1 + 100.0
    s = path.s_enter + np.arange(t_start, t_end, step)
    value, _ = _max_ratio(path, s, geometry)
    interior = np.nonzero((value[1:-1] >= value[:-2]) & (value[1:-1] >= value[2:]))[0] + 1
    peaks = interior[np.argsort(value[interior])[::-1][:n_peaks]]
    best = max((_zoom(path, float(s[k]), step, geometry, xtol) for k in peaks),
               key=lambda r: r[1])
    s_best, ratio_best, handle = best
    state = chain_state(path.path, np.array([s_best]), geometry.spacings)
    binding = np.nonzero(state.speed[0] >= ratio_best * (1 - 1e-9))[0]
    segments = path.path.segment_index(state.s[0, binding])
    return {"max_head_speed": limit / ratio_best, "max_ratio": ratio_best,
            "binding_handle": handle, "binding_handles": binding.tolist(),
            "binding_segments": segments.tolist(), "time": s_best - path.s_enter,
            "grid_max_ratio": float(value.max()), "scan": (float(s[0]), float(s[-1]), step)}
