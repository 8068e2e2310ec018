r"""Numba kernels of the springs model: spring forces, in-place vector updates, the
Jacobi-preconditioned conjugate gradients of the implicit steps and their Newton residual.

Pure functions on arrays (shapes in each docstring); :mod:`flocklab.models.springs.forces`
and :mod:`flocklab.models.springs.integrators` call them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def spring_forces(x, v, springs, rest, stiffness, damping, mass, gravity, external,
                  absolute_damping, out):  # pragma: no cover
    """Total force on every point into ``out`` (N, D); see the module docstring."""
    n_points, dim = x.shape
    for p in range(n_points):
        for a in range(dim):
            out[p, a] = mass[p] * gravity[a] + external[p, a] - absolute_damping * v[p, a]
    for s in range(springs.shape[0]):
        i = springs[s, 0]
        j = springs[s, 1]
        length_sq = 0.0
        for a in range(dim):
            length_sq += (x[j, a] - x[i, a]) ** 2
        length = math.sqrt(length_sq)
        if length == 0.0:
            continue
        closing = 0.0
        for a in range(dim):
            closing += (v[j, a] - v[i, a]) * (x[j, a] - x[i, a]) / length
        scale = (stiffness[s] * (length - rest[s]) + damping[s] * closing) / length
        for a in range(dim):
            f = scale * (x[j, a] - x[i, a])
            out[i, a] += f
            out[j, a] -= f


@njit(cache=True)
def axpy(y, alpha, x):  # pragma: no cover
    """``y += alpha * x`` in place (no temporary array)."""
    flat_y = y.reshape(-1)
    flat_x = x.reshape(-1)
    for n in range(flat_y.size):
        flat_y[n] += alpha * flat_x[n]


@njit(cache=True)
def _csr_matvec(indptr, indices, data, x, out):  # pragma: no cover
    for row in range(out.size):
        total = 0.0
        for slot in range(indptr[row], indptr[row + 1]):
            total += data[slot] * x[indices[slot]]
        out[row] = total


@njit(cache=True)
def jacobi_pcg(indptr, indices, data, b, x, rtol, max_iter, work):  # pragma: no cover
    r"""Jacobi-preconditioned conjugate gradients for :math:`A x = b`, in place in ``x``.

    Parameters
    ----------
    indptr, indices, data : arrays
        :math:`A` in CSR form, symmetric positive definite, shape (n, n).
    b : (n,) array
        Right-hand side.
    x : (n,) array
        Start (zero here) and result.
    rtol : float
        Stop when :math:`\|b - A x\|_2 \le` rtol :math:`\|b\|_2`.
    max_iter : int
        Iteration cap.
    work : (5, n) array
        Scratch (residual, preconditioned residual, direction, :math:`A p`, inverse diagonal),
        so that a solve allocates nothing.

    Returns
    -------
    int
        Iterations done (``max_iter`` + 1 if the cap was hit before convergence).

    Notes
    -----
    With :math:`A = M + h^2 K + h C`, :math:`K, C` positive semi-definite, the condition number
    is at most :math:`1 + (h^2\lambda_{max}(K) + h\lambda_{max}(C))/m_{min}`, bounded by the
    local stiffness whatever the number of points, so the iteration count does not grow with
    N and a solve costs O(N) (Saad, *Iterative Methods for Sparse Linear Systems*, 2003, 6.11).
    """
    n = b.size
    r, z, p, q, inverse_diagonal = work[0], work[1], work[2], work[3], work[4]
    for row in range(n):
        for slot in range(indptr[row], indptr[row + 1]):
            if indices[slot] == row:
                inverse_diagonal[row] = 1.0 / data[slot]
    _csr_matvec(indptr, indices, data, x, q)
    b_norm_sq = 0.0
    rz = 0.0
    for i in range(n):
        r[i] = b[i] - q[i]
        z[i] = inverse_diagonal[i] * r[i]
        p[i] = z[i]
        rz += r[i] * z[i]
        b_norm_sq += b[i] * b[i]
    threshold = rtol * rtol * b_norm_sq
    for iteration in range(max_iter):
        r_norm_sq = 0.0
        for i in range(n):
            r_norm_sq += r[i] * r[i]
        if r_norm_sq <= threshold:
            return iteration
        _csr_matvec(indptr, indices, data, p, q)
        pq = 0.0
        for i in range(n):
            pq += p[i] * q[i]
        alpha = rz / pq
        rz_new = 0.0
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * q[i]
            z[i] = inverse_diagonal[i] * r[i]
            rz_new += r[i] * z[i]
        beta = rz_new / rz
        rz = rz_new
        for i in range(n):
            p[i] = z[i] + beta * p[i]
    return max_iter + 1


@njit(cache=True)
def newton_rhs(mass, free, w, v, force, h, out):  # pragma: no cover
    r"""Minus the Newton residual, :math:`-G = h F - M (w - v)`, on the ``free`` coordinates
    (flat arrays; ``out`` has shape (n_free,))."""
    for k in range(free.size):
        q = free[k]
        out[k] = h * force[q] - mass[k] * (w[q] - v[q])
    return out


@njit(cache=True, inline="always")
def spring_length(x, i, j):  # pragma: no cover
    """Length of the spring from point ``i`` to point ``j`` at positions ``x`` (N, D)."""
    length = 0.0
    for a in range(x.shape[1]):
        length += (x[j, a] - x[i, a]) ** 2
    return math.sqrt(length)


@njit(cache=True)
def max_abs_strain(x, v, springs, rest):  # pragma: no cover
    """max_s |l_s / L_s - 1|, or inf when any position or velocity is not finite."""
    for p in range(x.shape[0]):
        for a in range(x.shape[1]):
            if not (np.isfinite(x[p, a]) and np.isfinite(v[p, a])):
                return np.inf
    largest = 0.0
    for s in range(springs.shape[0]):
        strain = abs(spring_length(x, springs[s, 0], springs[s, 1]) / rest[s] - 1.0)
        largest = max(largest, strain)
    return largest


@njit(cache=True)
def disturbance_energy(x, v, x_eq, springs, rest, stiffness, mass, gravity, external, fixed,
                       length_eq):  # pragma: no cover
    r"""Total energy at ``(x, v)`` minus the total energy at rest at ``x_eq`` (J).

    :math:`\sum_p \tfrac12 m_p |v_p|^2 - (m_p g + f_p)\cdot(x_p - x^*_p)` over free points plus
    :math:`\sum_s \tfrac12 k_s (l_s - l^*_s)(l_s + l^*_s - 2L_s)` over springs (``length_eq`` the
    lengths :math:`l^*` at ``x_eq``): the difference of the energies of
    :func:`~flocklab.models.springs.forces.energies`, term by term, so a small disturbance is
    not lost in the rounding of the total.
    """
    total = 0.0
    for p in range(x.shape[0]):
        if fixed[p]:
            continue
        for a in range(x.shape[1]):
            total += 0.5 * mass[p] * v[p, a] ** 2 \
                - (mass[p] * gravity[a] + external[p, a]) * (x[p, a] - x_eq[p, a])
    for s in range(springs.shape[0]):
        length = spring_length(x, springs[s, 0], springs[s, 1])
        total += 0.5 * stiffness[s] * (length - length_eq[s]) * (length + length_eq[s]
                                                                  - 2.0 * rest[s])
    return total
