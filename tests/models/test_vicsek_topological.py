"""Metric-free neighbour rules of the Vicsek model: kNN and Voronoi neighbour sets against
brute force, one step against the equations, the global-mean limit k = N - 1, scale
invariance of the topological rules, thread and checkpoint independence."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import flocklab
from flocklab.core.parameters import ParameterError
from flocklab.core.random import step_uniforms
from flocklab.core.registry import get_model
from flocklab.core.threads import set_threads
from flocklab.core.time import RunControl
from flocklab.geometry.topological import (
    _circumdisks_inside,
    _with_images,
    brute_force_knn,
    brute_force_voronoi,
    knn_cells_per_side,
    knn_neighbours,
    periodic_delaunay_neighbours,
)
from flocklab.models.vicsek.kernels import vicsek_step
from flocklab.stages.simulate import run_simulation
from flocklab.testing import check_model


def uniform(rng: np.random.Generator, n: int, box: float) -> tuple[np.ndarray, np.ndarray]:
    return rng.random(n) * box, rng.random(n) * box


def clustered(rng: np.random.Generator, n: int, box: float, clusters: int = 4,
              spread: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian clusters (some straddling the periodic edges), wrapped into [0, L)."""
    centres = rng.random((clusters, 2)) * box
    centres[0] = (0.05 * box, 0.97 * box)  # one cluster across a corner
    which = rng.integers(clusters, size=n)
    points = np.mod(centres[which] + rng.normal(0.0, spread, (n, 2)), box)
    points[points >= box] = 0.0
    return points[:, 0], points[:, 1]


@pytest.mark.parametrize(("n", "box", "k", "kind"), [
    (400, 14.1, 7, "uniform"), (400, 14.1, 7, "clustered"), (1000, 22.4, 7, "clustered"),
    (300, 12.0, 1, "uniform"), (200, 10.0, 20, "clustered"),
    (40, 4.0, 39, "uniform"),    # k = N - 1: everyone
    (12, 3.0, 5, "uniform"),     # one cell: the direct search
])
def test_knn_sets_match_brute_force(n, box, k, kind):
    rng = np.random.default_rng(n + k)
    for _ in range(3):
        x, y = (uniform if kind == "uniform" else clustered)(rng, n, box)
        np.testing.assert_array_equal(knn_neighbours(x, y, box, k), brute_force_knn(x, y, box, k))


def test_knn_ties_go_to_the_smaller_index():
    """A square lattice: four neighbours at exactly the lattice spacing, the k = 2 nearest
    are the two of smallest index (distances exact: spacing 1 in a box of side 8)."""
    grid = np.arange(8.0)
    x, y = (a.ravel() for a in np.meshgrid(grid, grid))
    neighbours = knn_neighbours(x, y, 8.0, 2)
    np.testing.assert_array_equal(neighbours, brute_force_knn(x, y, 8.0, 2))
    # particle 9 = (1, 1): at distance 1 are 1, 8, 10, 17
    assert neighbours[9].tolist() == [1, 8]


def test_knn_cells_fill_the_stencil():
    m = knn_cells_per_side(10_000, 7)
    assert 9 * 10_000 / m**2 >= 2.0 * 8  # a 3 x 3 stencil holds at least 2(k + 1) on average
    assert knn_cells_per_side(10, 7) == 1


@pytest.mark.parametrize(("n", "box", "kind"), [
    (300, 12.2, "uniform"), (300, 12.2, "clustered"), (1000, 22.4, "uniform"),
    (600, 17.3, "clustered"), (30, 3.9, "uniform")])
def test_voronoi_sets_match_brute_force(n, box, kind):
    rng = np.random.default_rng(n)
    for _ in range(3):
        x, y = (uniform if kind == "uniform" else clustered)(rng, n, box)
        rows, indices, _ = periodic_delaunay_neighbours(x, y, box)
        rows_ref, indices_ref = brute_force_voronoi(x, y, box)
        np.testing.assert_array_equal(rows, rows_ref)
        np.testing.assert_array_equal(indices, indices_ref)
        # Euler: a periodic Delaunay triangulation has 3N edges, so 6 neighbours on average
        assert np.diff(rows).sum() == 6 * n


def test_a_narrow_margin_is_caught_and_widened():
    """A margin far below the spacing fails the circumdisk check (it is not vacuous), and
    starting from it gives the same neighbours as the default margin."""
    rng = np.random.default_rng(5)
    box = 10.0
    x, y = clustered(rng, 200, box, clusters=3, spread=0.5)
    points, _ = _with_images(x, y, box, 0.05)
    from scipy.spatial import Delaunay

    simplices = Delaunay(points).simplices
    assert not _circumdisks_inside(points, simplices[(simplices < 200).any(axis=1)], box, 0.05)
    narrow = periodic_delaunay_neighbours(x, y, box, margin=0.05)
    wide = periodic_delaunay_neighbours(x, y, box)
    assert narrow[2] > 0.05
    np.testing.assert_array_equal(narrow[0], wide[0])
    np.testing.assert_array_equal(narrow[1], wide[1])


def reference_topological_step(x, y, theta, uniforms, box, v0, eta, rule, k):
    """One step from the equations: S_i = e_i + sum over the brute-force neighbour set."""
    n = x.size
    if rule == "knn":
        lists = brute_force_knn(x, y, box, k)
        members = [list(row) for row in lists]
    else:
        rows, indices = brute_force_voronoi(x, y, box)
        members = [list(indices[rows[i]:rows[i + 1]]) for i in range(n)]
    sx = np.array([np.cos(theta[i]) + np.cos(theta[m]).sum() for i, m in enumerate(members)])
    sy = np.array([np.sin(theta[i]) + np.sin(theta[m]).sum() for i, m in enumerate(members)])
    new = np.arctan2(sy, sx) + eta * (uniforms - 0.5)
    return (np.mod(x + v0 * np.cos(new), box), np.mod(y + v0 * np.sin(new), box),
            np.angle(np.exp(1j * new)))


