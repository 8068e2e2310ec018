"""Zonal rules on constructed configurations: zones, blind cone, turning cap, noise, informed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.models.zonal.engine import ZonalSimulation

# r_r = 1, orientation zone [1, 3.5), attraction zone [3.5, 17.5]; cap 40 deg/s * 0.1 s = 4 deg
BASE = {"dim": 2, "noise": 0.0, "r_r": 1.0, "delta_o": 2.5, "delta_a": 14.0, "speed": 3.0,
        "dt": 0.1, "turning_rate": 40.0, "field_of_view": 270.0}
CAP = math.radians(4.0)


def _place(pos, head, **params):
    """A simulation whose agents sit at ``pos`` with headings ``head`` (2 or 3 columns)."""
    pos = np.asarray(pos, dtype=float)
    sim = ZonalSimulation.from_parameters({**BASE, "N": pos.shape[0], **params}, seed=0)
    sim.pos[:] = 0.0
    sim.pos[:, : pos.shape[1]] = pos
    head = np.asarray(head, dtype=float)
    sim.head[:] = 0.0
    sim.head[:, : head.shape[1]] = head / np.linalg.norm(head, axis=1, keepdims=True)
    return sim


def _angle_after_step(pos, head, **params):
    sim = _place(pos, head, **params)
    sim.advance(1)
    return math.atan2(sim.head[0, 1], sim.head[0, 0]), sim


def _far_heading(n=1):
    return [[0.0, 1.0]] * n


def test_turn_is_capped_at_turning_rate_times_dt():
    # neighbour at 90 degrees in the attraction zone: the focal agent turns exactly 4 degrees
    angle, _ = _angle_after_step([[0, 0], [0, 5]], [[1, 0], [1, 0]])
    assert angle == pytest.approx(CAP, abs=1e-12)


def test_small_turn_takes_the_desired_direction():
    target = math.radians(3.0)
    angle, _ = _angle_after_step([[0, 0], [5 * math.cos(target), 5 * math.sin(target)]],
                                 [[1, 0], [1, 0]])
    assert angle == pytest.approx(target, abs=1e-12)


def test_turn_cap_in_three_dimensions_rotates_toward_the_target():
    sim = _place([[0, 0, 0], [0, 0, 5]], [[1, 0, 0], [1, 0, 0]], dim=3)
    sim.advance(1)
    assert sim.head[0] == pytest.approx([math.cos(CAP), 0.0, math.sin(CAP)], abs=1e-12)


@pytest.mark.parametrize(("bearing_deg", "visible"), [(0.0, True), (130.0, True),
                                                       (-130.0, True), (140.0, False),
                                                       (180.0, False), (-140.0, False)])
def test_blind_cone_hides_attraction_neighbours_behind(bearing_deg, visible):
    b = math.radians(bearing_deg)
    angle, _ = _angle_after_step([[0, 0], [5 * math.cos(b), 5 * math.sin(b)]], [[1, 0], [1, 0]])
    if not visible:
        assert angle == 0.0  # no visible neighbour: keep heading
    elif bearing_deg == 0.0:
        assert angle == pytest.approx(0.0, abs=1e-12)
    else:
        assert angle == pytest.approx(math.copysign(CAP, bearing_deg), abs=1e-12)


def test_repulsion_is_omnidirectional_and_exclusive():
    # a neighbour close behind-left is felt although it lies in the blind cone, and the
    # attraction neighbour far ahead-left is ignored while repulsion acts
    angle, _ = _angle_after_step([[0, 0], [-0.5, 0.3], [5.0, 5.0]], [[1, 0]] * 3)
    assert angle == pytest.approx(-CAP, abs=1e-12)
    # without the close one, the attraction neighbour turns it left
    angle, _ = _angle_after_step([[0, 0], [5.0, 5.0]], [[1, 0]] * 2)
    assert angle == pytest.approx(CAP, abs=1e-12)


@pytest.mark.parametrize(("self_in", "expected_deg"), [(False, 90.0), (True, 45.0)])
def test_focal_heading_in_orientation_sum(self_in, expected_deg):
    # cap 90 deg per step; one neighbour ahead in the zone of orientation heading +y
    angle, _ = _angle_after_step([[0, 0], [2, 0]], [[1, 0], [0, 1]], turning_rate=900.0,
                                 self_in_orientation=self_in)
    assert math.degrees(angle) == pytest.approx(expected_deg, abs=1e-9)


def test_orientation_and_attraction_are_averaged_as_unit_vectors():
    # two orientation neighbours heading +y, one attraction neighbour at -45 degrees:
    # d = (y + (x - y)/sqrt2)/2 whatever the counts -> 22.5 degrees
    s = 10.0 / math.sqrt(2.0)
    angle, _ = _angle_after_step([[0, 0], [2, 0.5], [2, -0.5], [s, -s]],
                                 [[1, 0], [0, 1], [0, 1], [0, 1]], turning_rate=900.0,
                                 self_in_orientation=False)
    assert math.degrees(angle) == pytest.approx(22.5, abs=1e-9)


def test_no_neighbour_keeps_heading_and_moves_at_speed():
    sim = _place([[0, 0], [100, 0]], [[0.6, 0.8], [1, 0]])
    sim.advance(1)
    assert sim.head[0, :2] == pytest.approx([0.6, 0.8], abs=1e-15)
    assert sim.pos[0, :2] == pytest.approx([0.6 * 0.3, 0.8 * 0.3], abs=1e-15)


def test_couzin2005_informed_blend_and_repulsion():
    # alone, heading +x, g = +y, omega = 0.5: (x + 0.5 y)/|.| -> atan(0.5)
    angle, _ = _angle_after_step([[0, 0]], [[1, 0]], rule="couzin2005", informed_fraction=1.0,
                                 preferred_angle=90.0, omega=0.5, turning_rate=900.0)
    assert angle == pytest.approx(math.atan(0.5), abs=1e-12)
    # social term: neighbour at distance 3 at +y heading +y: d = y (position) + y + x (self)
    angle, _ = _angle_after_step([[0, 0], [0, 3]], [[1, 0], [0, 1]], rule="couzin2005",
                                 turning_rate=900.0, field_of_view=360.0)
    assert angle == pytest.approx(math.atan2(2.0, 1.0), abs=1e-12)
    # within alpha only repulsion counts
    angle, _ = _angle_after_step([[0, 0], [0, 0.5], [3, 0]], [[1, 0], [0, 1], [0, 1]],
                                 rule="couzin2005", turning_rate=900.0, field_of_view=360.0)
    assert angle == pytest.approx(-math.pi / 2, abs=1e-12)


def test_food_replaces_the_preferred_direction_of_informed_agents():
    angle, _ = _angle_after_step([[0, 0]], [[1, 0]], rule="couzin2005", informed_fraction=1.0,
                                 omega=1e6, turning_rate=1800.0, food={"position": [-10, 10]})
    assert angle == pytest.approx(3 * math.pi / 4, abs=1e-5)


def test_boids_weights_and_consensus_speed():
    # two agents side by side, same heading: consensus 1 -> top speed; alone -> consensus 1 too
    params = {"rule": "boids", "vision": 5.0, "separation": 1.0, "speed": 3.0,
              "speed_min": 0.5, "speed_exponent": 1.0, "turning_rate": 900.0}
    sim = _place([[0, 0], [0, 2]], [[1, 0], [1, 0]], **params)
    sim.advance(1)
    assert sim.speed[:2] == pytest.approx([3.0, 3.0])
    # opposite headings: consensus 0 -> minimum speed
    sim = _place([[0, 0], [2, 0]], [[1, 0], [-1, 0]], **params)
    sim.advance(1)
    assert sim.speed[:2] == pytest.approx([0.5, 0.5])
    # only the separation weight: a close neighbour at +y pushes straight to -y
    only_sep = {**params, "w_inertia": 0.0, "w_cohesion": 0.0, "w_alignment": 0.0,
                "w_separation": 1.0, "w_centre": 0.0, "w_heading": 0.0}
    angle, _ = _angle_after_step([[0, 0], [0, 0.5]], [[1, 0], [1, 0]], **only_sep)
    assert angle == pytest.approx(-math.pi / 2, abs=1e-12)


def _spread_out(n, dim, params):
    """n agents on a lattice with spacing beyond the interaction range, random headings."""
    sim = ZonalSimulation.from_parameters({**BASE, "N": n, "dim": dim, **params}, seed=3)
    side = math.ceil(n ** (1 / dim))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * dim, indexing="ij"), -1).reshape(-1, dim)
    sim.pos[:] = 0.0
    sim.pos[:, :dim] = 100.0 * grid[:n]
    return sim


def test_noise_is_a_gaussian_rotation_in_2d():
    sigma, n = 0.05, 4000
    sim = _spread_out(n, 2, {"noise": sigma, "turning_rate": 9000.0, "dt": 0.01})
    before = np.arctan2(sim.head[:, 1], sim.head[:, 0])
    sim.advance(1)
    turn = np.angle(np.exp(1j * (np.arctan2(sim.head[:, 1], sim.head[:, 0]) - before)))
    # mean 0 within 5 standard errors; variance within 5 s.e. of the sample variance
    assert abs(turn.mean()) < 5 * sigma / math.sqrt(n)
    assert abs(turn.var() / sigma**2 - 1.0) < 5 * math.sqrt(2.0 / n)


def test_noise_in_3d_has_half_normal_angle_and_uniform_axis():
    sigma, n = 0.05, 4000
    sim = _spread_out(n, 3, {"noise": sigma, "turning_rate": 9000.0, "dt": 0.01})
    before = sim.head.copy()
    sim.advance(1)
    cos = np.clip(np.sum(before * sim.head, axis=1), -1, 1)
    angle = np.arccos(cos)
    mean_abs = sigma * math.sqrt(2 / math.pi)
    sd_abs = sigma * math.sqrt(1 - 2 / math.pi)
    assert abs(angle.mean() - mean_abs) < 5 * sd_abs / math.sqrt(n)
    # the change of direction has no preferred orientation around the old heading:
    # its mean over agents (in each agent's frame) vanishes; test the global sum of the
    # perpendicular parts, whose s.d. is about sigma/sqrt(2 n) per component
    change = sim.head - cos[:, None] * before
    assert np.all(np.abs(change.mean(axis=0)) < 5 * sigma / math.sqrt(n))


def test_results_do_not_depend_on_chunking():
    params = {"N": 300, "dim": 3, "noise": 0.1, "start_radius": 6.0}
    runs = []
    for chunks in (1, 7):
        sim = ZonalSimulation.from_parameters({**BASE, **params}, seed=11)
        sim.chunks = chunks
        sim.grid.chunks = chunks
        sim.advance(30)
        runs.append((sim.pos.copy(), sim.head.copy()))
    assert np.array_equal(runs[0][0], runs[1][0])
    assert np.array_equal(runs[0][1], runs[1][1])


def test_same_seed_same_run_and_split_advance():
    a = ZonalSimulation.from_parameters({**BASE, "N": 50, "noise": 0.1}, seed=4)
    b = ZonalSimulation.from_parameters({**BASE, "N": 50, "noise": 0.1}, seed=4)
    a.advance(20)
    b.advance(7)
    b.advance(13)
    assert np.array_equal(a.pos, b.pos)
    c = ZonalSimulation.from_parameters({**BASE, "N": 50, "noise": 0.1}, seed=5)
    c.advance(20)
    assert not np.array_equal(a.pos, c.pos)


def _allpairs_reference():
    """The O(N²) NumPy step of benchmarks/bench_zonal.py (one implementation of it)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_zonal.py"
    spec = importlib.util.spec_from_file_location("bench_zonal", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.allpairs_couzin2002_step


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize(("delta_o", "delta_a"), [(0.0, 12.0), (2.5, 14.0), (10.0, 10.0)])
def test_engine_step_equals_the_all_pairs_numpy_step(dim, delta_o, delta_a):
    params = {**BASE, "N": 120, "dim": dim, "noise": 0.0, "delta_o": delta_o,
              "delta_a": delta_a, "start_radius": 8.0}
    sim = ZonalSimulation.from_parameters(params, seed=21)
    step = _allpairs_reference()
    pos, head = sim.pos.copy(), sim.head.copy()
    for _ in range(5):
        pos, head = step(pos, head, sim.p)
        sim.advance(1)
        np.testing.assert_allclose(sim.head, head, rtol=0, atol=1e-9)
        np.testing.assert_allclose(sim.pos, pos, rtol=0, atol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_periodic_box_dynamics_are_translation_invariant(dim):
    """Shifting every agent by the same vector (mod L) must not change the headings: the
    rules see only minimum-image separations, also across the box edges."""
    params = {**BASE, "N": 150, "dim": dim, "noise": 0.0, "box": 12.0, "start": "box",
              "delta_o": 2.0, "delta_a": 2.0}
    a = ZonalSimulation.from_parameters(params, seed=8)
    b = ZonalSimulation.from_parameters(params, seed=8)
    shift = np.array([5.3, -7.9, 3.1])[:3] * (np.arange(3) < dim)
    b.pos[:] = np.mod(b.pos + shift, 12.0)
    for _ in range(10):
        a.advance(1)
        b.advance(1)
    np.testing.assert_allclose(b.head, a.head, rtol=0, atol=1e-9)
    gap = np.mod(b.pos - a.pos - shift + 6.0, 12.0) - 6.0
    np.testing.assert_allclose(gap[:, :dim], 0.0, atol=1e-9)
