r"""Compiled (numba) evaluation of spiral/arc/line composite paths and of the chain on them.

A path made of :class:`~flocklab.geometry.paths.Spiral`, :class:`~flocklab.geometry.paths.Arc` and
:class:`~flocklab.geometry.paths.Line` segments (alone or in a :class:`~flocklab.geometry.paths.Composite`) is
flattened into a segment table: ``offsets`` (K+1,), ``kinds`` (K,) and ``params`` (K, 6).
The kernels reproduce the numpy methods of :mod:`flocklab.geometry.paths` (same closed forms, same
extrapolation beyond the ends) and the bracketed, safeguarded Newton of
:func:`flocklab.models.dragon_chain.chain.follow`; the tests compare them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from flocklab.geometry.paths import Arc, Composite, Line, Path, Spiral, spiral_arc_length

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
    for _ in range(60):
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
    for k in range(1, 33):
        sigma = d * (1.0 + k / 8.0)
        f, _ = _residual(s_lead, x0, y0, sigma, d, offsets, kinds, params)
        if f > 0:
            hi = sigma
            break
        lo = sigma
    if np.isnan(hi):
        return np.nan
    sigma = lo
    for _ in range(60):
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
