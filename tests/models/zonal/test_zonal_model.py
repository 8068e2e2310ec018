"""The zonal model on the model contract: simulate, validation, checkpoints, metrics, drawing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

import flocklab
from flocklab.core import driver
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model, register
from flocklab.figures.drawing import drawing_of
from flocklab.models.zonal import Zonal

register(Zonal)

HUNT = {"N": 40, "dim": 2, "delta_o": 4.0, "delta_a": 12.0, "start_radius": 4.0,
        "escape_speed": 5.0, "speed_spread": 0.5,
        "predators": [{"position": [-20.0, 0.0], "speed": 9.0, "stalk_speed": 2.0,
                       "detection_range": 6.0, "c1": 0.6, "c2": 1.5, "capture_radius": 0.8,
                       "target": "optimal", "rest_time": 1.0}],
        "obstacles": [{"centre": [0.0, 15.0], "radius": 2.0}],
        "food": {"position": [30.0, 30.0]}, "informed_fraction": 0.2}


def test_simulate_returns_series_on_time_and_frames_on_agents():
    ds = flocklab.simulate("zonal", N=30, dim=3, r_r=1.0, delta_o=2.5, delta_a=14.0,
                           t_end=2.0, dt=0.1, snapshot_every=0.5, seed=1)
    assert ds["polarisation"].sizes["time"] == 21
    assert ds["x"].dims == ("frame", "agent") and ds["x"].shape == (5, 30)
    assert np.all((ds["polarisation"] >= 0) & (ds["polarisation"] <= 1))
    assert ds.attrs["model"] == "zonal" and ds.attrs["dt"] == 0.1
    np.testing.assert_allclose(np.hypot(np.hypot(ds["ex"], ds["ey"]), ds["ez"]), 1.0)


def test_time_step_and_structured_values_are_checked_before_running():
    with pytest.raises(ParameterError) as info:
        flocklab.simulate("zonal", N=10, t_end=1.0, dt=0.5, seed=1)
    assert info.value.name == "dt"
    with pytest.raises(ParameterError, match=r"obstacles\[0\]"):
        flocklab.simulate("zonal", N=10, t_end=1.0, seed=1,
                          obstacles=[{"centre": [1.0, 0.0, 0.0], "radius": 1.0}])
    with pytest.raises(ParameterError, match=r"predators\[0\]"):
        flocklab.simulate("zonal", N=10, t_end=1.0, seed=1,
                          predators=[{"position": [50.0, 0.0, 0.0], "target": "fastest"}])


def test_state_round_trip_through_checkpoint_arrays_continues_identically():
    model = get_model("zonal")
    params = model.resolve(HUNT)

    def fresh():
        state = model.initial_state(params, np.random.default_rng(5))
        state["_dt"] = 0.1
        return state

    whole = fresh()
    model.step(whole, params, 0, 60)
    first = fresh()
    model.step(first, params, 0, 30)
    saved = {name: value.copy() for name, value in driver.state_arrays(first).items()}
    resumed = fresh()
    driver.load_state(resumed, saved)
    model.step(resumed, params, 30, 30)
    for name, value in driver.state_arrays(whole).items():
        np.testing.assert_array_equal(resumed[name], value, err_msg=name)


def test_hunt_outputs_metrics_and_drawing(tmp_path):
    ds = flocklab.simulate("zonal", **HUNT, t_end=40.0, dt=0.1, snapshot_every=5.0, seed=2)
    model = get_model("zonal")
    metrics = model.metrics(ds, burn_in=5.0)
    assert set(metrics) == {m.name for m in model.run_metrics}
    captured = np.isfinite(ds["capture_time"].values)
    assert metrics["captures"] == captured.sum() >= 1
    assert metrics["first_capture_time"] == pytest.approx(np.nanmin(ds["capture_time"].values))
    assert ds["alive_fraction"].values[-1] == pytest.approx(1 - captured.sum() / 40)
    assert ds["predator_position"].shape == (ds.sizes["frame"], 1, 3)
    assert not np.any(ds["alive"].values[-1][captured])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    drawing_of(model).draw(ax, ds, ds.sizes["frame"] - 1, trail=2, label="hunt")
    fig.savefig(tmp_path / "frame.png")
    plt.close(fig)
    assert (tmp_path / "frame.png").stat().st_size > 1000


def test_informed_majority_steers_the_group_toward_g():
    ds = flocklab.simulate("zonal", rule="couzin2005", N=50, dim=2, informed_fraction=0.3,
                           preferred_angle=60.0, omega=0.5, speed=1.0, turning_rate=114.6,
                           noise=0.01, start_radius=4.0, field_of_view=360.0,
                           t_end=100.0, dt=0.2, record_every=1.0, seed=3)
    accuracy, accuracy_cos, travel = Zonal._accuracy(ds, ds["time"].values >= 50.0)
    assert accuracy > 0.9 and accuracy_cos > math.cos(math.radians(18.0))
    assert abs(travel - 60.0) < 18.0


def test_accuracy_is_measured_toward_g_also_without_informed_agents():
    """g is the preferred_angle direction whether or not anybody knows it, so an uninformed
    group has a measurable baseline: travel at 45 deg to g gives 1 - 1/4 and cos 45 deg."""
    ds = xr.Dataset({"centroid_x": ("time", [0.0, 1.0, 2.0]),
                     "centroid_y": ("time", [5.0, 6.0, 7.0]),
                     "centroid_z": ("time", [0.0, 0.0, 0.0])},
                    coords={"time": [0.0, 1.0, 2.0]},
                    attrs={"dim": 2, "preferred_angle": 0.0, "informed_fraction": 0.0})
    accuracy, accuracy_cos, travel = Zonal._accuracy(ds, np.ones(3, bool))
    assert accuracy == pytest.approx(0.75) and accuracy_cos == pytest.approx(math.sqrt(0.5))
    assert travel == pytest.approx(45.0)
    still = ds.assign(centroid_x=("time", [1.0, 1.0, 1.0]), centroid_y=("time", [0.0] * 3))
    assert all(math.isnan(v) for v in Zonal._accuracy(still, np.ones(3, bool)))
