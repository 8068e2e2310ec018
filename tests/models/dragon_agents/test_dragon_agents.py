"""Tests of the bench-dragon agent engine: exact forces, Jacobian, closed forms, inputs."""

from __future__ import annotations

import numpy as np
import pytest
from flocklab_oracles.dragon_agents import (
    article_rhs,
    circular_path_velocity,
    from_block_layout,
    to_block_layout,
)

from flocklab.core.model import SimulationError
from flocklab.core.parameters import ParameterError
from flocklab.models.dragon_agents import DragonAgents
from flocklab.models.dragon_agents.engine import (
    build_system,
    initial_state,
    simulate_dragon,
    unit_gains,
)
from flocklab.models.dragon_agents.metrics import link_lengths
from flocklab.models.dragon_agents.solve import integrate, integrate_delayed
from flocklab.models.dragon_agents.steady import steady_line, steady_line_general

resolve = DragonAgents().resolve

LINE = {"kind": "line", "speed": 1.0}
VARIANTS = [
    {},
    {"neighbours": "front_back"},
    {"look_ahead": 0.4},
    {"look_ahead": 0.4, "neighbours": "front_back", "cross_track_gain": 0.7, "gain_cv": 0.3},
    {"path": {"kind": "s_curve", "radius": 6.0, "speed": 1.5}, "cross_track_gain": 0.4},
    {"path": {"kind": "circle", "radius": 8.0, "angular_speed": -0.4}, "guidance": "reference",
     "cross_track_gain": 1.0},
    {"path": {"kind": "turnaround"}, "cross_track_gain": 0.5},
]


def random_state(params: dict, rng: np.random.Generator, spread: float = 0.2) -> np.ndarray:
    """The straight start perturbed; the head moved 3 m along the path (inside it) and off
    it by up to ``spread``, so the projection is unique and interior."""
    y = initial_state(params) + rng.normal(0.0, spread, 4 * params["N"])
    guide = build_system(params).guide
    y[:2] = guide.path.position(3.0) + rng.normal(0.0, spread, 2)
    return y


def finite_difference(fun, y: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.empty((y.size, y.size))
    for k in range(y.size):
        e = np.zeros(y.size)
        e[k] = eps
        out[:, k] = (fun(y + e) - fun(y - e)) / (2 * eps)
    return out


# --------------------------------------------------------------------------- forces


def test_rhs_equals_the_articles_loop():
    """The vectorised kernel gives the article's loop forces on its own example."""
    params = resolve({"start": "article"})
    system = build_system(params)
    rng = np.random.default_rng(11)

    def article_velocity(t, head):
        return circular_path_velocity(t, head, radius=15.0, angular_speed=0.3)

    for _ in range(5):
        y = random_state(params, rng, 0.3)
        y[:2] = rng.normal(0, 5, 2)
        mine = system.rhs(1.3, y)
        theirs = from_block_layout(article_rhs(1.3, to_block_layout(y), 20, 1.0, 2.0, 5.0,
                                               3.0, 0.5, 500.0, article_velocity))
        np.testing.assert_allclose(mine, theirs, rtol=1e-13, atol=1e-11)


@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_kernel_equals_numpy(variant):
    params = resolve({"N": 9, **variant})
    system = build_system(params, seed=5)
    rng = np.random.default_rng(2)
    y, past = random_state(params, rng), random_state(params, rng)
    for lagged in (None, past):
        fast = system.accelerations(0.8, y, lagged)
        slow = system.accelerations_numpy(0.8, y, lagged)
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-10)


def test_zero_delay_rhs_is_the_undelayed_rhs():
    """Seeing the neighbours' present state is exactly the undelayed model (same bytes)."""
    params = resolve({"N": 7, "neighbours": "front_back", "look_ahead": 0.2})
    system = build_system(params)
    y = random_state(params, np.random.default_rng(4))
    assert system.rhs(0.5, y, y.copy()).tobytes() == system.rhs(0.5, y).tobytes()


# --------------------------------------------------------------------------- Jacobian


