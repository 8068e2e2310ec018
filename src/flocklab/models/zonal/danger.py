r"""Hamilton's "domain of danger": Voronoi cells clipped to a disc (2-D).

Hamilton (1971) argued that a predator appearing at a random point attacks the nearest prey, so
each prey's risk is proportional to the area of its Voronoi cell, limited to the region where a
predator can appear. :func:`voronoi_domains` returns, for each point, the area of its Voronoi cell
intersected with a disc: either a disc of ``radius`` around the point itself (the predator must
be within ``radius`` to be dangerous) or, with ``centre`` given, one common disc (e.g. the lake).

Unbounded cells are closed by a ring of 16 ghost generators far enough away that their
bisectors lie outside every clipping disc, so the clipped areas are exact. The area of a convex
polygon ∩ disc is the sum over edges of the signed area of (disc ∩ triangle(centre, a, b)),
each edge split at its intersections with the circle into chords (triangles) and arcs
(sectors).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numba import njit
from scipy.spatial import Voronoi

GHOSTS = 16


@njit(cache=True)
def _edge_area(ax: float, ay: float, bx: float, by: float,
               radius: float) -> float:  # pragma: no cover
    """Signed area of disc(0, radius) ∩ triangle(0, a, b): the edge split at its crossings
    of the circle, chords inside counted as triangles and pieces outside as sectors."""
    dx, dy = bx - ax, by - ay
    qa = dx * dx + dy * dy
    qb = 2.0 * (ax * dx + ay * dy)
    qc = ax * ax + ay * ay - radius * radius
    cuts = np.empty(4)
    cuts[0] = 0.0
    count = 1
    disc = qb * qb - 4.0 * qa * qc
    if qa > 0.0 and disc > 0.0:
        root = math.sqrt(disc)
        for t in ((-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)):
            if 0.0 < t < 1.0:
                cuts[count] = t
                count += 1
    cuts[count] = 1.0
    count += 1
    total = 0.0
    for k in range(count - 1):
        t0, t1 = cuts[k], cuts[k + 1]
        px, py = ax + t0 * dx, ay + t0 * dy
        qx, qy = ax + t1 * dx, ay + t1 * dy
        mx, my = ax + 0.5 * (t0 + t1) * dx, ay + 0.5 * (t0 + t1) * dy
        cross = px * qy - py * qx
        if mx * mx + my * my <= radius * radius:
            total += 0.5 * cross
        else:
            total += 0.5 * radius * radius * math.atan2(cross, px * qx + py * qy)
    return total


@njit(cache=True)
def _polygon_disc_area(vertices: np.ndarray, cx: float, cy: float,
                       radius: float) -> float:  # pragma: no cover
    """Area of a convex polygon (vertices (M, 2), any order) ∩ disc((cx, cy), radius)."""
    mean_x = vertices[:, 0].mean()
    mean_y = vertices[:, 1].mean()
    angle = np.arctan2(vertices[:, 1] - mean_y, vertices[:, 0] - mean_x)
    order = np.argsort(angle)
    m = order.size
    total = 0.0
    for k in range(m):
        a = order[k]
        b = order[(k + 1) % m]
        total += _edge_area(vertices[a, 0] - cx, vertices[a, 1] - cy,
                            vertices[b, 0] - cx, vertices[b, 1] - cy, radius)
    return abs(total)


def polygon_disc_area(vertices: np.ndarray, centre: np.ndarray, radius: float) -> float:
    """Area of a convex polygon (vertices (M, 2), any order) intersected with a disc."""
    return float(_polygon_disc_area(np.ascontiguousarray(vertices, dtype=float),
                                    float(centre[0]), float(centre[1]), float(radius)))


@njit(cache=True)
def _cell_areas(vertices: np.ndarray, flat: np.ndarray, offsets: np.ndarray,
                centres: np.ndarray, radius: float, out: np.ndarray) -> None:  # pragma: no cover
    """Areas of the cells ``flat[offsets[i]:offsets[i + 1]]`` (indices into ``vertices``)
    clipped to the discs (``centres[i]``, radius)."""
    for i in range(out.size):
        cell = vertices[flat[offsets[i]:offsets[i + 1]]]
        out[i] = _polygon_disc_area(cell, centres[i, 0], centres[i, 1], radius)


def voronoi_domains(points: np.ndarray, radius: float,
                    centre: np.ndarray | None = None) -> np.ndarray:
    """Area of each point's Voronoi cell clipped to a disc.

    Parameters
    ----------
    points : ndarray (N, 2)
        Distinct positions (length units).
    radius : float
        Radius of the clipping disc.
    centre : ndarray (2,), optional
        Centre of one common disc; by default each cell is clipped to the disc of ``radius``
        around its own point.

    Returns
    -------
    ndarray (N,)
        Areas (length²).

    Examples
    --------
    >>> import numpy as np
    >>> ring = np.c_[np.cos(np.arange(6) * np.pi / 3), np.sin(np.arange(6) * np.pi / 3)]
    >>> np.allclose(voronoi_domains(ring, 3.0, centre=np.zeros(2)), np.pi * 9 / 6)
    True
    """
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError("points must have shape (N, 2)")
    n = pts.shape[0]
    mid = pts.mean(axis=0)
    span = float(np.max(np.linalg.norm(pts - mid, axis=1))) if n else 0.0
    reach = span + radius + (np.linalg.norm(centre - mid) if centre is not None else 0.0)
    far = 4.0 * reach + 1.0
    angles = 2.0 * np.pi * np.arange(GHOSTS) / GHOSTS
    ghosts = mid + far * np.c_[np.cos(angles), np.sin(angles)]
    vor = Voronoi(np.vstack([pts, ghosts]))
    regions = [vor.regions[r] for r in vor.point_region[:n]]
    offsets = np.zeros(n + 1, np.int64)
    offsets[1:] = np.cumsum([len(region) for region in regions])
    flat = np.fromiter(itertools.chain.from_iterable(regions), np.int64, int(offsets[-1]))
    centres = pts if centre is None else np.broadcast_to(np.asarray(centre, dtype=float),
                                                         (n, 2))
    areas = np.empty(n)
    _cell_areas(vor.vertices, flat, offsets, np.ascontiguousarray(centres), float(radius),
                areas)
    return areas
