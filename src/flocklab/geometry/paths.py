r"""Planar paths parametrised by arc length, with exact closed forms.

Every path maps an arc length :math:`s` (metres, measured from the path's start
in the direction of travel) to a point :math:`P(s)`, a unit tangent
:math:`T(s) = dP/ds`, and a signed curvature :math:`\kappa(s)` (positive when
the path turns left, i.e. counter-clockwise), with :math:`dT/ds = \kappa N`,
:math:`N` the left normal. All methods take arrays of any shape and return the
same shape (``position``/``tangent`` add a trailing axis of length 2).

Segments extrapolate analytically beyond their ends (a spiral keeps winding, an
arc keeps turning, a line keeps going), so a chain of followers may trail behind
the start of a path; :class:`Composite` extrapolates with its first segment for
``s < 0`` and with its last for ``s > length``. :class:`Periodic` wraps ``s``
modulo the length for closed paths (circle, figure eight).

Archimedean spiral
------------------
The in-spiral of pitch :math:`p` is :math:`P(\theta) = b\theta(\cos\theta,
\sin\theta)`, :math:`b = p/2\pi`, :math:`r = b\theta`, traversed with
:math:`\theta` *decreasing* (clockwise, inward). Its arc length from the centre
has the closed form

.. math:: F(\theta) = \int_0^\theta b\sqrt{1+u^2}\,du
          = \tfrac{b}{2}\left[\theta\sqrt{1+\theta^2} + \operatorname{asinh}\theta\right],

so :math:`s(\theta) = F(\theta_0) - F(\theta)`. The inverse :math:`\theta(s)` is
Newton's method on :math:`F`, started at :math:`\sqrt{2F/b}`, which lies above
the root because :math:`F(\theta) > b\theta^2/2`; since :math:`F` is increasing
and convex for :math:`\theta>0` the iterates decrease monotonically to the root.
The curvature is :math:`|\kappa| = (2+\theta^2)/[b(1+\theta^2)^{3/2}]`.
The out-spiral is the in-spiral mirrored through the centre,
:math:`P(\theta) = -b\theta(\cos\theta,\sin\theta)`, traversed with :math:`\theta`
increasing (counter-clockwise, outward).

Reference: 2024 China Undergraduate Mathematical Contest in Modeling (CUMCM),
problem A, "板凳龙" 闹元宵 (the bench dragon).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from flocklab.core.parameters import ParameterError

TWO_PI = 2.0 * math.pi
FloatArray = NDArray[np.float64]


def _rotate_left(v: FloatArray) -> FloatArray:
    """Rotate vectors (..., 2) by +90 degrees."""
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


class Path(ABC):
    """A planar curve parametrised by arc length.

    Attributes
    ----------
    length : float
        Total arc length (m) between the start and the end point.
    """

    length: float

    @abstractmethod
    def position(self, s: ArrayLike) -> FloatArray:
        """Point :math:`P(s)`, shape ``s.shape + (2,)`` (m)."""

    @abstractmethod
    def tangent(self, s: ArrayLike) -> FloatArray:
        """Unit tangent :math:`T = dP/ds` in the direction of travel, shape ``s.shape + (2,)``."""

    @abstractmethod
    def curvature(self, s: ArrayLike) -> FloatArray:
        """Signed curvature :math:`\\kappa(s)` (1/m), positive for a left (anticlockwise) turn."""

    def frame(self, s: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Position and tangent together (segments override to share work)."""
        return self.position(s), self.tangent(s)

    def normal(self, s: ArrayLike) -> FloatArray:
        """Left unit normal :math:`N(s)`, the tangent rotated by +90 degrees."""
        return _rotate_left(self.tangent(s))

    @abstractmethod
    def project(self, points: ArrayLike) -> FloatArray:
        """Arc length of the point of the path nearest to each of ``points`` (..., 2).

        The search is restricted to ``0 <= s <= length``.
        """

    def distance(self, points: ArrayLike) -> FloatArray:
        """Distance (m) from each point to the nearest point of the path."""
        points = np.asarray(points, dtype=float)
        return np.linalg.norm(self.position(self.project(points)) - points, axis=-1)

    def velocity(self, s: ArrayLike, speed: ArrayLike) -> FloatArray:
        """Velocity :math:`v\\,T(s)` of a point moving along the path at ``speed`` (m/s)."""
        return np.asarray(speed, dtype=float)[..., None] * self.tangent(s)

    def acceleration(self, s: ArrayLike, speed: ArrayLike) -> FloatArray:
        """Acceleration :math:`v^2 \\kappa(s) N(s)` at constant ``speed`` (m/s^2)."""
        v2k = np.asarray(speed, dtype=float) ** 2 * self.curvature(s)
        return v2k[..., None] * self.normal(s)

    @property
    def start(self) -> FloatArray:
        """Start point :math:`P(0)`."""
        return self.position(0.0)

    @property
    def end(self) -> FloatArray:
        """End point :math:`P(L)`."""
        return self.position(self.length)


