r"""Compiled (numba) operations on spiral/arc/line paths: evaluation, the chain, projection.

A path made of :class:`~flocklab.geometry.paths.Spiral`, :class:`~flocklab.geometry.paths.Arc`
and :class:`~flocklab.geometry.paths.Line` segments (alone or in a
:class:`~flocklab.geometry.paths.Composite`) is flattened into a segment table: ``offsets``
(K+1,), ``kinds`` (K,) and ``params`` (K, 6). The kernels reproduce the numpy methods of
:mod:`flocklab.geometry.paths` (same closed forms, same extrapolation beyond the ends) and
the bracketed, safeguarded Newton of :func:`flocklab.geometry.chain.follow`; the tests
compare them.

:func:`nearest_frame` projects one point on a path at scalar cost: the guidance laws of the
agent dragon need, at every right-hand-side and Jacobian call, the head's projection
:math:`s^* = \arg\min_s |P(s) - p|`, the unit tangent :math:`T(s^*)` and the signed
curvature :math:`\kappa(s^*)`. It takes the same candidates, Newton iteration and
tie-breaking as :meth:`flocklab.geometry.paths.Spiral.project` (and the arc, line and
composite methods: nearest segment, first one on a tie), but the spiral's Newton loop is
compiled and the frame is evaluated at the polar angle found, without going through the
arc length and back. Results agree with :mod:`~flocklab.geometry.paths` to rounding.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from flocklab.geometry import paths
from flocklab.geometry.chain import MAX_NEWTON, SCAN_MAX, SCAN_STEPS
from flocklab.geometry.paths import TWO_PI, Arc, Composite, Line, Path, Spiral, spiral_arc_length

FloatArray = NDArray[np.float64]
SPIRAL, ARC, LINE = 0, 1, 2


def segment_table(path: Path) -> tuple[FloatArray, NDArray[np.int64], FloatArray] | None:
    """Flatten ``path`` into (offsets, kinds, params), or ``None`` if it has other segments."""
    segments = path.segments if isinstance(path, Composite) else (path,)
    offsets = path.offsets if isinstance(path, Composite) else np.array([0.0, path.length])
    kinds = np.empty(len(segments), np.int64)
    params = np.zeros((len(segments), 6))
    for k, seg in enumerate(segments):
        if isinstance(seg, Spiral):
            sign = 1.0 if seg.outward else -1.0
            f0 = float(spiral_arc_length(seg.theta_start, seg.pitch))
            kinds[k], params[k, :4] = SPIRAL, (seg.b, sign, f0, seg.pitch)
        elif isinstance(seg, Arc):
            sign = 1.0 if seg.sweep >= 0 else -1.0
            kinds[k] = ARC
            params[k, :5] = (*seg.center, seg.radius, seg.angle_start, sign)
        elif isinstance(seg, Line):
            kinds[k], params[k, :4] = LINE, (*seg.start_point, *seg.direction)
        else:
            return None
    return np.asarray(offsets, float), kinds, params


@njit(cache=True)
def _spiral_theta(f: float, b: float) -> float:
    sign = 1.0 if f >= 0 else -1.0
    f = abs(f)
    theta = math.sqrt(2.0 * f / b)
    if theta > 2.0:  # F = (b/2)(theta^2 + ln(2 theta) + 1/2) + O(theta^-2): start closer
        theta = math.sqrt(max(2.0 * f / b - math.log(2.0 * theta) - 0.5, 1.0))
    for _ in range(MAX_NEWTON):
        value = 0.5 * b * (theta * math.sqrt(1.0 + theta * theta) + math.asinh(theta))
        step = (value - f) / (b * math.sqrt(1.0 + theta * theta))
        theta -= step
        if abs(step) <= 1e-15 * max(abs(theta), 1.0):
            break
    return sign * theta


@njit(cache=True)
def evaluate(s: float, offsets: FloatArray, kinds: NDArray[np.int64], params: FloatArray):
    """Position and unit tangent (x, y, tx, ty) at arc length ``s``."""
    k = np.searchsorted(offsets[1:-1], s, side="right")
    local = s - offsets[k]
    p = params[k]
    if kinds[k] == SPIRAL:
        b, sign, f0 = p[0], p[1], p[2]
        theta = _spiral_theta(f0 + sign * local, b)
        c, sn = math.cos(theta), math.sin(theta)
        r = -sign * b * theta
        norm = math.sqrt(1.0 + theta * theta)
        return r * c, r * sn, -(c - theta * sn) / norm, -(sn + theta * c) / norm
    if kinds[k] == ARC:
        phi = p[3] + p[4] * local / p[2]
        c, sn = math.cos(phi), math.sin(phi)
        return p[0] + p[2] * c, p[1] + p[2] * sn, -p[4] * sn, p[4] * c
    return p[0] + local * p[2], p[1] + local * p[3], p[2], p[3]


@njit(cache=True)
def _residual(s_lead, x0, y0, sigma, d, offsets, kinds, params):
    x, y, tx, ty = evaluate(s_lead - sigma, offsets, kinds, params)
    dx, dy = x - x0, y - y0
    dist = math.sqrt(dx * dx + dy * dy)
    slope = -(dx * tx + dy * ty) / dist if dist > 0 else 1.0
    return dist - d, slope


@njit(cache=True)
def follow_one(s_lead: float, d: float, offsets, kinds, params, tol: float) -> float:
    """Arc length of the nearest point behind ``s_lead`` at chord ``d`` (NaN if none in 4 d)."""
    x0, y0, _, _ = evaluate(s_lead, offsets, kinds, params)
    lo, hi = d, np.nan
    for k in range(1, int(SCAN_MAX * SCAN_STEPS) + 1):
        sigma = d * (1.0 + k / SCAN_STEPS)
        f, _ = _residual(s_lead, x0, y0, sigma, d, offsets, kinds, params)
        if f > 0:
            hi = sigma
            break
        lo = sigma
    if np.isnan(hi):
        return np.nan
    sigma = lo
    for _ in range(MAX_NEWTON):
        f, slope = _residual(s_lead, x0, y0, sigma, d, offsets, kinds, params)
        if abs(f) <= tol:
            break
        if f <= 0:
            lo = sigma
        else:
            hi = sigma
        newton = sigma - f / slope if slope > 0 else lo
        sigma = newton if lo < newton < hi else 0.5 * (lo + hi)
    return s_lead - sigma


@njit(cache=True)
def chain_kernel(s_head: FloatArray, spacings: FloatArray, offsets, kinds, params,
                 tol: float) -> FloatArray:
    """Arc lengths of all handles, (T,) -> (T, H); NaN where a follower has no solution."""
    out = np.empty((s_head.size, spacings.size + 1))
    for t in range(s_head.size):
        s = s_head[t]
        out[t, 0] = s
        for i in range(spacings.size):
            s = follow_one(s, spacings[i], offsets, kinds, params, tol)
            out[t, i + 1] = s
    return out


@njit(cache=True)
def frames_kernel(s: FloatArray, offsets, kinds, params) -> tuple[FloatArray, FloatArray]:
    """Positions and tangents for a flat array of arc lengths, each (n, 2)."""
    xy, tan = np.empty((s.size, 2)), np.empty((s.size, 2))
    for n in range(s.size):
        xy[n, 0], xy[n, 1], tan[n, 0], tan[n, 1] = evaluate(s[n], offsets, kinds, params)
    return xy, tan


@njit(cache=True)
def spiral_chain_kernel(theta_head: FloatArray, spacings: FloatArray, b: float,
                         tol: float) -> FloatArray:
    r"""Polar angles of all handles down an in-spiral, (T,) -> (T, H).

    Each handle solves :math:`g(\theta) = b^2[\theta^2 + \theta_i^2 - 2\theta\theta_i
    \cos(\theta-\theta_i)] - d^2 = 0` on the analytic bracket :math:`(\theta_i, \theta_i + \pi]`,
    where :math:`g' = 2b^2[\theta - \theta_i\cos\Delta + \theta\theta_i\sin\Delta] > 0`
    (:math:`\Delta = \theta - \theta_i \in [0, \pi]`), by safeguarded Newton from
    :math:`\theta_i + d/(b\sqrt{1+\theta_i^2})` (the arc-length estimate). Requires
    :math:`b(2\theta_i + \pi) \ge d` (the half turn is wider than the bench); ``tol`` is the
    accepted chord residual (m).
    """
    n_t, n_b = theta_head.size, spacings.size
    out = np.empty((n_t, n_b + 1))
    for t in range(n_t):
        ti = theta_head[t]
        out[t, 0] = ti
        for i in range(n_b):
            d = spacings[i]
            lo, hi = ti, ti + np.pi
            theta = min(ti + d / (b * np.sqrt(1.0 + ti * ti)), hi)
            for _ in range(MAX_NEWTON):
                delta = theta - ti
                c, s = np.cos(delta), np.sin(delta)
                chord2 = b * b * (theta * theta + ti * ti - 2.0 * theta * ti * c)
                g = chord2 - d * d
                if abs(g) <= tol * (np.sqrt(max(chord2, 0.0)) + d):
                    break
                if g <= 0.0:
                    lo = theta
                else:
                    hi = theta
                dg = 2.0 * b * b * (theta - ti * c + theta * ti * s)
                newton = theta - g / dg if dg > 0.0 else lo
                theta = newton if lo < newton < hi else 0.5 * (lo + hi)
            out[t, i + 1] = theta
            ti = theta
    return out


# --------------------------------------------------------------------------- nearest point

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
    :class:`~flocklab.geometry.paths.Line` segment, a
    :class:`~flocklab.geometry.paths.Composite` of them,
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
