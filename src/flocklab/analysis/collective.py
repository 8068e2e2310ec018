r"""Collective observables of agents in space, shared by every agent model (pure functions on
arrays).

Positions ``pos`` have shape (N, d) and unit headings ``head`` shape (N, d), d = 2 or 3, for the
agents to be measured (pass only the alive ones).

* polarisation :math:`P = |\sum_i \mathbf{e}_i| / N` (Vicsek et al.'s :math:`v_a`, Couzin et
  al.'s :math:`p_{group}`; its value for independent headings: :mod:`flocklab.analysis.order`);
* milling (normalised angular momentum) :math:`m = |\sum_i \hat{\mathbf{r}}_{ic} \times
  \mathbf{e}_i| / N`, :math:`\mathbf{r}_{ic} = \mathbf{x}_i - \bar{\mathbf{x}}` (in 2-D the
  cross product is the scalar ``z`` component);
* mean nearest-neighbour distance, radius of gyration
  :math:`R_g = \sqrt{\langle |\mathbf{x}_i - \bar{\mathbf{x}}|^2 \rangle}`;
* groups: connected components of the graph "distance <= radius" (cKDTree sparse distance
  matrix + :func:`scipy.sparse.csgraph.connected_components`), and :math:`P`, :math:`m` of the
  largest group with a fragmentation flag.

References
----------
T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995).
I. D. Couzin, J. Krause, R. James, G. D. Ruxton and N. R. Franks, "Collective memory and
spatial sorting in animal groups", J. Theor. Biol. 218, 1-11 (2002).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

__all__ = ["LargestGroup", "groups", "largest_group_order", "milling",
           "nearest_neighbour_distance", "polarisation", "radius_of_gyration"]


def polarisation(head: np.ndarray) -> float:
    """Polarisation :math:`P = |\\sum_i e_i| / N` of unit headings (N, d); NaN if N = 0."""
    head = np.asarray(head, dtype=float)
    if head.shape[0] == 0:
        return math.nan
    return float(np.linalg.norm(head.sum(axis=0)) / head.shape[0])


def milling(pos: np.ndarray, head: np.ndarray) -> float:
    """Normalised angular momentum :math:`m = |\\sum_i \\hat r_{ic} \\times e_i| / N`.

    Agents exactly at the centroid contribute nothing. NaN if N = 0.
    """
    pos = np.asarray(pos, dtype=float)
    head = np.asarray(head, dtype=float)
    if pos.shape[0] == 0:
        return math.nan
    rel = pos - pos.mean(axis=0)
    norm = np.linalg.norm(rel, axis=1, keepdims=True)
    unit = np.divide(rel, norm, out=np.zeros_like(rel), where=norm > 0)
    if pos.shape[1] == 2:
        total = np.sum(unit[:, 0] * head[:, 1] - unit[:, 1] * head[:, 0])
        return float(abs(total) / pos.shape[0])
    return float(np.linalg.norm(np.cross(unit, head).sum(axis=0)) / pos.shape[0])


def nearest_neighbour_distance(pos: np.ndarray, box: float = 0.0) -> float:
    """Mean distance to the nearest other agent (minimum image if ``box > 0``)."""
    pos = np.asarray(pos, dtype=float)
    if pos.shape[0] < 2:
        return math.nan
    tree = cKDTree(np.mod(pos, box) if box > 0 else pos, boxsize=box if box > 0 else None)
    dist, _ = tree.query(tree.data, k=2)
    return float(dist[:, 1].mean())


def radius_of_gyration(pos: np.ndarray) -> float:
    """:math:`R_g = \\sqrt{\\langle |x_i - \\bar x|^2 \\rangle}` (open space)."""
    pos = np.asarray(pos, dtype=float)
    if pos.shape[0] == 0:
        return math.nan
    return float(np.sqrt(np.mean(np.sum((pos - pos.mean(axis=0)) ** 2, axis=1))))


def groups(pos: np.ndarray, radius: float, box: float = 0.0) -> tuple[int, np.ndarray]:
    """Connected components of the graph linking agents closer than ``radius``.

    Returns
    -------
    n_groups : int
    labels : ndarray of int (N,)
        Group label of each agent.
    """
    pos = np.asarray(pos, dtype=float)
    if pos.shape[0] == 0:
        return 0, np.zeros(0, int)
    tree = cKDTree(np.mod(pos, box) if box > 0 else pos, boxsize=box if box > 0 else None)
    graph = tree.sparse_distance_matrix(tree, radius, output_type="coo_matrix")
    graph.data[:] = 1.0  # distance 0 (coincident agents) must still link them
    n_groups, labels = connected_components(graph.tocsr(), directed=False)
    return int(n_groups), labels


@dataclass(frozen=True)
class LargestGroup:
    """Order of the largest group and how fragmented the whole is."""

    polarisation: float
    milling: float
    n_groups: int
    largest_fraction: float
    fragmented: bool


def largest_group_order(pos: np.ndarray, head: np.ndarray, radius: float,
                        box: float = 0.0) -> LargestGroup:
    """P and m of the largest connected group; ``fragmented`` when there is more than one."""
    n_groups, labels = groups(pos, radius, box)
    if n_groups == 0:
        return LargestGroup(math.nan, math.nan, 0, math.nan, False)
    sizes = np.bincount(labels)
    members = labels == int(np.argmax(sizes))
    return LargestGroup(polarisation(head[members]), milling(pos[members], head[members]),
                        n_groups, float(sizes.max() / labels.size), n_groups > 1)
