"""Predators on hand-made configurations: target rules, stalk/attack/abandon, escape, captures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.models.zonal import metrics
from flocklab.models.zonal.engine import ZonalSimulation
from flocklab.models.zonal.predators import (
    ATTACKING,
    EVENT_ABANDON,
    EVENT_ATTACK,
    EVENT_CAPTURE,
    RESTING,
    STALKING,
    choose_target,
    predators_capture,
    predators_decide,
)


def _prey(points, speeds, alive=None):
    pos = np.zeros((len(points), 3))
    pos[:, :2] = points
    speed = np.asarray(speeds, dtype=float)
    alive = np.ones(len(points), np.bool_) if alive is None else np.asarray(alive, np.bool_)
    return pos, speed, alive


def test_nearest_rule_takes_the_closest_prey():
    pos, speed, alive = _prey([[3, 0], [0, 5], [-2, 0]], [6.0, 2.0, 9.0])
    best, r_min = choose_target(pos, speed, alive, 0.0, 0.0, 0.0, 1, False, 1.0, 1.0, 0.0)
    assert (best, r_min) == (2, 2.0)
    alive[2] = False  # dead prey are not targets
    assert choose_target(pos, speed, alive, 0.0, 0.0, 0.0, 1, False, 1.0, 1.0, 0.0)[0] == 0


def test_optimal_rule_weighs_distance_and_speed_once_detected():
    # scores w_d r + w_v v: A = 3 + 6 = 9, B = 5 + 2 = 7 -> B; undetected: distance only -> A
    pos, speed, alive = _prey([[3, 0], [0, 5]], [6.0, 2.0])
    assert choose_target(pos, speed, alive, 0.0, 0.0, 0.0, 1, True, 1.0, 1.0, 0.0)[0] == 1
    assert choose_target(pos, speed, alive, 0.0, 0.0, 0.0, 0, True, 1.0, 1.0, 0.0)[0] == 0
    # a heavier distance weight flips it back: A = 3*3 + 6 = 15 < B = 3*5 + 2 = 17
    assert choose_target(pos, speed, alive, 0.0, 0.0, 0.0, 1, True, 3.0, 1.0, 0.0)[0] == 0


def _one_predator(r_prey, status=STALKING, detected=0, timer=0.0, **overrides):
    """Predator at the origin, one prey at (r_prey, 0); V = 8, R1 = 4, R2 = 8, detect 10."""
    prm = {"speed": 8.0, "stalk_speed": 1.0, "detection_range": 10.0, "capture_radius": 0.5,
           "c1": 0.5, "c2": 1.0, "w_d": 1.0, "w_v": 1.0, "optimal": 0.0,
           "max_attack_time": 3.0, "rest_time": 2.0, **overrides}
    arrays = {
        "ppos": np.zeros((1, 3)), "phead": np.array([[1.0, 0, 0]]), "pspeed": np.zeros(1),
        "status": np.array([status]), "detected": np.array([detected]),
        "target": np.array([-1]), "timer": np.array([timer]), "event": np.zeros(1, np.int64),
        "params": np.array([list(prm.values())]),
    }
    pos, speed, alive = _prey([[r_prey, 0.0]], [3.0])
    predators_decide(*arrays.values(), pos, speed, alive, 0.1, 0.0)
    return arrays


@pytest.mark.parametrize(("r_prey", "status", "event", "speed"), [
    (12.0, STALKING, 0, 1.0),               # out of sight: keeps stalking slowly
    (3.9, ATTACKING, EVENT_ATTACK, 8.0),   # undetected and closer than R1 = c1 V: attacks
    (9.0, RESTING, EVENT_ABANDON, 0.0),    # detected at 9 > R2 = c2 V = 8: abandons
    (7.0, ATTACKING, EVENT_ATTACK, 8.0),   # detected within R2: attacks at once
])
def test_stalk_attack_abandon_thresholds(r_prey, status, event, speed):
    out = _one_predator(r_prey)
    assert out["status"][0] == status
    assert out["event"][0] == event
    assert out["pspeed"][0] == speed
    if status != RESTING:
        assert out["target"][0] == 0
        assert out["phead"][0] == pytest.approx([1.0, 0.0, 0.0])


def test_attack_is_abandoned_after_max_attack_time_and_rest_ends():
    out = _one_predator(5.0, status=ATTACKING, detected=1, timer=2.95)
    assert out["status"][0] == RESTING and out["event"][0] == EVENT_ABANDON
    out = _one_predator(5.0, status=RESTING, detected=1, timer=1.95)
    assert out["status"][0] == STALKING and out["detected"][0] == 0


def test_capture_removes_the_target_only_within_the_capture_radius():
    pos, _, alive = _prey([[0.4, 0.0], [0.3, 0.0]], [1.0, 1.0])
    args = dict(ppos=np.zeros((1, 3)), status=np.array([ATTACKING]), target=np.array([0]),
                timer=np.zeros(1), event=np.zeros(1, np.int64),
                params=np.array([[8, 1, 10, 0.5, 0.5, 1, 1, 1, 0, 3, 2.0]]))
    capture_step = np.full(2, -1)
    captured_by = np.full(2, -1)
    predators_capture(*args.values(), pos, alive, 17, 0.0, capture_step, captured_by)
    assert alive.tolist() == [False, True]  # the target, not the nearer bystander
    assert capture_step.tolist() == [17, -1] and captured_by.tolist() == [0, -1]
    assert args["status"][0] == RESTING and args["event"][0] == EVENT_CAPTURE
    args["params"][0, 3] = 0.1  # out of reach: nothing happens
    alive[:] = True
    args["status"][0] = ATTACKING
    predators_capture(*args.values(), pos, alive, 18, 0.0, capture_step, captured_by)
    assert alive.all()


def test_prey_escape_blends_evasion_and_cohesion_and_run_at_limit_speed():
    sim = ZonalSimulation.from_parameters(
        {"N": 1, "dim": 2, "noise": 0.0, "turning_rate": 1800.0,
         "k_e": 0.7, "k_c": 0.3, "escape_speed": 6.0, "speed_spread": 0.0,
         "predators": [{"position": [-5.0, 0.0], "detection_range": 8.0,
                        "stalk_speed": 0.0}]}, seed=0)
    sim.pos[0] = 0.0
    sim.head[0] = [0.0, 1.0, 0.0]
    sim.advance(1)
    assert math.atan2(sim.head[0, 1], sim.head[0, 0]) == pytest.approx(math.atan2(0.3, 0.7))
    assert sim.speed[0] == 6.0 and sim.fleeing[0]


def _hunt(target, seed=2, steps=600):
    sim = ZonalSimulation.from_parameters({
        "N": 60, "dim": 2, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 4.0,
        "escape_speed": 5.0, "speed_spread": 0.5,
        "predators": [{"position": [-25.0, 0.0], "speed": 9.0, "stalk_speed": 2.0,
                       "detection_range": 6.0, "c1": 0.6, "c2": 1.5, "capture_radius": 0.8,
                       "target": target, "max_attack_time": 8.0, "rest_time": 1.0}]},
        seed=seed)
    frozen = {}
    for _ in range(steps):
        dead_before = np.flatnonzero(~sim.alive)
        sim.advance(1)
        # prey captured before this step were neither in its neighbour list nor moved
        assert not np.isin(dead_before, sim.grid.index[: sim.grid.start[-1]]).any()
        for i in np.flatnonzero(~sim.alive):
            frozen.setdefault(int(i), sim.pos[i].copy())
            assert np.array_equal(sim.pos[i], frozen[int(i)])
    return sim


@pytest.mark.parametrize("target", ["nearest", "optimal"])
def test_a_hunt_captures_prey_and_records_hull_membership(target):
    sim = _hunt(target)
    captured = np.flatnonzero(sim.capture_step >= 0)
    assert captured.size >= 1
    assert np.array_equal(np.flatnonzero(~sim.alive), captured)
    assert np.all(sim.captured_by[captured] == 0)
    assert np.all(np.isin(sim.capture_on_hull[captured], [0, 1]))
    assert sim.attacks and sim.attacks[0][1] == 0
    assert sim.observe()["alive"] == 60 - captured.size


def test_a_hunt_in_three_dimensions():
    sim = ZonalSimulation.from_parameters({
        "N": 50, "dim": 3, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 4.0,
        "escape_speed": 5.0,
        "predators": [{"position": [-15.0, 0.0, 0.0], "speed": 9.0, "stalk_speed": 3.0,
                       "detection_range": 6.0, "c1": 0.6, "c2": 1.5, "capture_radius": 1.0,
                       "rest_time": 1.0}]}, seed=1)
    sim.advance(600)
    captured = sim.capture_step >= 0
    assert captured.sum() >= 1
    assert np.all(np.isin(sim.capture_on_hull[captured], [0, 1]))
    assert np.all(np.isfinite(sim.pos)) and np.all(np.isfinite(sim.ppos))


def test_optimal_rule_with_no_speed_weight_is_the_nearest_rule_bit_for_bit():
    """s_i = w_d r_i + w_v v_i with w_v = 0 ranks prey by distance alone, so a hunt set by
    the sweepable scalars (predator_target, predator_w_v) must equal the nearest-rule hunt."""
    base = {"N": 40, "dim": 2, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 4.0,
            "escape_speed": 5.0, "speed_spread": 0.5,
            "predators": [{"position": [-15.0, 0.0], "speed": 9.0, "stalk_speed": 2.0,
                           "detection_range": 6.0, "c1": 0.6, "c2": 1.5,
                           "capture_radius": 0.8, "rest_time": 1.0}]}
    nearest = ZonalSimulation.from_parameters({**base, "predator_target": "nearest"}, seed=4)
    optimal = ZonalSimulation.from_parameters(
        {**base, "predator_target": "optimal", "predator_w_v": 0.0},
        seed=4)
    weighted = ZonalSimulation.from_parameters(
        {**base, "predator_target": "optimal", "predator_w_v": 1.0},
        seed=4)
    for sim in (nearest, optimal, weighted):
        sim.advance(300)
    assert (nearest.capture_step >= 0).sum() >= 1
    assert np.array_equal(nearest.pos, optimal.pos)
    assert np.array_equal(nearest.capture_step, optimal.capture_step)
    assert not np.array_equal(nearest.capture_step, weighted.capture_step)


# A centre prey and four at (+-1, +-1): the centre's Voronoi cell is the diamond |x|+|y| <= 1
# (area 2, inscribed in the unit disc); a corner's cell is a quadrant cut by the bisector
# x + y = 1 (distance 1/sqrt 2 from the corner; the other bisectors are tangent to the unit
# disc), so clipped to the unit disc it is pi minus one segment pi/4 - 1/2.
SQUARE = [[0.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]]
CORNER_DOMAIN = 3.0 * math.pi / 4.0 + 0.5


def _resting_group(points, predator):
    """Prey at ``points`` nearly at rest (speeds 1e-6, no noise) and a nearest-rule
    predator at ``predator`` with detection range 1 (the clipping radius), capture radius
    0.8 and a step of 0.9: from 0.7 of a prey it is detected, attacks and captures in the
    first step."""
    sim = ZonalSimulation.from_parameters({
        "N": len(points), "dim": 2, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 2.0,
        "noise": 0.0, "speed": 1e-6, "escape_speed": 1e-6, "speed_spread": 0.0,
        "predators": [{"position": predator, "speed": 9.0, "stalk_speed": 2.0,
                       "detection_range": 1.0, "c1": 0.6, "c2": 1.5, "capture_radius": 0.8,
                       "target": "nearest", "max_attack_time": 8.0, "rest_time": 1.0}]},
        seed=1)
    sim.pos[:, :2] = points
    return sim


def _segment(d: float) -> float:
    """Area of the unit disc beyond a line at distance d < 1 from its centre."""
    return math.acos(d) - d * math.sqrt(1.0 - d * d)


def test_danger_domains_of_the_square_group_by_hand():
    sim = _resting_group(SQUARE, [-1.5, -1.5])
    np.testing.assert_allclose(sim.danger_domains(1.0), [2.0, *[CORNER_DOMAIN] * 4],
                               rtol=1e-12)
    assert CORNER_DOMAIN == pytest.approx(math.pi - _segment(1 / math.sqrt(2)), rel=1e-14)
    sim.alive[0] = False  # the dead are not generators: the corners' cells grow
    areas = sim.danger_domains(1.0)
    assert math.isnan(areas[0])
    np.testing.assert_allclose(areas[1:], math.pi, rtol=1e-12)  # bisectors x=0, y=0 tangent


def test_a_capture_records_its_domain_of_danger_and_rank():
    """Prey on a line at x = 0, 1.2, 3: the cells are slabs cut at x = 0.6 and 2.1, so the
    unit-disc domains are pi - s(0.6), pi - s(0.6) - s(0.9) and pi - s(0.9) (s: segment
    beyond a line at that distance), ranks 1/2, 0, 1. The predator 0.7 right of the last
    prey catches it in the first step: its domain pi - s(0.9) (to the 1e-6 the prey moved)
    and rank 1 are recorded; the others stay -1 (unknown)."""
    sim = _resting_group([[0.0, 0.0], [1.2, 0.0], [3.0, 0.0]], [3.7, 0.0])
    expected = [math.pi - _segment(0.6), math.pi - _segment(0.6) - _segment(0.9),
                math.pi - _segment(0.9)]
    np.testing.assert_allclose(sim.danger_domains(1.0), expected, rtol=1e-12)
    sim.advance(1)
    assert sim.attacks == [(1, 0)]
    assert np.flatnonzero(sim.capture_step >= 0).tolist() == [2]
    assert sim.capture_domain[2] == pytest.approx(expected[2], abs=1e-5)
    assert sim.capture_domain_rank[2] == 1.0
    assert np.all(sim.capture_domain[:2] == -1) and np.all(sim.capture_domain_rank[:2] == -1)


def test_domain_ranks_and_the_danger_metrics():
    ranks = metrics.domain_ranks(np.array([1.0, 3.0, 2.0, np.nan, 3.0]))
    np.testing.assert_allclose(ranks, [0.0, 2.5 / 3, 1 / 3, np.nan, 2.5 / 3])
    assert np.isnan(metrics.domain_ranks(np.array([2.0, np.nan]))).all()
    rank, share = metrics.danger_metrics(np.array([np.nan, 1.0, 0.5, 0.75, 0.0]))
    assert rank == pytest.approx(0.5625) and share == pytest.approx(0.5)
    assert all(math.isnan(v) for v in metrics.danger_metrics(np.full(3, np.nan)))


def test_danger_metrics_come_from_the_run_file():
    """Through flocklab.simulate: every capture of a 2-D open-space hunt has a domain and a
    rank in the run file, and the run metrics are their mean and top-quarter share."""
    import flocklab
    from flocklab.core.registry import get_model

    ds = flocklab.simulate("zonal", N=30, dim=2, delta_o=4.0, delta_a=12.0, start_radius=4.0,
                           escape_speed=5.0, predator_target="nearest",
                           predators=[{"position": [-15.0, 0.0], "speed": 9.0,
                                       "stalk_speed": 2.0, "detection_range": 6.0,
                                       "capture_radius": 0.8, "rest_time": 1.0}],
                           t_end=20.0, dt=0.1, record_every=1.0, seed=3)
    captured = np.isfinite(ds["capture_time"].values)
    ranks = ds["capture_domain_rank"].values
    assert captured.sum() >= 1
    assert np.array_equal(np.isfinite(ranks), captured)
    assert np.all(ds["capture_domain"].values[captured] > 0)
    assert np.all((ranks[captured] >= 0) & (ranks[captured] <= 1))
    zonal = get_model("zonal")
    run_metrics = zonal.metrics(ds, zonal.run_parameters(ds), 0.0)
    assert run_metrics["danger_rank"] == pytest.approx(ranks[captured].mean(), rel=1e-12)
    assert run_metrics["danger_share"] == pytest.approx(np.mean(ranks[captured] >= 0.75))
    null = ds["capture_null_rank"].values
    assert np.array_equal(np.isfinite(null), captured)
    assert run_metrics["danger_rank_excess"] == pytest.approx(
        np.mean(ranks[captured] - null[captured]), rel=1e-12)


@pytest.mark.parametrize(("radius", "captured"), [(0.5, True), (0.49, False), (0.51, True)])
def test_capture_radius_is_the_reach_to_the_target(radius, captured):
    """The attacking predator at the origin, its target at distance 0.5 exactly: taken when the
    capture radius reaches it (r <= capture_radius), left alone 2 % short of it."""
    pos, _, alive = _prey([[0.5, 0.0]], [1.0])
    params = np.array([[8, 1, 10, radius, 0.5, 1, 1, 1, 0, 3, 2.0]])
    capture_step, captured_by = np.full(1, -1), np.full(1, -1)
    predators_capture(np.zeros((1, 3)), np.array([ATTACKING]), np.array([0]), np.zeros(1),
                      np.zeros(1, np.int64), params, pos, alive, 5, 0.0, capture_step,
                      captured_by)
    assert alive.tolist() == [not captured]
    assert capture_step.tolist() == ([5] if captured else [-1])


def test_the_approach_null_is_the_rank_of_the_edge():
    """The square group with the centre's domain 2 and four equal corner domains (ranks 0
    and (1 + 3/2)/4 = 0.625): from every side the nearest prey is a corner, so the rank a
    random approach meets is 0.625, not 1/2. A line of prey at x = 0, 1.2, 3 (ranks 1/2, 0,
    1) seen from 100 away: the right end is nearest from the 31 of 64 sides with cos > 0,
    the left end from the 31 with cos < 0, the middle prey (nearest the centroid's x) only
    from straight above and below: (31 x 1 + 31 x 1/2 + 2 x 0)/64."""
    sim = _resting_group(SQUARE, [-1.5, -1.5])
    domains = np.array([2.0, *[CORNER_DOMAIN] * 4])
    assert sim.approach_null_rank(np.array([-1.5, -1.5]), domains) == pytest.approx(0.625)
    line = _resting_group([[0.0, 0.0], [1.2, 0.0], [3.0, 0.0]], [101.4, 0.0])
    domains = np.nan_to_num(line.danger_domains(1.0), nan=-1.0)
    assert line.approach_null_rank(np.array([101.4, 0.0]), domains) == pytest.approx(
        (31 + 15.5) / 64)


def test_the_excess_over_the_approach_null():
    ranks = np.array([np.nan, 1.0, 0.5, 0.75])
    null = np.array([np.nan, 0.75, 0.75, np.nan])
    assert metrics.danger_excess(ranks, null) == pytest.approx(((1 - 0.75) + (0.5 - 0.75)) / 2)
    assert math.isnan(metrics.danger_excess(ranks, np.full(4, np.nan)))
