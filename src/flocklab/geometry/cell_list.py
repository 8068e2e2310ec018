"""Cell-list neighbour search in a periodic square box.

Particles are counting-sorted into ``m × m`` square cells of side ``L/m >= r``,
so all neighbours within distance ``r`` of a particle lie in its own cell or
one of the eight adjacent ones. Binning is O(N); the pair loop visits only
particles in the 3 × 3 stencil, so one sweep costs O(N ρ r²).

For ``L < 3r`` the stencil would visit some cells twice; the grid then
collapses to a single cell (``m = 1``) and every pair is tested once under the
minimum-image convention, which keeps the result exact for any box size.

The kernels here are pure functions on arrays (numba, ``cache=True``); they are
shared by the models that need local averages (Vicsek, Boids).

References
----------
M. P. Allen and D. J. Tildesley, *Computer Simulation of Liquids*, 2nd ed.,
Oxford University Press (2017), §5.3 (cell lists).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from flocklab.core.variants import serial_variant


def cells_per_side(box: float, radius: float) -> int:
    """Number of cells ``m`` per box side for cutoff ``radius``.

    ``m = floor(L / r)`` so that the cell side ``L/m`` is at least ``r``; a grid
    with fewer than three cells per side is replaced by a single cell, because
    a 3 × 3 stencil on it would count periodic images of a cell twice.
    """
    if not (box > 0 and radius > 0):
        raise ValueError("box and radius must be positive")
    m = int(np.floor(box / radius))
    # Guard the product m * (L/m) against rounding so that the cell side stays >= r.
    while m > 1 and box / m < radius:
        m -= 1
    return m if m >= 3 else 1


@njit(cache=True, parallel=True)
def _cell_indices(x, y, inverse_side, m, cell_of):  # pragma: no cover
    for i in prange(x.shape[0]):
        cx = int(x[i] * inverse_side)
        cy = int(y[i] * inverse_side)
        if cx >= m:
            cx = m - 1
        elif cx < 0:
            cx = 0
        if cy >= m:
            cy = m - 1
        elif cy < 0:
            cy = 0
        cell_of[i] = cy * m + cx


@njit(cache=True)
def bin_particles(x, y, box, m, cell_of, cell_start, cell_fill, order):  # pragma: no cover
    """Counting sort of particles into an ``m × m`` grid.

    Parameters
    ----------
    x, y : ndarray, shape (N,)
        Positions in ``[0, L)``.
    box : float
        Box side ``L``.
    m : int
        Cells per side.
    cell_of : ndarray of int64, shape (N,)
        Output: cell index ``cy * m + cx`` of each particle.
    cell_start : ndarray of int64, shape (m*m + 1,)
        Output: particles of cell ``c`` are ``order[cell_start[c]:cell_start[c+1]]``.
    cell_fill : ndarray of int64, shape (m*m,)
        Work space.
    order : ndarray of int64, shape (N,)
        Output: particle indices sorted by cell, stable within a cell.
    """
    n = x.shape[0]
    _cell_indices(x, y, m / box, m, cell_of)
    cell_start[:] = 0
    for i in range(n):
        cell_start[cell_of[i] + 1] += 1
    for c in range(m * m):
        cell_start[c + 1] += cell_start[c]
        cell_fill[c] = cell_start[c]
    for i in range(n):
        c = cell_of[i]
        order[cell_fill[c]] = i
        cell_fill[c] += 1


@njit(cache=True, parallel=True)
def gather_sorted(order, x, y, ux, uy, ident, xs, ys, uxs, uys, ids):  # pragma: no cover
    """Copy per-particle arrays (and their identities) into cell order: ``xs[k] = x[order[k]]``."""
    for k in prange(order.shape[0]):
        i = order[k]
        xs[k] = x[i]
        ys[k] = y[i]
        uxs[k] = ux[i]
        uys[k] = uy[i]
        ids[k] = ident[i]


@njit(cache=True, inline="always")
def _strip_sum(first, last, xs, ys, uxs, uys, px, py, radius_sq):  # pragma: no cover
    """Sum of ``(ux, uy)`` over sorted particles ``first..last-1`` within r of ``(px, py)``."""
    # Branch-free: a mispredicted "inside" branch per candidate costs more than the pair test.
    sum_x = 0.0
    sum_y = 0.0
    count = 0.0
    for q in range(first, last):
        dx = xs[q] - px
        dy = ys[q] - py
        weight = 1.0 if dx * dx + dy * dy <= radius_sq else 0.0
        sum_x += weight * uxs[q]
        sum_y += weight * uys[q]
        count += weight
    return sum_x, sum_y, int(count)


@njit(cache=True, inline="always")
def _single_cell_sum(k, xs, ys, uxs, uys, box, radius_sq):  # pragma: no cover
    """Minimum-image sum over all particles, for grids of one cell (L < 3r)."""
    half = 0.5 * box
    sum_x = 0.0
    sum_y = 0.0
    count = 0
    for q in range(xs.shape[0]):
        dx = xs[q] - xs[k]
        if dx > half:
            dx -= box
        elif dx < -half:
            dx += box
        dy = ys[q] - ys[k]
        if dy > half:
            dy -= box
        elif dy < -half:
            dy += box
        if dx * dx + dy * dy <= radius_sq:
            sum_x += uxs[q]
            sum_y += uys[q]
            count += 1
    return sum_x, sum_y, count


@njit(cache=True, inline="always")
def periodic_cell(index, m, query, box):  # pragma: no cover
    """Cell index wrapped into ``0..m-1`` and the query coordinate moved to that image."""
    if index < 0:
        return index + m, query + box
    if index >= m:
        return index - m, query - box
    return index, query


@njit(cache=True, inline="always")
def neighbour_sum_one(k, cx, cy, m, xs, ys, uxs, uys, cell_start, box,
                      radius_sq):  # pragma: no cover
    """Sum of ``(ux, uy)`` over particles within ``radius`` of sorted particle ``k``.

    Returns ``(sum_x, sum_y, count)``; the particle itself is included. With three or
    more cells per side, the three cells of a stencil row are one contiguous range of the
    sorted arrays unless the row wraps around the box, and the periodic image of a wrapped
    cell is handled by shifting the query point by ``±L``, so the pair loop has no branches.
    """
    if m < 3:
        return _single_cell_sum(k, xs, ys, uxs, uys, box, radius_sq)
    xk = xs[k]
    yk = ys[k]
    sum_x = 0.0
    sum_y = 0.0
    count = 0
    for oy in range(-1, 2):
        ny, py = periodic_cell(cy + oy, m, yk, box)
        row = ny * m
        if 1 <= cx <= m - 2:
            sx, sy, n = _strip_sum(cell_start[row + cx - 1], cell_start[row + cx + 2], xs, ys,
                                   uxs, uys, xk, py, radius_sq)
            sum_x += sx
            sum_y += sy
            count += n
        else:
            for ox in range(-1, 2):
                nx, px = periodic_cell(cx + ox, m, xk, box)
                sx, sy, n = _strip_sum(cell_start[row + nx], cell_start[row + nx + 1], xs, ys,
                                       uxs, uys, px, py, radius_sq)
                sum_x += sx
                sum_y += sy
                count += n
    return sum_x, sum_y, count


@njit(cache=True, parallel=True)
def _neighbour_sums_sorted(xs, ys, uxs, uys, cell_start, m, box, radius, order,
                           sum_x, sum_y, count):  # pragma: no cover
    radius_sq = radius * radius
    for c in prange(m * m):
        cy = c // m
        cx = c - cy * m
        for k in range(cell_start[c], cell_start[c + 1]):
            sx, sy, n = neighbour_sum_one(k, cx, cy, m, xs, ys, uxs, uys, cell_start, box,
                                          radius_sq)
            i = order[k]
            sum_x[i] = sx
            sum_y[i] = sy
            count[i] = n


def neighbour_sums(x: np.ndarray, y: np.ndarray, ux: np.ndarray, uy: np.ndarray,
                   box: float, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Sums of a vector field over the neighbours of every particle (cell list).

    .. math::

        S_i = \sum_{j : |\mathbf{r}_j - \mathbf{r}_i|_{\mathrm{mi}} \le r} \mathbf{u}_j,
        \qquad n_i = \#\{j : |\mathbf{r}_j - \mathbf{r}_i|_{\mathrm{mi}} \le r\}

    with the minimum-image distance in the periodic box; ``j = i`` is included.

    Parameters
    ----------
    x, y : ndarray, shape (N,)
        Positions in ``[0, L)`` (length units).
    ux, uy : ndarray, shape (N,)
        Vector field to sum (for the Vicsek model the unit headings).
    box : float
        Box side ``L``.
    radius : float
        Interaction radius ``r``.

    Returns
    -------
    sum_x, sum_y : ndarray, shape (N,)
    count : ndarray of int64, shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.1, 9.9, 5.0]); y = np.array([5.0, 5.0, 5.0])
    >>> sx, sy, n = neighbour_sums(x, y, np.ones(3), np.zeros(3), box=10.0, radius=1.0)
    >>> n.tolist()  # the first two are neighbours across the periodic edge
    [2, 2, 1]
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    ux = np.ascontiguousarray(ux, dtype=np.float64)
    uy = np.ascontiguousarray(uy, dtype=np.float64)
    n = x.shape[0]
    m = cells_per_side(box, radius)
    cell_of = np.empty(n, np.int64)
    cell_start = np.empty(m * m + 1, np.int64)
    cell_fill = np.empty(m * m, np.int64)
    order = np.empty(n, np.int64)
    bin_particles(x, y, box, m, cell_of, cell_start, cell_fill, order)
    xs, ys, uxs, uys = (np.empty(n) for _ in range(4))
    gather_sorted(order, x, y, ux, uy, np.arange(n), xs, ys, uxs, uys, np.empty(n, np.int64))
    sum_x = np.empty(n)
    sum_y = np.empty(n)
    count = np.empty(n, np.int64)
    _neighbour_sums_sorted(xs, ys, uxs, uys, cell_start, m, box, radius, order,
                           sum_x, sum_y, count)
    return sum_x, sum_y, count


def brute_force_neighbour_sums(x: np.ndarray, y: np.ndarray, ux: np.ndarray, uy: np.ndarray,
                               box: float, radius: float
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """O(N²) reference for :func:`neighbour_sums` (minimum image, self included).

    Plain NumPy on the full distance matrix; meant for tests and small N.
    """
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    dx -= box * np.round(dx / box)
    dy -= box * np.round(dy / box)
    within = dx * dx + dy * dy <= radius * radius
    return within @ ux, within @ uy, within.sum(axis=1).astype(np.int64)


# Serial twins for single-threaded runs (flocklab.core.variants).
_cell_indices_serial = serial_variant(_cell_indices)
bin_particles_serial = serial_variant(bin_particles, {"_cell_indices": _cell_indices_serial})
gather_sorted_serial = serial_variant(gather_sorted)
