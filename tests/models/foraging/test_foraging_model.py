"""The foraging step: compiled kernels against the all-pairs NumPy oracle, thread
independence, the behaviours one at a time, predators, parameters and metrics."""

from __future__ import annotations

import numpy as np
import pytest
from flocklab_oracles import foraging as reference

import flocklab
from flocklab.core.parameters import ParameterError
from flocklab.models.foraging import engine
from flocklab.models.foraging import kernels as kr

MODEL = flocklab.get_model("foraging")
SCENE = {"obstacles": [{"rect": [40.0, 40.0, 60.0, 45.0]},
                       {"vertices": [[10.0, 10.0], [30.0, 12.0], [20.0, 30.0]]}],
         "predators": [{"position": [50.0, 50.0]}], "regrowth": 0.05, "group_size": 20}


def _state(params, seed=5, dt=0.2):
    resolved = MODEL.prepare(params)
    state = engine.initial_state(resolved, np.random.default_rng(seed))
    state["_dt"] = dt
    return resolved, state


def _copy(state):
    return {key: value.copy() if isinstance(value, np.ndarray) else value
            for key, value in state.items()}


@pytest.mark.parametrize("extra", [{}, {"social": False}, SCENE, {**SCENE, "crowding": 5.0}])
def test_the_compiled_step_equals_the_all_pairs_numpy_step(extra):
    """Same state in, same state out over 10 steps (after 40 steps of history), to
    rounding: the two sum partners in different orders."""
    params, state = _state({"N": 200, **extra})
    engine.advance(state, params, 0, 40)
    fast, slow = _copy(state), _copy(state)
    fast["_grid"] = state["_grid"]
    for step in range(40, 50):
        engine.advance(fast, params, step, 1)
        reference.step(slow, params, step)
    for key in ("pos", "head", "energy", "field", "eaten", "death_time", "ppos", "first_food"):
        np.testing.assert_allclose(fast[key], slow[key], rtol=0, atol=1e-9, err_msg=key)
    for key in ("behaviour", "alive", "cause"):
        np.testing.assert_array_equal(fast[key], slow[key], err_msg=key)
    assert len(set(fast["behaviour"].tolist())) >= 2


def test_results_do_not_depend_on_the_thread_count():
    """5000 agents (above the parallel threshold): one thread (serial kernels) and two
    (parallel kernels) give the same bytes after 5 steps."""
    import numba

    params, state = _state({"N": 5000, "Lx": 300.0, "Ly": 300.0, "patches": 200,
                            "food_cell": 2.0, "regrowth": 0.01})
    before = numba.get_num_threads()
    results = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            copy = _copy(state)
            copy["_grid"] = state["_grid"]
            engine.advance(copy, params, 0, 5)
            results.append(copy)
    finally:
        numba.set_num_threads(before)
    for key in ("pos", "head", "energy", "field", "behaviour"):
        assert results[0][key].tobytes() == results[1][key].tobytes(), key


def _pair(**params):
    """Two agents 3 apart: A on a rich cell, B on bare ground (no other food)."""
    resolved, state = _state({"N": 2, "Lx": 20.0, "Ly": 20.0, "patches": 0, "tries": 0,
                              "food": [{"rect": [9.0, 9.0, 10.0, 10.0], "density": 5.0}],
                              **params})
    state["pos"][:, :2] = [[9.5, 9.5], [12.5, 9.5]]
    state["head"][:] = [[0.0, 1.0], [0.0, 1.0]]
    return resolved, state


def test_an_agent_follows_a_partner_on_food():
    params, state = _pair()
    engine.advance(state, params, 0, 1)
    assert state["behaviour"][1] == kr.FOLLOW
    assert state["pos"][1, 0] < 12.5  # moved toward A


def test_solitary_agents_neither_follow_nor_swarm():
    params, state = _pair(social=False)
    engine.advance(state, params, 0, 1)
    assert state["behaviour"][1] == kr.WANDER
    run = flocklab.simulate("foraging", social=False, N=60, t_end=40.0, seed=2,
                            snapshot_every=0.2)
    codes = set(np.unique(run["behaviour"].values).tolist())
    assert codes <= {kr.WANDER, kr.FORAGE} and kr.FORAGE in codes


def test_the_crowding_factor_stops_following():
    """B on food of its own (background 1) sees A on 1 + 5: with n_f = 1 it follows while
    Y_A / n_f = 6 > delta Y_B = delta, not from delta = 6 on."""
    for delta, followed in ((5.9, True), (6.0, False)):
        params, state = _pair(crowding=delta, food_background=1.0)
        engine.advance(state, params, 0, 1)
        assert bool(state["behaviour"][1] == kr.FOLLOW) == followed, delta


