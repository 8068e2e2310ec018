"""Logarithmic axes of the curve and oat figure kinds: config checks and drawn scales."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import xarray as xr
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt

from flocklab.core.parameters import ConfigError
from flocklab.figures.plotting import curve_figure, log_spaced
from flocklab.pipeline import validate_config


@pytest.fixture
def curve_config(repo):
    """config/test.yaml plus a curve of the ``noise`` study (swept N paired with L, eta)."""
    with open(repo / "config" / "test.yaml") as stream:
        config = yaml.safe_load(stream)
    config["figures"]["line"] = {"kind": "curve", "study": "noise", "x": "eta",
                                 "y": "order_parameter", "hue": "N"}
    return config


def test_curve_logx_defaults_off_and_needs_positive_swept_values(curve_config):
    validate_config(curve_config)
    assert curve_config["figures"]["line"]["logx"] is False
    curve_config["figures"]["line"]["logx"] = True  # eta sweep starts at 0
    with pytest.raises(ConfigError, match=r"figures\.line\.logx'.*positive numbers"):
        validate_config(curve_config)
    curve_config["figures"]["line"].update(x="L", hue=None)
    del curve_config["figures"]["line"]["hue"]
    validate_config(curve_config)  # L = 3.2, 5.0: positive


def test_curve_figure_draws_the_requested_scales():
    gain = np.array([0.3, 3.0, 30.0])
    summary = xr.Dataset({"replicate_q": ("gain", gain**2), "replicate_q_err": ("gain",
                                                                                gain * 0.0)},
                         coords={"gain": gain})
    fig = curve_figure(summary, "gain", "q", logx=True, logy=True)
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    x, y = ax.lines[0].get_data()
    assert np.allclose(x, gain) and np.allclose(y, gain**2)
    plt.close(fig)
    fig = curve_figure(summary, "gain", "q")
    assert (fig.axes[0].get_xscale(), fig.axes[0].get_yscale()) == ("linear", "linear")
    plt.close(fig)


def test_a_list_of_quantities_is_one_panel_with_a_dashed_closed_form():
    """y = [a, b, ref]: two measured lines with error bars (in order, unsorted x sorted) and
    the coordinate ref, a closed form, dashed at its values; one legend for the three."""
    theta = np.array([90.0, 0.0, 180.0])
    summary = xr.Dataset({"replicate_a": ("theta", [0.5, 1.0, 0.0]),
                          "replicate_a_err": ("theta", [0.1, 0.0, 0.0]),
                          "replicate_b": ("theta", [0.5, 0.0, 1.0]),
                          "replicate_b_err": ("theta", [0.1, 0.0, 0.0])},
                         coords={"theta": theta,
                                 "ref": ("theta", np.cos(np.radians(theta) / 2))})
    fig = curve_figure(summary, "theta", ["a", "b", "ref"])
    ax = fig.axes[0]
    solid = [line for line in ax.lines if line.get_linestyle() == "-"]
    (dashed,) = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [list(line.get_ydata()) for line in solid] == [[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]]
    np.testing.assert_allclose(dashed.get_xdata(), [0.0, 90.0, 180.0])
    np.testing.assert_allclose(dashed.get_ydata(), np.cos(np.radians([0.0, 45.0, 90.0])),
                               atol=1e-15)
    assert sorted(t.get_text() for t in fig.legends[0].get_texts()) == ["a", "b", "ref"]
    plt.close(fig)


def test_a_list_of_quantities_is_checked_and_excludes_hue(repo, curve_config):
    curve_config["figures"]["line"]["y"] = ["order_parameter", "susceptibility"]
    with pytest.raises(ConfigError, match=r"figures\.line\.hue'.*without hue"):
        validate_config(curve_config)
    del curve_config["figures"]["line"]["hue"]
    curve_config["figures"]["line"]["y"] = ["order_parameter", "density"]  # derived: ok
    validate_config(curve_config)
    curve_config["figures"]["line"]["y"] = ["order_parameter", "nonsense"]
    with pytest.raises(ConfigError, match=r"figures\.line\.y\[1\]'.*'nonsense'"):
        validate_config(curve_config)


@pytest.mark.parametrize(("levels", "expected"), [
    ([0.1, 0.3, 1.0, 3.0, 10.0], True),     # two decades
    ([1.0, 2.0, 5.0, 99.0], True),          # a decade, spaced by ratios
    ([0.005, 0.01, 0.1], True),             # a decade, spaced by ratios
    ([0.1, 1.0, 2.0], False),               # a decade, spaced by differences
    ([1.0, 4.0, 7.0, 10.0], False),          # a decade, even differences
    ([1.0, 5.0, 9.9], False),               # short of a decade
    ([0.0, 1.0, 100.0], False),             # zero cannot sit on a log axis
    ([5.0], False),
])
def test_oat_factors_spaced_by_ratios_get_a_log_axis(levels, expected):
    assert log_spaced(np.array(levels)) is expected


def test_flagged_points_are_drawn_open_with_a_legend_entry_outside_the_data():
    """A point with a short run and one with a drifting run are drawn as open (white-faced)
    markers over the curve, the others only filled; the legend, right of the axes, says what
    open means. Without flags nothing is drawn open and there is no legend."""
    eta = np.array([0.5, 1.0, 1.5, 2.0])
    summary = xr.Dataset({"replicate_order_parameter": ("eta", [0.9, 0.8, 0.5, 0.2]),
                          "replicate_order_parameter_err": ("eta", [0.01] * 4),
                          "short_runs": ("eta", np.array([0, 0, 2, 0], np.int16)),
                          "drifting_runs": ("eta", np.array([0, 1, 0, 0], np.int16))},
                         coords={"eta": eta})
    fig = curve_figure(summary, "eta", "order_parameter")
    ax = fig.axes[0]
    open_lines = [line for line in ax.lines if line.get_markerfacecolor() == "white"]
    assert len(open_lines) == 1
    assert np.allclose(open_lines[0].get_xdata(), [1.0, 1.5])
    legend = fig.legends[0]
    assert any("open" in text.get_text() for text in legend.get_texts())
    fig.canvas.draw()
    box, axes_box = legend.get_window_extent(), ax.get_window_extent()
    assert box.x0 >= axes_box.x1   # outside the data, to the right
    plt.close(fig)
    fig = curve_figure(summary.drop_vars(["short_runs", "drifting_runs"]), "eta",
                       "order_parameter")
    assert not [line for line in fig.axes[0].lines if line.get_markerfacecolor() == "white"]
    assert not fig.legends
    plt.close(fig)


def test_a_yes_no_outcome_is_drawn_as_markers_not_a_line():
    """Per-run values all 0 or 1 (a run blew up or not): the shares are markers without a
    joining line; a continuous output keeps its line."""
    dt = np.array([0.01, 0.02, 0.04])
    runs = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    summary = xr.Dataset({"stable": (("dt", "replicate"), runs),
                          "replicate_stable": ("dt", runs.mean(1)),
                          "replicate_stable_err": ("dt", np.zeros(3)),
                          "speed": (("dt", "replicate"), runs + 0.5),
                          "replicate_speed": ("dt", runs.mean(1) + 0.5),
                          "replicate_speed_err": ("dt", np.zeros(3))}, coords={"dt": dt})
    for name, width in (("stable", 0.0), ("speed", 1.0)):
        fig = curve_figure(summary, "dt", name)
        assert fig.axes[0].lines[0].get_linewidth() == width
        plt.close(fig)


@pytest.mark.parametrize(("values", "from_zero"), [
    ([0.985, 0.99, 1.0], True),     # a 1.5 % difference: drawn from 0, not over the panel
    ([0.2, 0.5, 0.9], False),       # a large difference keeps the autoscaled range
    ([-0.01, 0.0, 0.01], False),    # signed data keep their range
])
def test_small_differences_of_non_negative_data_are_drawn_from_zero(values, from_zero):
    import matplotlib.pyplot as plt

    from flocklab.figures.plotting import anchor_at_zero

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], values)
    anchor_at_zero(ax)
    assert bool(ax.get_ylim()[0] == 0.0) is from_zero
    assert ax.get_ylim()[1] >= max(values)
    plt.close(fig)
