r"""Right-hand side and analytic banded Jacobian of the bench-dragon agent model.

State layout (interleaved per unit, so the Jacobian is banded):

.. math:: y = [x_0, y_0, v_{x,0}, v_{y,0},\; x_1, y_1, v_{x,1}, v_{y,1},\; \dots], \quad
          \text{shape } (4N,),

unit 0 the head. Equations of motion (the article, sections 3.2-3.3, with the forces of its
code), :math:`i = 0..N-1`:

.. math::
    m\,\dot v_i = k_{a,i}\,(\bar v_{\mathcal N_i} - v_i)
      + \sum_{j = i\pm1} \big[k_{c,i}\,(d'_{ij} - L)\,u'_{ij}
                              + k_\mathrm{pen}\,(d_{ij} - L)\,u_{ij}\big]
      - k_{d,i}\,v_i + \delta_{i0}\,k_p\,(v_\mathrm{des}(t, p_0) - v_0),

with :math:`d_{ij} = |p_j - p_i|`, :math:`u_{ij} = (p_j - p_i)/d_{ij}`. Alignment
neighbours :math:`\mathcal N_i`: ``front`` (the article's code) :math:`\{i-1\}`, none for
the head; ``front_back``: the chain neighbours that exist, :math:`\bar v` their mean.

*Delay* :math:`\tau`: the control terms use the neighbours' state at :math:`t - \tau`
(:math:`\bar v` from :math:`v_j(t-\tau)`, :math:`d'_{ij}, u'_{ij}` from
:math:`p_j(t-\tau) - p_i(t)`); the penalty (the bench itself) and the head's path term
use the present state. Without delay :math:`d' = d`.

*Look-ahead* (horizon :math:`T_\ell`, the article's section 6.3 "predict the unit ahead"):
the front neighbour's velocity in :math:`\bar v` is replaced by its prediction
:math:`v_j + T_\ell\,a_j`, where :math:`a_j` is the acceleration its own steering asks for:
:math:`k_{a,j}(v_{j-1} - v_j)` (:math:`j \ge 1`) or :math:`k_p(v_\mathrm{des} - v_0)`
(the head). This couples unit :math:`i` to :math:`i-2`; the band widens by one unit.

Jacobian: with :math:`r = p_j - p_i`, :math:`d = |r|`, :math:`u = r/d`,

.. math:: \frac{\partial}{\partial p_j}\big[(d - L)\,u\big] =
          (1 - L/d)\,I + (L/d)\,u u^\top = -\frac{\partial}{\partial p_i}[\cdot],

assembled in 2x2 blocks per (unit, neighbour offset) into a fixed CSC pattern.

Reference: the bench-dragon article (:data:`flocklab.references.BENCH_DRAGON_ARTICLE`),
sections 3.2, 3.3, 4.2, 5.3, 6.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numba import njit

from flocklab.models.dragon_agents.guidance import HeadGuide

EYE2 = np.eye(2)


@dataclass
class DragonSystem:
    """Parameters of one dragon and the vectorised right-hand side and Jacobian.

    Attributes
    ----------
    L, m, k_p, k_penalty : float
        Link length (m), unit mass (kg), head path gain and penalty stiffness.
    k_a, k_c, k_d : ndarray, shape (N,)
        Per-unit alignment gain (1/s, times m), cohesion stiffness and damping.
    guide : HeadGuide
        Desired head velocity and its Jacobian.
    neighbours : {"front", "front_back"}
        Alignment neighbours.
    look_ahead : float
        Look-ahead horizon :math:`T_\\ell` (s); 0 is the plain alignment.
    """

    L: float
    m: float
    k_p: float
    k_penalty: float
    k_a: np.ndarray
    k_c: np.ndarray
    k_d: np.ndarray
    guide: HeadGuide
    neighbours: str = "front"
    look_ahead: float = 0.0
    _pattern: tuple | None = field(default=None, repr=False)
    _csc: tuple | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.k_a.shape[0])

    @property
    def size(self) -> int:
        return 4 * self.n

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """Weights of the front and back neighbour in :math:`\\bar v`, shape (N,) each."""
        n = self.n
        front = np.ones(n)
        front[0] = 0.0
        back = np.zeros(n)
        if self.neighbours == "front_back":
            back[:-1] = 1.0
            count = front + back
            front, back = front / count, back / count
        return front, back

    # ------------------------------------------------------------------ right-hand side

    def accelerations(self, t: float, y: np.ndarray, past: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Control and total acceleration, shape (N, 2) each.

        ``past`` is the state at :math:`t - \\tau` (same layout as ``y``) or None for no
        delay. The control part is alignment + cohesion + path following (divided by m).
        Computed by the compiled kernel :func:`_accelerations` (one pass over the units).
        """
        state = np.ascontiguousarray(y, dtype=np.float64).reshape(-1, 4)
        seen = state if past is None else np.ascontiguousarray(past,
                                                                dtype=np.float64).reshape(-1, 4)
        v_des = self.guide.desired_velocity(t, state[0, :2])
        v_pred = v_des
        if self.look_ahead > 0 and past is not None:
            v_pred = self.guide.desired_velocity(t, seen[0, :2])
        w_front, w_back = self.weights()
        control = np.empty((self.n, 2))
        total = np.empty((self.n, 2))
        _accelerations(state, seen, self.k_a, self.k_c, self.k_d, w_front, w_back,
                       float(self.k_p), float(self.k_penalty), float(self.L), float(self.m),
                       float(self.look_ahead), float(v_des[0]), float(v_des[1]),
                       float(v_pred[0]), float(v_pred[1]), control, total)
        return control, total

    def accelerations_numpy(self, t: float, y: np.ndarray, past: np.ndarray | None = None
                            ) -> tuple[np.ndarray, np.ndarray]:
        """The same as :meth:`accelerations` in vectorised NumPy (reference for tests)."""
        state = y.reshape(-1, 4)
        p, v = state[:, :2], state[:, 2:]
        seen = state if past is None else past.reshape(-1, 4)
        ps, vs = seen[:, :2], seen[:, 2:]
        control = np.zeros_like(p)
        # alignment
        w_front, w_back = self.weights()
        vbar = np.zeros_like(v)
        vbar[1:] += w_front[1:, None] * self.front_velocity(t, ps, vs)
        vbar[:-1] += w_back[:-1, None] * vs[1:]
        gain = np.where(w_front + w_back > 0, self.k_a, 0.0)
        control += gain[:, None] * (vbar - v)
        # cohesion toward both chain neighbours (the neighbours as seen, maybe delayed)
        control[1:] += self.k_c[1:, None] * _spring(ps[:-1] - p[1:], self.L)
        control[:-1] += self.k_c[:-1, None] * _spring(ps[1:] - p[:-1], self.L)
        control[0] += self.k_p * (self.guide.desired_velocity(t, p[0]) - v[0])
        # penalty (always the present state) and damping
        pull = self.k_penalty * _spring(p[:-1] - p[1:], self.L)
        total = control - self.k_d[:, None] * v
        total[1:] += pull
        total[:-1] -= pull
        return control / self.m, total / self.m

    def front_velocity(self, t: float, ps: np.ndarray, vs: np.ndarray) -> np.ndarray:
        """Velocity of each unit's front neighbour (predicted with look-ahead), (N-1, 2)."""
        if self.look_ahead == 0.0:
            return vs[:-1]
        predicted = vs[:-1].copy()
        predicted[1:] += self.look_ahead * self.k_a[1:-1, None] * (vs[:-2] - vs[1:-1])
        predicted[0] += self.look_ahead * self.k_p * (
            self.guide.desired_velocity(t, ps[0]) - vs[0])
        return predicted

    def rhs(self, t: float, y: np.ndarray, past: np.ndarray | None = None) -> np.ndarray:
        """:math:`dy/dt`, shape (4N,), same layout as ``y``."""
        _, acc = self.accelerations(t, y, past)
        out = np.empty(self.size)
        _pack_derivative(y.reshape(-1, 4), acc, out.reshape(-1, 4))
        return out

    # ------------------------------------------------------------------ Jacobian

    def offsets(self) -> tuple[int, ...]:
        """Neighbour offsets j - i that the velocity rows couple to."""
        return (-2, -1, 0, 1) if self.look_ahead > 0 else (-1, 0, 1)

    def blocks(self, t: float, y: np.ndarray, delayed: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
        """2x2 blocks :math:`\\partial \\dot v_i / \\partial p_{i+o}` and
        :math:`\\partial \\dot v_i / \\partial v_{i+o}`, shape (N, len(offsets), 2, 2).

        With ``delayed`` the neighbours' (past) state is a given function of time, so
        only the dependence on the unit's own present state remains in the control terms.
        """
        n, offs = self.n, self.offsets()
        col = {o: k for k, o in enumerate(offs)}
        state = y.reshape(-1, 4)
        p = state[:, :2]
        jp = np.zeros((n, len(offs), 2, 2))
        jv = np.zeros((n, len(offs), 2, 2))
        stiff_pen = self.k_penalty * _spring_jacobian(p[:-1] - p[1:], self.L)  # d/d(front)
        _add_link(jp, col, stiff_pen)
        if not delayed:
            _add_cohesion(jp, col, self.k_c, _spring_jacobian(p[:-1] - p[1:], self.L))
        jv[:, col[0]] -= self.k_d[:, None, None] * EYE2
        head = self.guide.jacobian(t, p[0])
        jp[0, col[0]] += self.k_p * head
        jv[0, col[0]] -= self.k_p * EYE2
        self._alignment_blocks(jp, jv, col, head, delayed)
        return jp / self.m, jv / self.m

    def _alignment_blocks(self, jp: np.ndarray, jv: np.ndarray, col: dict[int, int],
                          head: np.ndarray, delayed: bool) -> None:
        w_front, w_back = self.weights()
        has = (w_front + w_back) > 0
        jv[has, col[0]] -= self.k_a[has, None, None] * EYE2
        if delayed:
            return
        gain_f = (self.k_a * w_front)[1:]
        if self.look_ahead > 0:
            lead = self.look_ahead * self.k_a[1:-1]
            jv[2:, col[-1]] += (gain_f[1:] * (1.0 - lead))[:, None, None] * EYE2
            jv[2:, col[-2]] += (gain_f[1:] * lead)[:, None, None] * EYE2
            tk = self.look_ahead * self.k_p
            jv[1, col[-1]] += gain_f[0] * (1.0 - tk) * EYE2
            jp[1, col[-1]] += gain_f[0] * tk * head
        else:
            jv[1:, col[-1]] += gain_f[:, None, None] * EYE2
        if self.neighbours == "front_back":
            jv[:-1, col[1]] += (self.k_a * w_back)[:-1, None, None] * EYE2

    def cohesion_self_blocks(self, y: np.ndarray, past: np.ndarray) -> np.ndarray:
        """Delayed cohesion: :math:`\\partial \\dot v_i / \\partial p_i` blocks, (N, 2, 2)."""
        p = y.reshape(-1, 4)[:, :2]
        ps = past.reshape(-1, 4)[:, :2]
        out = np.zeros((self.n, 2, 2))
        out[1:] -= self.k_c[1:, None, None] * _spring_jacobian(ps[:-1] - p[1:], self.L)
        out[:-1] -= self.k_c[:-1, None, None] * _spring_jacobian(ps[1:] - p[:-1], self.L)
        return out / self.m

    def pattern(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, mask) of the fixed block pattern, in the flattening order of
        :meth:`values`; the mask drops blocks that fall outside the chain."""
        if self._pattern is None:
            self._pattern = _build_pattern(self.n, self.offsets())
        return self._pattern

    def values(self, t: float, y: np.ndarray, past: np.ndarray | None = None) -> np.ndarray:
        """Jacobian entries in pattern order."""
        jp, jv = self.blocks(t, y, delayed=past is not None)
        if past is not None:
            jp[:, self.offsets().index(0)] += self.cohesion_self_blocks(y, past)
        _, _, mask = self.pattern()
        return np.concatenate([np.ones(2 * self.n), jp[mask].ravel(), jv[mask].ravel()])

    def jacobian(self, t: float, y: np.ndarray, past: np.ndarray | None = None
                 ) -> sp.csc_matrix:
        """Analytic Jacobian :math:`\\partial f/\\partial y` as a CSC matrix (4N, 4N)."""
        if self._csc is None:
            rows, cols, _ = self.pattern()
            order = sp.csc_matrix((np.arange(1.0, rows.size + 1), (rows, cols)),
                                  shape=(self.size, self.size))
            self._csc = (order.indices, order.indptr, order.data.astype(np.int64) - 1)
        indices, indptr, perm = self._csc
        return sp.csc_matrix((self.values(t, y, past)[perm], indices, indptr),
                             shape=(self.size, self.size))

    def sparsity(self) -> sp.csc_matrix:
        """Structural non-zeros (``jac_sparsity`` for finite-difference Jacobians)."""
        rows, cols, _ = self.pattern()
        return sp.csc_matrix((np.ones(rows.size), (rows, cols)), shape=(self.size, self.size))

    def bandwidth(self) -> tuple[int, int]:
        """(lband, uband): :math:`J_{ij} = 0` unless :math:`i - l \\le j \\le i + u`."""
        rows, cols, _ = self.pattern()
        return int(np.max(rows - cols)), int(np.max(cols - rows))

    def banded(self, t: float, y: np.ndarray, past: np.ndarray | None = None) -> np.ndarray:
        """Jacobian in LAPACK packed band form, ``ab[u + i - j, j] = J[i, j]`` (LSODA)."""
        rows, cols, _ = self.pattern()
        lower, upper = self.bandwidth()
        packed = np.zeros((lower + upper + 1, self.size))
        np.add.at(packed, (upper + rows - cols, cols), self.values(t, y, past))
        return packed


@njit(cache=True)
def _link(ax: float, ay: float, bx: float, by: float, rest: float) -> tuple[float, float]:
    """(|b - a| - L) (b - a)/|b - a| (zero for coincident points)."""
    rx, ry = bx - ax, by - ay
    d = math.sqrt(rx * rx + ry * ry)
    if d == 0.0:
        return 0.0, 0.0
    scale = (d - rest) / d
    return scale * rx, scale * ry


@njit(cache=True)
def _accelerations(state, seen, k_a, k_c, k_d, w_front, w_back, k_p, k_pen, rest, mass,
                   look_ahead, vdx, vdy, vpx, vpy, control, total):  # pragma: no cover
    """One pass over the units: control and total accelerations (see module docstring).

    ``state``/``seen``: (N, 4) present and perceived (delayed) states; ``(vdx, vdy)`` the
    head's desired velocity now, ``(vpx, vpy)`` at the perceived head state (look-ahead).
    """
    n = state.shape[0]
    for i in range(n):
        px, py, vx, vy = state[i, 0], state[i, 1], state[i, 2], state[i, 3]
        cx = 0.0
        cy = 0.0
        tx = 0.0
        ty = 0.0
        if w_front[i] + w_back[i] > 0.0:
            bx = 0.0
            by = 0.0
            if i > 0:
                fx, fy = seen[i - 1, 2], seen[i - 1, 3]
                if look_ahead > 0.0:
                    if i == 1:
                        fx += look_ahead * k_p * (vpx - seen[0, 2])
                        fy += look_ahead * k_p * (vpy - seen[0, 3])
                    else:
                        fx += look_ahead * k_a[i - 1] * (seen[i - 2, 2] - seen[i - 1, 2])
                        fy += look_ahead * k_a[i - 1] * (seen[i - 2, 3] - seen[i - 1, 3])
                bx += w_front[i] * fx
                by += w_front[i] * fy
            if i < n - 1:
                bx += w_back[i] * seen[i + 1, 2]
                by += w_back[i] * seen[i + 1, 3]
            cx += k_a[i] * (bx - vx)
            cy += k_a[i] * (by - vy)
        if i > 0:
            sx, sy = _link(px, py, seen[i - 1, 0], seen[i - 1, 1], rest)
            cx += k_c[i] * sx
            cy += k_c[i] * sy
            sx, sy = _link(px, py, state[i - 1, 0], state[i - 1, 1], rest)
            tx += k_pen * sx
            ty += k_pen * sy
        if i < n - 1:
            sx, sy = _link(px, py, seen[i + 1, 0], seen[i + 1, 1], rest)
            cx += k_c[i] * sx
            cy += k_c[i] * sy
            sx, sy = _link(px, py, state[i + 1, 0], state[i + 1, 1], rest)
            tx += k_pen * sx
            ty += k_pen * sy
        if i == 0:
            cx += k_p * (vdx - vx)
            cy += k_p * (vdy - vy)
        control[i, 0] = cx / mass
        control[i, 1] = cy / mass
        total[i, 0] = (cx + tx - k_d[i] * vx) / mass
        total[i, 1] = (cy + ty - k_d[i] * vy) / mass


@njit(cache=True)
def _pack_derivative(state, acc, out):  # pragma: no cover
    for i in range(state.shape[0]):
        out[i, 0] = state[i, 2]
        out[i, 1] = state[i, 3]
        out[i, 2] = acc[i, 0]
        out[i, 3] = acc[i, 1]


def _spring(r: np.ndarray, rest: float) -> np.ndarray:
    """:math:`(|r| - L)\\,r/|r|` row-wise, shape (M, 2) (zero where r = 0)."""
    d = np.sqrt(np.einsum("ij,ij->i", r, r))
    scale = np.divide(d - rest, d, out=np.zeros_like(d), where=d > 0)
    return scale[:, None] * r


def _spring_jacobian(r: np.ndarray, rest: float) -> np.ndarray:
    """:math:`\\partial[(|r| - L) r/|r|]/\\partial r = (1 - L/d) I + (L/d) u u^T`, (M, 2, 2)."""
    d = np.sqrt(np.einsum("ij,ij->i", r, r))
    d = np.where(d > 0, d, rest)
    u = r / d[:, None]
    ratio = rest / d
    return (1.0 - ratio)[:, None, None] * EYE2 + ratio[:, None, None] * u[:, :, None] \
        * u[:, None, :]


def _add_link(jp: np.ndarray, col: dict[int, int], stiff: np.ndarray) -> None:
    """Penalty blocks: link l between unit l (back) and l-1 (front), same stiffness."""
    jp[1:, col[-1]] += stiff
    jp[1:, col[0]] -= stiff
    jp[:-1, col[0]] -= stiff
    jp[:-1, col[1]] += stiff


def _add_cohesion(jp: np.ndarray, col: dict[int, int], k_c: np.ndarray,
                  unit: np.ndarray) -> None:
    """Undelayed cohesion blocks: each end of a link with that unit's own gain."""
    back = k_c[1:, None, None] * unit
    front = k_c[:-1, None, None] * unit
    jp[1:, col[-1]] += back
    jp[1:, col[0]] -= back
    jp[:-1, col[0]] -= front
    jp[:-1, col[1]] += front


def _build_pattern(n: int, offsets: tuple[int, ...]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows and columns of the Jacobian entries in :meth:`DragonSystem.values` order:
    the 2N position rows (dx/dt = v), then the 2x2 blocks d(v_i)/d(p_{i+o}) and
    d(v_i)/d(v_{i+o}) for the offsets that stay inside the chain (``mask``, (N, K))."""
    units = np.arange(n)
    other = units[:, None] + np.asarray(offsets)[None, :]
    mask = (other >= 0) & (other < n)
    a = np.arange(2)
    shape = (n, len(offsets), 2, 2)
    # velocity rows 4i+2+a against position columns 4j+b (velocity columns: +2)
    row_blk = np.broadcast_to(4 * units[:, None, None, None] + 2 + a[None, None, :, None],
                              shape)
    col_blk = np.broadcast_to(4 * other[:, :, None, None] + a[None, None, None, :], shape)
    rows_p, cols_p = row_blk[mask].ravel(), col_blk[mask].ravel()
    rows_x = (4 * units[:, None] + a[None, :]).ravel()
    rows = np.concatenate([rows_x, rows_p, rows_p])
    cols = np.concatenate([rows_x + 2, cols_p, cols_p + 2])
    return rows, cols, mask