# --------------------------------------------------------------------------- spiral


def spiral_arc_length(theta: ArrayLike, pitch: float) -> FloatArray:
    r"""Arc length of :math:`r = b\theta` from the centre to angle ``theta``.

    .. math:: F(\theta) = \tfrac{b}{2}[\theta\sqrt{1+\theta^2} + \operatorname{asinh}\theta],
              \quad b = p / 2\pi.

    Odd in ``theta``; ``pitch`` in metres, result in metres.
    """
    theta = np.asarray(theta, dtype=float)
    b = pitch / TWO_PI
    return 0.5 * b * (theta * np.sqrt(1.0 + theta * theta) + np.arcsinh(theta))


def spiral_angle(arc_length: ArrayLike, pitch: float, tol: float = 1e-15) -> FloatArray:
    r"""Inverse of :func:`spiral_arc_length`: :math:`\theta` such that :math:`F(\theta) = s`.

    Newton's method from :math:`\sqrt{2|F|/b}` (above the root, monotone convergence);
    vectorised, at most 60 iterations, relative tolerance ``tol``.
    """
    target = np.asarray(arc_length, dtype=float)
    b = pitch / TWO_PI
    sign = np.sign(target)
    f = np.abs(target)
    theta = np.sqrt(2.0 * f / b)
    for _ in range(60):
        step = (spiral_arc_length(theta, pitch) - f) / (b * np.sqrt(1.0 + theta * theta))
        theta = theta - step
        if np.all(np.abs(step) <= tol * np.maximum(theta, 1.0)):
            break
    return sign * theta


def spiral_curvature_magnitude(theta: ArrayLike, pitch: float) -> FloatArray:
    r""":math:`|\kappa| = (2+\theta^2) / [b (1+\theta^2)^{3/2}]` of :math:`r = b\theta`."""
    theta = np.asarray(theta, dtype=float)
    b = pitch / TWO_PI
    return (2.0 + theta**2) / (b * (1.0 + theta**2) ** 1.5)