@pytest.mark.parametrize("variant", VARIANTS)
def test_jacobian_equals_finite_differences(variant):
    params = resolve({"N": 8, **variant})
    system = build_system(params, seed=3)
    rng = np.random.default_rng(7)
    for _ in range(3):
        y = random_state(params, rng, 0.3)
        exact = system.jacobian(0.9, y).toarray()
        approx = finite_difference(lambda z: system.rhs(0.9, z), y)
        # central differences, eps = 1e-6: round-off ~1e-16 |f| / eps with |f| <= ~1e3,
        # entries up to ~2 k_penalty = 1e3; 2e-5 is a relative 2e-8 of the largest entry
        np.testing.assert_allclose(exact, approx, rtol=0, atol=2e-5)
        # nothing outside the declared pattern, band form consistent
        assert np.all(approx[system.sparsity().toarray() == 0] == 0)
        lower, upper = system.bandwidth()
        rows, cols = np.indices(exact.shape)
        inside = (rows - cols <= lower) & (cols - rows <= upper)
        assert np.all(exact[~inside] == 0)
        band = system.banded(0.9, y)
        np.testing.assert_array_equal(band[upper + rows[inside] - cols[inside], cols[inside]],
                                      exact[inside])


def test_delayed_jacobian_equals_finite_differences():
    params = resolve({"N": 6, "neighbours": "front_back", "look_ahead": 0.3})
    system = build_system(params)
    rng = np.random.default_rng(8)
    y, past = random_state(params, rng), random_state(params, rng)
    exact = system.jacobian(0.4, y, past).toarray()
    approx = finite_difference(lambda z: system.rhs(0.4, z, past), y)
    np.testing.assert_allclose(exact, approx, rtol=0, atol=5e-6)


def test_article_circle_reading():
    """The article's v_desired is the tangent at the head's radial projection."""
    guide = build_system(resolve({})).guide
    rng = np.random.default_rng(3)
    for head in rng.normal(0, 10, (20, 2)):
        np.testing.assert_allclose(guide.desired_velocity(0.0, head),
                                   circular_path_velocity(0.0, head, 15.0, 0.3), atol=1e-12)
        s = guide.path.project(head)
        np.testing.assert_allclose(guide.frame_at(head)[0], guide.path.position(s),
                                   atol=1e-9)


PROJECTED_PATHS = [
    {"kind": "spiral", "pitch": 1.7, "r_start": 8.8, "r_end": 4.5, "speed": 1.0},
    {"kind": "spiral", "pitch": 1.3, "r_start": 2.0, "r_end": 9.0, "speed": 1.0},
    {"kind": "turnaround"},
    {"kind": "s_curve", "radius": 5.0, "speed": 1.0},
    {"kind": "figure_eight", "radius": 4.0, "speed": 1.0},
]


@pytest.mark.parametrize("spec", PROJECTED_PATHS, ids=lambda spec: spec["kind"])
def test_scalar_projection_equals_the_path_library(spec):
    """nearest_frame gives path.project's point, tangent and curvature (and its clamping)
    at random points, inside, outside and beyond the ends of the path."""
    from flocklab.geometry.compiled import nearest_frame

    path = build_system(resolve({"path": spec})).guide.path
    points = np.random.default_rng(21).uniform(-16.0, 16.0, (400, 2))
    s = path.project(points)
    point, tangent = path.frame(s)
    kappa = path.curvature(s)
    periodic = hasattr(path, "path")
    for k, p in enumerate(points):
        got = nearest_frame(path, p)
        np.testing.assert_allclose(got[0], point[k], rtol=0, atol=1e-11)
        np.testing.assert_allclose(got[1], tangent[k], rtol=0, atol=1e-12)
        assert got[2] == pytest.approx(kappa[k], rel=1e-12)
        clamped = not periodic and (s[k] <= 0.0 or s[k] >= path.length * (1 - 1e-15))
        assert got[3] == clamped


# --------------------------------------------------------------------------- closed forms


def test_closed_form_sums_the_recursion():
    for tau in (0.0, 0.15):
        v1, d1 = steady_line(7, 5.0, 0.5, 3.0, 500.0, 1.2, tau)
        v2, d2 = steady_line_general(np.full(7, 5.0), np.full(7, 0.5), 3.0, 500.0, 1.2, tau)
        assert v1 == pytest.approx(v2, rel=1e-14)
        np.testing.assert_allclose(d1, d2, rtol=1e-13)


