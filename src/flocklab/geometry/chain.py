r"""The dragon as a chain of handles on a path: positions and rigid-bench speeds.

All handles lie on one path. The head front handle is at arc length :math:`s_0`; handle
:math:`i+1` is the nearest point *behind* handle :math:`i` at chord distance :math:`d_i`
(2.86 m for the head bench, 1.65 m for the others):

.. math:: s_{i+1} = s_i - \sigma_i, \qquad
          \sigma_i = \min\{\sigma > 0 : |P(s_i - \sigma) - P(s_i)| = d_i\}.

Because a chord is never longer than its arc, :math:`\sigma_i \ge d_i`. The root is
bracketed by stepping :math:`\sigma` up from :math:`d_i` in steps of :math:`d_i/8` (the first
sign change of :math:`f(\sigma) = |P(s_i-\sigma)-P(s_i)| - d_i`; with radii of curvature above
:math:`d_i/8`, two roots cannot share a step) and refined by Newton's method safeguarded by
bisection, :math:`f'(\sigma) = -(P(s_i-\sigma) - P(s_i))\cdot T(s_i-\sigma)/|\cdot|`. On a
single in-spiral the solve runs in the polar angle, where the root has the analytic
bracket :math:`\theta \in (\theta_i, \theta_i + \pi]` on which the chord grows monotonically.

Speeds follow from rigidity: both ends of a bench have the same velocity component along
the bench, :math:`v_i\,T_i\cdot e_i = v_{i+1}\,T_{i+1}\cdot e_i` with
:math:`e_i = (P_i - P_{i+1})/d_i`, hence

.. math:: v_{i+1} = v_i \frac{T_i\cdot e_i}{T_{i+1}\cdot e_i}.

Reference: 2024 CUMCM problem A ("板凳龙" 闹元宵), questions 1 and 4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from flocklab.geometry.paths import Path, Spiral

FloatArray = NDArray[np.float64]

#: Chord residual accepted by the solvers (m).
CHORD_TOL = 1e-12
#: Bracket steps per chord length.
SCAN_STEPS = 8
#: Give up beyond sigma = SCAN_MAX d (a path folded tighter than the bench).
SCAN_MAX = 4.0
#: Newton iterations of the chain solvers.
MAX_NEWTON = 60


def _chord(path: Path, s_lead: FloatArray, p_lead: FloatArray, sigma: FloatArray, d: float):
    """f(sigma) = |P(s - sigma) - P(s)| - d and its derivative."""
    q, t = path.frame(s_lead - sigma)
    diff = q - p_lead
    dist = np.sqrt(np.sum(diff * diff, axis=-1))
    slope = -np.sum(diff * t, axis=-1) / np.where(dist > 0, dist, 1.0)
    return dist - d, slope


def _bracket(path: Path, s_lead: FloatArray, p_lead: FloatArray, d: float):
    """First sign change of the chord residual on sigma = d (1 + k/8), k = 0, 1, ..."""
    lo = np.full(s_lead.shape, d)
    hi = np.full(s_lead.shape, np.nan)
    open_ = np.ones(s_lead.shape, dtype=bool)
    for k in range(1, int(SCAN_MAX * SCAN_STEPS) + 1):
        idx = np.nonzero(open_)[0]
        if idx.size == 0:
            break
        sigma = np.full(idx.size, d * (1.0 + k / SCAN_STEPS))
        f, _ = _chord(path, s_lead[idx], p_lead[idx], sigma, d)
        found = f > 0
        hi[idx[found]] = sigma[found]
        lo[idx[~found]] = sigma[~found]
        open_[idx[found]] = False
    if np.any(open_):
        raise ValueError(f"no point behind at chord distance {d} m within {SCAN_MAX} d of arc")
    return lo, hi


def follow(path: Path, s_lead: ArrayLike, d: float, tol: float = CHORD_TOL) -> FloatArray:
    r"""Arc length of the nearest point behind ``s_lead`` at chord distance ``d``.

    Parameters
    ----------
    path : Path
        The path (any :class:`~flocklab.geometry.paths.Path`).
    s_lead : array_like, shape (T,)
        Arc lengths of the leading handle (m).
    d : float
        Chord length (m).
    tol : float
        Accepted chord residual (m).

    Returns
    -------
    ndarray, shape (T,)
        :math:`s_{\text{lead}} - \sigma` with :math:`|P(s-\sigma) - P(s)| = d` and
        :math:`\sigma` the smallest such positive value.
    """
    s_lead = np.atleast_1d(np.asarray(s_lead, dtype=float))
    p_lead = path.position(s_lead)
    lo, hi = _bracket(path, s_lead, p_lead, d)
    sigma = lo.copy()
    for _ in range(MAX_NEWTON):
        f, slope = _chord(path, s_lead, p_lead, sigma, d)
        done = np.abs(f) <= tol
        if np.all(done):
            break
        lo = np.where(f <= 0, sigma, lo)
        hi = np.where(f > 0, sigma, hi)
        newton = sigma - f / np.where(slope > 0, slope, np.inf)
        inside = (newton > lo) & (newton < hi) & (slope > 0)
        sigma = np.where(done, sigma, np.where(inside, newton, 0.5 * (lo + hi)))
    return s_lead - sigma


def _spiral_thetas(path: Spiral, s_head: FloatArray, spacings: FloatArray) -> FloatArray:
    """Polar angles of all handles on an in-spiral, (T,) -> (T, H)."""
    theta = path.theta(s_head)
    # chord angles grow down an in-spiral: the head's half turn is the tightest check
    if np.any(path.b * (2 * theta + np.pi) < spacings.max()):
        raise ValueError(f"spiral too tight near its centre for a chord of {spacings.max()} m")
    from flocklab.geometry.compiled import spiral_chain_kernel

    return spiral_chain_kernel(theta, spacings, path.b, CHORD_TOL)


def _is_in_spiral(path: Path) -> bool:
    return isinstance(path, Spiral) and not path.outward


def solve_chain(path: Path, s_head: ArrayLike, spacings: ArrayLike) -> FloatArray:
    """Arc lengths of all handles, shape ``s_head.shape + (len(spacings) + 1,)``.

    Handle 0 is at ``s_head``; handle ``i + 1`` follows handle ``i`` at chord ``spacings[i]``.
    A single in-spiral is solved in the polar angle
    (:func:`flocklab.geometry.compiled.spiral_chain_kernel`);
    spiral/arc/line composites by the compiled twin of :func:`follow`
    (:mod:`flocklab.geometry.compiled`); any other path by :func:`follow`.
    """
    from flocklab.geometry import compiled

    s_head = np.asarray(s_head, dtype=float)
    flat = s_head.reshape(-1)
    spacings = np.asarray(spacings, dtype=float)
    out = np.empty((flat.size, spacings.size + 1))
    out[:, 0] = flat
    if _is_in_spiral(path):
        out[:, 1:] = path.arc_length_at(_spiral_thetas(path, flat, spacings)[:, 1:])
    elif (table := compiled.segment_table(path)) is not None:
        out = compiled.chain_kernel(flat, spacings, *table, CHORD_TOL)
        if np.any(np.isnan(out)):
            raise ValueError("a handle has no point behind it at its chord distance")
    else:
        s = flat
        for i, d in enumerate(spacings):
            s = follow(path, s, float(d))
            out[:, i + 1] = s
    return out.reshape((*s_head.shape, spacings.size + 1))


def path_frames(path: Path, s: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``path.frame(s)``, through the compiled kernel for spiral/arc/line paths."""
    from flocklab.geometry import compiled

    s = np.asarray(s, dtype=float)
    table = compiled.segment_table(path)
    if table is None:
        return path.frame(s)
    xy, tangent = compiled.frames_kernel(s.reshape(-1), *table)
    return xy.reshape((*s.shape, 2)), tangent.reshape((*s.shape, 2))