@dataclass(frozen=True)
class Spiral(Path):
    r"""Archimedean spiral segment, inward (clockwise) or mirrored outward (counter-clockwise).

    Parameters
    ----------
    pitch : float
        Distance between successive turns, :math:`p > 0` (m).
    theta_start, theta_end : float
        Polar parameter at the start and end of the segment (rad, >= 0). An in-spiral
        (``outward=False``) has ``theta_start >= theta_end``; an out-spiral has
        ``theta_start <= theta_end``.
    outward : bool
        ``False``: :math:`P = b\theta(\cos\theta, \sin\theta)` with :math:`\theta` decreasing.
        ``True``: the central mirror image :math:`P = -b\theta(\cos\theta, \sin\theta)` with
        :math:`\theta` increasing.
    """

    pitch: float
    theta_start: float
    theta_end: float
    outward: bool = False

    def __post_init__(self) -> None:
        if not self.pitch > 0:
            raise ParameterError("pitch", f"parameter 'pitch' = {self.pitch!r} must be > 0 (m)")
        if min(self.theta_start, self.theta_end) < 0:
            raise ParameterError("theta", "spiral angles must be >= 0 (rad)")
        if (self.theta_end - self.theta_start) * (1 if self.outward else -1) < 0:
            raise ParameterError(
                "theta_end", "an in-spiral needs theta_end <= theta_start, an out-spiral >="
            )

    @property
    def b(self) -> float:
        """Radial growth per radian, :math:`b = p / 2\\pi` (m/rad)."""
        return self.pitch / TWO_PI

    @property
    def _sign(self) -> float:
        return 1.0 if self.outward else -1.0

    @property
    def length(self) -> float:  # type: ignore[override]
        """Arc length between ``theta_start`` and ``theta_end`` (closed form)."""
        f = spiral_arc_length(np.array([self.theta_start, self.theta_end]), self.pitch)
        return float(abs(f[1] - f[0]))

    def arc_length_at(self, theta: ArrayLike) -> FloatArray:
        """Arc length ``s`` of the point with polar parameter ``theta`` (exact)."""
        f0 = spiral_arc_length(self.theta_start, self.pitch)
        return self._sign * (spiral_arc_length(theta, self.pitch) - f0)

    def theta(self, s: ArrayLike) -> FloatArray:
        """Polar parameter at arc length ``s`` (Newton on the closed form)."""
        f0 = spiral_arc_length(self.theta_start, self.pitch)
        return spiral_angle(f0 + self._sign * np.asarray(s, dtype=float), self.pitch)

    def point_at_theta(self, theta: ArrayLike) -> FloatArray:
        """Point with polar parameter ``theta`` (..., 2)."""
        theta = np.asarray(theta, dtype=float)
        r = -self._sign * self.b * theta  # +b*theta inward, -b*theta (mirrored) outward
        return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1)

    def tangent_at_theta(self, theta: ArrayLike) -> FloatArray:
        """Unit tangent in the direction of travel at polar parameter ``theta``."""
        theta = np.asarray(theta, dtype=float)
        c, s = np.cos(theta), np.sin(theta)
        norm = np.sqrt(1.0 + theta * theta)
        # d/dtheta [theta cos, theta sin] = [cos - theta sin, sin + theta cos]; travel reverses it
        return -np.stack([c - theta * s, s + theta * c], axis=-1) / norm[..., None]

    def position(self, s: ArrayLike) -> FloatArray:
        return self.point_at_theta(self.theta(s))

    def tangent(self, s: ArrayLike) -> FloatArray:
        return self.tangent_at_theta(self.theta(s))

    def frame(self, s: ArrayLike) -> tuple[FloatArray, FloatArray]:
        theta = self.theta(s)
        return self.point_at_theta(theta), self.tangent_at_theta(theta)

    def curvature(self, s: ArrayLike) -> FloatArray:
        return self._sign * spiral_curvature_magnitude(self.theta(s), self.pitch)

    def project(self, points: ArrayLike) -> FloatArray:
        """Nearest point: candidate turns around the polar angle, then Newton on the distance."""
        points = np.asarray(points, dtype=float)
        q = points * (-self._sign)  # undo the mirror: work on b*theta*(cos, sin)
        phi = np.arctan2(q[..., 1], q[..., 0])
        rho = np.hypot(q[..., 0], q[..., 1])
        lo, hi = sorted((self.theta_start, self.theta_end))
        k0 = np.round((rho / self.b - phi) / TWO_PI)
        best_s = np.zeros(phi.shape)
        best_d = np.full(phi.shape, np.inf)
        for dk in (-1.0, 0.0, 1.0):
            theta = np.clip(phi + TWO_PI * (k0 + dk), lo, hi)
            theta = np.clip(self._newton_nearest(theta, q), lo, hi)
            p = self.b * theta[..., None] * np.stack([np.cos(theta), np.sin(theta)], axis=-1)
            dist = np.linalg.norm(p - q, axis=-1)
            better = dist < best_d
            best_d = np.where(better, dist, best_d)
            best_s = np.where(better, self.arc_length_at(theta), best_s)
        for end in (lo, hi):
            p = self.point_at_theta(end) * (-self._sign)
            dist = np.linalg.norm(p - q, axis=-1)
            better = dist < best_d
            best_d = np.where(better, dist, best_d)
            best_s = np.where(better, self.arc_length_at(end), best_s)
        return best_s

    def _newton_nearest(self, theta: FloatArray, q: FloatArray) -> FloatArray:
        """Newton on g = (P - q).P' for the unmirrored spiral, a few safeguarded steps."""
        b = self.b
        for _ in range(8):
            c, s = np.cos(theta), np.sin(theta)
            p = b * theta[..., None] * np.stack([c, s], axis=-1)
            dp = b * np.stack([c - theta * s, s + theta * c], axis=-1)
            ddp = b * np.stack([-2 * s - theta * c, 2 * c - theta * s], axis=-1)
            diff = p - q
            g = np.sum(diff * dp, axis=-1)
            dg = np.sum(dp * dp, axis=-1) + np.sum(diff * ddp, axis=-1)
            step = np.where(dg > 0, g / np.where(dg > 0, dg, 1.0), 0.0)
            theta = theta - np.clip(step, -0.5, 0.5)
        return theta