STEADY_TOL = {"rtol": 1e-10, "atol": 1e-12}


@pytest.mark.parametrize("variant", [{}, {"neighbours": "front_back"}, {"method": "BDF"},
                                     {"method": "LSODA"}, {"gain_cv": 0.4}])
def test_straight_line_steady_state(variant):
    """Every unit at V = k_p U / (k_p + N k_d); link l stretched by (N - l) k_d V / K.

    After t = 80 s the slowest transient (rate >= k_d / (2 m) = 0.25 / s) has decayed by
    e^-20 ~ 2e-9 of its initial size (<= U = 1 m/s); the solver error is ~ rtol |x| with
    |x| <= 80 m, so 1e-7 bounds both for V and for the extensions (~1e-3 m)."""
    params = {"N": 5, "path": LINE, **STEADY_TOL, **variant}
    sol = simulate_dragon(params, np.linspace(0.0, 80.0, 81), seed=9)
    p = resolve(params)
    gains = unit_gains(p, 9)
    velocity, delta = steady_line_general(gains["k_c"], gains["k_d"], p["k_p"],
                                          p["k_penalty"], 1.0)
    np.testing.assert_allclose(sol.vx[-1], velocity, atol=1e-7)
    np.testing.assert_allclose(sol.vy[-1], 0.0, atol=1e-7)
    np.testing.assert_allclose(link_lengths(sol.x, sol.y)[-1] - p["L"], delta, atol=1e-7)


def test_delayed_straight_line_steady_state():
    """Method of steps reproduces V = k_p U / (k_p + N k_d + 2 (N-1) k_c tau)."""
    tau = 0.2
    params = {"N": 4, "path": LINE, "delay": tau, "rtol": 1e-9, "atol": 1e-11,
              "method": "DOP853"}
    sol = simulate_dragon(params, np.linspace(0.0, 60.0, 61))
    velocity, delta = steady_line(4, 5.0, 0.5, 3.0, 500.0, 1.0, tau)
    np.testing.assert_allclose(sol.vx[-1], velocity, atol=1e-6)
    np.testing.assert_allclose(link_lengths(sol.x, sol.y)[-1] - 1.0, delta, atol=1e-7)
    assert sol.stats["segments"] == 300


@pytest.mark.slow
def test_link_error_falls_as_one_over_penalty():
    """Log-log slope of the steady link error against k_penalty is -1 (K = k_c + k_pen)."""
    penalties = np.array([1e2, 1e3, 1e4, 1e5])
    errors = []
    for k_pen in penalties:
        sol = simulate_dragon({"N": 3, "path": LINE, "k_penalty": k_pen, "rtol": 1e-10,
                               "atol": 1e-12, "method": "LSODA"}, np.linspace(0.0, 50.0, 26))
        errors.append(np.abs(link_lengths(sol.x, sol.y)[-1] - 1.0).max())
    slope = np.polyfit(np.log(penalties), np.log(errors), 1)[0]
    expected = np.polyfit(np.log(penalties), np.log(1.0 / (5.0 + penalties)), 1)[0]
    assert slope == pytest.approx(expected, abs=1e-3)
    assert slope == pytest.approx(-1.0, abs=0.02)


def test_small_delay_converges_to_undelayed():
    """The DDE solution tends to the ODE solution linearly in tau (first-order effect)."""
    base = {"N": 4, "path": {"kind": "circle", "radius": 6.0, "angular_speed": 0.3},
            "rtol": 1e-9, "atol": 1e-11, "method": "DOP853"}
    t = np.linspace(0.0, 2.0, 21)
    ref = simulate_dragon(base, t).states
    gaps = [np.abs(simulate_dragon({**base, "delay": tau}, t).states - ref).max()
            for tau in (0.02, 0.01, 0.005)]
    ratios = np.array(gaps[:-1]) / np.array(gaps[1:])
    np.testing.assert_allclose(ratios, 2.0, rtol=0.06)


