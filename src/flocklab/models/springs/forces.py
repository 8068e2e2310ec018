r"""Forces, energies and the analytic sparse Jacobians of a :class:`SpringSystem`.

For spring :math:`s = (i, j)` with :math:`d = x_j - x_i`, :math:`l = |d|`, :math:`n = d/l`,
:math:`u = v_j - v_i`, the force on :math:`i` is
:math:`f = k(l - L)\,n + c\,(u\cdot n)\,n` and on :math:`j` it is :math:`-f`. Its derivatives
with respect to :math:`d` and :math:`u` are the :math:`D \times D` blocks

.. math::

    B = \frac{\partial f}{\partial d} = k\, n n^T + k\Big(1 - \frac{L}{l}\Big)(I - n n^T)
        + \frac{c}{l}\Big[n\, u^T (I - n n^T) + (u\cdot n)(I - n n^T)\Big],
    \qquad C = \frac{\partial f}{\partial u} = c\, n n^T,

so :math:`\partial F_i/\partial x_i = -B`, :math:`\partial F_i/\partial x_j = B`,
:math:`\partial F_j/\partial x_i = B`, :math:`\partial F_j/\partial x_j = -B` (same pattern for
:math:`C` and the velocities), and absolute damping adds :math:`-c_a I` to
:math:`\partial F/\partial v`. The first two terms of :math:`B` are the integrator article's
:math:`k n n^T + k(1 - L_0/l)(I - n n^T)`; there it is written as :math:`\partial F_i/\partial x_i`
with the force sign reversed, see the README, "Findings in the articles' code and prose".

Matrices are assembled straight into CSR storage: the sparsity pattern (4 blocks per spring
plus the diagonal) and the CSR slot of every block entry are computed once
(:class:`JacobianAssembler`); each assembly is one numba pass over the springs, no dense matrix
and no allocation.

Reference: D. Baraff, A. Witkin, "Large steps in cloth simulation", SIGGRAPH 1998, sec. 4–5.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit

from flocklab.models.springs.kernels import spring_forces
from flocklab.models.springs.structure import SpringSystem

# --------------------------------------------------------------------------- kernels


@njit(cache=True)
def _assemble(x, v, springs, rest, stiffness, damping, diagonal, c_x, c_v, c_geometric,
              definite, slots, diag_slots, data):  # pragma: no cover
    """CSR values of diag(diagonal) + c_x (-dF/dx) + c_v (-dF/dv), spring part.

    ``c_geometric`` multiplies the (c/l) velocity terms of dF/dx (1: exact; 0: dropped, which
    leaves a symmetric matrix). ``definite`` (bool) clamps the transverse stiffness
    k(1 - L/l) of compressed springs (l < L, where it is negative) to 0, so that every
    spring block is positive semi-definite (Choi & Ko 2002).

    ``slots[s, r, q, a, b]`` is the CSR position of row (point r of spring s, axis a), column
    (point q, axis b), or -1 when that row or column is not assembled.
    """
    dim = x.shape[1]
    data[:] = 0.0
    for dof in range(diag_slots.shape[0]):
        if diag_slots[dof] >= 0:
            data[diag_slots[dof]] += diagonal[dof]
    n = np.empty(dim)
    u = np.empty(dim)
    block = np.empty((dim, dim))
    for s in range(springs.shape[0]):
        i = springs[s, 0]
        j = springs[s, 1]
        length = 0.0
        for a in range(dim):
            n[a] = x[j, a] - x[i, a]
            u[a] = v[j, a] - v[i, a]
            length += n[a] * n[a]
        length = math.sqrt(length)
        if length == 0.0:
            continue
        closing = 0.0
        for a in range(dim):
            n[a] /= length
            closing += u[a] * n[a]
        k = stiffness[s]
        c = damping[s]
        c_l = c_geometric * c / length
        transverse = k * (1.0 - rest[s] / length)
        if definite and transverse < 0.0:
            transverse = 0.0
        transverse += c_l * closing
        for a in range(dim):
            for b in range(dim):
                nn = n[a] * n[b]
                projector = (1.0 if a == b else 0.0) - nn
                u_perp_b = u[b] - closing * n[b]
                b_ab = k * nn + transverse * projector + c_l * n[a] * u_perp_b
                block[a, b] = c_x * b_ab + c_v * c * nn
        for a in range(dim):
            for b in range(dim):
                e = block[a, b]
                for r in range(2):
                    for q in range(2):
                        slot = slots[s, r, q, a, b]
                        if slot >= 0:
                            data[slot] += e if r == q else -e


# --------------------------------------------------------------------------- assembly


class JacobianAssembler:
    """Sparse :math:`a_m M + a_x(-\\partial F/\\partial x) + a_v(-\\partial F/\\partial v)`.

    Parameters
    ----------
    system : SpringSystem
    free_only : bool
        Assemble only the rows and columns of free points (the Newton matrix of the implicit
        integrators) or all :math:`N D` coordinates (:func:`force_jacobians`).

    Notes
    -----
    The CSR pattern (diagonal plus four :math:`D\\times D` blocks per spring) and the slot of
    every block entry are computed here once; :meth:`assemble` refills ``data`` in place and
    returns the same :class:`scipy.sparse.csr_matrix` object each time.
    """

    def __init__(self, system: SpringSystem, free_only: bool = True) -> None:
        self.system = system
        dim, n_points = system.dim, system.n_points
        dofs = system.free_dofs if free_only else np.arange(n_points * dim)
        local = np.full(n_points * dim, -1, dtype=np.int64)
        local[dofs] = np.arange(dofs.size)
        size = dofs.size
        axes = np.arange(dim)
        ends = system.springs  # (S, 2)
        # global row/col of slots[s, r, q, a, b]
        rows = ends[:, :, None, None, None] * dim + axes[None, None, None, :, None]
        cols = ends[:, None, :, None, None] * dim + axes[None, None, None, None, :]
        rows, cols = np.broadcast_arrays(rows, cols)
        row_local, col_local = local[rows], local[cols]
        keep = (row_local >= 0) & (col_local >= 0)
        pattern_rows = np.concatenate([np.arange(size), row_local[keep]])
        pattern_cols = np.concatenate([np.arange(size), col_local[keep]])
        matrix = sp.coo_matrix((np.ones(pattern_rows.size), (pattern_rows, pattern_cols)),
                               shape=(size, size)).tocsr()
        matrix.sum_duplicates()
        matrix.sort_indices()
        keys = np.repeat(np.arange(size), np.diff(matrix.indptr)) * size + matrix.indices
        slots = np.full(rows.shape, -1, dtype=np.int64)
        slots[keep] = np.searchsorted(keys, row_local[keep] * size + col_local[keep])
        diag_slots = np.full(n_points * dim, -1, dtype=np.int64)
        diag_slots[dofs] = np.searchsorted(keys, np.arange(size) * size + np.arange(size))
        self.dofs, self.slots, self.diag_slots, self.matrix = dofs, slots, diag_slots, matrix
        self._mass = np.repeat(system.mass, dim)
        self._ones = np.ones(n_points * dim)

    def assemble(self, x: np.ndarray, v: np.ndarray, a_m: float, a_x: float, a_v: float,
                 geometric_damping: bool = True, definite: bool = False) -> sp.csr_matrix:
        """The matrix at state ``(x, v)`` (shape (N, D) each), restricted to ``dofs``.

        ``geometric_damping=False`` drops the :math:`(c/l)` velocity terms of
        :math:`\\partial F/\\partial x` (a symmetric matrix); ``definite=True`` also clamps the
        negative transverse stiffness :math:`k(1 - L/l)` of compressed springs to 0. Both
        together give a symmetric positive definite matrix when :math:`a_m > 0`,
        :math:`a_x, a_v \\ge 0` (the matrix used with conjugate gradients).
        """
        system = self.system
        diagonal = a_m * self._mass + a_v * system.absolute_damping * self._ones
        _assemble(x, v, system.springs, system.rest_length, system.stiffness, system.damping,
                  diagonal, a_x, a_v, 1.0 if geometric_damping else 0.0, bool(definite),
                  self.slots, self.diag_slots, self.matrix.data)
        return self.matrix


def forces(system: SpringSystem, x: np.ndarray, v: np.ndarray,
           out: np.ndarray | None = None) -> np.ndarray:
    """Total force on every point, shape (N, D) (N); fixed points included (unused)."""
    out = np.empty_like(x) if out is None else out
    spring_forces(x, v, system.springs, system.rest_length, system.stiffness, system.damping,
                  system.mass, system.gravity, system.external_force, system.absolute_damping,
                  out)
    return out


def force_jacobians(system: SpringSystem, x: np.ndarray, v: np.ndarray
                    ) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """:math:`\\partial F/\\partial x` and :math:`\\partial F/\\partial v`, CSR, shape (ND, ND).

    Row/column ``p * D + a`` is coordinate ``a`` of point ``p`` (fixed points included).
    """
    assembler = JacobianAssembler(system, free_only=False)
    jx = -assembler.assemble(x, v, 0.0, 1.0, 0.0).copy()
    jv = -assembler.assemble(x, v, 0.0, 0.0, 1.0).copy()
    return jx, jv


# --------------------------------------------------------------------------- observables


def lengths(system: SpringSystem, x: np.ndarray) -> np.ndarray:
    """Spring lengths :math:`l_s`, shape (S,) (m)."""
    i, j = system.springs.T
    return np.linalg.norm(x[j] - x[i], axis=1)


def strains(system: SpringSystem, x: np.ndarray) -> np.ndarray:
    """Strains :math:`l_s / L_s - 1`, shape (S,)."""
    return lengths(system, x) / system.rest_length - 1.0


def energies(system: SpringSystem, x: np.ndarray, v: np.ndarray) -> dict[str, float]:
    """Kinetic, elastic, gravitational, external-force and total energy (J).

    :math:`T = \\sum_p \\tfrac12 m_p |v_p|^2`, :math:`U_e = \\sum_s \\tfrac12 k_s (l_s - L_s)^2`,
    :math:`U_g = -\\sum_p m_p\\, g\\cdot x_p`, :math:`U_f = -\\sum_p f_p\\cdot x_p` (the constant
    external forces as a potential), sums over free points; total :math:`T + U_e + U_g + U_f`
    is conserved without damping.
    """
    free = ~system.fixed
    kinetic = 0.5 * float(np.sum(system.mass[free] * np.sum(v[free] ** 2, axis=1)))
    elastic = 0.5 * float(np.sum(system.stiffness * (lengths(system, x) - system.rest_length) ** 2))
    gravitational = -float(np.sum(system.mass[free] * (x[free] @ system.gravity)))
    external = -float(np.sum(system.external_force[free] * x[free]))
    return {"kinetic": kinetic, "elastic": elastic, "gravitational": gravitational,
            "external": external, "total": kinetic + elastic + gravitational + external}


def potential_energy(system: SpringSystem, x: np.ndarray) -> float:
    """:math:`U_e + U_g + U_f` of :func:`energies` (J)."""
    e = energies(system, x, np.zeros_like(x))
    return e["elastic"] + e["gravitational"] + e["external"]
