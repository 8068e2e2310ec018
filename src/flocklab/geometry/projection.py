r"""Nearest point of a head position on a path, with the frame there, at scalar cost.

The ``tangent`` guidance law needs, at every right-hand-side and Jacobian call, the head's
projection :math:`s^* = \arg\min_s |P(s) - p|` on the path, the unit tangent
:math:`T(s^*)` and the signed curvature :math:`\kappa(s^*)`. ``flocklab.geometry.paths`` computes
the projection vectorised over arrays of points; for one point its numpy overhead (a
spiral's projection is three candidate turns times eight Newton steps of small-array
operations, then two Newton inversions of the arc length for the frame and the curvature)
made a turnaround run spend tens of milliseconds per call.

:func:`nearest_frame` gives the same answer for one point: the same candidates, Newton
iteration and tie-breaking as :meth:`flocklab.geometry.paths.Spiral.project`,
:meth:`~flocklab.geometry.paths.Arc.project`, :meth:`~flocklab.geometry.paths.Line.project` and
:meth:`~flocklab.geometry.paths.Composite.project` (nearest segment, first one on a tie), but the
spiral's Newton loop is compiled and the frame is evaluated at the polar angle found,
without going through the arc length and back. Results agree with ``paths`` to rounding
(tested at random points on every path kind).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from flocklab.geometry import paths

TWO_PI = 2.0 * math.pi
#: (distance, point (2,), unit tangent (2,), signed curvature, at start, at end)
Frame = tuple[float, np.ndarray, np.ndarray, float, bool, bool]


@njit(cache=True)
def spiral_nearest(qx: float, qy: float, b: float, lo: float, hi: float
                   ) -> tuple[float, float]:
    r"""Polar angle :math:`\theta \in [lo, hi]` of the point of :math:`r = b\theta` nearest
    to :math:`q` (m), and the distance (m).

    Candidates: the turns :math:`k_0 - 1, k_0, k_0 + 1` around :math:`q`'s polar angle
    (:math:`k_0 = \mathrm{round}((|q|/b - \varphi)/2\pi)`), each refined by eight Newton
    steps on :math:`g = (P - q)\cdot P'` (step clipped to 0.5 rad), and the two end points;
    the first nearest wins. The algorithm of :meth:`flocklab.geometry.paths.Spiral.project`.
    """
    phi = math.atan2(qy, qx)
    k0 = np.rint((math.hypot(qx, qy) / b - phi) / TWO_PI)
    best_theta, best_dist = lo, np.inf
    for dk in (-1.0, 0.0, 1.0):
        theta = min(max(phi + TWO_PI * (k0 + dk), lo), hi)
        for _ in range(8):
            c, s = math.cos(theta), math.sin(theta)
            dx, dy = b * theta * c - qx, b * theta * s - qy
            px, py = b * (c - theta * s), b * (s + theta * c)
            ppx, ppy = b * (-2.0 * s - theta * c), b * (2.0 * c - theta * s)
            g = dx * px + dy * py
            dg = px * px + py * py + dx * ppx + dy * ppy
            step = g / dg if dg > 0 else 0.0
            theta -= min(max(step, -0.5), 0.5)
        theta = min(max(theta, lo), hi)
        dist = math.hypot(b * theta * math.cos(theta) - qx, b * theta * math.sin(theta) - qy)
        if dist < best_dist:
            best_theta, best_dist = theta, dist
    for end in (lo, hi):
        dist = math.hypot(b * end * math.cos(end) - qx, b * end * math.sin(end) - qy)
        if dist < best_dist:
            best_theta, best_dist = end, dist
    return best_theta, best_dist


def _spiral_frame(seg: paths.Spiral, x: float, y: float) -> Frame:
    sign = -1.0 if seg.outward else 1.0  # point = sign * b * theta * (cos, sin)
    lo, hi = sorted((seg.theta_start, seg.theta_end))
    theta, dist = spiral_nearest(sign * x, sign * y, seg.b, lo, hi)
    c, s = math.cos(theta), math.sin(theta)
    r = sign * seg.b * theta
    norm = math.sqrt(1.0 + theta * theta)
    tangent = np.array([-(c - theta * s) / norm, -(s + theta * c) / norm])
    kappa = -sign * (2.0 + theta * theta) / (seg.b * norm ** 3)  # paths.Spiral.curvature
    return (dist, np.array([r * c, r * s]), tangent, kappa,
            theta == seg.theta_start, theta == seg.theta_end)


def _arc_frame(seg: paths.Arc, x: float, y: float) -> Frame:
    sign = 1.0 if seg.sweep >= 0 else -1.0
    phi = math.atan2(y - seg.center[1], x - seg.center[0])
    along = (sign * (phi - seg.angle_start)) % TWO_PI * seg.radius
    total = seg.length
    if along > total:  # beyond the end: the nearer end point
        to_end = (sign * (phi - seg.angle_start - sign * total) + math.pi) % TWO_PI - math.pi
        to_start = (sign * (phi - seg.angle_start) + math.pi) % TWO_PI - math.pi
        along = 0.0 if abs(to_start) < abs(to_end) else total
    angle = seg.angle_start + sign * along / seg.radius
    c, s = math.cos(angle), math.sin(angle)
    point = np.array([seg.center[0] + seg.radius * c, seg.center[1] + seg.radius * s])
    return (math.hypot(point[0] - x, point[1] - y), point, np.array([-sign * s, sign * c]),
            sign / seg.radius, along == 0.0, along == total)


def _line_frame(seg: paths.Line, x: float, y: float) -> Frame:
    (ax, ay), (ex, ey) = seg.start_point, seg.direction
    along = min(max((x - ax) * ex + (y - ay) * ey, 0.0), seg.segment_length)
    point = np.array([ax + along * ex, ay + along * ey])
    return (math.hypot(point[0] - x, point[1] - y), point, np.array([ex, ey]), 0.0,
            along == 0.0, along == seg.segment_length)


def _segment_frame(seg: paths.Path, x: float, y: float) -> Frame:
    if isinstance(seg, paths.Spiral):
        return _spiral_frame(seg, x, y)
    if isinstance(seg, paths.Arc):
        return _arc_frame(seg, x, y)
    if isinstance(seg, paths.Line):
        return _line_frame(seg, x, y)
    raise TypeError(f"no scalar projection for path segment {type(seg).__name__}")


def nearest_frame(path: paths.Path, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """Nearest point of ``path`` to ``p`` (2,), the unit tangent and signed curvature
    there, and whether the projection is clamped at an end of an open path.

    ``path`` is a :class:`~flocklab.geometry.paths.Spiral`, :class:`~flocklab.geometry.paths.Arc` or
    :class:`~flocklab.geometry.paths.Line` segment, a :class:`~flocklab.geometry.paths.Composite` of them,
    or a :class:`~flocklab.geometry.paths.Periodic` of either (never clamped).
    """
    x, y = float(p[0]), float(p[1])
    periodic = isinstance(path, paths.Periodic)
    inner = path.path if periodic else path
    segments = inner.segments if isinstance(inner, paths.Composite) else (inner,)
    best = _segment_frame(segments[0], x, y)
    index = 0
    for k in range(1, len(segments)):
        frame = _segment_frame(segments[k], x, y)
        if frame[0] < best[0]:
            best, index = frame, k
    clamped = (not periodic) and ((index == 0 and best[4])
                                  or (index == len(segments) - 1 and best[5]))
    return best[1], best[2], best[3], clamped
