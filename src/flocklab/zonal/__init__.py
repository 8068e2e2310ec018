"""The zonal model of animal groups: Couzin 2002 zones, Couzin 2005 informed individuals, boids,
predators with target choice, obstacles and food, on an open-space hashed cell list.

Public entry points: :class:`~flocklab.zonal.engine.ZonalSimulation` (the engine),
:func:`~flocklab.zonal.params.resolve` (validation), the metrics in
:mod:`flocklab.zonal.metrics` and :func:`~flocklab.zonal.danger.voronoi_domains`.
"""

from flocklab.zonal.danger import voronoi_domains
from flocklab.zonal.engine import ZonalSimulation
from flocklab.zonal.grid import NeighbourGrid, brute_force_neighbour_lists, neighbour_lists
from flocklab.zonal.params import resolve

__all__ = [
    "NeighbourGrid",
    "ZonalSimulation",
    "brute_force_neighbour_lists",
    "neighbour_lists",
    "resolve",
    "voronoi_domains",
]
