"""Path library: closed-form arc lengths, frames, curvature, projection, S-curves, head motions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad

from flocklab.core.parameters import ParameterError
from flocklab.geometry.paths import (
    TWO_PI,
    Arc,
    Composite,
    Line,
    Periodic,
    Spiral,
    circle_motion,
    figure_eight_path,
    line_motion,
    s_curve_arcs,
    s_curve_path,
    spiral_angle,
    spiral_arc_length,
    spiral_path,
    turnaround_path,
)


def _paths():
    spiral_in = Spiral(0.55, 32 * math.pi, 2 * math.pi)
    spiral_out = Spiral(1.7, 5.0, 40.0, outward=True)
    arc = Arc((1.0, -2.0), 1.5, 0.3, -2.0)
    line = Line((0.5, 0.5), (3.0, 4.0), 2.0)
    turn = turnaround_path(1.7, 4.5, 2.0).path
    return [spiral_in, spiral_out, arc, line, turn, figure_eight_path(2.0), s_curve_path(1.2)]


@pytest.mark.parametrize("pitch", [0.3, 0.55, 1.7])
@pytest.mark.parametrize("theta", [0.01, 1.0, 30.0, 100.5])
def test_spiral_arc_length_matches_quadrature(pitch: float, theta: float) -> None:
    b = pitch / TWO_PI
    reference, _ = quad(lambda u: b * math.hypot(1.0, u), 0.0, theta, epsabs=1e-13)
    assert spiral_arc_length(theta, pitch) == pytest.approx(reference, rel=1e-12, abs=1e-13)


def test_spiral_angle_inverts_arc_length_including_negative_and_tiny() -> None:
    theta = np.array([-50.0, -1e-6, 0.0, 1e-9, 1e-3, 0.7, 12.0, 400.0])
    back = spiral_angle(spiral_arc_length(theta, 0.55), 0.55)
    np.testing.assert_allclose(back, theta, rtol=1e-13, atol=1e-15)


def test_q1_start_point_is_on_positive_x_axis_at_8_8_m() -> None:
    spiral = Spiral(0.55, 16 * TWO_PI, 0.0)
    np.testing.assert_allclose(spiral.position(0.0), [8.8, 0.0], atol=1e-12)
    # moving clockwise and inward: tangent has negative y and slightly negative x
    t = spiral.tangent(0.0)
    assert t[1] < 0 and t[0] < 0 and abs(np.linalg.norm(t) - 1) < 1e-15


@pytest.mark.parametrize("index", range(7))
def test_tangent_and_curvature_match_finite_differences(index: int) -> None:
    path = _paths()[index]
    s = np.linspace(0.05, path.length - 0.05, 23)
    # keep away from junctions, where curvature jumps
    if isinstance(path, Composite | Periodic):
        offsets = path.offsets if isinstance(path, Composite) else path.path.offsets
        s = s[np.min(np.abs(s[:, None] - offsets[None, :]), axis=1) > 1e-3]
    h = 1e-5
    dp = (path.position(s + h) - path.position(s - h)) / (2 * h)
    np.testing.assert_allclose(dp, path.tangent(s), atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(path.tangent(s), axis=-1), 1.0, atol=1e-14)
    dt = (path.tangent(s + h) - path.tangent(s - h)) / (2 * h)
    expected = path.curvature(s)[:, None] * path.normal(s)
    np.testing.assert_allclose(dt, expected, atol=1e-6 * (1 + np.abs(expected).max()))


def test_spiral_curvature_sign_and_magnitude() -> None:
    spiral_in = Spiral(0.55, 32 * math.pi, 0.0)
    spiral_out = Spiral(0.55, 1.0, 32 * math.pi, outward=True)
    # far out the spiral is almost a circle of radius r: |kappa| -> 1/r
    assert spiral_in.curvature(0.0) == pytest.approx(-1 / 8.8, rel=2e-3)
    assert spiral_out.curvature(spiral_out.length) == pytest.approx(1 / 8.8, rel=2e-3)


@pytest.mark.parametrize("index", range(5))
def test_project_recovers_arc_length_and_is_nearest(index: int) -> None:
    path = _paths()[index]
    s = np.linspace(0.0, path.length, 17)
    np.testing.assert_allclose(path.project(path.position(s)), s, atol=1e-7)
    rng = np.random.default_rng(5)
    points = path.position(rng.uniform(0, path.length, 40)) + rng.normal(0, 0.1, (40, 2))
    dense = np.linspace(0.0, path.length, 200_001)
    grid = path.position(dense)
    brute = np.array([np.min(np.linalg.norm(grid - p, axis=1)) for p in points])
    assert np.all(path.distance(points) <= brute + 1e-9)


def test_composite_extrapolates_with_end_segments_and_checks_gaps() -> None:
    line = Line((0.0, 0.0), (1.0, 0.0), 2.0)
    arc = Arc((2.0, 1.0), 1.0, -math.pi / 2, math.pi / 2)
    path = Composite([line, arc])
    np.testing.assert_allclose(path.position(-1.0), [-1.0, 0.0])
    np.testing.assert_allclose(path.position(path.length + math.pi / 2), [2.0, 2.0], atol=1e-12)
    with pytest.raises(ParameterError, match="segment 1"):
        Composite([line, Arc((5.0, 1.0), 1.0, -math.pi / 2, 1.0)])


def test_turnaround_junctions_are_continuous_with_continuous_tangent() -> None:
    turn = turnaround_path(1.7, 4.5, 2.0)
    path = turn.path
    assert len(path.segments) == 4
    for s in path.offsets[1:-1]:
        ends = [seg for seg in path.segments]
        k = int(np.searchsorted(path.offsets, s)) - 1
        before, after = ends[k], ends[k + 1]
        np.testing.assert_allclose(before.position(before.length), after.position(0.0), atol=1e-12)
        np.testing.assert_allclose(before.tangent(before.length), after.tangent(0.0), atol=1e-12)
    # entry point on the circle of radius 4.5, exit point its mirror image
    p_in, p_out = path.position(turn.s_enter), path.position(turn.s_exit)
    assert np.linalg.norm(p_in) == pytest.approx(4.5, abs=1e-12)
    np.testing.assert_allclose(p_out, -p_in, atol=1e-12)
    r1, r2 = (arc.radius for arc in turn.arcs)
    assert r1 == pytest.approx(2 * r2, rel=1e-14)
    assert turn.arcs[0].sweep < 0 < turn.arcs[1].sweep  # first arc turns with the spiral


def test_s_curve_length_does_not_depend_on_ratio() -> None:
    lengths = [turnaround_path(1.7, 4.5, k).s_curve_length for k in (0.2, 0.5, 1, 2, 3, 7, 20)]
    np.testing.assert_allclose(lengths, lengths[0], rtol=1e-13)
    # but radii do, and their sum is |D|^2 / (2 |D.N|)
    turn = turnaround_path(1.7, 4.5, 3.0)
    p1 = turn.path.position(turn.s_enter)
    n = turn.path.normal(turn.s_enter)
    total = sum(arc.radius for arc in turn.arcs)
    d = 2 * p1
    assert total == pytest.approx(d @ d / (2 * abs(d @ n)), rel=1e-13)


def test_general_s_curve_between_unequal_tangents() -> None:
    arc1, arc2 = s_curve_arcs((0.0, 0.0), (1.0, 0.0), (4.0, 3.0), (0.0, 1.0), 1.5)
    path = Composite([arc1, arc2])
    assert arc1.radius == pytest.approx(1.5 * arc2.radius)
    np.testing.assert_allclose(path.end, [4.0, 3.0], atol=1e-12)
    np.testing.assert_allclose(path.tangent(path.length), [0.0, 1.0], atol=1e-12)
    j = arc1.length
    np.testing.assert_allclose(path.tangent(j - 1e-12), path.tangent(j + 1e-12), atol=1e-9)


def test_periodic_closed_paths_and_head_motions() -> None:
    motion = circle_motion(3.0, -0.5, center=(1.0, 2.0))
    t = np.linspace(0, 40, 81)
    r = motion.position(t) - np.array([1.0, 2.0])
    np.testing.assert_allclose(np.linalg.norm(r, axis=-1), 3.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(motion.velocity(t), axis=-1), 1.5, atol=1e-12)
    # centripetal acceleration v^2/R towards the centre
    np.testing.assert_allclose(motion.acceleration(t), -(1.5**2 / 3.0) * r / 3.0, atol=1e-12)
    # clockwise: z-component of r x v negative
    v = motion.velocity(t)
    assert np.all(r[:, 0] * v[:, 1] - r[:, 1] * v[:, 0] < 0)
    eight = figure_eight_path(2.0)
    np.testing.assert_allclose(eight.position(eight.length + 1.3), eight.position(1.3), atol=1e-12)
    line = line_motion(2.0, (0.0, 1.0))
    np.testing.assert_allclose(line.position(3.0), [0.0, 6.0])


def test_bad_inputs_name_the_key() -> None:
    cases = {
        "pitch": lambda: Spiral(0.0, 1.0, 0.0),
        "radius": lambda: Arc((0, 0), -1.0, 0.0, 1.0),
        "ratio": lambda: turnaround_path(1.7, 4.5, 0.0),
        "turn_diameter": lambda: turnaround_path(1.7, -1.0, 2.0),
        "theta_end": lambda: Spiral(0.5, 1.0, 2.0, outward=False),
    }
    for key, make in cases.items():
        with pytest.raises(ParameterError) as info:
            make()
        assert info.value.name == key
    with pytest.raises(ParameterError) as info:
        spiral_path(-0.1, 5.0, 1.0)
    assert info.value.name == "pitch"
