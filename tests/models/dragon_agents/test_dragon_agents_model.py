"""The dragon_agents model on the contract: run file, metrics, errors, drawing."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import flocklab
from flocklab.core import driver
from flocklab.core.model import SimulationError
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import register
from flocklab.core.time import RunControl
from flocklab.figures.drawing import drawing_of
from flocklab.models.dragon_agents import DragonAgents

register(DragonAgents)

SHORT = {"N": 8, "t_end": 3.0, "record_every": 0.05, "seed": 1}


def test_issue_interface_and_run_file_layout():
    ds = flocklab.simulate("dragon_agents", N=20, L=1.0, k_a=2.0, k_c=5.0, k_p=3.0, k_d=0.5,
                           k_penalty=500.0, neighbours="front_back",
                           path={"kind": "circle", "radius": 15.0, "angular_speed": 0.3},
                           method="Radau", rtol=1e-6, atol=1e-9, t_end=2.0,
                           record_every=0.05, seed=1)
    assert ds["x"].dims == ("time", "unit")
    assert ds.sizes["time"] == 41 and ds.sizes["unit"] == 20
    np.testing.assert_allclose(ds["time"].values, np.arange(41) * 0.05, atol=1e-12)
    for name in ("alignment", "link_error_max", "head_error", "control_power"):
        assert ds[name].dims == ("time",)
    assert int(ds["solver_njev"]) > 0 and int(ds["solver_steps"]) > 0
    # head starts on the circle at (15, 0), chain behind it along -y, at rest
    np.testing.assert_allclose(ds["x"].values[0], 15.0)
    np.testing.assert_allclose(ds["y"].values[0], -np.arange(20.0))
    # the observables agree with the trajectory
    d = np.hypot(np.diff(ds["x"].values, axis=1), np.diff(ds["y"].values, axis=1))
    np.testing.assert_allclose(ds["link_error_max"].values, np.abs(d - 1).max(axis=1))


def test_metrics_are_finite_and_consistent():
    model = DragonAgents()
    ds = driver.simulate(model, {"N": 8}, RunControl(seed=3, t_end=6.0, record_every=0.05))
    out = model.metrics(ds, model.run_parameters(ds), burn_in=2.0)
    assert set(out) == {m.name for m in model.run_metrics}
    assert out["stable"] == 1.0 and np.isnan(out["t_blowup"])
    assert all(np.isfinite(v) for name, v in out.items() if name != "t_blowup")
    keep = ds["time"].values >= 2.0
    assert out["link_error_max"] == pytest.approx(ds["link_error_max"].values[keep].max())
    from flocklab.analysis.summary import run_statistics

    values, _ = run_statistics(ds, model, 2.0)  # the summary's per-observable means
    assert 0.0 < values["alignment_mean"] <= 1.0
    assert values["solver_steps"] == out["solver_steps"] > 0


def test_same_seed_same_file_bytes(tmp_path):
    from flocklab.core.driver import run

    model = DragonAgents()
    control = RunControl(seed=5, t_end=2.0, record_every=0.1)
    digests = []
    for name in ("a.nc", "b.nc"):
        record = run(model, {"N": 6, "gain_cv": 0.2}, control)
        record.write(tmp_path / name)
        digests.append(hashlib.sha256((tmp_path / name).read_bytes()).hexdigest())
    assert digests[0] == digests[1]


def test_bad_input_stops_before_running():
    with pytest.raises(ParameterError) as info:
        flocklab.simulate("dragon_agents", **{**SHORT, "path": {"kind": "spiral",
                                                                 "pitch": -1.0}})
    assert info.value.name == "path.pitch"
    with pytest.raises(ParameterError) as info:
        flocklab.simulate("dragon_agents", **{**SHORT, "delay": -1.0})
    assert info.value.name == "delay"


def test_blow_up_is_a_simulation_error():
    with pytest.raises(SimulationError, match="blew up at t ="):
        flocklab.simulate("dragon_agents", N=4, k_p=200.0, k_penalty=1.0, k_c=0.0,
                          path={"kind": "line", "speed": 50.0}, t_end=2.0, seed=1)


BLOWING = {"N": 4, "k_p": 200.0, "k_penalty": 1.0, "k_c": 0.0,
           "path": {"kind": "line", "speed": 50.0}, "t_end": 2.0, "record_every": 0.01,
           "seed": 1}


@pytest.mark.parametrize("extra", [{}, {"delay": 0.05}])
def test_recorded_blow_up_keeps_the_records_before_it(extra):
    """on_blowup = record: the same solve as the error mode, stopped at the same time;
    the records before it finite, those after NaN, and the run marked unstable."""
    with pytest.raises(SimulationError, match="blew up at t =") as info:
        flocklab.simulate("dragon_agents", **BLOWING, **extra)
    t_error = float(str(info.value).split("t = ")[1].split(" s")[0])
    ds = flocklab.simulate("dragon_agents", **BLOWING, **extra, on_blowup="record")
    t_blowup = float(ds["t_blowup"])
    assert t_blowup == pytest.approx(t_error, rel=1e-5)
    finite = np.isfinite(ds["x"].values).all(axis=1)
    assert np.array_equal(finite, ds["time"].values < t_blowup)
    assert np.isnan(ds["link_error_max"].values[~finite]).all()
    out = DragonAgents().metrics(ds, DragonAgents().run_parameters(ds), burn_in=0.0)
    assert out["stable"] == 0.0 and out["t_blowup"] == t_blowup
    assert np.isnan(out["settling_time"])
    assert 1.0 < out["link_error_max"] <= 3.0 * 1.0  # grew, and stopped at the 3 L bound


@pytest.mark.parametrize("path", [
    {"kind": "s_curve", "radius": 5.0, "speed": 1.0},
    {"kind": "figure_eight", "radius": 6.0, "speed": 1.0},
    {"kind": "spiral", "pitch": 1.7, "r_start": 12.0, "r_end": 4.0, "speed": 1.0},
    {"kind": "turnaround"},
])
def test_every_path_kind_runs_and_draws(path, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # reference guidance: the tangent law projects on the path at every evaluation, which
    # costs milliseconds on spirals (flocklab.geometry.paths' global projection)
    guidance = "tangent" if path["kind"] == "figure_eight" else "reference"
    ds = flocklab.simulate("dragon_agents", N=6, path=path, cross_track_gain=1.0, t_end=2.0,
                           record_every=0.1, snapshot_every=1.0, seed=1, guidance=guidance)
    assert np.isfinite(ds["x"].values).all()
    assert ds["head_error"].values.max() < 0.5
    fig, ax = plt.subplots()
    drawing_of(DragonAgents()).draw(ax, ds, frame=len(ds["frame"]) - 1)
    fig.savefig(tmp_path / "frame.png")
    plt.close(fig)


def test_delay_and_look_ahead_through_the_model():
    """A delayed run goes through the method of steps (one segment per tau)."""
    ds = flocklab.simulate("dragon_agents", N=5, delay=0.25, look_ahead=0.2, t_end=1.0,
                           record_every=0.05, seed=2, method="DOP853")
    assert int(ds["solver_segments"]) == 4
    assert ds.sizes["time"] == 21
    assert np.isfinite(ds["control_power"].values).all()


def test_command_line_takes_the_issue_names(tmp_path):
    """`flocklab simulate dragon_agents` with the Python API's names (k_a, k_penalty,
    t_end, record_every, ...) writes the run flocklab.simulate returns."""
    import json

    import xarray as xr

    from flocklab.cli.main import main

    api = {"N": 6, "L": 1.0, "k_a": 2.0, "k_c": 5.0, "k_p": 3.0, "k_d": 0.5,
           "k_penalty": 500.0, "neighbours": "front_back", "method": "Radau", "rtol": 1e-6,
           "atol": 1e-9, "t_end": 1.0, "record_every": 0.05, "seed": 1,
           "path": {"kind": "circle", "radius": 15.0, "angular_speed": 0.3}}
    args = ["simulate", "dragon_agents", "--out", str(tmp_path / "cli.nc")]
    for key, value in api.items():
        args += [f"--{key}", json.dumps(value) if isinstance(value, dict) else str(value)]
    main(args)
    expected = flocklab.simulate("dragon_agents", **api)
    with xr.open_dataset(tmp_path / "cli.nc") as run:
        for name in ("x", "y", "vx", "vy"):
            np.testing.assert_array_equal(run[name].values, expected[name].values)