@pytest.mark.parametrize("method", ["Radau", "BDF", "LSODA"])
def test_implicit_delay_solvers_agree_with_explicit(method):
    """The delayed Jacobian and band form drive the implicit solvers to the same answer."""
    base = {"N": 5, "delay": 0.3, "neighbours": "front_back", "look_ahead": 0.2,
            "rtol": 1e-8, "atol": 1e-10}
    t = np.linspace(0.0, 1.5, 7)
    ref = simulate_dragon({**base, "method": "DOP853"}, t).states
    got = simulate_dragon({**base, "method": method}, t)
    np.testing.assert_allclose(got.states, ref, atol=2e-6)
    assert got.stats["njev"] > 0 or method == "LSODA"  # LSODA may stay on Adams


def test_zero_delay_run_is_the_undelayed_run():
    t = np.linspace(0.0, 2.0, 11)
    params = resolve({"N": 4, "delay": 0.0})
    system = build_system(params)
    direct = integrate(system, initial_state(params), t)
    via = simulate_dragon({"N": 4, "delay": 0.0}, t)
    assert direct.states.tobytes() == via.states.tobytes()
    with pytest.raises(ValueError):
        integrate_delayed(system, initial_state(params), t, 0.0)


# --------------------------------------------------------------------------- reproducibility


def test_same_seed_same_bytes_and_gains_have_their_own_stream():
    params = {"N": 6, "gain_cv": 0.3}
    t = np.linspace(0.0, 2.0, 5)
    a = simulate_dragon(params, t, seed=42).states
    b = simulate_dragon(params, t, seed=42).states
    c = simulate_dragon(params, t, seed=43).states
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, c)
    fixed = resolve({**params, "gain_seed": 7})
    assert unit_gains(fixed, 1)["k_a"].tobytes() == unit_gains(fixed, 2)["k_a"].tobytes()


def test_lognormal_gains_have_the_stated_mean_and_cv():
    """Mean and CV of 20000 draws within 5 standard errors of the stated values."""
    p = resolve({"N": 20000, "gain_cv": 0.5})
    k_a = unit_gains(p, 1)["k_a"]
    n, cv = k_a.size, 0.5
    assert abs(k_a.mean() - 2.0) < 5 * 2.0 * cv / np.sqrt(n)
    sigma2 = np.log1p(cv**2)  # sd of the sample CV of a lognormal ~ cv * sqrt(...) / sqrt(n)
    assert abs(k_a.std() / k_a.mean() - cv) < 5 * np.sqrt(np.exp(4 * sigma2)) * cv / np.sqrt(n)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("given", "key"), [
    ({"N": 1}, "N"),
    ({"L": 0.0}, "L"),
    ({"k_a": -1.0}, "k_a"),
    ({"k_c": -0.1}, "k_c"),
    ({"k_p": -2.0}, "k_p"),
    ({"k_d": -0.5}, "k_d"),
    ({"k_penalty": -1.0}, "k_penalty"),
    ({"method": "Euler"}, "method"),
    ({"path": {"kind": "hexagon"}}, "path"),
    ({"path": {"kind": "circle", "radius": -1.0, "angular_speed": 0.3}}, "path.radius"),
    ({"path": {"kind": "line"}}, "path.speed"),
    ({"rtol": 0.0}, "rtol"),
    ({"atol": -1e-9}, "atol"),
    ({"delay": -0.1}, "delay"),
    ({"neighbours": "all"}, "neighbours"),
    ({"gain_cv": -0.1}, "gain_cv"),
])
def test_bad_input_names_the_key(given, key):
    with pytest.raises(ParameterError) as info:
        resolve(given)
    assert info.value.name == key
    assert key.split(".")[0] in str(info.value)
    assert "\n" not in str(info.value)


def test_blow_up_raises_with_time_and_parameters():
    """A head racing away on soft links stretches the first link past 3 L."""
    params = {"N": 4, "path": {"kind": "line", "speed": 50.0}, "k_p": 200.0,
              "k_penalty": 1.0, "k_c": 0.0}
    with pytest.raises(SimulationError, match=r"t = 0\.\d+.*k_penalty"):
        simulate_dragon(params, np.linspace(0.0, 5.0, 11))