# --------------------------------------------------------------------------- arc and line


@dataclass(frozen=True)
class Arc(Path):
    r"""Circular arc :math:`P = C + R(\cos\phi, \sin\phi)`, :math:`\phi = \phi_0 + \sigma s/R`.

    Parameters
    ----------
    center : (float, float)
        Centre :math:`C` (m).
    radius : float
        :math:`R > 0` (m).
    angle_start : float
        Polar angle :math:`\phi_0` of the start point about the centre (rad).
    sweep : float
        Signed angle turned (rad): positive counter-clockwise (left turn), negative clockwise.
        The length is :math:`R|\text{sweep}|`.
    """

    center: tuple[float, float]
    radius: float
    angle_start: float
    sweep: float

    def __post_init__(self) -> None:
        if not self.radius > 0:
            raise ParameterError("radius", f"parameter 'radius' = {self.radius!r} must be > 0 (m)")

    @property
    def length(self) -> float:  # type: ignore[override]
        return self.radius * abs(self.sweep)

    @property
    def _sign(self) -> float:
        return 1.0 if self.sweep >= 0 else -1.0

    def angle(self, s: ArrayLike) -> FloatArray:
        """Polar angle about the centre at arc length ``s``."""
        return self.angle_start + self._sign * np.asarray(s, dtype=float) / self.radius

    def position(self, s: ArrayLike) -> FloatArray:
        phi = self.angle(s)
        cx, cy = self.center
        return np.stack([cx + self.radius * np.cos(phi), cy + self.radius * np.sin(phi)], axis=-1)

    def tangent(self, s: ArrayLike) -> FloatArray:
        phi = self.angle(s)
        return self._sign * np.stack([-np.sin(phi), np.cos(phi)], axis=-1)

    def curvature(self, s: ArrayLike) -> FloatArray:
        return np.full(np.shape(s), self._sign / self.radius)

    def project(self, points: ArrayLike) -> FloatArray:
        points = np.asarray(points, dtype=float)
        phi = np.arctan2(points[..., 1] - self.center[1], points[..., 0] - self.center[0])
        along = np.mod(self._sign * (phi - self.angle_start), TWO_PI) * self.radius
        # beyond the end of the arc: the nearer of the two end points
        total = self.length
        past = along > total
        to_end = self._sign * (phi - self.angle_start - self._sign * total)
        to_end = np.mod(to_end + math.pi, TWO_PI) - math.pi
        to_start = np.mod(self._sign * (phi - self.angle_start) + math.pi, TWO_PI) - math.pi
        nearer_start = np.abs(to_start) < np.abs(to_end)
        return np.where(past, np.where(nearer_start, 0.0, total), along)


