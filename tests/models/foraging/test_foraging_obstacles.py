"""Obstacles are never entered: the geometry kernels and whole runs, checked with
matplotlib's independent point-in-polygon test."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.path import Path

import flocklab
from flocklab.models.foraging import kernels as kr
from flocklab.models.foraging.setup import edge_distance, obstacle_arrays, points_blocked

#: A thin wall, a triangle, a concave "U" (food inside its bay) and a rectangle.
OBSTACLES = [
    {"rect": [30.0, 4.0, 30.6, 36.0]},
    {"vertices": [[8.0, 28.0], [18.0, 30.0], [12.0, 37.0]]},
    {"vertices": [[42.0, 8.0], [56.0, 8.0], [56.0, 30.0], [52.0, 30.0], [52.0, 12.0],
                  [46.0, 12.0], [46.0, 30.0], [42.0, 30.0]]},
    {"rect": [12.0, 6.0, 20.0, 12.0]},
]
FOOD = [{"rect": [46.5, 12.5, 51.5, 29.5], "density": 3.0}, {"rect": [32.0, 2.0, 40.0, 38.0],
                                                            "density": 1.0}]


def _paths(params):
    from flocklab.models.foraging.params import polygons

    return [Path(np.asarray(ring)) for ring in polygons(params)]


def test_point_in_polygon_matches_matplotlib():
    params = {"obstacles": OBSTACLES}
    edges, start = obstacle_arrays(params)
    rng = np.random.default_rng(1)
    points = rng.uniform((0.0, 0.0), (60.0, 40.0), (20000, 2))
    inside = np.zeros(len(points), bool)
    for path in _paths(params):
        inside |= path.contains_points(points)
    compiled = np.array([kr.point_blocked(x, y, edges, start, 0.0) for x, y in points])
    vectorised = points_blocked(points[:, 0], points[:, 1], edges, start)
    assert inside.sum() > 1000
    np.testing.assert_array_equal(compiled, inside)
    np.testing.assert_array_equal(vectorised, inside)


def test_a_move_never_jumps_a_thin_wall_and_slides_along_it():
    edges, start = obstacle_arrays({"obstacles": [{"rect": [1.0, 0.0, 1.2, 10.0]}]})
    # head-on, a step of 3 that would end beyond the wall: blocked; the slide along the
    # wall has no length, so the agent stays and turns along the wall
    x, y, ex, ey = kr.move(0.5, 5.0, 1.0, 0.0, 3.0, 20.0, 20.0, edges, start, 0.1)
    assert (x, y) == (0.5, 5.0) and ex == 0.0 and abs(ey) == 1.0
    # oblique: slides along the wall (its component along y) and keeps clear of it
    x, y, ex, ey = kr.move(0.8, 5.0, 0.6, 0.8, 1.0, 20.0, 20.0, edges, start, 0.1)
    assert x == pytest.approx(0.8) and y == pytest.approx(5.8)
    assert (ex, ey) == pytest.approx((0.0, 1.0))
    # free move far from the wall
    assert kr.move(5.0, 5.0, 1.0, 0.0, 1.0, 20.0, 20.0, edges, start, 0.1)[:2] == (6.0, 5.0)


def test_walls_reflect_and_keep_the_step_length():
    edges, start = obstacle_arrays({"obstacles": []})
    x, y, ex, ey = kr.move(0.1, 9.9, -0.6, 0.8, 0.5, 10.0, 10.0, edges, start, 0.0)
    assert (x, y) == pytest.approx((0.4, 9.5)) and (ex, ey) == pytest.approx((0.6, -0.8))


def test_no_agent_or_predator_is_ever_inside_an_obstacle():
    """150 scattered agents, food behind a thin wall and in the bay of a U, a predator;
    every frame (every step of 120 s) checked: outside every polygon and at least the
    safety distance from every edge. Many agents come within a step of an obstacle, so the
    blocking and sliding are exercised."""
    params = {"N": 150, "Lx": 60.0, "Ly": 40.0, "group_size": 1, "patches": 0, "food": FOOD,
              "obstacles": OBSTACLES, "safety": 0.5, "E0": 20.0,
              "predators": [{"position": [5.0, 20.0], "speed": 1.2}]}
    run = flocklab.simulate("foraging", **params, t_end=120.0, dt=0.2, seed=3,
                            snapshot_every=0.2)
    x, y = run["x"].values.ravel(), run["y"].values.ravel()
    points = np.c_[x, y]
    for path in _paths(params):
        assert not path.contains_points(points).any()
        assert not path.contains_points(run["predator_position"].values[:, 0, :]).any()
    edges, _ = obstacle_arrays(params)
    distance = np.min([edge_distance(x, y, *edge) for edge in edges], axis=0)
    assert distance.min() >= 0.5 - 1e-9
    assert np.sum(distance < 0.5 + 0.2) > 1000  # within a step of an obstacle, many times
    assert run["x"].values.min() >= 0.0 and run["x"].values.max() <= 60.0
    assert run["y"].values.min() >= 0.0 and run["y"].values.max() <= 40.0


def test_food_under_an_obstacle_is_removed():
    from flocklab.models.foraging.setup import food_field

    params = flocklab.get_model("foraging").resolve(
        {"Lx": 20.0, "Ly": 10.0, "patches": 0, "food_background": 1.0,
         "obstacles": [{"rect": [5.0, 2.0, 9.0, 6.0]}]})
    edges, start = obstacle_arrays(params)
    field = food_field(params, np.random.default_rng(0), edges, start).reshape(10, 20)
    assert field.sum() == 200 - 16
    assert np.all(field[2:6, 5:9] == 0.0)
