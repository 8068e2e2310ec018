"""The survival figure kind and censored outputs in the oat figure: Kaplan-Meier curves with
bands and censoring ticks, the log-rank trend p in the legend, censored runs drawn as censored
(not averaged), and the config checks."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import xarray as xr
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt

from flocklab.analysis.sensitivity import (
    Factor,
    analyse_sensitivity,
    design_record_dataset,
    oat_design,
)
from flocklab.config import design_points
from flocklab.core.parameters import ConfigError
from flocklab.figures.plotting import oat_figure, survival_figure
from flocklab.pipeline import validate_config

# turn_time of 4 runs at 0, 3 and 6 leaders; 35 = censored at the run's end (turned = 0)
TURN = np.array([[35.0, 35.0, 20.0, 35.0], [9.0, 11.0, 12.0, 35.0], [4.0, 5.0, 6.0, 7.0]])
TURNED = np.array([[0.0, 0, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1]])


@pytest.fixture
def sensitivity():
    """The analysis of an oat study of the forces model with a censored output."""
    design = oat_design([Factor("leaders", values=(0.0, 3.0, 6.0))], {"leaders": 3.0})
    fixed = {"N": 20, "turn_angle": 60.0, "turn_time": 5.0, "leaders": 3}
    record = {"name": "toy", "model": "forces", "fixed": fixed, "seed": 5,
              "sensitivity": {"method": "oat"}}
    design_ds = design_record_dataset(record, design, design_points("forces", fixed, design))
    labels = sorted(set(design_ds["point"].values.astype(str).tolist()),
                    key=lambda label: float(label.split("=")[1]))
    summary = xr.Dataset({"turn_time": (("point", "replicate"), TURN),
                          "turned": (("point", "replicate"), TURNED)},
                         coords={"point": labels, "replicate": np.arange(4)},
                         attrs={"time": '{"t_end": 40.0}'})
    claim = {"claim": "more leaders, faster", "parameter": "leaders", "output": "turn_time",
             "trend": "decreasing"}
    ds, document = analyse_sensitivity(design_ds, summary, {"outputs": ["turn_time", "turned"],
                                                            "claims": [claim]}, replicates=4)
    return ds, document


def test_the_analysis_keeps_events_and_medians_of_the_censored_output(sensitivity):
    ds, document = sensitivity
    events = ds["response_event"].sel(output="turn_time", parameter="leaders").values
    np.testing.assert_array_equal(events, TURNED)
    assert np.isnan(ds["response_event"].sel(output="turned")).all()
    # 0 leaders: 1 event of 4, median not reached; 6 leaders: no censoring, median 5
    median = ds["response_median"].sel(output="turn_time", parameter="leaders").values
    assert np.isnan(median[0]) and median[2] == 5.0
    assert document["outputs"]["turn_time"]["leaders"]["censored_runs"] == 4
    assert ds["claim_test"].values[0].startswith("log-rank test for trend")
    (claim,) = document["claims"]
    assert claim["effect"] > 1 and claim["low"] is not None and claim["p"] is not None


def test_survival_figure_draws_one_curve_per_level_with_ticks_bands_and_the_p(sensitivity):
    ds, _ = sensitivity
    fig = survival_figure(ds, "turn_time", title="turning")
    ax = fig.axes[0]
    steps = [line for line in ax.lines if line.get_drawstyle() == "steps-post"]
    assert len(steps) == 3 and len(ax.collections) == 3            # curves and bands
    ticks = [line for line in ax.lines if line.get_marker() == "|"]
    assert sum(len(line.get_xdata()) for line in ticks) == 4         # the censored runs
    # the curve of 0 leaders falls once, to 3/4 at t = 20, and stays there
    assert steps[0].get_ydata()[-1] == pytest.approx(0.75)
    title = fig.legends[0].get_title().get_text()
    assert title.startswith("log-rank trend test: p")
    assert "p = 0" not in title.replace("p = 0.", "")
    plt.close(fig)


def test_the_oat_figure_draws_censored_runs_as_censored_not_averaged(sensitivity):
    ds, _ = sensitivity
    fig = oat_figure(ds)
    ax = fig.axes[0]                                 # turn_time against leaders
    censored = [line for line in ax.lines if line.get_marker() == "^"
                and len(line.get_xdata())]
    assert sum(len(line.get_xdata()) for line in censored) == 4
    assert all(np.all(line.get_ydata() == 35.0) for line in censored)
    means = ds["response_mean"].sel(output="turn_time", parameter="leaders").values
    drawn = np.concatenate([np.asarray(line.get_ydata(), float) for line in ax.lines])
    assert not np.any(np.isclose(drawn, means[1]))   # the mean of 9, 11, 12, 35 is not drawn
    plt.close(fig)


def test_the_survival_kind_needs_a_censored_output_and_a_factor(repo):
    with open(repo / "config" / "forces_test.yaml") as stream:
        config = yaml.safe_load(stream)
    validate_config(config)
    config["figures"]["leaders_survival"]["output"] = "turned"
    with pytest.raises(ConfigError, match=r"figures\.leaders_survival\.output'.*'turned' is "
                                          r"not a censored output.*censored outputs: "
                                          r"turn_time"):
        validate_config(config)
    config["figures"]["leaders_survival"].update(output="turn_time", parameter="N")
    with pytest.raises(ConfigError, match=r"figures\.leaders_survival\.parameter'.*'N'"):
        validate_config(config)
