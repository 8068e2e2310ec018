"""Group metrics against closed forms and statistical bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.analysis.order import random_heading_order_large_n
from flocklab.models.zonal import metrics
from flocklab.models.zonal.danger import polygon_disc_area, voronoi_domains


def _ring(n, radius=1.0, phase=0.0):
    angle = phase + 2 * np.pi * np.arange(n) / n
    return radius * np.c_[np.cos(angle), np.sin(angle)], angle


@pytest.mark.parametrize("dim", [2, 3])
def test_identical_headings_have_polarisation_one(dim):
    rng = np.random.default_rng(0)
    u = rng.standard_normal(dim)
    head = np.tile(u / np.linalg.norm(u), (57, 1))
    assert metrics.polarisation(head) == pytest.approx(1.0, abs=1e-14)
    assert metrics.polarisation(np.vstack([head, -head])) == pytest.approx(0.0, abs=1e-14)


def test_random_headings_polarisation_matches_sqrt_pi_over_4n():
    """Mean of P over M samples of N uniform 2-D headings vs sqrt(pi/4N).

    Var P = (1 - pi/4)/N for large N, so the sample mean has s.e. sqrt((1 - pi/4)/(N M));
    the finite-N bias of E P is O(N^-3/2), far below the 5 s.e. tolerance used here.
    """
    n, samples = 400, 4000
    rng = np.random.default_rng(2024)
    theta = rng.uniform(-np.pi, np.pi, (samples, n))
    p = np.hypot(np.cos(theta).sum(axis=1), np.sin(theta).sum(axis=1)) / n
    mean, sd = random_heading_order_large_n(n)
    assert abs(p.mean() - mean) < 5 * sd / math.sqrt(samples)
    assert abs(p.std() / sd - 1) < 5 / math.sqrt(2 * samples) + 0.01
    assert metrics.polarisation(np.c_[np.cos(theta[0]), np.sin(theta[0])]) == pytest.approx(p[0])


@pytest.mark.parametrize("dim", [2, 3])
def test_ring_moving_tangentially_mills_with_m_one(dim):
    pos2, angle = _ring(40, 3.0, 0.3)
    head2 = np.c_[-np.sin(angle), np.cos(angle)]
    pos = np.zeros((40, dim))
    head = np.zeros((40, dim))
    pos[:, :2] = pos2 + np.array([5.0, -2.0])  # the centroid need not be the origin
    head[:, :2] = head2
    assert metrics.milling(pos, head) == pytest.approx(1.0, abs=1e-12)
    assert metrics.polarisation(head) == pytest.approx(0.0, abs=1e-12)
    head[:, :2] = pos2 / 3.0  # moving radially outward: no rotation
    assert metrics.milling(pos, head) == pytest.approx(0.0, abs=1e-12)


def test_distances_gyration_groups_and_fragmentation():
    pos, _ = _ring(12, 2.0)
    assert metrics.radius_of_gyration(pos) == pytest.approx(2.0)
    assert metrics.nearest_neighbour_distance(pos) == pytest.approx(4.0 * math.sin(math.pi / 12))
    lattice = np.stack(np.meshgrid(np.arange(5.0), np.arange(4.0)), -1).reshape(-1, 2)
    assert metrics.nearest_neighbour_distance(lattice) == pytest.approx(1.0)
    # periodic: the two ends of a row are neighbours across the boundary
    assert metrics.nearest_neighbour_distance(np.array([[0.1, 0.0], [9.9, 0.0]]), 10.0) == (
        pytest.approx(0.2))
    two = np.vstack([lattice, lattice[:6] + 100.0])
    n_groups, labels = metrics.groups(two, 1.0)
    assert n_groups == 2 and len(set(labels[:20])) == 1
    head = np.tile([1.0, 0.0], (26, 1))
    head[20:] = [-1.0, 0.0]
    largest = metrics.largest_group_order(two, head, 1.0)
    assert largest.fragmented and largest.n_groups == 2
    assert largest.largest_fraction == pytest.approx(20 / 26)
    assert largest.polarisation == pytest.approx(1.0)  # the whole has P = 14/26
    single = metrics.largest_group_order(lattice, head[:20], 1.0)
    assert not single.fragmented and single.largest_fraction == 1.0


def test_elongation_along_the_heading():
    block = np.stack(np.meshgrid(np.arange(10.0), np.arange(3.0)), -1).reshape(-1, 2)
    along_x = np.tile([1.0, 0.0], (30, 1))
    assert metrics.elongation(block, along_x) == pytest.approx(9.0 / 2.0)
    assert metrics.elongation(block, along_x[:, ::-1]) == pytest.approx(2.0 / 9.0)
    block3 = np.c_[block, np.zeros(30)]
    assert metrics.elongation(block3, np.c_[along_x, np.zeros(30)]) == pytest.approx(4.5)


def test_accuracy_both_definitions():
    g = np.array([0.0, 1.0])
    assert metrics.accuracy(np.array([[0.0, 2.0]]), g) == pytest.approx((1.0, 1.0))
    assert metrics.accuracy(np.array([[3.0, 0.0]]), g) == pytest.approx((0.5, 0.0), abs=1e-15)
    assert metrics.accuracy(np.array([[0.0, -1.0]]), g) == pytest.approx((0.0, -1.0))
    both = metrics.accuracy(np.array([[1.0, 1.0], [-1.0, 1.0]]), g)
    assert both == pytest.approx((0.75, math.sqrt(0.5)))


def test_predation_statistics():
    steps = np.array([-1, 5, 2, -1, 5])
    assert metrics.captures_over_time(steps, 6).tolist() == [0, 0, 1, 1, 1, 3, 3]
    assert metrics.time_to_first_capture(steps, 0.1) == pytest.approx(0.2)
    assert math.isnan(metrics.time_to_first_capture(np.full(3, -1), 0.1))
    assert metrics.hull_share(np.array([-1, 1, 0, 1, -1])) == pytest.approx(2 / 3)


# --------------------------------------------------------------------- Voronoi domains


def test_ring_domains_in_a_common_disc_are_equal_wedges():
    n, big = 9, 5.0
    ring, _ = _ring(n, 1.0, 0.2)
    areas = voronoi_domains(ring, big, centre=np.zeros(2))
    assert areas == pytest.approx(np.full(n, math.pi * big**2 / n), rel=1e-12)


def _segment(h, radius):
    """Area of the circular segment cut from a disc of ``radius`` by a chord at distance h."""
    return radius**2 * math.acos(h / radius) - h * math.sqrt(radius**2 - h**2)


@pytest.mark.parametrize("radius", [0.2, 0.45, 0.9])
def test_ring_domains_in_own_discs_lose_two_segments(radius):
    """Ring of n points on the unit circle: each cell is a wedge whose bisectors lie at
    h = sin(pi/n) from the point; a disc of radius R around the point loses one circular
    segment per bisector when R > h (the discs never reach the ring's centre for R < 1)."""
    n = 8
    ring, _ = _ring(n)
    h = math.sin(math.pi / n)
    expected = math.pi * radius**2 - (2 * _segment(h, radius) if radius > h else 0.0)
    assert voronoi_domains(ring, radius) == pytest.approx(np.full(n, expected), rel=1e-10)


def test_hexagonal_lattice_interior_cells_and_polygon_clipping():
    a = 1.0
    rows = [(i + 0.5 * (j % 2), j * math.sqrt(3) / 2) for i in range(7) for j in range(7)]
    pts = np.array(rows)
    centre_index = 3 * 7 + 3
    big = voronoi_domains(pts, 10.0)[centre_index]  # interior cell fully inside the disc
    assert big == pytest.approx(math.sqrt(3) / 2 * a**2, rel=1e-12)
    small = voronoi_domains(pts, 0.3)[centre_index]  # disc inside the hexagon (inradius 0.5)
    assert small == pytest.approx(math.pi * 0.09, rel=1e-12)
    square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    assert polygon_disc_area(square, np.array([0.0, 0.0]), 1.0) == pytest.approx(math.pi / 4)
