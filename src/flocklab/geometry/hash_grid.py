r"""Neighbour search for groups in open space (2-D and 3-D): a hashed cell list.

Agents are binned into cubic cells of side :math:`h \ge r` (``r`` the interaction range)
laid over the bounding box of the *current* positions, so the grid follows a group that
drifts and splits. All neighbours within ``r`` of an agent lie in its own cell or one of the
:math:`3^d - 1` adjacent ones. Cells are numbered by their integer coordinates
:math:`(c_x, c_y, c_z)`; when the box holds few enough cells (at most the table size ``T``,
the next power of two :math:`\ge 2N`) the bucket of a cell is its linear index (a dense
grid), otherwise it is a SplitMix64 hash of the packed coordinates modulo ``T`` (a spatial
hash, Teschner et al. 2003), so memory stays O(N) however far apart the sub-groups are.
Agents are counting-sorted by bucket (O(N)); every candidate in a scanned bucket is checked
for its cell key, so hash collisions never create duplicate or wrong pairs.

With a periodic cubic box of side ``L`` the grid has :math:`m = \lfloor L/r \rfloor` cells per
axis, distances use the minimum image, and for :math:`m < 3` the stencil visits each of the
``m`` cells of that axis once.

The result is a compressed neighbour list (CSR) in original agent order:
neighbours of ``i`` are ``index[start[i]:start[i+1]]`` (self excluded, dead agents excluded),
in a fixed order (stencil order, then agent index), so the sums the rules form from it do not
depend on the number of threads. Cost per call: O(N + N k) with ``k`` the mean number of
candidates: one pass when serial (a second only if the list outgrew its preallocated room),
two (count, fill) when the agents are processed in parallel.

References
----------
M. Teschner, B. Heidelberger, M. Müller, D. Pomeranets, M. Gross, "Optimized spatial hashing
for collision detection of deformable objects", Proc. VMV 2003, 47-54.
M. P. Allen and D. J. Tildesley, *Computer Simulation of Liquids*, 2nd ed., OUP (2017), §5.3.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from flocklab.core.random import GOLDEN_GAMMA, MIX_1, MIX_2, SHIFT_27, SHIFT_30, SHIFT_31
from flocklab.core.threads import parallel_chunks

#: Cell coordinates are packed into 21 bits per axis.
COORD_BITS = 21
MAX_CELLS_PER_AXIS = 1 << COORD_BITS
# Geometry vector layout (int64): nx, ny, nz, dense, table size, n alive, periodic, dim
_NX, _NY, _NZ, _DENSE, _TABLE, _NALIVE, _PERIODIC, _DIM = range(8)


def table_size(n: int) -> int:
    """Number of hash buckets: the next power of two >= 2n (at least 64)."""
    return 1 << max(6, math.ceil(math.log2(max(2 * n, 1))))


@njit(cache=True, inline="always")
def _bucket_of(cx, cy, cz, gi):  # pragma: no cover
    """Bucket index of cell (cx, cy, cz) and its packed key."""
    key = cx | (cy << COORD_BITS) | (cz << (2 * COORD_BITS))
    if gi[_DENSE] == 1:
        return cx + gi[_NX] * (cy + gi[_NY] * cz), key
    z = np.uint64(key) * GOLDEN_GAMMA
    z = (z ^ (z >> SHIFT_30)) * MIX_1
    z = (z ^ (z >> SHIFT_27)) * MIX_2
    z = z ^ (z >> SHIFT_31)
    return np.int64(z & np.uint64(gi[_TABLE] - 1)), key


@njit(cache=True, inline="always")
def _cell_coord(x, lo, inv_h, n):  # pragma: no cover
    c = np.int64((x - lo) * inv_h)
    if c < 0:
        return np.int64(0)
    if c >= n:
        return n - 1
    return c


@njit(cache=True)
def _geometry(pos, alive, cell, box, dim, table, gi, gf):  # pragma: no cover
    """Fill the grid geometry; returns False if the group spans too many cells."""
    n_alive = 0
    for a in range(3):
        gf[a] = np.inf
        gf[5 + a] = -np.inf
    for i in range(pos.shape[0]):
        if alive[i]:
            n_alive += 1
            for a in range(3):
                gf[a] = min(gf[a], pos[i, a])
                gf[5 + a] = max(gf[5 + a], pos[i, a])
    gi[_TABLE] = table
    gi[_NALIVE] = n_alive
    gi[_DIM] = dim
    if box > 0.0:
        m = max(np.int64(1), np.int64(math.floor(box / cell)))
        while m > 1 and box / m < cell:
            m -= 1
        h = box / m
        gi[_NX] = m
        gi[_NY] = m
        gi[_NZ] = m if dim == 3 else 1
        gi[_PERIODIC] = 1
        gf[0] = 0.0
        gf[1] = 0.0
        gf[2] = 0.0
    else:
        h = cell
        gi[_PERIODIC] = 0
        for a in range(3):
            if n_alive == 0:
                gf[a] = 0.0
                gf[5 + a] = 0.0
            count = math.floor((gf[5 + a] - gf[a]) / h) + 1.0
            if count > MAX_CELLS_PER_AXIS - 1:
                return False
            gi[_NX + a] = np.int64(count)
    gf[3] = h
    gf[4] = box
    gi[_DENSE] = 1 if gi[_NX] * gi[_NY] * gi[_NZ] <= table else 0
    return True


@njit(cache=True)
def build_grid(pos, alive, cell, box, dim, gi, gf, cell_key, bucket_start, bucket_fill,
               order, sorted_pos, sorted_key):  # pragma: no cover
    """Counting sort of the alive agents into hash buckets.

    Parameters
    ----------
    pos : ndarray, shape (N, 3)
        Positions (``z = 0`` in 2-D).
    alive : ndarray of bool, shape (N,)
    cell : float
        Minimum cell side (the interaction range).
    box : float
        Periodic box side, or 0 for open space.
    dim : int
        2 or 3.
    gi, gf : ndarray of int64 (8,) and float64 (8,)
        ``gf`` = lower corner (3), cell side, box, upper corner (3).
        Output geometry.
    cell_key : ndarray of int64 (N,)
        Work: bucket of each agent.
    bucket_start : ndarray of int64 (T + 1,)
        Output: agents of bucket ``b`` are ``order[bucket_start[b]:bucket_start[b+1]]``.
    bucket_fill : ndarray of int64 (T,)
        Work space.
    order : ndarray of int64 (N,)
        Output: alive agent indices sorted by bucket (first ``n_alive`` entries).
    sorted_pos : ndarray (N, 3), sorted_key : ndarray of int64 (N,)
        Output: positions and packed cell keys in sorted order.

    Returns
    -------
    bool
        False if the group spans more than 2**21 cells along an axis (nothing is built).
    """
    table = bucket_fill.shape[0]
    if not _geometry(pos, alive, cell, box, dim, table, gi, gf):
        return False
    inv_h = 1.0 / gf[3]
    bucket_start[:] = 0
    packed = sorted_key  # reuse as per-agent key storage before the sort
    for i in range(pos.shape[0]):
        if not alive[i]:
            cell_key[i] = -1
            continue
        cx = _cell_coord(pos[i, 0], gf[0], inv_h, gi[_NX])
        cy = _cell_coord(pos[i, 1], gf[1], inv_h, gi[_NY])
        cz = _cell_coord(pos[i, 2], gf[2], inv_h, gi[_NZ])
        b, key = _bucket_of(cx, cy, cz, gi)
        cell_key[i] = b
        packed[i] = key
        bucket_start[b + 1] += 1
    for b in range(table):
        bucket_start[b + 1] += bucket_start[b]
        bucket_fill[b] = bucket_start[b]
    for i in range(pos.shape[0]):
        b = cell_key[i]
        if b >= 0:
            order[bucket_fill[b]] = i
            bucket_fill[b] += 1
    # cell_key now free: hold packed keys in original order while sorting
    for i in range(pos.shape[0]):
        if cell_key[i] >= 0:
            cell_key[i] = packed[i]
    for k in range(gi[_NALIVE]):
        i = order[k]
        sorted_pos[k, 0] = pos[i, 0]
        sorted_pos[k, 1] = pos[i, 1]
        sorted_pos[k, 2] = pos[i, 2]
        sorted_key[k] = cell_key[i]
    return True


@njit(cache=True, inline="always")
def _axis_range(c, n, periodic):  # pragma: no cover
    if periodic == 1 and n < 3:
        return -c, n - 1 - c  # each of the n cells once
    return np.int64(-1), np.int64(1)


@njit(cache=True, inline="always")
def _image(c, n, periodic, query, box):  # pragma: no cover
    """Cell index wrapped into 0..n-1 (-1: outside an open grid) and the query coordinate
    moved to the periodic image that faces that cell."""
    if c < 0:
        return (c + n, query + box) if periodic == 1 else (np.int64(-1), query)
    if c >= n:
        return (c - n, query - box) if periodic == 1 else (np.int64(-1), query)
    return c, query


@njit(cache=True, inline="always")
def _scan(px, py, pz, skip, gi, gf, bucket_start, order, sorted_pos, sorted_key, radius_sq,
          out, write_at):  # pragma: no cover
    """Visit the stencil of point p; count (write_at < 0) or write neighbour indices (those
    that fit in ``out``); returns the number of neighbours.

    In a periodic grid with at least three cells per axis each stencil cell is one periodic
    image, so the query point is shifted by the box instead of taking a minimum image per
    candidate; with fewer cells the minimum image is taken per candidate.
    """
    inv_h = 1.0 / gf[3]
    box = gf[4]
    periodic = gi[_PERIODIC]
    per_candidate = periodic == 1 and (gi[_NX] < 3 or gi[_NY] < 3 or
                                       (gi[_DIM] == 3 and gi[_NZ] < 3))
    cx = _cell_coord(px, gf[0], inv_h, gi[_NX])
    cy = _cell_coord(py, gf[1], inv_h, gi[_NY])
    cz = _cell_coord(pz, gf[2], inv_h, gi[_NZ])
    x_lo, x_hi = _axis_range(cx, gi[_NX], periodic)
    y_lo, y_hi = _axis_range(cy, gi[_NY], periodic)
    if gi[_DIM] == 2:
        z_lo, z_hi = np.int64(0), np.int64(0)
    else:
        z_lo, z_hi = _axis_range(cz, gi[_NZ], periodic)
    count = 0
    for oz in range(z_lo, z_hi + 1):
        nz, qz = _image(cz + oz, gi[_NZ], periodic, pz, box)
        if nz < 0:
            continue
        for oy in range(y_lo, y_hi + 1):
            ny, qy = _image(cy + oy, gi[_NY], periodic, py, box)
            if ny < 0:
                continue
            for ox in range(x_lo, x_hi + 1):
                nx, qx = _image(cx + ox, gi[_NX], periodic, px, box)
                if nx < 0:
                    continue
                b, key = _bucket_of(nx, ny, nz, gi)
                for q in range(bucket_start[b], bucket_start[b + 1]):
                    if sorted_key[q] != key or order[q] == skip:
                        continue
                    dx = sorted_pos[q, 0] - qx
                    dy = sorted_pos[q, 1] - qy
                    dz = sorted_pos[q, 2] - qz
                    if per_candidate:
                        dx = sorted_pos[q, 0] - px
                        dy = sorted_pos[q, 1] - py
                        dz = sorted_pos[q, 2] - pz
                        dx -= box * np.rint(dx / box)
                        dy -= box * np.rint(dy / box)
                        dz -= box * np.rint(dz / box)
                    if dx * dx + dy * dy + dz * dz <= radius_sq:
                        if 0 <= write_at and write_at + count < out.shape[0]:
                            out[write_at + count] = order[q]
                        count += 1
    return count


@njit(cache=True)
def _pass_range(lo, hi, pos, alive, radius_sq, gi, gf, bucket_start, order, sorted_pos,
                sorted_key, start, index, write):  # pragma: no cover
    for i in range(lo, hi):
        if not alive[i]:
            if not write:
                start[i + 1] = 0
            continue
        count = _scan(pos[i, 0], pos[i, 1], pos[i, 2], i, gi, gf, bucket_start, order,
                      sorted_pos, sorted_key, radius_sq, index, start[i] if write else -1)
        if not write:
            start[i + 1] = count


@njit(cache=True)
def single_pass(pos, alive, radius, gi, gf, bucket_start, order, sorted_pos, sorted_key, start,
                index):  # pragma: no cover
    """Serial one-pass CSR build; returns the total, which exceeds ``index.size`` if the
    list did not fit (the caller grows ``index`` and builds again)."""
    radius_sq = radius * radius
    offset = 0
    for i in range(pos.shape[0]):
        start[i] = offset
        if alive[i]:
            offset += _scan(pos[i, 0], pos[i, 1], pos[i, 2], i, gi, gf, bucket_start, order,
                            sorted_pos, sorted_key, radius_sq, index, offset)
    start[pos.shape[0]] = offset
    return offset


@njit(cache=True, parallel=True)
def neighbour_pass(chunks, pos, alive, radius, gi, gf, bucket_start, order, sorted_pos,
                   sorted_key, start, index, write):  # pragma: no cover
    """Count (``write`` False: ``start`` becomes the CSR offsets) or write the neighbour lists.

    ``chunks <= 1`` runs serially (no thread start-up, faster for small groups); otherwise the
    agents are split into ``chunks`` contiguous ranges processed in parallel. Returns the total
    number of neighbour entries after a counting pass.
    """
    n = pos.shape[0]
    radius_sq = radius * radius
    if chunks <= 1:
        _pass_range(0, n, pos, alive, radius_sq, gi, gf, bucket_start, order, sorted_pos,
                    sorted_key, start, index, write)
    else:
        for c in prange(chunks):
            _pass_range(c * n // chunks, (c + 1) * n // chunks, pos, alive, radius_sq, gi, gf,
                        bucket_start, order, sorted_pos, sorted_key, start, index, write)
    if write:
        return start[n]
    start[0] = 0
    for i in range(n):
        start[i + 1] += start[i]
    return start[n]


class NeighbourGrid:
    """Preallocated hashed cell list; :meth:`update` rebuilds the neighbour list in place.

    Parameters
    ----------
    n : int
        Number of agents (dead ones included; they are skipped).
    radius : float
        Interaction range ``r`` (length units); pairs with distance <= r are neighbours.
    dim : int
        2 or 3 (positions always have 3 columns, ``z = 0`` in 2-D).
    box : float
        Side of a periodic cubic box, or 0 for open space.
    capacity : int, optional
        Initial room for neighbour indices; grown (the only allocation) when exceeded.

    The attribute ``chunks`` (agent ranges processed in parallel, <= 1: serial) is set from
    ``n``; results do not depend on it.

    Attributes
    ----------
    start : ndarray of int64, shape (N + 1,)
    index : ndarray of int64, shape (capacity,)
        Neighbours of ``i`` are ``index[start[i]:start[i+1]]``.
    """

    def __init__(self, n: int, radius: float, dim: int, box: float = 0.0,
                 capacity: int | None = None) -> None:
        if dim not in (2, 3):
            raise ValueError("dim must be 2 or 3")
        if not radius > 0:
            raise ValueError("radius must be positive")
        self.n, self.radius, self.dim, self.box = n, float(radius), int(dim), float(box)
        table = table_size(n)
        self.gi = np.zeros(8, np.int64)
        self.gf = np.zeros(8)
        self.cell_key = np.empty(n, np.int64)
        self.bucket_start = np.empty(table + 1, np.int64)
        self.bucket_fill = np.empty(table, np.int64)
        self.order = np.empty(n, np.int64)
        self.sorted_pos = np.empty((n, 3))
        self.sorted_key = np.empty(n, np.int64)
        self.start = np.zeros(n + 1, np.int64)
        self.index = np.empty(max(capacity or 16 * n, 1), np.int64)
        self.chunks = parallel_chunks(n)

    def update(self, pos: np.ndarray, alive: np.ndarray) -> None:
        """Rebuild the grid and the neighbour list for positions ``pos`` (N, 3)."""
        ok = build_grid(pos, alive, self.radius, self.box, self.dim, self.gi, self.gf,
                        self.cell_key, self.bucket_start, self.bucket_fill, self.order,
                        self.sorted_pos, self.sorted_key)
        if not ok:
            raise OverflowError("the agents span more than 2**21 interaction ranges along an "
                                "axis; the open-space grid cannot index them")
        grid = (pos, alive, self.radius, self.gi, self.gf, self.bucket_start, self.order,
                self.sorted_pos, self.sorted_key, self.start)
        if self.chunks <= 1:  # one pass; a second only when the list outgrew its room
            total = single_pass(*grid, self.index)
            if total > self.index.shape[0]:
                self.index = np.empty(int(total * 1.5) + 16, np.int64)
                single_pass(*grid, self.index)
            return
        total = neighbour_pass(self.chunks, *grid, self.index, False)
        if total > self.index.shape[0]:
            self.index = np.empty(int(total * 1.5) + 16, np.int64)
        neighbour_pass(self.chunks, *grid, self.index, True)

    @property
    def n_alive(self) -> int:
        """Alive agents at the last :meth:`update`: the first ``n_alive`` entries of
        ``order`` are their indices in cell order."""
        return int(self.gi[_NALIVE])

    def neighbours(self, i: int) -> np.ndarray:
        """Neighbour indices of agent ``i`` (a view)."""
        return self.index[self.start[i]:self.start[i + 1]]


def neighbour_lists(pos: np.ndarray, radius: float, dim: int, box: float = 0.0,
                    alive: np.ndarray | None = None) -> list[np.ndarray]:
    """Sorted neighbour indices of every agent (convenience wrapper, allocates).

    Parameters
    ----------
    pos : ndarray, shape (N, 2) or (N, 3)
    radius : float
    dim : int
    box : float
        Periodic box side (0: open space).
    alive : ndarray of bool, optional

    Returns
    -------
    list of ndarray
        ``result[i]`` = sorted indices ``j != i`` with ``|r_j - r_i| <= radius``.
    """
    pos3 = as_positions3(pos)
    alive = np.ones(pos3.shape[0], bool) if alive is None else np.asarray(alive, bool)
    grid = NeighbourGrid(pos3.shape[0], radius, dim, box)
    grid.update(pos3, alive)
    return [np.sort(grid.neighbours(i)) for i in range(pos3.shape[0])]


def brute_force_neighbour_lists(pos: np.ndarray, radius: float, box: float = 0.0,
                                alive: np.ndarray | None = None) -> list[np.ndarray]:
    """O(N²) reference for :func:`neighbour_lists` (minimum image when ``box > 0``)."""
    pos = np.asarray(pos, dtype=float)
    diff = pos[None, :, :] - pos[:, None, :]
    if box > 0:
        diff -= box * np.rint(diff / box)
    within = np.einsum("ijk,ijk->ij", diff, diff) <= radius * radius
    np.fill_diagonal(within, False)
    if alive is not None:
        alive = np.asarray(alive, bool)
        within &= alive[None, :] & alive[:, None]
    return [np.flatnonzero(row) for row in within]


def as_positions3(pos: np.ndarray) -> np.ndarray:
    """(N, 2) or (N, 3) positions as a C-contiguous (N, 3) float array (z = 0 in 2-D)."""
    pos = np.asarray(pos, dtype=np.float64)
    if pos.ndim != 2 or pos.shape[1] not in (2, 3):
        raise ValueError("positions must have shape (N, 2) or (N, 3)")
    out = np.zeros((pos.shape[0], 3))
    out[:, : pos.shape[1]] = pos
    return out
