"""Closed forms of the force-based swarm: the logistic speed law, the equilibrium distance of
two damped agents, momentum conservation, the integrator's order, cell-list forces equal to
all-pairs forces, and the escape objective's limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from flocklab_oracles import forces as reference

from flocklab.models.forces import closed_forms as cf
from flocklab.models.forces.engine import ForcesSimulation, candidate_directions
from flocklab.models.forces.params import equilibrium_distance, resolve


def test_an_isolated_agent_follows_the_logistic_law_to_the_cruise_speed():
    """|v|^2 = u0 e^{2at/m} / (1 + b u0 (e^{2at/m} - 1)/a) at every step (the
    self-propulsion flow is exact: measured 7e-15), and |v| -> sqrt(a/b) (t = 30, m = 2:
    e^{-30} from it)."""
    result = cf.logistic_speed(alpha=1.0, beta=0.5, mass=2.0, speed=0.1, dt=0.1, steps=300)
    assert result["max_relative_error"] < 1e-12
    assert result["final_speed"] == pytest.approx(math.sqrt(2.0), rel=1e-10)


def test_the_logistic_law_holds_for_linear_friction_and_alpha_zero():
    """alpha < 0: |v|^2 = u0 e^{2at/m}/(1 + b u0 (e^{2at/m} - 1)/a) decays; alpha = 0:
    u0 / (1 + 2 b u0 t/m)."""
    for alpha in (-0.7, 0.0):
        sim = ForcesSimulation.from_parameters(
            {"N": 1, "alpha": alpha, "beta": 0.3, "initial_speed": 2.0},
            np.random.default_rng(0), 0.05)
        sim.advance(200)
        t, u0 = 10.0, 4.0
        if alpha:
            growth = math.exp(2 * alpha * t)
            exact = u0 * growth / (1 + 0.3 * u0 * (growth - 1) / alpha)
        else:
            exact = u0 / (1 + 2 * 0.3 * u0 * t)
        assert float(np.sum(sim.vel ** 2)) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("potential", ["morse", "generic"])
def test_two_damped_agents_settle_where_the_force_vanishes(potential):
    """r* = ln(C_r l_a/(C_a l_r))/(1/l_r - 1/l_a) = ln 4 (Morse, C_r = 2, l_r = 0.5) and
    sqrt(c ln(b/a)) = sqrt(ln 20) (generic); started 1.5 r* apart with friction 1, after 100
    time units (the slowest mode decays as e^{-0.2 t} at worst) the distance is r* to 1e-9."""
    result = cf.equilibrium_distance(potential)
    expected = math.log(4.0) if potential == "morse" else math.sqrt(math.log(20.0))
    assert result["r_star"] == pytest.approx(expected, rel=1e-14)
    assert abs(result["error"]) < 1e-9


def test_equilibrium_distance_of_potentials_without_a_minimum():
    base = resolve({})
    assert equilibrium_distance({**base, "l_r": 1.5, "C_r": 2.0}) == math.inf  # C > l, l > 1
    assert equilibrium_distance({**base, "l_r": 0.5, "C_r": 0.2}) == 0.0       # C < l
    assert equilibrium_distance({**base, "C_a": 0.0}) == math.inf


def test_momentum_is_conserved_without_self_propulsion():
    """alpha = beta = 0, no steering: every pair force enters twice with opposite signs, so
    the total momentum changes by rounding only (measured 7e-16 per agent over 1000 steps);
    velocity Verlet keeps the energy within 1 % (the cut at r_c makes the force jump)."""
    result = cf.momentum_balance()
    assert result["momentum_drift"] < 1e-12 * max(1.0, result["momentum_scale"])
    assert abs(result["energy_relative_change"]) < 1e-2


def test_self_propulsion_breaks_momentum_conservation():
    """The check can fail: with alpha > 0 the total momentum does change."""
    sim = ForcesSimulation.from_parameters(
        {"N": 30, "start_radius": 3.0}, np.random.default_rng(4), 0.01)
    before = sim.vel.sum(axis=0).copy()
    sim.advance(100)
    assert np.abs(sim.vel.sum(axis=0) - before).max() > 1e-3


@pytest.mark.parametrize("extra", [{}, {"w_alignment": 0.8, "leaders": 3, "subleaders": 3}],
                         ids=["potential", "steering"])
def test_the_integrator_is_second_order(extra):
    """Halving dt divides the global error by 4 (measured ratios 3.8-4.1): the Strang
    splitting of exact self-propulsion, midpoint steering and velocity Verlet."""
    result = cf.integrator_order(extra, steps=(0.04, 0.02, 0.01))
    assert result["order"] == pytest.approx(2.0, abs=0.15)
    assert all(3.4 < ratio < 4.6 for ratio in result["ratios"])


@pytest.mark.parametrize(("dim", "box"), [(2, 0.0), (3, 0.0), (2, 12.0), (3, 12.0)])
def test_cell_list_forces_equal_all_pairs_forces(dim, box):
    result = cf.cell_list_difference(n=300, dim=dim, box=box)
    assert result["mean_neighbours"] > 5
    assert result["max_difference"] < 1e-12 * max(1.0, result["max_force"])


def test_reference_step_matches_the_engine():
    """The all-pairs NumPy step of the benchmark is the engine's step (no steering)."""
    params = {"N": 50, "start_radius": 2.0, "alpha": 1.0, "beta": 0.5}
    sim = ForcesSimulation.from_parameters(params, np.random.default_rng(2), 0.05)
    pos, vel = sim.pos.copy(), sim.vel.copy()
    sim.advance(10)
    for _ in range(10):
        pos, vel = reference.inertial_step(pos, vel, sim.p, 0.05)
    np.testing.assert_allclose(sim.pos, pos, atol=1e-12)
    np.testing.assert_allclose(sim.vel, vel, atol=1e-12)