def chain_positions(path: Path, s_head: ArrayLike, spacings: ArrayLike) -> FloatArray:
    """Handle positions, shape ``s_head.shape + (H, 2)`` (no arc-length round trip on spirals)."""
    s_head = np.asarray(s_head, dtype=float)
    spacings = np.asarray(spacings, dtype=float)
    if _is_in_spiral(path):
        thetas = _spiral_thetas(path, s_head.reshape(-1), spacings)
        return path.point_at_theta(thetas).reshape((*s_head.shape, spacings.size + 1, 2))
    return path.position(solve_chain(path, s_head, spacings))


def speed_ratios(positions: FloatArray, tangents: FloatArray) -> FloatArray:
    r"""Speeds of all handles divided by the head's, from rigid-bench kinematics.

    :math:`v_{i+1}/v_0 = \prod_{k \le i} (T_k\cdot e_k)/(T_{k+1}\cdot e_k)`,
    :math:`e_k = (P_k - P_{k+1})/|P_k - P_{k+1}|`. Inputs have shape (..., H, 2).
    """
    e = positions[..., :-1, :] - positions[..., 1:, :]
    e /= np.linalg.norm(e, axis=-1, keepdims=True)
    front = np.sum(tangents[..., :-1, :] * e, axis=-1)
    back = np.sum(tangents[..., 1:, :] * e, axis=-1)
    ratios = np.ones(positions.shape[:-1])
    ratios[..., 1:] = np.cumprod(front / back, axis=-1)
    return ratios


@dataclass(frozen=True)
class ChainState:
    """Handles of the dragon at one or more instants.

    Attributes
    ----------
    s : ndarray, shape (..., H)
        Arc lengths on the path (m).
    xy : ndarray, shape (..., H, 2)
        Positions (m).
    tangent : ndarray, shape (..., H, 2)
        Unit tangents of the path at the handles (direction of travel).
    speed : ndarray, shape (..., H)
        Speeds (m/s).
    """

    s: FloatArray
    xy: FloatArray
    tangent: FloatArray
    speed: FloatArray

    @property
    def velocity(self) -> FloatArray:
        """Velocity vectors (..., H, 2) (m/s)."""
        return self.speed[..., None] * self.tangent


def chain_state(path: Path, s_head: ArrayLike, spacings: ArrayLike,
                head_speed: float = 1.0) -> ChainState:
    """Positions, tangents and speeds of all handles for head arc lengths ``s_head``."""
    s = solve_chain(path, s_head, spacings)
    xy, tangent = path_frames(path, s)
    return ChainState(s, xy, tangent, head_speed * speed_ratios(xy, tangent))
