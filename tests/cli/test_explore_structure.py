"""The explorer's live structure plot: the numbers it shows are those of the analysis
functions on the current frame (and, for the running mean, on the frames measured since the
last change), closed forms hold for known configurations, models without kinematics have no
plot, and a change of N leaves no stale shapes."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from flocklab.analysis.structure import (
    Frames,
    band_profiles,
    box_divisions,
    frames_from_snapshot,
    number_fluctuations,
    run_frames,
)
from flocklab.core.registry import get_model
from flocklab.explore.live import LiveRun
from flocklab.explore.structure import (
    FLUCTUATIONS,
    PROFILE,
    LiveStructure,
    profile_bins,
    reference_lines,
)


def _positive(ds) -> tuple[np.ndarray, np.ndarray]:
    x, y = ds["mean_count"].values, ds["count_std"].values
    keep = (x > 0) & (y > 0)
    order = np.argsort(x[keep])
    return x[keep][order], y[keep][order]


def _set_frame(live: LiveRun, step: int, snapshot: dict[str, np.ndarray]) -> None:
    """Make ``snapshot`` the live run's current frame at ``step`` (a known configuration)."""
    live.step = step
    live.frames.append((step * live.dt, snapshot))


def test_the_live_frame_reads_as_the_run_file_frame() -> None:
    model = get_model("vicsek")
    live = LiveRun(model, {"N": 120, "L": 6.0}, seed=3)
    for _ in range(4):
        live.advance()
    time, snapshot = live.frames[-1]
    one = frames_from_snapshot(snapshot, model.kinematics, live.prepared, time)
    view = run_frames(live.view(), model.kinematics, live.prepared)
    assert len(one) == 1 and one.box == view.box == 6.0 and one.times[0] == view.times[-1]
    assert np.array_equal(one.positions[0], view.positions[-1])
    assert np.array_equal(one.velocities[0], view.velocities[-1])
    assert np.allclose(np.linalg.norm(one.velocities[0], axis=1), live.params["v0"])


def test_number_fluctuations_of_the_frame_and_the_running_mean_are_the_analysis() -> None:
    model = get_model("vicsek")
    live = LiveRun(model, {"N": 400, "L": 10.0, "eta": 0.5}, seed=1)
    structure = LiveStructure(model, every=3)
    assert structure.measure_for(live) == FLUCTUATIONS  # periodic box
    measured, shown = [], []
    for _ in range(12):
        data = structure.update(live)
        if data is not None:
            time, snapshot = live.frames[-1]
            measured.append(frames_from_snapshot(snapshot, model.kinematics, live.prepared,
                                                 time))
            shown.append(data)
        live.advance()
    assert len(shown) == 4  # frames 0, 3, 6, 9
    divisions = box_divisions(400, 2)
    for frames, data in zip(measured, shown, strict=True):
        x, y = _positive(number_fluctuations(frames))
        assert np.array_equal(data.x, x) and np.array_equal(data.y, y)
    pooled = Frames([f.positions[0] for f in measured], None,
                    np.array([f.times[0] for f in measured]), 10.0)
    x, y = _positive(number_fluctuations(pooled, divisions))
    last = shown[-1]
    assert last.frames == 4 and np.allclose(last.mean_x, x) and np.allclose(last.mean_y, y)
    for slope, (ends, line) in last.references.items():  # through the anchor point
        anchor = np.argmin(np.where(last.mean_x >= 1, last.mean_x, np.inf))
        assert ends[0] == last.mean_x.min() and ends[1] == last.mean_x.max()
        assert np.log(line[1] / line[0]) / np.log(ends[1] / ends[0]) == pytest.approx(slope)
        at = last.mean_y[anchor] * (last.mean_x[anchor] / ends[0]) ** -slope
        assert line[0] == pytest.approx(at)


