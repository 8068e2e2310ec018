"""Open-space hashed cell list against the O(N²) reference."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.geometry.hash_grid import (
    NeighbourGrid,
    as_positions3,
    brute_force_neighbour_lists,
    neighbour_lists,
)


def _assert_same(fast, slow):
    assert len(fast) == len(slow)
    for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
        assert np.array_equal(a, b), f"agent {i}: {a} != {b}"


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize(("n", "extent", "radius"), [
    (300, 10.0, 1.0),      # dense grid
    (200, 3.0, 1.0),       # few cells, many neighbours each
    (50, 0.5, 1.0),        # everything in one cell
    (400, 1e4, 7.0),       # sparse: far more cells than buckets -> hashed
])
def test_open_space_matches_brute_force(dim, n, extent, radius):
    rng = np.random.default_rng(5)
    pos = rng.uniform(-extent, extent, (n, dim))
    _assert_same(neighbour_lists(pos, radius, dim), brute_force_neighbour_lists(pos, radius))


@pytest.mark.parametrize("dim", [2, 3])
def test_split_group_far_apart_is_hashed_and_exact(dim):
    """Two clusters 1e6 ranges apart: the dense box would need ~1e12 cells."""
    rng = np.random.default_rng(8)
    a = rng.normal(0.0, 2.0, (150, dim))
    b = rng.normal(0.0, 2.0, (150, dim)) + 1e6
    pos = np.vstack([a, b])
    grid = NeighbourGrid(pos.shape[0], 1.0, dim)
    grid.update(as_positions3(pos), np.ones(pos.shape[0], bool))
    assert grid.gi[3] == 0  # hashed, not dense
    _assert_same(neighbour_lists(pos, 1.0, dim), brute_force_neighbour_lists(pos, 1.0))


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("box", [10.0, 2.5, 1.5, 0.7])
def test_periodic_box_matches_minimum_image(dim, box):
    rng = np.random.default_rng(9)
    pos = rng.uniform(0, box, (200, dim))
    _assert_same(neighbour_lists(pos, 1.0, dim, box=box),
                 brute_force_neighbour_lists(pos, 1.0, box=box))


def test_dead_agents_are_neither_searched_nor_found():
    rng = np.random.default_rng(2)
    pos = rng.uniform(0, 4, (120, 3))
    alive = rng.random(120) < 0.7
    fast = neighbour_lists(pos, 1.0, 3, alive=alive)
    slow = brute_force_neighbour_lists(pos, 1.0, alive=alive)
    _assert_same(fast, slow)
    assert all(len(fast[i]) == 0 for i in np.flatnonzero(~alive))


def test_pair_at_exactly_the_range_counts_and_capacity_grows():
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [2.5, 0.0]])
    assert [x.tolist() for x in neighbour_lists(pos, 1.0, 2)] == [[1], [0], []]
    # a capacity far too small is grown, not overrun
    rng = np.random.default_rng(1)
    pos3 = as_positions3(rng.uniform(0, 2, (100, 2)))
    grid = NeighbourGrid(100, 1.0, 2, capacity=1)
    grid.update(pos3, np.ones(100, bool))
    slow = brute_force_neighbour_lists(pos3, 1.0)
    _assert_same([np.sort(grid.neighbours(i)) for i in range(100)], slow)


@pytest.mark.parametrize("dim", [2, 3])
def test_serial_and_parallel_builds_give_the_same_lists(dim):
    rng = np.random.default_rng(4)
    pos = as_positions3(rng.uniform(0, 12, (900, dim)))
    alive = rng.random(900) < 0.9
    lists = []
    for chunks in (1, 5):
        grid = NeighbourGrid(900, 1.5, dim, capacity=10)  # too small: both paths must grow
        grid.chunks = chunks
        grid.update(pos, alive)
        lists.append((grid.start.copy(), grid.index[: grid.start[-1]].copy()))
    assert np.array_equal(lists[0][0], lists[1][0])
    assert np.array_equal(lists[0][1], lists[1][1])
    _assert_same([np.sort(lists[0][1][lists[0][0][i]:lists[0][0][i + 1]]) for i in range(900)],
                 brute_force_neighbour_lists(pos, 1.5, alive=alive))
