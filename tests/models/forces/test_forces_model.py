"""The force-based swarm on the contract: parameter checks naming the key, the states and
observables on hand-made configurations, roles, leaders' goal velocities, captures and the
run metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest

import flocklab
from flocklab.core.parameters import ParameterError
from flocklab.models.forces import metrics
from flocklab.models.forces.engine import LEADER, SUBLEADER, ForcesSimulation


@pytest.mark.parametrize(("params", "key"), [
    ({"subleaders": 2}, "subleaders"),
    ({"leaders": 60, "subleaders": 50, "N": 100}, "subleaders"),
    ({"form": "non_inertial", "beta": 0.0}, "beta"),
    ({"leaders": 2, "alpha": -1.0}, "alpha"),
    ({"box": 4.0, "start_radius": 1.0}, "r_cut"),
    ({"box": 20.0, "start_radius": 11.0}, "start_radius"),
    ({"predators": [{"position": [0.0, 0.0], "target": "chosen"}]}, "predators[0].prey"),
    ({"predators": [{"position": [0.0, 0.0, 0.0]}]}, "predators[0].position"),
    ({"escape_mix": 1.5}, "escape_mix"),
])
def test_bad_parameters_name_the_key(params, key):
    with pytest.raises(ParameterError) as error:
        flocklab.get_model("forces").resolve(params)
    assert error.value.name == key or error.value.name == key.partition(".")[0]
    assert "\n" not in str(error.value)


def test_a_predator_without_position_is_refused_by_its_schema():
    with pytest.raises(ParameterError, match="position"):
        flocklab.get_model("forces").resolve({"predators": [{"speed": 2.0}]})


def _circle(n: int, radius: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    angle = 2 * np.pi * np.arange(n) / n
    pos = radius * np.c_[np.cos(angle), np.sin(angle)]
    tangent = np.c_[-np.sin(angle), np.cos(angle)]
    return pos, tangent


def test_rotation_measures_on_single_and_double_rings():
    pos, tangent = _circle(40)
    milling, rotation = metrics.rotation_measures(pos, tangent)
    assert milling == pytest.approx(1.0) and rotation == pytest.approx(1.0)
    tangent[::2] *= -1.0                         # every other agent the other way round
    milling, rotation = metrics.rotation_measures(pos, tangent)
    assert milling == pytest.approx(0.0, abs=1e-12) and rotation == pytest.approx(1.0)
    assert metrics.radial_spread(pos) == pytest.approx(0.0, abs=1e-12)


def test_radial_spread_of_a_uniform_disc():
    """sd(r)/mean(r) = sqrt(1/2 - 4/9)/(2/3) = 0.354 for a uniform disc."""
    rng = np.random.default_rng(0)
    r = np.sqrt(rng.random(200_000))
    angle = 2 * np.pi * rng.random(r.size)
    spread = metrics.radial_spread(np.c_[r * np.cos(angle), r * np.sin(angle)])
    assert spread == pytest.approx(math.sqrt(0.5 - 4 / 9) / (2 / 3), abs=3e-3)


@pytest.mark.parametrize(("values", "state"), [
    ((0.1, 0.05, 0.1, 0.3, 0.3), "dispersed"),
    ((0.95, 0.0, 0.1, 0.3, 1.0), "flock"),
    ((0.05, 0.9, 0.95, 0.05, 1.0), "ring"),
    ((0.05, 0.1, 0.95, 0.02, 1.0), "ring"),
    ((0.05, 0.8, 0.9, 0.3, 1.0), "single mill"),
    ((0.05, 0.1, 0.9, 0.3, 1.0), "double mill"),
    ((0.2, 0.1, 0.3, 0.5, 1.0), "clump"),
])
def test_state_classification(values, state):
    assert metrics.STATES[metrics.classify_state(*values)] == state


def test_turn_time_and_censoring():
    time = np.arange(0.0, 10.5, 0.5)
    alignment = np.where(time >= 6.5, 0.95, 0.2)
    assert metrics.turn_time(time, alignment, 2.0, 10.0) == (4.5, 1.0)
    assert metrics.turn_time(time, np.zeros_like(time), 2.0, 10.0) == (8.0, 0.0)


def test_surround_coverage_and_vacuole():
    pos, _ = _circle(24, radius=3.0)
    assert metrics.surround(pos, np.zeros(2), 4.0) == (1.0, pytest.approx(3.0))
    half = pos[pos[:, 1] > 0.1]
    coverage, _ = metrics.surround(half, np.zeros(2), 4.0)
    assert coverage == pytest.approx(0.5, abs=1 / 12)


def test_roles_and_sub_leader_assignment():
    sim = ForcesSimulation.from_parameters(
        {"N": 50, "leaders": 3, "subleaders": 7, "turn_angle": 90.0},
        np.random.default_rng(1), 0.05)
    assert (sim.role == LEADER).sum() == 3 and (sim.role == SUBLEADER).sum() == 7
    leaders = set(np.flatnonzero(sim.role == LEADER))
    assigned = sim.leader_of[sim.role == SUBLEADER]
    assert set(assigned) == leaders
    assert np.all(sim.leader_of[sim.role != SUBLEADER] == -1)


def test_cosine_rule_weights_goal_against_followers():
    """w = cos(g, v_F): followers along the goal -> the goal velocity s g; followers
    perpendicular -> the followers' mean velocity; opposite -> also theirs (w clipped at 0)."""
    sim = ForcesSimulation.from_parameters({"N": 20, "leaders": 2, "leader_rule": "cosine"},
                                           np.random.default_rng(1), 0.05)
    speed = sim.p["cruise_speed"]
    for follower_velocity, expected in (([1.0, 0.0, 0.0], [speed, 0.0, 0.0]),
                                        ([0.0, 0.7, 0.0], [0.0, 0.7, 0.0]),
                                        ([-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
                                        ([0.5, 0.5, 0.0], None)):
        vel = np.tile(follower_velocity, (20, 1))
        sim.goal_velocities(vel, 0.0)
        got = sim.goal_vel[sim.leaders[0]]
        if expected is None:
            w = math.cos(math.pi / 4)
            expected = w * np.array([speed, 0, 0]) + (1 - w) * np.array(follower_velocity)
        np.testing.assert_allclose(got, expected, atol=1e-12)


def test_sub_leaders_steer_to_the_predicted_leader_position():
    sim = ForcesSimulation.from_parameters(
        {"N": 10, "leaders": 1, "subleaders": 1, "prediction_step": 2.0},
        np.random.default_rng(1), 0.05)
    leader, sub = sim.leaders[0], sim.subleaders[0]
    sim.pos[leader], sim.pos[sub] = [0.0, 0.0, 0.0], [0.0, -4.0, 0.0]
    vel = np.zeros((10, 3))
    vel[leader] = [1.0, 0.0, 0.0]
    sim.goal_velocities(vel, 0.0)      # target (2, 0) from (0, -4): direction (1, 2)/sqrt 5
    np.testing.assert_allclose(sim.goal_vel[sub], sim.p["cruise_speed"] *
                               np.array([1.0, 2.0, 0.0]) / math.sqrt(5), atol=1e-12)


def test_captures_are_recorded_and_the_captured_stay_put():
    ds = flocklab.simulate("forces", N=30, start_radius=1.0, t_end=5.0, seed=3,
                           predators=[{"position": [0.0, 0.0], "capture_radius": 0.5,
                                       "rest_time": 0.2}], snapshot_every=0.5)
    captured = np.isfinite(ds["capture_time"].values)
    assert captured.sum() >= 3
    assert ds["alive_fraction"].values[-1] == pytest.approx(1 - captured.sum() / 30)
    alive = ds["alive"].values.astype(bool)
    for agent in np.flatnonzero(captured):
        frames = np.flatnonzero(~alive[:, agent])
        assert np.ptp(ds["x"].values[frames, agent]) == 0.0
    model = flocklab.get_model("forces")
    metrics_ = model.metrics(ds, model.run_parameters(ds), 0.0)
    assert metrics_["captures"] == captured.sum()
    assert metrics_["first_capture_time"] == pytest.approx(np.nanmin(ds["capture_time"]))


def test_run_metrics_of_a_turning_group():
    """A group whose three leaders know the goal turns after the goal does: turn_time is
    finite, turned = 1, the state a flock."""
    ds = flocklab.simulate("forces", N=30, alpha=1.0, C_r=2.0, l_r=0.5, r_cut=4.0,
                           r_align=2.0, w_alignment=1.0, initial="aligned", start_radius=4.0,
                           leaders=6, turn_time=2.0, turn_angle=60.0, t_end=25.0, seed=2,
                           record_every=0.25)
    model = flocklab.get_model("forces")
    result = model.metrics(ds, model.run_parameters(ds), 15.0)
    assert result["turned"] == 1.0 and 0.0 < result["turn_time"] < 23.0
    assert metrics.STATES[int(result["state"])] == "flock"
