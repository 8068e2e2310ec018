"""Cell-list neighbour sums against the O(N²) minimum-image reference."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.geometry.cell_list import brute_force_neighbour_sums, cells_per_side, neighbour_sums


def _compare(x, y, box, radius, rng):
    theta = rng.uniform(-np.pi, np.pi, x.size)
    ux, uy = np.cos(theta), np.sin(theta)
    fast = neighbour_sums(x, y, ux, uy, box, radius)
    slow = brute_force_neighbour_sums(x, y, ux, uy, box, radius)
    np.testing.assert_array_equal(fast[2], slow[2])
    np.testing.assert_allclose(fast[0], slow[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast[1], slow[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("box", "radius", "n"), [
    (10.0, 1.0, 400),    # 10 x 10 cells
    (7.3, 1.0, 300),     # cell side 7.3/7 > r
    (3.0, 1.0, 100),     # exactly three cells per side
    (2.9, 1.0, 60),      # L < 3r: one cell
    (1.5, 1.0, 40),      # L < 2r: every pair within the minimum image
    (0.5, 1.0, 20),      # box smaller than r
    (31.6, 1.0, 4000),
])
def test_random_configurations_match_brute_force(box, radius, n):
    rng = np.random.default_rng(12)
    for _ in range(3):
        x = rng.random(n) * box
        y = rng.random(n) * box
        _compare(x, y, box, radius, rng)


def test_particles_on_cell_and_box_edges():
    rng = np.random.default_rng(3)
    box, radius = 6.0, 1.0  # cells of side exactly 1
    edges = np.array([0.0, 1.0, 2.0, 3.0, 5.0, np.nextafter(6.0, 0.0), 0.5, 1e-15])
    x, y = (grid.ravel() for grid in np.meshgrid(edges, edges))
    _compare(x, y, box, radius, rng)
    # pairs at distance exactly r across the periodic boundary count as neighbours
    x = np.array([0.0, 5.0, 0.0])
    y = np.array([0.0, 0.0, 5.0])
    _, _, count = neighbour_sums(x, y, np.ones(3), np.zeros(3), box, radius)
    assert count.tolist() == [3, 2, 2]


def test_cells_per_side():
    assert cells_per_side(10.0, 1.0) == 10
    assert cells_per_side(3.0, 1.0) == 3
    assert cells_per_side(2.99, 1.0) == 1
    assert cells_per_side(0.3, 1.0) == 1
    m = cells_per_side(31.6, 1.0)
    assert 31.6 / m >= 1.0
