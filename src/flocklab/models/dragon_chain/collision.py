r"""Bench rectangles, exact overlap tests (separating axes) and first-contact searches.

Bench :math:`j` joins handles :math:`j` and :math:`j+1`. Its board is the rectangle
centred at :math:`c_j = (P_j + P_{j+1})/2` with axis :math:`u_j = (P_j - P_{j+1})/d_j`, half length
:math:`a_j = d_j/2 + 0.275` m and half width :math:`w = 0.15` m.

Separating axes: two convex polygons are disjoint iff their projections on some edge normal
are disjoint. For rectangles the candidate axes are :math:`u_A, n_A, u_B, n_B`, and the gap
along a unit axis :math:`m` is

.. math:: g_m = |m\cdot(c_B - c_A)| - a_A|m\cdot u_A| - w|m\cdot n_A|
          - a_B|m\cdot u_B| - w|m\cdot n_B|.

The *signed separation* :math:`g = \max_m g_m` is positive iff the boards are disjoint, zero
when they touch, negative when they overlap; it is continuous in the handle positions, so a
first contact is a root of :math:`g` along the motion.

Which pairs. Adjacent benches share a handle and always overlap near it; they are excluded.
Every bench after the head has the same size, and the chain behind handle :math:`j` depends
only on the arc length :math:`s_j`; so the pair :math:`(j, k)`, :math:`1 \le j < k`, seen when
handle :math:`j` is at :math:`s` is congruent to the pair :math:`(1, k-j+1)` seen when handle 1
is at :math:`s` — which happens earlier, since handle 1 leads handle :math:`j`. Hence the first
contact of any pair is found among the *lead pairs* :math:`(0, k \ge 2)` and
:math:`(1, k \ge 3)`, provided handle 1 is scanned back to where the last handle started.
All pairs are still checked exactly at the reported instant.

Reference: 2024 CUMCM problem A, questions 2 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from flocklab.geometry.chain import chain_positions, chain_state, solve_chain
from flocklab.geometry.paths import Path
from flocklab.models.dragon_chain.geometry import BenchGeometry

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


@dataclass(frozen=True)
class Rectangles:
    """Bench boards: centres and unit long axes (..., B, 2), half lengths (B,), half width."""

    centre: FloatArray
    axis: FloatArray
    half_length: FloatArray
    half_width: float

    @property
    def normal(self) -> FloatArray:
        """Unit short axes (..., B, 2)."""
        return np.stack([-self.axis[..., 1], self.axis[..., 0]], axis=-1)

    def corners(self) -> FloatArray:
        """Corner points (..., B, 4, 2) in order around the board."""
        a = self.half_length[:, None] * self.axis
        w = self.half_width * self.normal
        c = self.centre
        return np.stack([c + a + w, c - a + w, c - a - w, c + a - w], axis=-2)


def bench_rectangles(xy: ArrayLike, geometry: BenchGeometry) -> Rectangles:
    """Boards of all benches from handle positions ``xy`` (..., H, 2)."""
    xy = np.asarray(xy, dtype=float)
    front, back = xy[..., :-1, :], xy[..., 1:, :]
    axis = front - back
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    return Rectangles(0.5 * (front + back), axis, geometry.half_lengths, 0.5 * geometry.width)


def _support(m: FloatArray, axis: FloatArray, normal: FloatArray, a: FloatArray, w: float):
    """Half extent of a rectangle along unit vectors ``m``."""
    return a * np.abs(np.sum(m * axis, -1)) + w * np.abs(np.sum(m * normal, -1))


def separation(rects: Rectangles, first: ArrayLike, second: ArrayLike) -> FloatArray:
    """Signed separation of bench pairs ``(first[p], second[p])`` (m), shape (..., P).

    Positive: disjoint (a lower bound on the distance); 0: touching; negative: overlapping.
    """
    i, j = np.asarray(first), np.asarray(second)
    ca, cb = rects.centre[..., i, :], rects.centre[..., j, :]
    ua, ub = rects.axis[..., i, :], rects.axis[..., j, :]
    na, nb = rects.normal[..., i, :], rects.normal[..., j, :]
    ha, hb, w = rects.half_length[i], rects.half_length[j], rects.half_width
    delta = cb - ca
    gap = np.full(delta.shape[:-1], -np.inf)
    for m in (ua, na, ub, nb):
        g = np.abs(np.sum(m * delta, -1)) - _support(m, ua, na, ha, w) - _support(m, ub, nb, hb, w)
        gap = np.maximum(gap, g)
    return gap


def all_pairs(n_benches: int) -> tuple[IntArray, IntArray]:
    """All non-adjacent bench pairs ``(j, k)``, ``k >= j + 2``."""
    j, k = np.triu_indices(n_benches, k=2)
    return j.astype(np.intp), k.astype(np.intp)


def touching_pairs(xy: ArrayLike, geometry: BenchGeometry, tol: float = 1e-6) -> list[dict]:
    """All non-adjacent pairs with separation below ``tol`` at one instant (``xy`` (H, 2)).

    Returns a list of ``{"benches": (j, k), "separation": g}`` sorted by separation.
    """
    rects = bench_rectangles(xy, geometry)
    j, k = all_pairs(geometry.n_benches)
    gap = separation(rects, j, k)
    hits = np.nonzero(gap < tol)[0]
    order = hits[np.argsort(gap[hits])]
    return [{"benches": (int(j[p]), int(k[p])), "separation": float(gap[p])} for p in order]


#: Pairs whose bounding circles are farther apart than this skip the exact test (m).
BROAD_PHASE_MARGIN = 0.5


@njit(cache=True)
def _pair_gap(c: FloatArray, u: FloatArray, a: FloatArray, w: float, j: int, k: int) -> float:
    """max(SAT separation, bounding-circle gap) of boards j and k (compiled)."""
    dx, dy = c[k, 0] - c[j, 0], c[k, 1] - c[j, 1]
    rj, rk = np.sqrt(a[j] ** 2 + w * w), np.sqrt(a[k] ** 2 + w * w)
    circle = np.sqrt(dx * dx + dy * dy) - rj - rk
    if circle > BROAD_PHASE_MARGIN:
        return circle
    best = circle
    for q in range(4):
        if q < 2:
            mx, my = (u[j, 0], u[j, 1]) if q == 0 else (-u[j, 1], u[j, 0])
        else:
            mx, my = (u[k, 0], u[k, 1]) if q == 2 else (-u[k, 1], u[k, 0])
        gap = abs(mx * dx + my * dy)
        for b in (j, k):
            gap -= a[b] * abs(mx * u[b, 0] + my * u[b, 1]) + w * abs(my * u[b, 0] - mx * u[b, 1])
        best = max(best, gap)
    return best


@njit(cache=True)
def _lead_gap_kernel(xy: FloatArray, half_lengths: FloatArray, w: float):
    """Minimum gap of board 0 with boards k >= 2 and of board 1 with k >= 3, per instant."""
    n_t, n_b = xy.shape[0], xy.shape[1] - 1
    g0, g1 = np.empty(n_t), np.empty(n_t)
    c, u = np.empty((n_b, 2)), np.empty((n_b, 2))
    for t in range(n_t):
        for b in range(n_b):
            ex, ey = xy[t, b, 0] - xy[t, b + 1, 0], xy[t, b, 1] - xy[t, b + 1, 1]
            norm = np.sqrt(ex * ex + ey * ey)
            u[b, 0], u[b, 1] = ex / norm, ey / norm
            c[b, 0] = 0.5 * (xy[t, b, 0] + xy[t, b + 1, 0])
            c[b, 1] = 0.5 * (xy[t, b, 1] + xy[t, b + 1, 1])
        m0, m1 = np.inf, np.inf
        for k in range(2, n_b):
            m0 = min(m0, _pair_gap(c, u, half_lengths, w, 0, k))
            if k >= 3:
                m1 = min(m1, _pair_gap(c, u, half_lengths, w, 1, k))
        g0[t], g1[t] = m0, m1
    return g0, g1


@njit(cache=True)
def _all_pairs_min_kernel(xy: FloatArray, half_lengths: FloatArray, w: float) -> float:
    """Minimum pair gap over all non-adjacent boards at one instant, ``xy`` (H, 2)."""
    n_b = xy.shape[0] - 1
    c, u = np.empty((n_b, 2)), np.empty((n_b, 2))
    for b in range(n_b):
        ex, ey = xy[b, 0] - xy[b + 1, 0], xy[b, 1] - xy[b + 1, 1]
        norm = np.sqrt(ex * ex + ey * ey)
        u[b, 0], u[b, 1] = ex / norm, ey / norm
        c[b, 0] = 0.5 * (xy[b, 0] + xy[b + 1, 0])
        c[b, 1] = 0.5 * (xy[b, 1] + xy[b + 1, 1])
    best = np.inf
    for j in range(n_b):
        for k in range(j + 2, n_b):
            best = min(best, _pair_gap(c, u, half_lengths, w, j, k))
    return best


def min_clearance(xy: ArrayLike, geometry: BenchGeometry) -> float:
    """Smallest signed separation over all non-adjacent board pairs at one instant (m).

    Exact (separating axes) wherever it is below ``BROAD_PHASE_MARGIN``; ``xy`` is (H, 2).
    """
    xy = np.ascontiguousarray(xy, dtype=float)
    return float(_all_pairs_min_kernel(xy, geometry.half_lengths, 0.5 * geometry.width))


def lead_separation(path: Path, s_head: ArrayLike, geometry: BenchGeometry,
                    chunk: int = 4096) -> tuple[FloatArray, FloatArray]:
    r"""Minimum signed separation of the head bench and of bench 1 with the others.

    Each pair contributes :math:`\max(g_{\text{SAT}}, g_{\circ})`, :math:`g_\circ` the gap of
    the bounding circles; both are lower bounds of the distance and :math:`g_\circ \le 0`
    whenever the boards overlap, so the value is continuous with the sign of :math:`g_{SAT}`.
    Pairs with :math:`g_\circ >` ``BROAD_PHASE_MARGIN`` contribute :math:`g_\circ` only.

    Parameters
    ----------
    s_head : array_like, shape (T,)
        Head arc lengths (m).

    Returns
    -------
    (ndarray, ndarray), each shape (T,)
        Minimum over ``(0, k >= 2)`` and over ``(1, k >= 3)``.
    """
    s_head = np.atleast_1d(np.asarray(s_head, dtype=float))
    g0 = np.empty(s_head.size)
    g1 = np.empty(s_head.size)
    half = geometry.half_lengths
    for start in range(0, s_head.size, chunk):
        part = slice(start, start + chunk)
        xy = chain_positions(path, s_head[part], geometry.spacings)
        g0[part], g1[part] = _lead_gap_kernel(xy, half, 0.5 * geometry.width)
    return g0, g1


def all_pairs_separation(path: Path, s_head: float, geometry: BenchGeometry) -> float:
    """Minimum signed separation over all non-adjacent pairs at one head position."""
    state = chain_state(path, np.array([s_head]), geometry.spacings)
    j, k = all_pairs(geometry.n_benches)
    return float(separation(bench_rectangles(state.xy[0], geometry), j, k).min())


@dataclass(frozen=True)
class ContactSearch:
    """Result of :func:`first_contact`.

    Attributes
    ----------
    s_contact : float or None
        Head arc length of the first contact (m), ``None`` if the scanned range is free.
    min_separation : float
        Smallest signed separation of the lead pairs seen on the scan (m).
    s_scan_start, s_scan_end : float
        Head range scanned (the start is extended back so that bench 1 covers every
        position any later bench occupies, see the module notes).
    evaluations : int
        Number of head positions evaluated.
    """

    s_contact: float | None
    min_separation: float
    s_scan_start: float
    s_scan_end: float
    evaluations: int


class _LeadGap:
    """G(s) = min(g0(s) for s >= s_start, g1(s)): the contact function along the head path."""

    def __init__(self, path: Path, geometry: BenchGeometry, s_start: float) -> None:
        self.path, self.geometry, self.s_start = path, geometry, s_start
        self.evaluations = 0

    def __call__(self, s: FloatArray) -> FloatArray:
        g0, g1 = lead_separation(self.path, s, self.geometry)
        self.evaluations += s.size
        return np.minimum(np.where(s >= self.s_start, g0, np.inf), g1)


def _local_lipschitz(s: FloatArray, g: FloatArray) -> FloatArray:
    """Per-interval slope bound: ``LIPSCHITZ_SAFETY`` x the largest slope within 2 intervals
    (NaN next to samples where G is +inf, no pair yet in reach: such intervals never doubt)."""
    with np.errstate(invalid="ignore"):
        slope = np.abs(np.diff(g)) / np.diff(s)
    padded = np.pad(slope, 2, mode="edge")
    window = np.max(np.stack([padded[k : k + slope.size] for k in range(5)]), axis=0)
    return np.maximum(LIPSCHITZ_FLOOR, LIPSCHITZ_SAFETY * window)


def _first_nonpositive(s: FloatArray, g: FloatArray, gap: _LeadGap,
                       min_step: float) -> tuple[float, float] | None:
    """Bracket (s_lo, s_hi) of the first zero of G on the grid ``s``, refining doubtful steps.

    An interval before the first non-positive sample is doubtful when
    ``g_k + g_k+1 <= L_k h_k`` (G could dip to zero inside), with ``L_k`` the local slope
    bound of :func:`_local_lipschitz`; doubtful intervals longer than ``min_step`` get 7
    interior samples, until none is left.
    """
    while True:
        bad = np.nonzero(g <= 0)[0]
        stop = int(bad[0]) if bad.size else s.size
        if stop == 0:
            return float(s[0]), float(s[0])
        h = np.diff(s[:stop])
        bound = _local_lipschitz(s[:stop], g[:stop]) * h if stop > 1 else h
        doubt = np.nonzero((g[: stop - 1] + g[1:stop] <= bound) & (h > min_step))[0]
        if doubt.size == 0:
            return (float(s[stop - 1]), float(s[stop])) if bad.size else None
        fine = (s[doubt, None] + h[doubt, None] * np.linspace(0, 1, 9)[1:-1]).ravel()
        s_new, g_new = np.concatenate([s, fine]), np.concatenate([g, gap(fine)])
        order = np.argsort(s_new)
        s, g = s_new[order], g_new[order]


def _refine_root(gap: _LeadGap, lo: float, hi: float, xtol: float) -> float:
    """Multisection (33 points per round) to the first zero of G in (lo, hi]."""
    while hi - lo > xtol:
        s = np.linspace(lo, hi, 34)[1:-1]
        g = gap(s)
        bad = np.nonzero(g <= 0)[0]
        if bad.size:
            hi = float(s[bad[0]])
            lo = float(s[bad[0] - 1]) if bad[0] > 0 else lo
        else:
            lo = float(s[-1])
    return hi


#: Safety factor on the largest slope of G seen on the scan grid, and its floor (m/m).
LIPSCHITZ_SAFETY = 4.0
LIPSCHITZ_FLOOR = 1e-3


def first_contact(path: Path, s_start: float, s_end: float, geometry: BenchGeometry,
                  step: float = 0.1, xtol: float = 1e-9, min_step: float = 1e-6) -> ContactSearch:
    r"""First head position in ``[s_start, s_end]`` at which two benches touch.

    The lead pairs are scanned on a grid of ``step`` (m of head arc); bench 1's scan starts
    early enough for bench 1 to pass every position the last handles hold at ``s_start``.
    A grid interval is accepted as contact-free when :math:`G_k + G_{k+1} > L_k h`, with
    :math:`L_k` four times the largest slope of :math:`G` seen within two grid intervals
    (at least 1e-3): G is smooth on the scale of a bench, far above ``step``; other
    intervals are subdivided until they pass or shrink below ``min_step`` (a dip of G below
    zero narrower than that, i.e. shallower than about :math:`L\,` ``min_step`` / 2, could
    pass unseen). The first zero is then located by multisection to ``xtol`` (m).
    """
    first_state = solve_chain(path, np.array([s_start]), geometry.spacings)[0]
    reach = first_state[1] - first_state[-1] + 2 * geometry.spacings.max()
    s = np.unique(np.concatenate([np.arange(s_start - reach, s_end, step), [s_start, s_end]]))
    gap = _LeadGap(path, geometry, s_start)
    g = gap(s)
    bracket = _first_nonpositive(s, g, gap, min_step)
    s_contact = None if bracket is None else _refine_root(gap, *bracket, xtol)
    return ContactSearch(s_contact, float(g.min()), float(s[0]), float(s_end), gap.evaluations)
