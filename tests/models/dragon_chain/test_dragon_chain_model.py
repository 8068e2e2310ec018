"""The dragon_chain model under the shared driver: frames equal the question solvers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.core import driver
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import register
from flocklab.core.time import RunControl
from flocklab.figures.drawing import drawing_of
from flocklab.models.dragon_chain import DragonChain
from flocklab.models.dragon_chain.questions import q1_spiral, q2_collision, q4_turnaround

register(DragonChain)
MODEL = DragonChain()


def test_spiral_run_frames_match_question_1() -> None:
    run = driver.simulate(MODEL, {}, RunControl(seed=0, t_end=20.0, dt=1.0, snapshot_every=10.0))
    q1 = q1_spiral(t_end=20.0, t_step=10.0)
    np.testing.assert_allclose(run["x"].values, q1.state.xy[..., 0], atol=1e-12)
    np.testing.assert_allclose(run["y"].values, q1.state.xy[..., 1], atol=1e-12)
    np.testing.assert_allclose(run["speed"].values, q1.state.speed, atol=1e-12)
    assert np.all(run["min_clearance"].values > 0)
    np.testing.assert_allclose(run["head_radius"].values[0], 8.8, atol=1e-12)
    metrics = MODEL.metrics(run, MODEL.run_parameters(run), 0.0)
    assert math.isnan(metrics["collision_time"])
    assert metrics["max_speed_ratio"] == pytest.approx(1.0, abs=1e-12)  # the head is fastest


def test_collision_metric_agrees_with_question_2() -> None:
    run = driver.simulate(MODEL, {"t0": 400.0}, RunControl(seed=0, t_end=15.0, dt=0.5))
    metrics = MODEL.metrics(run, MODEL.run_parameters(run), 0.0)
    q2 = q2_collision()
    assert metrics["collision_time"] == pytest.approx(q2["time"], abs=1e-6)
    assert metrics["collision_radius"] == pytest.approx(q2["head_radius"], abs=1e-6)
    # the recorded clearance changes sign between the samples around the contact
    t = run["time"].values + 400.0
    g = run["min_clearance"].values
    assert np.all(g[t < q2["time"]] > 0) and np.all(g[t > q2["time"] + 1e-3] < 0)


def test_turnaround_run_frames_match_question_4() -> None:
    params = {"path": "turnaround", "pitch": 1.7, "t0": -10.0}
    run = driver.simulate(MODEL, params, RunControl(seed=0, t_end=20.0, dt=1.0, snapshot_every=5.0))
    q4 = q4_turnaround(t_start=-10.0, t_end=10.0, t_step=5.0)
    np.testing.assert_allclose(run["x"].values, q4.state.xy[..., 0], atol=1e-12)
    np.testing.assert_allclose(run["speed"].values, q4.state.speed, atol=1e-12)


@pytest.mark.parametrize(
    ("params", "control", "key"),
    [
        ({"pitch": 0.0}, {}, "pitch"),
        ({"path": "turnaround", "ratio": 0.0}, {}, "ratio"),
        ({"path": "turnaround", "turn_diameter": 2.0}, {}, "turn_diameter"),
        ({"start_turn": 1.0}, {}, "start_turn"),
        ({}, {"t_end": 5000.0}, "t_end"),
        ({"hole_offset": 2.0}, {}, "hole_offset"),
    ],
)
def test_bad_parameters_name_the_key(params: dict, control: dict, key: str) -> None:
    run_control = RunControl(seed=0, **{"t_end": 2.0, "dt": 1.0, **control})
    with pytest.raises(ParameterError) as info:
        driver.simulate(MODEL, params, run_control)
    assert info.value.name == key


def test_draw_marks_touching_boards() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    q2 = q2_collision()
    run = driver.simulate(MODEL, {"t0": q2["time"] + 1e-4}, RunControl(seed=0, t_end=1.0, dt=1.0))
    fig, ax = plt.subplots()
    drawing_of(MODEL).draw(ax, run, 0)
    boards = ax.collections[0]
    assert len(boards.get_paths()) == 223
    red = np.all(np.isclose(boards.get_edgecolors(), matplotlib.colors.to_rgba("tab:red")),
                 axis=1)
    assert red.sum() >= 2 and red[0]  # the head bench and the bench it touches
    plt.close(fig)