def test_the_forage_search_finds_a_patch_within_reach():
    """One agent 3 from a patch edge, tries = 20: it heads for the patch."""
    params, state = _state({"N": 1, "Lx": 20.0, "Ly": 20.0, "patches": 0, "tries": 20,
                            "food": [{"centre": [10.0, 10.0], "radius": 2.0, "density": 2.0}]})
    state["pos"][0, :2] = [15.0, 10.0]
    state["head"][0] = [0.0, 1.0]
    engine.advance(state, params, 0, 1)
    assert state["behaviour"][0] == kr.FORAGE and state["pos"][0, 0] < 15.0


def test_a_close_partner_is_swum_away_from():
    params, state = _pair(safety=1.0)
    state["pos"][:, :2] = [[12.0, 9.5], [12.5, 9.5]]
    engine.advance(state, params, 0, 1)
    assert state["pos"][1, 0] == pytest.approx(12.5 + 0.2)  # straight away from A


def test_prey_flee_and_predators_capture():
    params, state = _state({"N": 2, "Lx": 20.0, "Ly": 20.0, "patches": 0, "flee_speed": 3.0,
                            "predators": [{"position": [5.0, 5.0], "speed": 2.0,
                                           "capture_radius": 0.5}]})
    state["pos"][:, :2] = [[5.3, 5.0], [15.0, 15.0]]  # A within capture reach, B far
    state["ppos"][:] = [[5.0, 5.0]]
    engine.advance(state, params, 0, 1)
    assert state["behaviour"][0] == kr.FLEE
    assert state["pos"][0, 0] == pytest.approx(5.3 + 3.0 * 0.2)  # away at v_max
    assert not state["alive"][0] and state["cause"][0] == kr.CAPTURED
    assert state["death_time"][0] == pytest.approx(0.2)
    assert state["alive"][1] and state["behaviour"][1] != kr.FLEE


@pytest.mark.parametrize(("given", "key"), [
    ({"E0": 25.0}, "E0"),
    ({"flee_speed": 0.5}, "flee_speed"),
    ({"obstacles": [{"rect": [90.0, 90.0, 120.0, 95.0]}]}, "obstacles[0]"),
    ({"obstacles": [{"vertices": [[0, 0], [10, 10], [10, 0], [0, 10]]}]}, "obstacles[0]"),
    ({"obstacles": [{"vertices": [[0, 0], [10, 10]]}]}, "obstacles"),
    ({"food": [{"rect": [0, 0, 1, 1]}]}, "food"),
    ({"predators": [{"position": [-1.0, 5.0]}]}, "predators[0].position"),
    ({"turn_noise": -1.0}, "turn_noise"),
])
def test_bad_parameters_name_their_key(given, key):
    with pytest.raises(ParameterError) as error:
        MODEL.resolve(given)
    assert error.value.name == key and "\n" not in str(error.value)


def test_a_step_longer_than_the_perception_radius_is_refused():
    with pytest.raises(ParameterError, match="dt = 3") as error:
        flocklab.simulate("foraging", t_end=30.0, dt=3.0, seed=1)
    assert error.value.name == "dt"


def test_the_food_grid_covers_the_arena():
    from flocklab.models.foraging.params import grid_shape

    assert grid_shape({"Lx": 10.5, "Ly": 4.0, "food_cell": 1.0}) == (4, 11)
    assert grid_shape({"Lx": 100.0, "Ly": 100.0, "food_cell": 1.0}) == (100, 100)


def test_run_metrics_agree_with_the_series():
    run = flocklab.simulate("foraging", t_end=120.0, seed=4, record_every=1.0)
    metrics = MODEL.metrics(run, MODEL.run_parameters(run), 0.0)
    assert metrics["survival"] == pytest.approx(float(run["alive_fraction"].values[-1]))
    assert metrics["starved"] + metrics["captured"] + metrics["survival"] == pytest.approx(1)
    assert 0.0 < metrics["lifetime"] <= 120.0 and 0.0 < metrics["food_time"] <= 120.0
    dead = np.isfinite(run["death_time"].values)
    assert np.all(run["cause"].values[dead] > 0) and np.all(run["cause"].values[~dead] == 0)
    assert run["groups"].values[0] == 5  # five schools of ten at the start


def test_restricted_mean_counts_the_unseen_as_the_end():
    from flocklab.models.foraging.metrics import restricted_mean

    assert restricted_mean(np.array([10.0, np.nan, 30.0, 250.0]), 100.0) == pytest.approx(60.0)