def test_a_commensurate_lattice_has_no_fluctuations_at_its_divisors() -> None:
    """20 x 20 points at the cell centres of a box of side 10: every tiling of m per side
    with m dividing 20 holds exactly 400/m^2 in each box (Delta N = 0, left out of the
    log-log plot); the others are shown with the analysis' values."""
    model = get_model("vicsek")
    live = LiveRun(model, {"N": 400, "L": 10.0}, seed=0)
    grid = (np.arange(20) + 0.5) * 0.5
    x, y = (a.ravel() for a in np.meshgrid(grid, grid))
    _set_frame(live, 1, {"x": x, "y": y, "theta": np.zeros(400)})
    data = LiveStructure(model).compute(live)
    direct = number_fluctuations(frames_from_snapshot({"x": x, "y": y, "theta": np.zeros(400)},
                                                      model.kinematics, live.prepared))
    divides = np.isin(direct["box_size"].values, [1, 2, 4, 5, 10, 20])
    assert divides.sum() >= 4
    assert np.all(direct["count_std"].values[divides] == 0)
    assert np.allclose(direct["mean_count"].values[divides],
                       400 / direct["box_size"].values[divides] ** 2)
    shown = direct["mean_count"].values[direct["count_std"].values > 0]
    assert np.array_equal(data.x, np.sort(shown))
    assert not np.isin(data.x, direct["mean_count"].values[divides]).any()


def test_independent_positions_give_binomial_fluctuations_in_the_running_mean() -> None:
    """F frames of N independent uniform positions: the pooled box-count variance has
    expectation Delta N^2 = n (1 - 1/B) (binomial, n = N/B); per box the variance of c^2
    is at most the Poisson value 4n^3 + 6n^2 + n, so the pooled estimate over F B boxes has
    a standard error below sqrt((4n^3 + 6n^2 + n)/(F B)); checked within 5 of them."""
    model = get_model("vicsek")
    n_entities, frames = 1000, 40
    live = LiveRun(model, {"N": n_entities, "L": 10.0}, seed=0)
    structure = LiveStructure(model)
    rng = np.random.default_rng(7)
    for step in range(1, frames + 1):
        pos = rng.random((n_entities, 2)) * 10.0
        _set_frame(live, step, {"x": pos[:, 0], "y": pos[:, 1], "theta": np.zeros(n_entities)})
        data = structure.compute(live)
    assert data.frames == frames
    boxes = n_entities / data.mean_x
    expected = data.mean_x * (1.0 - 1.0 / boxes)
    error = np.sqrt((4 * data.mean_x**3 + 6 * data.mean_x**2 + data.mean_x) / (frames * boxes))
    small = data.mean_x <= 5.0  # many boxes: a tight test
    assert small.sum() >= 5
    assert np.all(np.abs(data.mean_y[small] ** 2 - expected[small]) < 5 * error[small])


def test_the_density_profile_in_open_space_is_band_profiles_of_the_frame() -> None:
    model = get_model("zonal")
    live = LiveRun(model, {"N": 40}, seed=2, steps_per_frame=5)
    structure = LiveStructure(model, every=1)
    assert structure.measure_for(live) == PROFILE  # open space
    profiles = []
    for _ in range(5):
        live.advance()
        data = structure.update(live)
        time, snapshot = live.frames[-1]
        frame = frames_from_snapshot(snapshot, model.kinematics, live.prepared, time)
        assert frame.dim == 3 and not frame.periodic
        profiles.append(band_profiles(frame, bins=8)["density_profile"].values)
        assert np.array_equal(data.y, profiles[-1])
    assert data.frames == 5 and np.allclose(data.mean_y, np.mean(profiles, axis=0))
    assert profile_bins(40) == 8 and data.x.shape == (8,)
    assert 0 < data.x[0] < data.x[-1] < 1
    assert data.mean_y.mean() == pytest.approx(1.0)  # relative to the mean density
    assert data.references == {}
    assert "restarted" in live.set_parameters({"N": 100})  # more slabs, a fresh mean
    live.advance()
    data = structure.update(live)
    assert data.frames == 1 and data.x.shape == data.mean_y.shape == (profile_bins(100),)
    assert profile_bins(100) == 20 and data.mean_y.mean() == pytest.approx(1.0)


