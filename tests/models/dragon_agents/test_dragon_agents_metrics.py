"""Exact answers for the dragon metrics (pure functions on arrays)."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.models.dragon_agents import DragonAgents
from flocklab.models.dragon_agents import metrics as dm
from flocklab.models.dragon_agents.engine import build_system
from flocklab.models.dragon_agents.steady import steady_line

resolve = DragonAgents().resolve


def test_alignment_of_parallel_and_orthogonal_headings():
    vx = np.array([[1.0, 2.0, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    vy = np.array([[0.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 0.0]])
    phi = dm.velocity_alignment(vx, vy)
    assert phi[0] == pytest.approx(1.0)
    # row 1: headings e_x, e_y (the resting unit has none): cos 45 deg to the mean
    assert phi[1] == pytest.approx(np.sqrt(0.5))
    assert np.isnan(phi[2])


def test_alignment_of_headings_spread_over_an_arc():
    """N headings uniformly on [-a, a]: mean cosine = mean of cos(theta_i)."""
    theta = np.linspace(-0.6, 0.6, 9)
    phi = dm.velocity_alignment(2 * np.cos(theta)[None], 2 * np.sin(theta)[None])
    assert phi[0] == pytest.approx(np.cos(theta).mean(), rel=1e-14)


def test_link_stability():
    x = np.array([[0.0, 1.1, 2.1], [0.0, 0.7, 1.7]])
    y = np.zeros_like(x)
    worst, mean = dm.link_stability(x, y, 1.0)
    assert worst == pytest.approx(0.3)
    assert mean == pytest.approx((0.1 + 0.0 + 0.3 + 0.0) / 4)


def test_oscillation_power_of_a_sinusoid():
    """A sin(2 pi f t) has power A^2/2 (all at f): counted above f/2, not above 2 f."""
    t = np.arange(0, 20.0, 0.01)
    amplitude, freq = 0.03, 2.0
    dev = np.column_stack([0.1 + amplitude * np.sin(2 * np.pi * freq * t),
                           np.full_like(t, 0.2)])
    above = dm.oscillation_power(t, dev, 1.0)
    assert above == pytest.approx(amplitude**2 / 2 / 2, rel=1e-9)  # mean over two links
    assert dm.oscillation_power(t, dev, 3.0) < 1e-20


def test_settling_time_of_an_exponential():
    """1 - exp(-t) enters the 5 % band of its final value 1 at t = ln 20."""
    t = np.linspace(0, 30, 30001)
    assert dm.settling_time(t, 1 - np.exp(-t), band=0.0, rel=0.05) == pytest.approx(
        np.log(20), abs=2e-3)
    assert dm.settling_time(t, np.ones_like(t)) == 0.0


def test_oscillation_power_cut_off_is_sharp():
    """A 1 Hz sinusoid on a 20 s record (bins every 0.05 Hz, 1 Hz is one of them) lies wholly
    above a cut-off of 0.98 Hz and wholly below one of 1.02 Hz: power A^2/2 or none."""
    t = np.arange(0, 20.0, 0.01)
    amplitude = 0.03
    dev = (amplitude * np.sin(2 * np.pi * 1.0 * t))[:, None]
    assert dm.oscillation_power(t, dev, 0.98) == pytest.approx(amplitude**2 / 2, rel=1e-9)
    assert dm.oscillation_power(t, dev, 1.02) < 1e-20


def test_settling_time_uses_the_absolute_band_near_a_zero_final_value():
    """exp(-t) settles at 0, where the relative band vanishes: the absolute band 0.05 is left
    for good at t = ln 20 (grid 1e-3; the first record inside is reported)."""
    t = np.linspace(0, 30, 30001)
    assert dm.settling_time(t, np.exp(-t)) == pytest.approx(np.log(20), abs=2e-3)
    assert dm.settling_time(t, np.exp(-t), band=0.1) == pytest.approx(np.log(10), abs=2e-3)


def test_settling_time_is_the_first_record_of_the_final_stay_in_the_band():
    """Records at t = 0..9 s; final value 0 (mean of the last record), band 0.05: the signal
    is last outside at t = 4 s (0.3), so it settles at the next record, 5 s after t0 = 0 and
    3 s after t0 = 2."""
    t = np.arange(10.0)
    signal = np.array([1.0, 0.0, 0.0, 0.5, 0.3, 0.01, 0.0, -0.02, 0.0, 0.0])
    assert dm.settling_time(t, signal) == 5.0
    assert dm.settling_time(t, signal, t0=2.0) == 3.0


def test_control_effort_at_the_straight_line_steady_state():
    """Towed chain: control on unit i is k_c (delta_i - delta_{i+1}) (+ head path force),
    constant in time, so the effort is T sum_i |F_i|^2."""
    n, duration = 6, 7.0
    p = resolve({"N": n, "path": {"kind": "line", "speed": 1.0}})
    system = build_system(p)
    velocity, delta = steady_line(n, 5.0, 0.5, 3.0, 500.0, 1.0)
    gaps = 1.0 + delta
    x0 = -np.concatenate([[0.0], np.cumsum(gaps)])
    t = np.linspace(0.0, duration, 15)
    states = np.zeros((len(t), n, 4))
    states[..., 0] = x0[None, :] + velocity * t[:, None]
    states[..., 2] = velocity
    ext = np.concatenate([[0.0], delta, [0.0]])
    force = 5.0 * (ext[:-1] - ext[1:])  # cohesion: front link pulls forward, back link back
    force[0] += 3.0 * (1.0 - velocity)
    expected = duration * np.sum(force**2)
    assert dm.control_effort(t, states, system) == pytest.approx(expected, rel=1e-9)


def test_past_states_interpolates_and_holds_the_start():
    t = np.linspace(0.0, 1.0, 11)
    flat = np.column_stack([t, 2 * t])
    past = dm.past_states(t, flat, 0.25)
    np.testing.assert_allclose(past[:, 0], np.maximum(t - 0.25, 0.0), atol=1e-15)
    np.testing.assert_allclose(past[:, 1], 2 * np.maximum(t - 0.25, 0.0), atol=1e-15)


def test_rigid_chain_deviation_on_a_line_and_a_circle():
    """Line: unit i is off the rigid chain by the sum of the first i link stretches.
    Circle: units at chord L (angle step 2 asin(L / 2R)) behind the head are the rigid
    chain, deviation 0."""
    n = 6
    line = build_system(resolve({"N": n, "path": {"kind": "line", "speed": 1.0}})).guide
    delta = np.array([0.01, 0.02, 0.0, 0.005, 0.03])
    x = -np.concatenate([[0.0], np.cumsum(1.0 + delta)])[None, :] + np.array([[0.0], [2.5]])
    dev = dm.rigid_chain_deviation(x, np.zeros_like(x), line, 1.0)
    np.testing.assert_allclose(dev, np.tile(np.concatenate([[0.0], np.cumsum(delta)]),
                                            (2, 1)), atol=1e-12)
    radius = 15.0
    circle = build_system(resolve({"N": n})).guide
    angle = 0.7 - 2 * np.arcsin(1.0 / (2 * radius)) * np.arange(n)
    dev = dm.rigid_chain_deviation(radius * np.cos(angle)[None], radius * np.sin(angle)[None],
                                   circle, 1.0)
    np.testing.assert_allclose(dev, 0.0, atol=1e-9)


def test_turn_onset_is_the_largest_curvature_step_the_head_meets():
    """On the contest turnaround (spiral in, S-bend of two arcs, spiral out) at 1 m/s the
    turn is the record where the head passes the segment boundary with the largest
    curvature jump; a straight chain starting on a circle turns at once; a line never."""
    from flocklab.models.dragon_agents.guidance import make_guide

    path = make_guide({"kind": "turnaround"}).path
    bounds = path.offsets[1:-1]
    jumps = np.abs(path.curvature(bounds + 1e-9) - path.curvature(bounds - 1e-9))
    boundary = bounds[np.argmax(jumps)]
    t = np.arange(0.0, 60.0, 0.05)
    s = boundary - 20.025 + t  # 1 m/s, passing the boundary between records 20.0 and 20.05
    head = path.position(s)
    expected = 20.05
    assert dm.turn_onset(t, head[:, 0], head[:, 1], path) == pytest.approx(expected)
    circle = make_guide({"kind": "circle", "radius": 15.0, "angular_speed": 0.3}).path
    head = circle.position(t)
    assert dm.turn_onset(t, head[:, 0], head[:, 1], circle) == 0.0
    line = make_guide({"kind": "line", "speed": 1.0}).path
    head = line.position(t + 1.0)
    assert dm.turn_onset(t + 2.0, head[:, 0], head[:, 1], line) == 2.0
