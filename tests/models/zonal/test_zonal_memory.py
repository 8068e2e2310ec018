"""Collective memory in one run: the zone-width ``schedule`` (Couzin et al. 2002 protocol).

The schedule must be the hand-made chain of stages (same state, widths switched between
stages) bit for bit, also across a checkpoint; the branch comparison must be exact on
constructed stage values; and the protocol must show the hysteresis the paper reports.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import flocklab
from flocklab.core import driver
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model, register
from flocklab.models.zonal import Zonal, metrics
from flocklab.models.zonal.engine import ZonalSimulation

register(Zonal)

BASE = {"rule": "couzin2002", "N": 30, "dim": 3, "delta_o": 1.0, "delta_a": 12.0}
SCHEDULE = [{"time": 3.0, "delta_o": 3.0}, {"time": 6.0, "delta_o": 1.0, "delta_a": 10.0}]


def test_schedule_equals_the_stages_run_by_hand_bit_for_bit():
    ds = flocklab.simulate("zonal", **BASE, schedule=SCHEDULE, t_end=9.0, dt=0.1,
                           record_every=1.0, snapshot_every=3.0, seed=5)
    sim = ZonalSimulation.from_parameters({**BASE, "dt": 0.1}, np.random.default_rng(5))
    for frame, widths in enumerate(((3.0, 12.0), (1.0, 10.0), None), start=1):
        sim.advance(30)
        np.testing.assert_array_equal(ds["x"].values[frame], sim.pos[:, 0])
        np.testing.assert_array_equal(ds["ez"].values[frame], sim.head[:, 2])
        if widths:
            sim.set_zone_widths(*widths)
    # the record at t is the state made by the widths in force up to t
    assert ds["orientation_width"].values.tolist() == [1.0] * 4 + [3.0] * 3 + [1.0] * 3
    assert ds["attraction_width"].values.tolist() == [12.0] * 7 + [10.0] * 3


def test_schedule_survives_a_checkpoint_inside_a_stage():
    model = get_model("zonal")
    params = model.prepare({**BASE, "schedule": SCHEDULE})

    def fresh():
        state = model.initial_state(params, np.random.default_rng(3))
        state["_dt"] = 0.1
        return state

    whole = fresh()
    model.step(whole, params, 0, 80)
    first = fresh()
    model.step(first, params, 0, 45)  # stops inside the second stage
    resumed = fresh()  # zone widths back at the start values until step() sets them
    driver.load_state(resumed, {k: v.copy() for k, v in driver.state_arrays(first).items()})
    model.step(resumed, params, 45, 35)
    for name, value in driver.state_arrays(whole).items():
        np.testing.assert_array_equal(resumed[name], value, err_msg=name)


@pytest.mark.parametrize(("schedule", "extra", "key"), [
    ([{"time": 3.0, "delta_o": 2.0}], {"rule": "couzin2005"}, "schedule"),
    ([{"time": 3.0}], {}, "schedule[0]"),
    ([{"time": 3.0, "delta_o": 2.0}, {"time": 3.0, "delta_o": 1.0}], {}, "schedule[1].time"),
    ([{"time": 3.0, "delta_o": -1.0}], {}, "schedule"),   # by the declared JSON schema
    ([{"time": 3.05, "delta_o": 2.0}], {}, "schedule[0].time"),   # not a whole step
    ([{"time": 9.0, "delta_o": 2.0}], {}, "schedule[0].time"),    # at the end of the run
])
def test_bad_schedules_name_the_key_before_running(schedule, extra, key):
    with pytest.raises(ParameterError) as info:
        flocklab.simulate("zonal", **{**BASE, **extra}, schedule=schedule, t_end=9.0, dt=0.1,
                          seed=1)
    assert info.value.name == key and "\n" not in str(info.value)


def test_stage_averages_use_the_second_half_of_each_stage():
    time = np.arange(0.0, 31.0)
    values = np.where(time <= 10, 1.0, np.where(time <= 20, 2.0, 3.0)) + 0.01 * time
    stages = metrics.stage_averages(time, {"v": values}, [0.0, 10.0, 20.0])
    expected = [np.mean(values[6:11]), np.mean(values[16:21]), np.mean(values[26:31])]
    np.testing.assert_allclose([s["v"] for s in stages], expected, rtol=0, atol=1e-15)


def test_hysteresis_compares_the_branches_at_shared_widths():
    widths = [0.0, 1.0, 2.0, 3.0, 2.0, 1.0, 0.0]
    p = [0.1, 0.1, 0.2, 0.9, 0.9, 0.8, 0.2]   # parallel on the way down at 2 and 1
    m = [0.1, 0.9, 0.8, 0.1, 0.1, 0.1, 0.1]   # torus on the way up at 1 and 2
    result = metrics.hysteresis(widths, p, m)
    assert result["gap_p"] == pytest.approx(0.7) and result["gap_m"] == pytest.approx(0.8)
    assert result["hysteresis"] == 1.0
    same = metrics.hysteresis(widths, [0.1] * 7, [0.1] * 7)
    assert same == {"gap_p": 0.0, "gap_m": 0.0, "hysteresis": 0.0}
    assert all(math.isnan(v) for v in metrics.hysteresis([0.0, 1.0, 2.0], [0.1] * 3,
                                                         [0.1] * 3).values())


@pytest.mark.slow
def test_the_protocol_shows_collective_memory():
    """3-D, N = 50, delta_a = 12, delta_o = 0, 1, 2, 3, 4, 3, 2, 1, 0 for 40 s each (the
    default study). Measured (seeds 100-105): torus on the way up at delta_o = 1-2 (m >= 0.76)
    and parallel on the way down (P >= 0.91) in 6 of 6 seeds. The bound, 4 of 6, allows two
    seeds to miss (a torus breaking up early, or a slow swarm-to-torus start)."""
    model = get_model("zonal")
    widths = [0.0, 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    schedule = [{"time": 40.0 * k, "delta_o": w} for k, w in enumerate(widths) if k]
    found = 0
    for seed in range(100, 106):
        ds = flocklab.simulate("zonal", **{**BASE, "N": 50, "delta_o": 0.0},
                               schedule=schedule, t_end=360.0, dt=0.1, record_every=1.0,
                               seed=seed)
        memory = model.metrics(ds, model.run_parameters(ds), 0.0)
        found += memory["memory_hysteresis"] == 1.0 and memory["memory_gap_p"] > 0.5
    assert found >= 4


def _branches_config(repo) -> dict:
    import yaml

    with open(repo / "config" / "zonal_test.yaml") as stream:
        return yaml.safe_load(stream)


def test_series_x_must_name_an_observable_of_the_model(repo):
    """The figure option ``x`` of a series figure is checked against the study's model: an
    observable passes, a parameter (not recorded as a time series) is one error naming the
    key."""
    from flocklab.core.parameters import ConfigError
    from flocklab.pipeline import validate_config

    config = _branches_config(repo)
    assert config["figures"]["memory_branches"]["x"] == "orientation_width"
    validate_config(copy.deepcopy(config))
    config["figures"]["memory_branches"]["x"] = "delta_o"
    with pytest.raises(ConfigError) as info:
        validate_config(config)
    message = str(info.value)
    assert "figures.memory_branches.x" in message and "'delta_o'" in message
    assert "\n" not in message


def test_series_against_an_observable_draws_the_recorded_pairs():
    """With x = orientation_width, each panel holds (width, P) and (width, m) of the run in
    time order, markers coloured by the record time, and the x label is the width's
    declared label; without x the same figure is drawn against time, as before."""
    from flocklab.figures import plotting

    ds = flocklab.simulate("zonal", **BASE, schedule=SCHEDULE, t_end=9.0, dt=0.1,
                           record_every=1.0, seed=5)
    fig = plotting.series_figure([ds], ["polarisation", "milling"], ["one run"],
                                 x="orientation_width")
    axes = fig.axes[:2]
    for ax, name in zip(axes, ("polarisation", "milling"), strict=True):
        (line,) = ax.get_lines()
        np.testing.assert_array_equal(line.get_xdata(), ds["orientation_width"].values)
        np.testing.assert_array_equal(line.get_ydata(), ds[name].values)
        (points,) = ax.collections
        np.testing.assert_array_equal(points.get_offsets()[:, 0], ds["orientation_width"].values)
        np.testing.assert_array_equal(points.get_array(), ds["time"].values)
    width = get_model("zonal").observable("orientation_width")
    assert width.units == "1"     # dimensionless: no unit shown
    assert axes[1].get_xlabel() == f"{width.long_name} ${width.symbol}$"
    assert len(fig.axes) == 3 and fig.axes[2].get_ylabel().startswith("time")  # colour bar
    against_time = plotting.series_figure([ds], ["polarisation"], ["one run"])
    (line,) = against_time.axes[0].get_lines()
    np.testing.assert_array_equal(line.get_xdata(), ds["time"].values)
    assert against_time.axes[0].get_xlabel().startswith("time")
