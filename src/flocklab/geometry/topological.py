r"""Metric-free (topological) neighbours in a periodic square box.

Two rules, both defined by the minimum-image geometry of the periodic ``L × L`` box:

* **k nearest neighbours**: the ``k`` particles ``j != i`` of smallest minimum-image
  distance :math:`|\mathbf r_j - \mathbf r_i|_{\mathrm{mi}}`, ties broken by the smaller
  particle index, so the set is unique. Search on the counting-sorted cell list of
  :mod:`flocklab.geometry.cell_list`, with a cell side chosen from the density
  (:func:`knn_cells_per_side`): rings of cells around the particle's cell are searched
  outwards until the ``k``-th distance is certified smaller than the distance from the
  particle to the unsearched region, so no particle outside can be closer. Expected cost
  O(k) per particle, O(N) in all (binning is a counting sort).
* **Voronoi neighbours**: the particles whose Voronoi cells share an edge with that of
  ``i``, i.e. its neighbours in the Delaunay triangulation of the periodic point set
  (:func:`periodic_delaunay_neighbours`). The triangulation is that of the points plus
  their periodic images within a margin ``w`` of the box (``scipy.spatial.Delaunay``,
  O(N log N)); it is accepted only when every triangle with a vertex in the box has its
  circumdisk inside the covered square :math:`(-w, L + w)^2`. Such a disk is empty of
  *all* periodic images (every image inside the square is in the triangulation), so the
  triangle is a triangle of the periodic Delaunay triangulation, and the full fan of
  triangles around each real point is its true star. Otherwise the margin is doubled and
  the triangulation redone; an empty disk of the periodic set has diameter below
  :math:`\sqrt 2 L` (larger ones contain a whole period), so ``w = 2L`` always passes.

References
----------
M. Ballerini et al., "Interaction ruling animal collective behavior depends on topological
rather than metric distance: evidence from a field study", PNAS 105, 1232 (2008) (k = 7).
F. Ginelli and H. Chaté, "Relevance of metric-free interactions in flocking phenomena",
Phys. Rev. Lett. 105, 168103 (2010) (Voronoi neighbours).
M. de Berg, O. Cheong, M. van Kreveld, M. Overmars, *Computational Geometry*, 3rd ed.,
Springer (2008), ch. 9 (Delaunay triangulations, the empty-circle property).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from flocklab.geometry.cell_list import bin_particles, gather_sorted, periodic_cell
from flocklab.geometry.vectors import min_image

#: Expected number of particles in a 3 × 3 stencil of the kNN cell list, in units of k + 1.
STENCIL_FILL = 2.0
#: Relative slack of the certificates (cell edges and circumdisks) against rounding.
SLACK = 1e-9


def knn_cells_per_side(n: int, k: int) -> int:
    r"""Cells per side of the kNN cell list: :math:`m = \lfloor\sqrt{9N / (f(k+1))}\rfloor`.

    A cell of side :math:`a = L/m` then holds :math:`\rho a^2 \approx f(k+1)/9` particles on
    average (:math:`f` = :data:`STENCIL_FILL`), so a 3 × 3 stencil usually holds the
    particle's ``k`` nearest others. ``m`` depends on ``N`` and ``k`` only, not on ``L``:
    a configuration scaled by a power of two is binned identically. Grids of fewer than
    three cells per side are replaced by one cell (every pair then searched directly).
    """
    m = math.floor(math.sqrt(9.0 * n / (STENCIL_FILL * (k + 1))))
    return m if m >= 3 else 1


@njit(cache=True, inline="always")
def _offer(d2, ident, slot, count, k, best_d2, best_id, best_slot):  # pragma: no cover
    """Insert candidate ``(d2, ident)`` into the sorted top-``k`` lists; the new count."""
    if count == k:
        last = k - 1
        if d2 > best_d2[last] or (d2 == best_d2[last] and ident > best_id[last]):
            return count
        position = last
    else:
        position = count
        count += 1
    while position > 0 and (best_d2[position - 1] > d2 or (
            best_d2[position - 1] == d2 and best_id[position - 1] > ident)):
        best_d2[position] = best_d2[position - 1]
        best_id[position] = best_id[position - 1]
        best_slot[position] = best_slot[position - 1]
        position -= 1
    best_d2[position] = d2
    best_id[position] = ident
    best_slot[position] = slot
    return count


@njit(cache=True)
def _knn_all(p, xs, ys, ids, box, k, best_d2, best_id, best_slot):  # pragma: no cover
    """Direct minimum-image search over every particle (small grids, far rings)."""
    count = 0
    for q in range(xs.shape[0]):
        if q == p:
            continue
        dx = min_image(xs[q] - xs[p], box)
        dy = min_image(ys[q] - ys[p], box)
        count = _offer(dx * dx + dy * dy, ids[q], q, count, k, best_d2, best_id, best_slot)


@njit(cache=True)
def knn_one(p, cx, cy, m, xs, ys, ids, cell_start, box, k, best_d2, best_id,
            best_slot):  # pragma: no cover
    """The ``k`` nearest others of sorted particle ``p`` (in cell ``(cx, cy)``).

    Fills ``best_d2``, ``best_id``, ``best_slot`` (shape ``(k,)``: squared distance,
    identity and sorted slot) in increasing (distance, identity) order. Ring ``R`` of
    cells is searched when the ``k``-th distance found so far is not below the certified
    distance to the unsearched region, ``(distance to the own cell's edge) + R a``.
    """
    if m < 3:
        _knn_all(p, xs, ys, ids, box, k, best_d2, best_id, best_slot)
        return
    side = box / m
    xp = xs[p]
    yp = ys[p]
    edge = min(xp - cx * side, (cx + 1) * side - xp, yp - cy * side, (cy + 1) * side - yp)
    count = 0
    ring = 0
    while True:
        for oy in range(-ring, ring + 1):
            step = 1 if abs(oy) == ring else 2 * ring
            for ox in range(-ring, ring + 1, max(step, 1)):
                nx, qx = periodic_cell(cx + ox, m, xp, box)
                ny, qy = periodic_cell(cy + oy, m, yp, box)
                c = ny * m + nx
                for q in range(cell_start[c], cell_start[c + 1]):
                    if q != p:
                        dx = xs[q] - qx
                        dy = ys[q] - qy
                        count = _offer(dx * dx + dy * dy, ids[q], q, count, k, best_d2,
                                       best_id, best_slot)
        reach = edge + ring * side - SLACK * side
        if count == k and reach > 0.0 and best_d2[k - 1] < reach * reach:
            return
        ring += 1
        if 2 * ring + 1 > m:
            _knn_all(p, xs, ys, ids, box, k, best_d2, best_id, best_slot)
            return


@njit(cache=True)
def _knn_sorted(xs, ys, ids, cell_start, m, box, k, order, out):  # pragma: no cover
    best_d2 = np.empty(k)
    best_id = np.empty(k, np.int64)
    best_slot = np.empty(k, np.int64)
    for c in range(max(m * m, 1)):
        cy = c // m
        cx = c - cy * m
        for p in range(cell_start[c], cell_start[c + 1]):
            knn_one(p, cx, cy, m, xs, ys, ids, cell_start, box, k, best_d2, best_id,
                    best_slot)
            out[order[p], :] = best_id


def knn_neighbours(x: np.ndarray, y: np.ndarray, box: float, k: int) -> np.ndarray:
    r"""The ``k`` nearest other particles of every particle (minimum image, periodic box).

    .. math::

        \mathcal N_i = \{j \ne i : (d_{ij}, j) \text{ among the } k \text{ smallest}\},
        \qquad d_{ij} = |\mathbf r_j - \mathbf r_i|_{\mathrm{mi}},

    ordered lexicographically by (distance, index): ties go to the smaller index.

    Parameters
    ----------
    x, y : ndarray, shape (N,)
        Positions in ``[0, L)`` (length units).
    box : float
        Box side ``L``.
    k : int
        Number of neighbours, ``1 <= k <= N - 1``.

    Returns
    -------
    ndarray of int64, shape (N, k)
        Row ``i``: the neighbours of particle ``i``, nearest first.

    References
    ----------
    M. Ballerini et al., "Interaction ruling animal collective behavior depends on
    topological rather than metric distance: evidence from a field study", PNAS 105,
    1232 (2008).
    """
    n = x.shape[0]
    if not 1 <= k <= n - 1:
        raise ValueError(f"k = {k} must be between 1 and N - 1 = {n - 1}")
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    m = knn_cells_per_side(n, k)
    cell_start = np.empty(m * m + 1, np.int64)
    order = np.empty(n, np.int64)
    bin_particles(x, y, box, m, np.empty(n, np.int64), cell_start, np.empty(m * m, np.int64),
                  order)
    xs, ys = np.empty(n), np.empty(n)
    ids = np.empty(n, np.int64)
    gather_sorted(order, x, y, x, y, np.arange(n), xs, ys, np.empty(n), np.empty(n), ids)
    out = np.empty((n, k), np.int64)
    _knn_sorted(xs, ys, ids, cell_start, m, float(box), int(k), order, out)
    return out


def brute_force_knn(x: np.ndarray, y: np.ndarray, box: float, k: int) -> np.ndarray:
    """O(N²) reference for :func:`knn_neighbours` (full minimum-image distance matrix)."""
    n = x.shape[0]
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    dx -= box * np.round(dx / box)
    dy -= box * np.round(dy / box)
    d2 = dx * dx + dy * dy
    np.fill_diagonal(d2, np.inf)
    index = np.broadcast_to(np.arange(n), (n, n))
    return np.lexsort((index, d2), axis=1)[:, :k]


def _with_images(x: np.ndarray, y: np.ndarray, box: float, margin: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The points, then their periodic images inside ``(-w, L + w)²``: ``(points (M, 2),
    origin (M,))`` with ``origin`` the index of the particle each point is a copy of."""
    tiles = math.ceil(margin / box)
    points = [np.column_stack([x, y])]
    origin = [np.arange(x.shape[0])]
    for sy in range(-tiles, tiles + 1):
        for sx in range(-tiles, tiles + 1):
            if sx == 0 and sy == 0:
                continue
            px = x + sx * box
            py = y + sy * box
            inside = np.flatnonzero((px > -margin) & (px < box + margin)
                                    & (py > -margin) & (py < box + margin))
            points.append(np.column_stack([px[inside], py[inside]]))
            origin.append(inside)
    return np.concatenate(points), np.concatenate(origin)


def _circumdisks_inside(points: np.ndarray, simplices: np.ndarray, box: float,
                        margin: float) -> bool:
    """Whether every triangle's circumdisk lies inside ``(-w, L + w)²`` (with slack)."""
    a = points[simplices[:, 0]]
    b = points[simplices[:, 1]] - a
    c = points[simplices[:, 2]] - a
    b2 = (b * b).sum(axis=1)
    c2 = (c * c).sum(axis=1)
    det = 2.0 * (b[:, 0] * c[:, 1] - b[:, 1] * c[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        ux = (c[:, 1] * b2 - b[:, 1] * c2) / det
        uy = (b[:, 0] * c2 - c[:, 0] * b2) / det
    radius = np.hypot(ux, uy) * (1.0 + SLACK) + SLACK * box
    centre_x = a[:, 0] + ux
    centre_y = a[:, 1] + uy
    inside = ((centre_x - radius > -margin) & (centre_x + radius < box + margin)
              & (centre_y - radius > -margin) & (centre_y + radius < box + margin))
    return bool(inside.all())


@njit(cache=True)
def _identity_rows(indptr, neighbours, origin, n):  # pragma: no cover
    """CSR rows ``0..n-1`` of the triangulation mapped to particle indices: self and
    repeated images dropped, each row in increasing index."""
    out_ptr = np.zeros(n + 1, np.int64)
    out = np.empty(indptr[n], np.int64)
    fill = 0
    for i in range(n):
        start = fill
        for position in range(indptr[i], indptr[i + 1]):
            j = origin[neighbours[position]]
            if j == i:
                continue
            slot = fill  # insertion sort: rows hold about six entries
            while slot > start and out[slot - 1] > j:
                slot -= 1
            if slot > start and out[slot - 1] == j:
                continue
            for move in range(fill, slot, -1):
                out[move] = out[move - 1]
            out[slot] = j
            fill += 1
        out_ptr[i + 1] = fill
    return out_ptr, out[:fill]


def default_margin(n: int, box: float) -> float:
    r"""First margin tried by :func:`periodic_delaunay_neighbours`:
    :math:`w_0 = 2\sqrt{(\ln N + 3)/(\pi\rho)}`, twice the radius of the largest empty disk
    expected among N uniform points (the largest circumdisk of a Poisson–Delaunay
    triangulation, :math:`\pi\rho R^2 \approx \ln N`), capped at ``2L``."""
    rho = n / (box * box)
    return min(2.0 * box, 2.0 * math.sqrt((math.log(max(n, 1)) + 3.0) / (math.pi * rho)))


def periodic_delaunay_neighbours(x: np.ndarray, y: np.ndarray, box: float,
                                 margin: float | None = None
                                 ) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Voronoi (Delaunay) neighbours of every particle in the periodic box.

    .. math::

        \mathcal V_i = \{j \ne i : \text{some image of } j \text{ shares a Delaunay edge
        with } \mathbf r_i\}

    The points and their images within ``margin`` of the box are triangulated in the order
    given (``scipy.spatial.Delaunay``, Qhull); the triangulation is accepted only when every
    triangle with a vertex in the box has its circumdisk inside :math:`(-w, L+w)^2` (then
    it is a triangle of the periodic Delaunay triangulation: see the module docstring),
    otherwise ``w`` is doubled (up to ``2L``, which always passes in exact arithmetic).

    Parameters
    ----------
    x, y : ndarray, shape (N,)
        Positions in ``[0, L)`` (length units).
    box : float
        Box side ``L``.
    margin : float, optional
        First margin ``w`` to try (default :func:`default_margin`).

    Returns
    -------
    indptr : ndarray of int64, shape (N + 1,)
    indices : ndarray of int64
        Neighbours of particle ``i``: ``indices[indptr[i]:indptr[i+1]]``, increasing,
        without ``i`` itself.
    margin : float
        The margin that passed the check.

    Raises
    ------
    RuntimeError
        If even ``w = 2L`` fails the check (a numerically degenerate configuration).

    References
    ----------
    F. Ginelli and H. Chaté, "Relevance of metric-free interactions in flocking phenomena",
    Phys. Rev. Lett. 105, 168103 (2010).
    """
    from scipy.spatial import Delaunay

    n = x.shape[0]
    width = default_margin(n, box) if margin is None else min(float(margin), 2.0 * box)
    while True:
        points, origin = _with_images(np.asarray(x, float), np.asarray(y, float), box, width)
        triangulation = Delaunay(points)
        simplices = triangulation.simplices
        real = simplices[(simplices < n).any(axis=1)]
        if _circumdisks_inside(points, real, box, width):
            break
        if width >= 2.0 * box:
            raise RuntimeError(f"the periodic Delaunay triangulation of {n} points fails its "
                               f"margin check at w = 2L = {2.0 * box!r}")
        width = min(2.0 * width, 2.0 * box)
    indptr, neighbours = triangulation.vertex_neighbor_vertices
    rows, indices = _identity_rows(indptr.astype(np.int64), neighbours.astype(np.int64),
                                   origin.astype(np.int64), n)
    return rows, indices, width


def brute_force_voronoi(x: np.ndarray, y: np.ndarray, box: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Reference for :func:`periodic_delaunay_neighbours`: the Delaunay triangulation of the
    3 × 3 tiled box (every image within ``L`` of the box, no margin check), neighbours of
    the central copies mapped to particle indices. Exact when every triangle at a central
    point has a circumdisk within ``L`` of the box (dense enough configurations)."""
    from scipy.spatial import Delaunay

    n = x.shape[0]
    shifts = [(sx, sy) for sy in (-1, 0, 1) for sx in (-1, 0, 1)]
    shifts.remove((0, 0))
    points = np.concatenate([np.column_stack([x, y])] + [
        np.column_stack([x + sx * box, y + sy * box]) for sx, sy in shifts])
    origin = np.tile(np.arange(n), 9)
    indptr, neighbours = Delaunay(points).vertex_neighbor_vertices
    sets = [sorted({int(origin[j]) for j in neighbours[indptr[i]:indptr[i + 1]]} - {i})
            for i in range(n)]
    rows = np.concatenate([[0], np.cumsum([len(s) for s in sets])]).astype(np.int64)
    return rows, np.array([j for s in sets for j in s], dtype=np.int64)