@dataclass(frozen=True)
class Line(Path):
    """Straight segment from ``start_point`` along the unit ``direction`` for ``segment_length``."""

    start_point: tuple[float, float]
    direction: tuple[float, float]
    segment_length: float

    def __post_init__(self) -> None:
        if not self.segment_length >= 0:
            raise ParameterError(
                "length", f"parameter 'length' = {self.segment_length!r} must be >= 0 (m)"
            )
        norm = math.hypot(*self.direction)
        if not norm > 0:
            raise ParameterError("direction", "parameter 'direction' must be a non-zero vector")
        object.__setattr__(self, "direction", (self.direction[0] / norm, self.direction[1] / norm))

    @property
    def length(self) -> float:  # type: ignore[override]
        return self.segment_length

    def position(self, s: ArrayLike) -> FloatArray:
        s = np.asarray(s, dtype=float)[..., None]
        return np.asarray(self.start_point) + s * np.asarray(self.direction)

    def tangent(self, s: ArrayLike) -> FloatArray:
        return np.broadcast_to(np.asarray(self.direction), (*np.shape(s), 2)).copy()

    def curvature(self, s: ArrayLike) -> FloatArray:
        return np.zeros(np.shape(s))

    def project(self, points: ArrayLike) -> FloatArray:
        rel = np.asarray(points, dtype=float) - np.asarray(self.start_point)
        return np.clip(rel @ np.asarray(self.direction), 0.0, self.segment_length)


# --------------------------------------------------------------------------- composites


class Composite(Path):
    """Segments joined end to start; ``s`` runs over them in order.

    Parameters
    ----------
    segments : sequence of Path
        Consecutive segments; each must start where the previous one ends (within ``tol``).
    tol : float
        Allowed gap at a junction (m).

    Notes
    -----
    ``s < 0`` is evaluated on the first segment and ``s > length`` on the last, by their
    analytic extrapolation. ``offsets[k]`` is the arc length at the start of segment ``k``.
    """

    def __init__(self, segments: Sequence[Path], tol: float = 1e-9) -> None:
        if not segments:
            raise ParameterError("segments", "a composite path needs at least one segment")
        self.segments = tuple(segments)
        lengths = np.array([seg.length for seg in self.segments])
        self.offsets = np.concatenate([[0.0], np.cumsum(lengths)])
        self.length = float(self.offsets[-1])
        for k in range(1, len(self.segments)):
            gap = np.linalg.norm(self.segments[k - 1].end - self.segments[k].start)
            if gap > tol:
                raise ParameterError(
                    "segments", f"segment {k} starts {gap:.3g} m from the end of segment {k - 1}"
                )

    def segment_index(self, s: ArrayLike) -> NDArray[np.intp]:
        """Index of the segment evaluated at each ``s``."""
        s = np.asarray(s, dtype=float)
        return np.searchsorted(self.offsets[1:-1], s, side="right")

    def _map(self, s: ArrayLike, method: str, trailing: tuple[int, ...]) -> FloatArray:
        s = np.asarray(s, dtype=float)
        index = self.segment_index(s)
        out = np.empty(s.shape + trailing)
        for k, seg in enumerate(self.segments):
            mask = index == k
            if np.any(mask):
                out[mask] = getattr(seg, method)(s[mask] - self.offsets[k])
        return out

    def position(self, s: ArrayLike) -> FloatArray:
        return self._map(s, "position", (2,))

    def tangent(self, s: ArrayLike) -> FloatArray:
        return self._map(s, "tangent", (2,))

    def curvature(self, s: ArrayLike) -> FloatArray:
        return self._map(s, "curvature", ())

    def frame(self, s: ArrayLike) -> tuple[FloatArray, FloatArray]:
        s = np.asarray(s, dtype=float)
        index = self.segment_index(s)
        pos = np.empty((*s.shape, 2))
        tan = np.empty((*s.shape, 2))
        for k, seg in enumerate(self.segments):
            mask = index == k
            if np.any(mask):
                pos[mask], tan[mask] = seg.frame(s[mask] - self.offsets[k])
        return pos, tan

    def project(self, points: ArrayLike) -> FloatArray:
        points = np.asarray(points, dtype=float)
        best_s = np.zeros(points.shape[:-1])
        best_d = np.full(points.shape[:-1], np.inf)
        for k, seg in enumerate(self.segments):
            local = seg.project(points)
            dist = np.linalg.norm(seg.position(local) - points, axis=-1)
            better = dist < best_d
            best_d = np.where(better, dist, best_d)
            best_s = np.where(better, local + self.offsets[k], best_s)
        return best_s


