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
from scipy.spatial import Voronoi

GHOSTS = 16


def _edge_area(a: np.ndarray, b: np.ndarray, radius: float) -> float:
    """Signed area of disc(0, radius) ∩ triangle(0, a, b)."""
    d = b - a
    qa = d @ d
    qb = 2.0 * (a @ d)
    qc = a @ a - radius * radius
    cuts = [0.0]
    disc = qb * qb - 4.0 * qa * qc
    if qa > 0 and disc > 0:
        root = math.sqrt(disc)
        cuts += [t for t in sorted(((-qb - root) / (2 * qa), (-qb + root) / (2 * qa)))
                 if 0.0 < t < 1.0]
    cuts.append(1.0)
    total = 0.0
    for t0, t1 in itertools.pairwise(cuts):
        p = a + t0 * d
        q = a + t1 * d
        mid = a + 0.5 * (t0 + t1) * d
        cross = p[0] * q[1] - p[1] * q[0]
        if mid @ mid <= radius * radius:
            total += 0.5 * cross
        else:
            total += 0.5 * radius * radius * math.atan2(cross, p @ q)
    return total


def polygon_disc_area(vertices: np.ndarray, centre: np.ndarray, radius: float) -> float:
    """Area of a convex polygon (vertices (M, 2), any order) intersected with a disc."""
    inside = vertices.mean(axis=0)
    angle = np.arctan2(vertices[:, 1] - inside[1], vertices[:, 0] - inside[0])
    ring = vertices[np.argsort(angle)] - centre
    total = 0.0
    for k in range(ring.shape[0]):
        total += _edge_area(ring[k], ring[(k + 1) % ring.shape[0]], radius)
    return abs(total)


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
    areas = np.empty(n)
    for i in range(n):
        region = vor.regions[vor.point_region[i]]
        disc_centre = pts[i] if centre is None else np.asarray(centre, dtype=float)
        areas[i] = polygon_disc_area(vor.vertices[region], disc_centre, radius)
    return areas
