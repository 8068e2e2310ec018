"""Bench dragon: chain solver, rigid-bench speeds, board collisions and the five questions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.core.parameters import ParameterError
from flocklab.geometry.chain import chain_state, follow, solve_chain, speed_ratios
from flocklab.geometry.paths import TWO_PI, Composite, Spiral, turnaround_path
from flocklab.models.dragon_chain.collision import (
    Rectangles,
    all_pairs,
    all_pairs_separation,
    bench_rectangles,
    first_contact,
    lead_separation,
    separation,
)
from flocklab.models.dragon_chain.geometry import BenchGeometry
from flocklab.models.dragon_chain.questions import (
    contact_radius,
    contact_radius_curve,
    peak_ratio_curve,
    q1_spiral,
    q2_collision,
    q3_min_pitch,
    q4_turnaround,
    q5_max_speed,
    s_curve_length_vs_ratio,
    turnaround,
)

GEOMETRY = BenchGeometry()


def _chords(xy: np.ndarray) -> np.ndarray:
    return np.linalg.norm(np.diff(xy, axis=-2), axis=-1)


def test_geometry_matches_the_contest() -> None:
    np.testing.assert_allclose(GEOMETRY.spacings[:2], [2.86, 1.65])
    assert GEOMETRY.n_handles == 224
    assert np.all(GEOMETRY.spacings[1:] == GEOMETRY.spacings[1])
    np.testing.assert_allclose(GEOMETRY.half_lengths[:2], [3.41 / 2, 2.20 / 2])


def test_q1_chord_constraint_at_every_handle_and_time() -> None:
    q1 = q1_spiral()
    assert q1.state.xy.shape == (301, 224, 2)
    np.testing.assert_allclose(q1.state.xy[0, 0], [8.8, 0.0], atol=1e-12)
    assert np.max(np.abs(_chords(q1.state.xy) - GEOMETRY.spacings)) < 1e-9
    # the head has travelled t metres of spiral
    spiral = Spiral(0.55, 32 * math.pi, 0.0)
    np.testing.assert_allclose(spiral.project(q1.state.xy[::50, 0]), q1.times[::50], atol=1e-7)


def test_q4_chord_constraint_across_segment_junctions() -> None:
    q4 = q4_turnaround()
    assert np.max(np.abs(_chords(q4.state.xy) - GEOMETRY.spacings)) < 1e-9
    path = turnaround(1.7, 9.0, 2.0).path
    segment = path.segment_index(q4.state.s)
    # handles are spread over all four segments at some instant, benches straddle junctions
    assert set(np.unique(segment)) == {0, 1, 2, 3}
    assert np.any(segment[:, :-1] != segment[:, 1:])


@pytest.mark.parametrize("kind", ["spiral", "turnaround"])
def test_follower_is_the_nearest_point_behind(kind: str) -> None:
    turn = turnaround(1.7, 9, 2)
    path = Spiral(0.55, 32 * math.pi, 0.0) if kind == "spiral" else turn.path
    s_head = np.array([300.0]) if kind == "spiral" else turn.s_enter + np.array([5.0])
    s = solve_chain(path, s_head, GEOMETRY.spacings)[0]
    xy = path.position(s)
    for i in range(0, 223, 7):
        between = path.position(np.linspace(s[i + 1], s[i], 200)[1:-1])
        assert np.all(np.linalg.norm(between - xy[i], axis=1) < GEOMETRY.spacings[i])


def test_compiled_solvers_match_the_numpy_reference() -> None:
    spiral = Spiral(0.55, 32 * math.pi, 0.0)
    s_head = np.array([0.0, 150.5, 300.0])
    fast = solve_chain(spiral, s_head, GEOMETRY.spacings[:40])
    generic = Composite([spiral])  # a composite is solved by the generic kernel
    other = solve_chain(generic, s_head, GEOMETRY.spacings[:40])
    ref = [s_head]
    for d in GEOMETRY.spacings[:40]:
        ref.append(follow(spiral, ref[-1], float(d)))
    np.testing.assert_allclose(fast, np.stack(ref, -1), atol=1e-9)
    np.testing.assert_allclose(other, np.stack(ref, -1), atol=1e-9)


@pytest.mark.parametrize("question", ["q1", "q4"])
def test_rigid_bench_speeds_match_central_differences(question: str) -> None:
    h = 1e-4
    if question == "q1":
        spiral = Spiral(0.55, 32 * math.pi, 0.0)
        path, s0 = spiral, np.array([10.0, 200.0, 400.0])
    else:
        turn = turnaround(1.7, 9.0, 2.0)
        path, s0 = turn.path, turn.s_enter + np.array([-3.0, 0.5, 7.0, 14.48, 40.0])
    speed = 1.3
    state = chain_state(path, s0, GEOMETRY.spacings, speed)
    plus = path.position(solve_chain(path, s0 + speed * h, GEOMETRY.spacings))
    minus = path.position(solve_chain(path, s0 - speed * h, GEOMETRY.spacings))
    numeric = np.linalg.norm(plus - minus, axis=-1) / (2 * h)
    np.testing.assert_allclose(state.speed, numeric, rtol=1e-6)
    # and the velocity is along the path
    velocity = (plus - minus) / (2 * h)
    np.testing.assert_allclose(velocity, state.velocity, atol=2e-6)


def test_speed_ratios_on_a_straight_line_are_one() -> None:
    xy = np.stack([-np.arange(5.0) * 2.0, np.zeros(5)], axis=-1)
    tangent = np.tile([1.0, 0.0], (5, 1))
    np.testing.assert_allclose(speed_ratios(xy, tangent), 1.0)


def _rect(centre, angle, half_length, half_width=0.15) -> Rectangles:
    axis = np.array([[math.cos(angle), math.sin(angle)]])
    return Rectangles(np.array([centre], float), axis, np.array([half_length]), half_width)


def _pair(a: Rectangles, b: Rectangles) -> float:
    both = Rectangles(np.concatenate([a.centre, b.centre]), np.concatenate([a.axis, b.axis]),
                      np.concatenate([a.half_length, b.half_length]), a.half_width)
    return float(separation(both, [0], [1])[0])


def test_separating_axes_on_constructed_pairs() -> None:
    a = _rect((0.0, 0.0), 0.0, 1.0)
    assert _pair(a, _rect((0.0, 0.31), 0.0, 1.0)) == pytest.approx(0.01, abs=1e-14)
    assert _pair(a, _rect((0.0, 0.30), 0.0, 1.0)) == pytest.approx(0.0, abs=1e-14)
    assert _pair(a, _rect((0.0, 0.29), 0.0, 1.0)) == pytest.approx(-0.01, abs=1e-14)
    assert _pair(a, _rect((2.2, 0.0), 0.0, 1.0)) == pytest.approx(0.2, abs=1e-14)
    # rotated by 45 degrees, corner pointing at a's long side: touches when the corner does
    corner = 1.0 * math.sqrt(0.5) + 0.15 * math.sqrt(0.5)
    assert _pair(a, _rect((0.0, 0.15 + corner + 1e-3), math.pi / 4, 1.0)) > 0
    assert _pair(a, _rect((0.0, 0.15 + corner - 1e-3), math.pi / 4, 1.0)) < 0
    # the axis-aligned boxes of these overlap, but the boards do not (needs the rotated axes)
    tilted = _pair(_rect((0.0, 0.0), math.pi / 4, 1.0), _rect((0.4, -0.4), math.pi / 4, 1.0))
    assert tilted == pytest.approx(0.4 * math.sqrt(2) - 0.3, abs=1e-14)


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _polygons_intersect(p: np.ndarray, q: np.ndarray) -> bool:
    """Brute force: some edges cross, or a vertex of one is inside the other."""
    def inside(point, poly):
        signs = [_cross(poly[(k + 1) % 4] - poly[k], point - poly[k]) for k in range(4)]
        return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)

    def cross(a, b, c, d):
        def orient(x, y, z):
            return np.sign(_cross(y - x, z - x))
        return orient(a, b, c) != orient(a, b, d) and orient(c, d, a) != orient(c, d, b)

    if any(inside(v, q) for v in p) or any(inside(v, p) for v in q):
        return True
    edges = [(k, (k + 1) % 4) for k in range(4)]
    return any(cross(p[a], p[b], q[c], q[d]) for a, b in edges for c, d in edges)


def test_separation_sign_agrees_with_brute_force_polygons() -> None:
    rng = np.random.default_rng(12)
    n = 400
    rects = Rectangles(rng.uniform(-1.5, 1.5, (2 * n, 2)), np.zeros((2 * n, 2)),
                       rng.uniform(0.5, 1.8, 2 * n), 0.15)
    angle = rng.uniform(0, math.pi, 2 * n)
    rects = Rectangles(rects.centre, np.stack([np.cos(angle), np.sin(angle)], -1),
                       rects.half_length, 0.15)
    gap = separation(rects, np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2))
    corners = rects.corners()
    checked = 0
    for k in range(n):
        if abs(gap[k]) < 1e-9:
            continue
        assert (gap[k] <= 0) == _polygons_intersect(corners[2 * k], corners[2 * k + 1])
        checked += 1
    assert checked > 350
    assert 0.1 < np.mean(gap <= 0) < 0.9  # both outcomes are exercised


def test_q2_contact_is_a_sign_change_of_the_all_pairs_separation() -> None:
    q2 = q2_collision()
    spiral = Spiral(0.55, 32 * math.pi, 0.0)
    s = q2["head_arc_length"]
    assert all_pairs_separation(spiral, s - 1e-6, GEOMETRY) > 0
    assert all_pairs_separation(spiral, s + 1e-6, GEOMETRY) < 0
    assert q2["touching"] and all(abs(p["separation"]) < 1e-6 for p in q2["touching"])
    # no contact earlier: all pairs every 25 s and at the last whole seconds before contact
    last = math.floor(q2["time"])
    times = np.concatenate([np.arange(0.0, last - 3, 25.0), np.arange(last - 3, last + 1.0)])
    state = chain_state(spiral, times, GEOMETRY.spacings)
    j, k = all_pairs(GEOMETRY.n_benches)
    gaps = separation(bench_rectangles(state.xy, GEOMETRY), j, k)
    assert gaps.min() > 0
    # the lead pairs see the same minimum as all pairs at the last second before contact
    g0, g1 = lead_separation(spiral, times[-1:], GEOMETRY)
    assert min(g0[0], g1[0]) <= gaps[-1].min() + 1e-12


def test_contact_radius_is_a_staircase_in_pitch() -> None:
    # smaller pitch collides farther out; monotone on this coarse grid
    r = contact_radius_curve([0.44, 0.46, 0.48], r_start=8.8, r_end=3.0)
    assert r[0] > 4.5 > r[1] > r[2]
    assert r[0] == contact_radius(0.44, r_start=8.8, r_end=3.0)


def test_q4_state_and_s_curve_length_invariance() -> None:
    q4 = q4_turnaround(t_start=-2.0, t_end=2.0)
    turn = turnaround(1.7, 9.0, 2.0)
    np.testing.assert_allclose(q4.state.xy[2, 0], turn.path.position(turn.s_enter), atol=1e-12)
    lengths = s_curve_length_vs_ratio()
    np.testing.assert_allclose(lengths, lengths[0], rtol=1e-12)
    geometry = q4.info["s_curve"]
    assert geometry["radii"][0] == pytest.approx(2 * geometry["radii"][1])
    assert sum(geometry["arc_lengths"]) == pytest.approx(geometry["s_curve_length"])


def test_q5_peak_ratio_is_a_local_maximum_and_scale_free() -> None:
    q5 = q5_max_speed(t_start=-20.0, t_end=60.0, step=0.1, n_peaks=2)
    turn = turnaround(1.7, 9.0, 2.0)
    s = turn.s_enter + q5["time"] + np.array([-1e-3, 0.0, 1e-3])
    state = chain_state(turn.path, s, GEOMETRY.spacings, head_speed=q5["max_head_speed"])
    assert state.speed[1].max() == pytest.approx(2.0, rel=1e-9)
    assert state.speed[[0, 2]].max() <= 2.0 + 1e-12
    assert q5["grid_max_ratio"] <= q5["max_ratio"]
    curve, handle = peak_ratio_curve(times=[q5["time"] - 5.0, q5["time"], q5["time"] + 5.0])
    assert curve[1] == pytest.approx(q5["max_ratio"], rel=1e-12) and curve.argmax() == 1
    assert handle[1] in q5["binding_handles"]


@pytest.mark.parametrize(
    ("key", "call"),
    [
        ("pitch", lambda: q1_spiral(pitch=0.0)),
        ("pitch", lambda: q2_collision(pitch=-0.5)),
        ("start_turn", lambda: q1_spiral(start_turn=-1.0)),
        ("t_end", lambda: q1_spiral(t_end=5000.0)),
        ("turn_diameter", lambda: q4_turnaround(turn_diameter=2.0)),
        ("turn_diameter", lambda: q4_turnaround(turn_diameter=3.0)),
        ("turn_diameter", lambda: q5_max_speed(pitch=0.3, turn_diameter=4.0)),
        ("ratio", lambda: q4_turnaround(ratio=0.0)),
        ("ratio", lambda: q5_max_speed(ratio=-1.0)),
        ("head_speed", lambda: q1_spiral(head_speed=0.0)),
    ],
)
def test_bad_inputs_raise_parameter_error_naming_the_key(key: str, call) -> None:
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.name == key
    assert key in str(info.value)


def test_turnaround_path_with_non_default_turn_radius_is_tangent_continuous() -> None:
    turn = turnaround_path(1.2, 5.0, 1.5)
    for s in turn.path.offsets[1:-1]:
        np.testing.assert_allclose(turn.path.tangent(s - 1e-10), turn.path.tangent(s + 1e-10),
                                   atol=1e-8)
    assert np.linalg.norm(turn.path.position(turn.s_enter)) == pytest.approx(5.0)
    assert TWO_PI > 0


@pytest.mark.slow
def test_q3_answer_is_free_and_just_below_collides_before_the_circle() -> None:
    q3 = q3_min_pitch()
    lo, hi = q3["bracket"]
    assert hi - lo <= 1e-8
    assert contact_radius(hi, r_end=4.5) is None
    assert contact_radius(lo, r_end=4.5) > 4.5
    assert all(q3["neighbourhood_free"]) and all(q3["grid_free"][q3["grid"] > hi])


@pytest.mark.slow
@pytest.mark.parametrize("pitch", [0.45, 0.47])
def test_first_contact_matches_a_brute_force_scan(pitch: float) -> None:
    """The certified scan finds the same first contact as a 2 mm scan of all lead pairs."""
    spiral = Spiral(pitch, 8.8 * TWO_PI / pitch, 0.0)
    s_end = float(spiral.arc_length_at(3.0 * TWO_PI / pitch))
    found = first_contact(spiral, 0.0, s_end, GEOMETRY).s_contact
    s = np.arange(found - 60.0, found + 0.01, 0.002)
    g0, g1 = lead_separation(spiral, s, GEOMETRY)
    brute = s[np.argmax(np.minimum(g0, g1) <= 0)]
    assert abs(brute - found) <= 0.002