class Periodic(Path):
    """A closed path: ``s`` is taken modulo the length of ``path`` (whose end meets its start)."""

    def __init__(self, path: Path, tol: float = 1e-9) -> None:
        gap = float(np.linalg.norm(path.end - path.start))
        if gap > tol:
            raise ParameterError(
                "path", f"a periodic path must be closed (end is {gap:.3g} m from start)"
            )
        self.path = path
        self.length = path.length

    def _wrap(self, s: ArrayLike) -> FloatArray:
        return np.mod(np.asarray(s, dtype=float), self.length)

    def position(self, s: ArrayLike) -> FloatArray:
        return self.path.position(self._wrap(s))

    def tangent(self, s: ArrayLike) -> FloatArray:
        return self.path.tangent(self._wrap(s))

    def curvature(self, s: ArrayLike) -> FloatArray:
        return self.path.curvature(self._wrap(s))

    def frame(self, s: ArrayLike) -> tuple[FloatArray, FloatArray]:
        return self.path.frame(self._wrap(s))

    def project(self, points: ArrayLike) -> FloatArray:
        return self.path.project(points)


# --------------------------------------------------------------------------- S-curves


def _polar(v: FloatArray) -> float:
    return math.atan2(float(v[1]), float(v[0]))


def _arc_between(
    center: FloatArray, radius: float, a: FloatArray, b: FloatArray, turn: float
) -> Arc:
    """Arc about ``center`` from ``a`` to ``b`` turning in direction ``turn`` (+1 left)."""
    phi_a, phi_b = _polar(a - center), _polar(b - center)
    sweep = math.fmod(turn * (phi_b - phi_a), TWO_PI)
    if sweep < 0:
        sweep += TWO_PI
    return Arc((float(center[0]), float(center[1])), radius, phi_a, turn * sweep)