def test_a_change_of_n_restarts_the_average_without_stale_shapes() -> None:
    model = get_model("vicsek")
    live = LiveRun(model, {"N": 200, "L": 8.0}, seed=4)
    structure = LiveStructure(model, every=1)
    for _ in range(5):
        live.advance()
        data = structure.update(live)
    assert data.frames == 5
    live.set_parameters({"eta": 1.0})  # same shapes: the run goes on, the mean restarts
    live.advance()
    data = structure.update(live)
    assert live.step == 6 and data.frames == 1
    assert "restarted" in live.set_parameters({"N": 300})
    data = structure.update(live, force=True)
    time, snapshot = live.frames[-1]
    assert snapshot["x"].shape == (300,)
    x, y = _positive(number_fluctuations(frames_from_snapshot(snapshot, model.kinematics,
                                                              live.prepared, time)))
    assert data.frames == 1 and np.array_equal(data.x, x) and np.array_equal(data.y, y)
    assert np.array_equal(data.mean_x, x) and np.allclose(data.mean_y, y)
    assert data.x.size == data.y.size <= box_divisions(300, 2).size
    assert structure.update(live, force=True) is data  # the same frame is not counted twice


def test_reference_lines_have_their_slopes() -> None:
    n = np.array([0.5, 2.0, 8.0, 32.0])
    lines = reference_lines(n, np.sqrt(n))
    assert set(lines) == {0.5, 0.8}
    ends, line = lines[0.5]
    assert np.allclose(line, np.sqrt(ends))  # through (2, sqrt 2): the Poisson line itself
    assert reference_lines(np.zeros(0), np.zeros(0)) == {}


@pytest.mark.parametrize("name", ["springs", "dragon_chain", "dragon_agents"])
def test_no_structure_plot_without_kinematics(name: str) -> None:
    model = get_model(name)
    with pytest.raises(ValueError, match="no kinematics"):
        LiveStructure(model)
    pytest.importorskip("panel")
    from flocklab.explore.app import Explorer

    explorer = Explorer(model)
    assert explorer.structure is None and not hasattr(explorer, "structure_sources")


def test_the_explorer_plots_the_measure_every_k_frames_and_after_a_change() -> None:
    pytest.importorskip("panel")
    from flocklab.explore.app import Explorer

    explorer = Explorer(get_model("vicsek"))
    explorer._on_parameter("N", 150)
    sources = explorer.structure_sources
    assert explorer.fluctuation_plot.visible and not explorer.profile_plot.visible
    assert "mean of 1 frame (" in explorer.fluctuation_plot.title.text
    explorer.running = True
    every = explorer.structure.every
    for _ in range(2 * every):
        explorer.tick()
    assert "mean of 3 frames (" in explorer.fluctuation_plot.title.text
    assert all(len(s.data["x"]) == len(s.data["y"]) for s in sources.values())
    assert len(sources["0.5"].data["x"]) == 2
    explorer._on_parameter("N", 500)  # a restart: fresh shapes, fresh mean
    assert "mean of 1 frame (" in explorer.fluctuation_plot.title.text
    _, snapshot = explorer.live.frames[-1]
    x, _ = _positive(number_fluctuations(frames_from_snapshot(
        snapshot, explorer.model.kinematics, explorer.live.prepared)))
    assert snapshot["x"].shape == (500,) and np.array_equal(sources["frame"].data["x"], x)
    explorer.structure_measure.value = PROFILE
    assert explorer.profile_plot.visible and not explorer.fluctuation_plot.visible
    assert len(sources["frame"].data["y"]) == profile_bins(500) == 32
    assert math.isclose(float(np.mean(sources["mean"].data["y"])), 1.0)


def test_the_structure_module_is_imported_only_for_a_model_with_kinematics() -> None:
    pytest.importorskip("panel")
    code = ("import sys; from flocklab.core.registry import get_model; "
            "from flocklab.explore.app import Explorer; Explorer(get_model('springs')); "
            "print('flocklab.analysis.structure' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