def test_potential_energy_matches_the_pair_sum():
    sim = ForcesSimulation.from_parameters(
        {"N": 40, "start_radius": 2.0}, np.random.default_rng(3), 0.05)
    p = sim.p
    diff = sim.pos[:, None, :] - sim.pos[None, :, :]
    r = np.linalg.norm(diff, axis=2)[np.triu_indices(40, 1)]
    r = r[r <= p["r_cut"]]

    def u(x):
        return p["C_r"] * np.exp(-x / p["l_r"]) - p["C_a"] * np.exp(-x / p["l_a"])

    assert sim.potential_energy() == pytest.approx(float(np.sum(u(r) - u(p["r_cut"]))),
                                                   rel=1e-12)


def _escape_direction(beta: float) -> np.ndarray:
    """Chosen escape direction of one prey at (5, 0) from a predator at the origin heading
    at it with speed 3 (look-ahead 1, escape speed 2)."""
    sim = ForcesSimulation.from_parameters(
        {"N": 1, "escape_mix": 1.0, "escape_beta": beta,
         "escape_directions": 360, "fear_range": 6.0,
         "predators": [{"position": [0.0, 0.0], "velocity": [1.0, 0.0]}]},
        np.random.default_rng(0), 0.05)
    sim.pos[0] = [5.0, 0.0, 0.0]
    sim.escape_targets(sim.predator_velocities())
    assert sim.afraid[0]
    return sim.fear_vel[0] / np.linalg.norm(sim.fear_vel[0])


def test_the_escape_objective_limits():
    """beta = 0: only the distance ratio counts, and against a predator heading straight at
    the prey the best is straight away (+x); beta = 1: only the angle counts, best is
    against the predator's heading (-x); between: a sideways escape."""
    np.testing.assert_allclose(_escape_direction(0.0), [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(_escape_direction(1.0), [-1.0, 0.0, 0.0], atol=1e-12)
    middle = _escape_direction(0.5)
    assert 0.2 < abs(middle[1]) and abs(middle[0]) < 0.98


def test_plain_flight_is_away_from_the_predator():
    sim = ForcesSimulation.from_parameters({"N": 1, "escape_mix": 0.0, "escape_speed": 2.5,
                                            "predators": [{"position": [0.0, 0.0]}]},
                                           np.random.default_rng(0), 0.05)
    sim.pos[0] = [1.0, 1.0, 0.0]
    sim.escape_targets(sim.predator_velocities())
    np.testing.assert_allclose(sim.fear_vel[0], 2.5 * np.array([1, 1, 0]) / math.sqrt(2),
                               atol=1e-12)


def test_candidate_directions_are_unit_and_spread():
    for dim, count in ((2, 64), (3, 200)):
        dirs = candidate_directions(count, dim)
        np.testing.assert_allclose(np.linalg.norm(dirs, axis=1), 1.0, atol=1e-12)
        assert np.abs(dirs.mean(axis=0)).max() < 0.02


def test_non_inertial_direction_is_the_weighted_unit_sum():
    """One leader moving along x, goal along y, own-direction weight 2, temptation 1: the new
    velocity is the cruise speed times the unit of (2, 1); it moves by dt times that."""
    sim = ForcesSimulation.from_parameters(
        {"N": 1, "form": "non_inertial", "leaders": 1, "w_inertia": 2.0,
        "w_temptation": 1.0, "goal_angle": 90.0, "initial": "random"},
        np.random.default_rng(0), 0.1)
    sim.vel[0] = [0.3, 0.0, 0.0]
    start = sim.pos[0].copy()
    sim.advance(1)
    expected = sim.p["cruise_speed"] * np.array([2.0, 1.0, 0.0]) / math.sqrt(5.0)
    np.testing.assert_allclose(sim.vel[0], expected, atol=1e-12)
    np.testing.assert_allclose(sim.pos[0] - start, 0.1 * expected, atol=1e-12)


def test_non_inertial_repulsion_and_attraction_zones():
    """Neighbours closer than r* push away (unit direction), farther ones within r_cut pull:
    two agents 0.5 apart (r* = ln 4 = 1.39 for C = 2, l = 0.5) move apart along their line,
    two agents 3 apart move together."""
    for gap, sign in ((0.5, 1.0), (3.0, -1.0)):
        sim = ForcesSimulation.from_parameters(
            {"N": 2, "form": "non_inertial", "alpha": 1.0, "beta": 0.5,
            "C_r": 2.0, "l_r": 0.5, "w_inertia": 0.0},
            np.random.default_rng(0), 0.1)
        sim.pos[:] = 0.0
        sim.pos[1, 0] = gap
        sim.advance(1)
        speed = math.sqrt(2.0)
        np.testing.assert_allclose(sim.vel[1], [sign * speed, 0.0, 0.0], atol=1e-12)
        np.testing.assert_allclose(sim.vel[0], [-sign * speed, 0.0, 0.0], atol=1e-12)