def s_curve_arcs(
    p1: ArrayLike, t1: ArrayLike, p2: ArrayLike, t2: ArrayLike, ratio: float
) -> tuple[Arc, Arc]:
    r"""Two tangent circular arcs of opposite turn from ``(p1, t1)`` to ``(p2, t2)``.

    The first arc has radius :math:`R_1 = kR_2` (``ratio`` :math:`k>0`) and is tangent to
    ``t1`` at ``p1``; the second is tangent to ``t2`` at ``p2``; the arcs touch externally.
    With centres :math:`C_1 = p_1 + \sigma R_1 N_1`, :math:`C_2 = p_2 - \sigma R_2 N_2`
    (:math:`N` left normals, :math:`\sigma = \pm 1` the first arc's turn), tangency
    :math:`|C_1 - C_2| = R_1 + R_2` is the quadratic
    :math:`(|M|^2-(k+1)^2)R_2^2 + 2(D\cdot M)R_2 + |D|^2 = 0`, :math:`D = p_1-p_2`,
    :math:`M = \sigma(kN_1 + N_2)`; for :math:`t_1 = t_2` it is linear and
    :math:`R_1 + R_2 = -|D|^2 / (2\sigma D\cdot N)` does not depend on :math:`k`.
    The turn :math:`\sigma` giving the smallest positive radius is used.

    Returns
    -------
    (Arc, Arc)
        The arcs in travel order; the junction is on the segment :math:`C_1C_2`.
    """
    if not ratio > 0:
        raise ParameterError("ratio", f"parameter 'ratio' = {ratio!r} must be > 0")
    p1, p2 = np.asarray(p1, float), np.asarray(p2, float)
    t1 = np.asarray(t1, float) / np.linalg.norm(t1)
    t2 = np.asarray(t2, float) / np.linalg.norm(t2)
    n1, n2 = _rotate_left(t1), _rotate_left(t2)
    d = p1 - p2
    best: tuple[float, float] | None = None
    for sigma in (1.0, -1.0):
        m = sigma * (ratio * n1 + n2)
        qa, qb, qc = m @ m - (ratio + 1) ** 2, 2 * (d @ m), d @ d
        if abs(qa) < 1e-12 * max(1.0, qc):
            roots = [-qc / qb] if qb != 0 else []
        else:
            disc = qb * qb - 4 * qa * qc
            root = math.sqrt(max(disc, 0.0))
            roots = [] if disc < 0 else [(-qb + root) / (2 * qa), (-qb - root) / (2 * qa)]
        for r2 in roots:
            if r2 > 0 and (best is None or r2 < best[1]):
                best = (sigma, r2)
    if best is None:
        raise ParameterError("ratio", "no S-curve of two tangent arcs joins these end points")
    sigma, r2 = best
    r1 = ratio * r2
    c1, c2 = p1 + sigma * r1 * n1, p2 - sigma * r2 * n2
    junction = c1 + r1 * (c2 - c1) / np.linalg.norm(c2 - c1)
    return _arc_between(c1, r1, p1, junction, sigma), _arc_between(c2, r2, junction, p2, -sigma)


# --------------------------------------------------------------------------- head paths


@dataclass(frozen=True)
class HeadMotion:
    """A point moving along ``path`` at constant ``speed`` from arc length ``s0`` at t = 0.

    ``position(t)``, ``velocity(t)``, ``acceleration(t)`` take arrays of times (s).
    """

    path: Path
    speed: float = 1.0
    s0: float = 0.0

    def arc_length(self, t: ArrayLike) -> FloatArray:
        """:math:`s(t) = s_0 + v t` (m)."""
        return self.s0 + self.speed * np.asarray(t, dtype=float)

    def position(self, t: ArrayLike) -> FloatArray:
        return self.path.position(self.arc_length(t))

    def velocity(self, t: ArrayLike) -> FloatArray:
        return self.path.velocity(self.arc_length(t), self.speed)

    def acceleration(self, t: ArrayLike) -> FloatArray:
        return self.path.acceleration(self.arc_length(t), self.speed)


def circle_path(radius: float, center: tuple[float, float] = (0.0, 0.0), phase: float = 0.0,
                clockwise: bool = False) -> Periodic:
    """Closed circle of ``radius`` (m) starting at polar angle ``phase`` about ``center``."""
    return Periodic(Arc(center, radius, phase, -TWO_PI if clockwise else TWO_PI))


def circle_motion(radius: float, angular_speed: float, center: tuple[float, float] = (0.0, 0.0),
                  phase: float = 0.0) -> HeadMotion:
    """Uniform circular motion at speed :math:`R|\\omega|`; ``angular_speed`` < 0 is clockwise."""
    path = circle_path(radius, center, phase, clockwise=angular_speed < 0)
    return HeadMotion(path, radius * abs(angular_speed))


def line_path(start: tuple[float, float] = (0.0, 0.0), direction: tuple[float, float] = (1.0, 0.0),
              length: float = 1.0) -> Line:
    """Straight path (extrapolates beyond both ends)."""
    return Line(start, direction, length)


def line_motion(speed: float, direction: tuple[float, float] = (1.0, 0.0),
                start: tuple[float, float] = (0.0, 0.0)) -> HeadMotion:
    """Uniform straight motion at ``speed`` (m/s) along ``direction``."""
    return HeadMotion(Line(start, direction, 1.0), speed)


