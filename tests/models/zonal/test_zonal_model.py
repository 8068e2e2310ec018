"""The zonal model on the model contract: simulate, validation, checkpoints, metrics, drawing."""

from __future__ import annotations

import json
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
    params = model.prepare(HUNT)

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
    metrics = model.metrics(ds, model.run_parameters(ds), burn_in=5.0)
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
    accuracy, accuracy_cos, travel = Zonal._accuracy(
        ds, Zonal._travel(ds, ds["time"].values >= 50.0))
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
    accuracy, accuracy_cos, travel = Zonal._accuracy(ds, Zonal._travel(ds, np.ones(3, bool)))
    assert accuracy == pytest.approx(0.75) and accuracy_cos == pytest.approx(math.sqrt(0.5))
    assert travel == pytest.approx(45.0)
    still = ds.assign(centroid_x=("time", [1.0, 1.0, 1.0]), centroid_y=("time", [0.0] * 3))
    assert Zonal._travel(still, np.ones(3, bool)) is None
    assert all(math.isnan(v) for v in Zonal._accuracy(still, None))


def _conflict_run(travel_x, travel_y, preferred_angle, subgroups):
    return xr.Dataset({"centroid_x": ("time", [0.0, travel_x]),
                       "centroid_y": ("time", [0.0, travel_y]),
                       "centroid_z": ("time", [0.0, 0.0])}, coords={"time": [0.0, 1.0]},
                      attrs={"dim": 2, "preferred_angle": preferred_angle,
                             "parameters": json.dumps({"subgroups": subgroups})})


def _recorded(run):
    return json.loads(run.attrs["parameters"])


@pytest.mark.parametrize(("travel_deg", "expected"), [
    (60.0, "toward_average"), (115.0, "toward_preferred"), (5.0, "toward_subgroup"),
    (95.0, "toward_preferred"), (-30.0, "toward_subgroup")])
def test_the_choice_of_two_conflicting_directions_is_the_nearest(travel_deg, expected):
    """A at 120 deg (preferred_angle), B at 0 deg, their average at 60 deg: a run's travel
    counts toward whichever is nearest in angle (boundaries at 30 and 90 deg)."""
    angle = math.radians(travel_deg)
    run = _conflict_run(math.cos(angle), math.sin(angle), 120.0,
                        [{"fraction": 0.1, "direction": [1.0, 0.0]}])
    choice = Zonal._choice(run, _recorded(run), Zonal._travel(run, np.ones(2, bool)))
    assert choice == {name: float(name == expected) for name in
                      ("toward_preferred", "toward_subgroup", "toward_average")}


def test_opposite_directions_have_no_average_and_no_subgroup_no_choice():
    run = _conflict_run(0.0, 1.0, 180.0, [{"fraction": 0.1, "direction": [1.0, 0.0]}])
    choice = Zonal._choice(run, _recorded(run), Zonal._travel(run, np.ones(2, bool)))
    assert choice["toward_average"] == 0.0 and choice["toward_preferred"] + \
        choice["toward_subgroup"] == 1.0
    alone = _conflict_run(1.0, 0.0, 0.0, [])
    assert all(math.isnan(v) for v in
               Zonal._choice(alone, _recorded(alone),
                             Zonal._travel(alone, np.ones(2, bool))).values())


@pytest.mark.parametrize("theta", [0.0, 60.0, 120.0, 180.0])
def test_conflict_references_are_cos_half_angle_and_its_square(theta):
    model = get_model("zonal")
    params = model.resolve({"dim": 2, "informed_fraction": 0.1, "preferred_angle": theta,
                            "subgroups": [{"fraction": 0.1, "direction": [2.0, 0.0]}]})
    derived = model.derived(params)
    half = math.cos(math.radians(theta) / 2)
    assert derived["average_heading_cos"] == pytest.approx(half, abs=1e-12)
    assert derived["fair_choice_cos"] == pytest.approx(half**2, abs=1e-12)
    assert all(math.isnan(v) for v in model.derived(model.resolve({})).values())


def test_polarisation_is_over_all_agents_and_the_largest_group_separately():
    """Two groups far apart heading opposite ways, 6 and 4 agents: P over all agents is
    (6 - 4)/10 = 0.2 while the largest group's own P is 1; milling of a straight-moving
    group is 0."""
    from flocklab.models.zonal.engine import ZonalSimulation

    sim = ZonalSimulation.from_parameters({"N": 10, "dim": 2, "start_radius": 1.0}, seed=1)
    sim.pos[:6, :2] = np.c_[np.arange(6) * 0.5, np.zeros(6)]
    sim.pos[6:, :2] = np.c_[100.0 + np.arange(4) * 0.5, np.zeros(4)]
    sim.head[:, :] = 0.0
    sim.head[:6, 1] = 1.0
    sim.head[6:, 1] = -1.0
    observed = sim.observe()
    assert observed["polarisation"] == pytest.approx(0.2, abs=1e-12)
    assert observed["polarisation_largest"] == pytest.approx(1.0, abs=1e-12)
    assert observed["largest_fraction"] == pytest.approx(0.6) and observed["groups"] == 2
    assert observed["milling_largest"] == pytest.approx(0.0, abs=1e-12)