@pytest.mark.parametrize("rule", ["knn", "voronoi"])
def test_one_step_matches_the_equations(rule):
    rng = np.random.default_rng(11)
    n, box, v0, eta, key, step = 300, 12.2, 0.5, 1.3, 987654321, 4
    x, y = clustered(rng, n, box)
    theta = rng.uniform(-np.pi, np.pi, n)
    fast = vicsek_step(x, y, theta, key, step, box, 1.0, v0, eta, neighbours=rule, k=7)
    slow = reference_topological_step(x, y, theta, step_uniforms(np.uint64(key), step, n),
                                      box, v0, eta, rule, 7)
    dtheta = np.angle(np.exp(1j * (fast[2] - slow[2])))
    np.testing.assert_allclose(dtheta, 0.0, atol=1e-12)
    for a, b in zip(fast[:2], slow[:2], strict=True):
        d = np.abs(a - b)
        np.testing.assert_allclose(np.minimum(d, box - d), 0.0, atol=1e-12)


def test_all_others_as_neighbours_align_with_the_global_mean_in_one_step():
    """k = N - 1 without noise: every S_i is the sum of all headings, so every particle takes
    the global mean heading arg sum_j e(theta_j) (up to the summation order's rounding)."""
    rng = np.random.default_rng(2)
    n, box = 50, 5.0
    x, y = uniform(rng, n, box)
    theta = rng.uniform(-np.pi, np.pi, n)
    _, _, new = vicsek_step(x, y, theta, 1, 1, box, 1.0, 0.1, 0.0, neighbours="knn", k=n - 1)
    mean = np.arctan2(np.sin(theta).sum(), np.cos(theta).sum())
    np.testing.assert_allclose(np.angle(np.exp(1j * (new - mean))), 0.0, atol=1e-13)


def _headings(ds):
    return ds["theta"].values, ds["order_parameter"].values


@pytest.mark.parametrize("rule", ["knn", "voronoi"])
def test_topological_rules_are_scale_free_and_the_metric_rule_is_not(rule):
    """(L, v0) and (2L, 2v0) with the same seed and N: positions scale by 2 exactly in
    floating point, a topological neighbour set does not change, so the headings are
    identical bit for bit; the metric rule (same r) sees other neighbours."""
    control = {"steps": 60, "seed": 4, "snapshot_every": 20}
    base = {"N": 150, "L": 8.0, "v0": 0.3, "eta": 1.0, "neighbours": rule, "k": 7}
    small = flocklab.simulate("vicsek", **base, **control)
    large = flocklab.simulate("vicsek", **{**base, "L": 16.0, "v0": 0.6}, **control)
    for a, b in zip(_headings(small), _headings(large), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(2.0 * small["x"].values, large["x"].values)
    metric = {**base, "neighbours": "metric"}
    small = flocklab.simulate("vicsek", **metric, **control)
    large = flocklab.simulate("vicsek", **{**metric, "L": 16.0, "v0": 0.6}, **control)
    assert not np.array_equal(small["theta"].values[-1], large["theta"].values[-1])


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("rule", ["knn", "voronoi"])
def test_thread_count_does_not_change_results(tmp_path, rule):
    if set_threads(2) != 2:
        pytest.skip("numba has fewer than 2 threads on this machine")
    params = {"N": 2000, "L": 31.6, "eta": 1.0, "v0": 0.5, "neighbours": rule}
    control = {"steps": 15, "seed": 9, "snapshot_every": 15}
    digests = []
    for threads in (1, 2):
        path = tmp_path / f"t{threads}.nc"
        run_simulation("vicsek", params, control, path, threads=threads)
        digests.append(_digest(path))
    set_threads(1)
    assert digests[0] == digests[1]


@pytest.mark.parametrize("params", [
    {"N": 60, "L": 4.0, "neighbours": "knn", "k": 7},
    {"N": 50, "L": 3.0, "neighbours": "voronoi", "noise": "vectorial", "eta": 0.4,
     "update": "backward"}])
def test_driver_conformance_of_the_rules(params):
    """Same seed same bytes, chunking and checkpoint/resume give the same bytes."""
    checks = ["check_reproducible", "check_chunking", "check_checkpoint_resume",
              "check_prepared_once"]
    assert sorted(check_model("vicsek", params, checks=checks)) == sorted(checks)


def test_k_is_checked_against_n_only_for_the_knn_rule():
    model = get_model("vicsek")
    with pytest.raises(ParameterError) as error:
        model.resolve({"N": 5, "L": 3.0, "neighbours": "knn", "k": 5})
    assert error.value.name == "k" and "N - 1 = 4" in str(error.value)
    assert model.resolve({"N": 5, "L": 3.0, "neighbours": "knn", "k": 4})["k"] == 4
    assert model.resolve({"N": 5, "L": 3.0})["neighbours"] == "metric"  # k unused
    with pytest.raises(ParameterError, match="'k'"):
        model.resolve({"k": 0})


def test_cost_estimate_orders_the_rules():
    model = get_model("vicsek")
    grid = RunControl(steps=100, seed=1).grid(model)
    cost = {rule: model.resources(model.resolve({"N": 1000, "neighbours": rule}), grid)
            for rule in ("metric", "knn", "voronoi")}
    assert cost["metric"].seconds < cost["knn"].seconds < cost["voronoi"].seconds
    assert cost["metric"].memory_bytes == cost["knn"].memory_bytes < cost["voronoi"].memory_bytes