def s_curve_path(
    radius: float, start: tuple[float, float] = (0.0, 0.0), heading: float = 0.0
) -> Composite:
    """Two half circles of ``radius`` (m), left then right, from ``start`` along ``heading``."""
    t = np.array([math.cos(heading), math.sin(heading)])
    n = _rotate_left(t)
    p0 = np.asarray(start, float)
    down = _polar(-n)
    c1, c2 = p0 + radius * n, p0 + 3 * radius * n
    first = Arc((float(c1[0]), float(c1[1])), radius, down, math.pi)
    second = Arc((float(c2[0]), float(c2[1])), radius, down, -math.pi)
    return Composite([first, second])


def figure_eight_path(radius: float, center: tuple[float, float] = (0.0, 0.0)) -> Periodic:
    """Figure eight: circles of ``radius`` (m) touching at ``center``, left loop then right."""
    cx, cy = center
    left = Arc((cx, cy + radius), radius, -math.pi / 2, TWO_PI)
    right = Arc((cx, cy - radius), radius, math.pi / 2, -TWO_PI)
    return Periodic(Composite([left, right]))


def spiral_path(pitch: float, r_start: float, r_end: float) -> Spiral:
    """Archimedean spiral from radius ``r_start`` to ``r_end`` (m), inward if it shrinks."""
    if not pitch > 0:
        raise ParameterError("pitch", f"parameter 'pitch' = {pitch!r} must be > 0 (m)")
    b = pitch / TWO_PI
    return Spiral(pitch, r_start / b, r_end / b, outward=r_end > r_start)


@dataclass(frozen=True)
class Turnaround:
    """The contest's turnaround path and its geometry.

    Attributes
    ----------
    path : Composite
        In-spiral, arc 1, arc 2, out-spiral. ``s = 0`` at the in-spiral's start.
    s_enter, s_exit : float
        Arc length where the S-curve starts and ends.
    arcs : (Arc, Arc)
        The two arcs of the S-curve.
    """

    path: Composite
    s_enter: float
    s_exit: float
    arcs: tuple[Arc, Arc]

    @property
    def s_curve_length(self) -> float:
        """Length of the S-curve (m)."""
        return self.s_exit - self.s_enter


def turnaround_path(pitch: float, turn_radius: float, ratio: float = 2.0,
                    theta_margin: float = TWO_PI, out_turns: float = 16.0) -> Turnaround:
    r"""In-spiral of ``pitch`` down to the circle of ``turn_radius``, S-curve, mirrored out-spiral.

    The in-spiral meets the circle at :math:`\theta_1 = R/b`, point :math:`P_1`; the out-spiral
    starts at :math:`-P_1` where its tangent equals the in-spiral's tangent at :math:`P_1`. The
    S-curve is :func:`s_curve_arcs` with radius ratio ``ratio`` (first arc : second arc).
    The in-spiral segment starts ``theta_margin`` rad outside :math:`\theta_1` (the path
    extrapolates further out); the out-spiral runs ``out_turns`` turns.
    """
    if not pitch > 0:
        raise ParameterError("pitch", f"parameter 'pitch' = {pitch!r} must be > 0 (m)")
    if not turn_radius > 0:
        raise ParameterError("turn_diameter", f"turnaround radius {turn_radius!r} must be > 0 (m)")
    theta1 = turn_radius / (pitch / TWO_PI)
    inward = Spiral(pitch, theta1 + theta_margin, theta1, outward=False)
    outward = Spiral(pitch, theta1, theta1 + TWO_PI * out_turns, outward=True)
    arc1, arc2 = s_curve_arcs(inward.end, inward.tangent(inward.length), outward.start,
                              outward.tangent(0.0), ratio)
    path = Composite([inward, arc1, arc2, outward], tol=1e-9 * max(1.0, turn_radius))
    s_enter = inward.length
    return Turnaround(path, s_enter, s_enter + arc1.length + arc2.length, (arc1, arc2))
