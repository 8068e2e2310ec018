"""The generic ``heatmap`` figure kind: config checks before any job runs, the drawn map
(cells, orientation, edges, hatched missing cells, labels) and its caption."""

from __future__ import annotations

import copy

import matplotlib
import numpy as np
import pytest
import xarray as xr
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt
from matplotlib.collections import QuadMesh
from matplotlib.colors import LogNorm

from flocklab.core.parameters import ConfigError
from flocklab.figures.kinds import FigureContext
from flocklab.figures.plotting import cell_edges, heatmap_figure
from flocklab.figures.style import wrap as wrap_label
from flocklab.pipeline import validate_config
from flocklab.stages.figures import make_figure

# ---------------------------------------------------------------------------- config


@pytest.fixture
def heatmap_config(repo):
    """config/test.yaml plus a heatmap of the ``noise`` study (axes: N paired with L, eta)."""
    with open(repo / "config" / "test.yaml") as stream:
        config = yaml.safe_load(stream)
    config["figures"]["map"] = {"kind": "heatmap", "study": "noise", "x": "eta", "y": "N",
                                "z": "order_parameter"}
    return config


def test_valid_heatmap_gets_defaults(heatmap_config):
    studies = validate_config(heatmap_config)
    spec = heatmap_config["figures"]["map"]
    assert (spec["logx"], spec["logy"], spec["logz"]) == (False, False, False)
    assert spec["mark_missing"] == "no value"
    text = FigureContext(heatmap_config, studies).caption("map")
    assert "over noise amplitude (horizontal) and number of particles (vertical)" in text
    assert "Hatched cells (no value)" in text


def test_paired_coordinate_and_length_one_axes_are_allowed(heatmap_config):
    """y may be the paired coordinate L of the N axis; an extra axis of one value is no sweep."""
    noise = heatmap_config["studies"]["noise"]
    del noise["params"]["r"]
    noise["sweep"].append({"r": [1.0]})
    heatmap_config["figures"]["map"].update(y="L", logy=True)
    validate_config(heatmap_config)


def _with_extra_axis(values):
    def mutate(config):
        noise = config["studies"]["noise"]
        del noise["params"]["r"]
        noise["sweep"].append({"r": values})
    return mutate


@pytest.mark.parametrize(("change", "key", "allowed"), [
    ({"y": "eta"}, "y", "allowed: N, L"),                      # x == y
    ({"x": "N", "y": "L"}, "y", "allowed: eta"),               # same (paired) axis
    ({"x": "r"}, "x", "allowed: N, L, eta"),                   # fixed, not swept
    ({"x": "density"}, "x", "allowed: N, L, eta"),             # derived, not swept
    ({"z": "temperature"}, "z", "order_parameter, susceptibility, binder_cumulant"),
    ({"logx": True}, "logx", "positive numbers"),              # eta sweep starts at 0
    ({"study": "oat"}, "kind", "needs a grid study"),          # sensitivity study
    ({"hue": "N"}, "hue", "unknown key"),                      # not a heatmap key
])
def test_bad_heatmap_keys_are_named(heatmap_config, change, key, allowed):
    heatmap_config["figures"]["map"].update(change)
    with pytest.raises(ConfigError) as error:
        validate_config(heatmap_config)
    message = str(error.value)
    expected = f"figures.map.{key}" if key else "figures.map"
    assert f"config key '{expected}':" in message, message
    assert allowed in message and "\n" not in message


@pytest.mark.parametrize(("values", "change", "key", "text"), [
    ([0.5, 1.0], {}, "study", "also sweeps r (2 values)"),
    ([1.0], {"y": "r"}, "y", "'r' takes one value"),
])
def test_swept_dimensions_must_be_exactly_x_and_y(heatmap_config, values, change, key, text):
    config = copy.deepcopy(heatmap_config)
    _with_extra_axis(values)(config)
    config["figures"]["map"].update(change)
    with pytest.raises(ConfigError) as error:
        validate_config(config)
    assert str(error.value).startswith(f"config key 'figures.map.{key}': ")
    assert text in str(error.value)


# ---------------------------------------------------------------------------- drawing

GAINS = np.array([10.0, 1.0, 0.1, 100.0])   # swept out of order: the map sorts them
DELAYS = np.array([0.0, 0.2, 0.1])


def _quantity(delay, gain):
    """A closed form to recognise each cell by: q = gain (1 + 10 delay)."""
    return gain * (1.0 + 10.0 * delay)


@pytest.fixture
def summary():
    """A summary as the metrics stage writes it: dims (tau, gain, size) with a length-1 size
    dimension, per-run values on a replicate dimension, NaN at (tau = 0.2, gain = 100)."""
    q = _quantity(DELAYS[:, None], GAINS[None, :])
    q[1, 3] = np.nan
    runs = np.repeat(q[:, :, None, None], 2, axis=3)
    return xr.Dataset(
        {"replicate_q": (("tau", "gain", "size"), q[:, :, None]),
         "q": (("tau", "gain", "size", "replicate"), runs,
               {"units": "m", "long_name": "quality"})},
        coords={"tau": ("tau", DELAYS, {"long_name": "delay"}),
                "gain": ("gain", GAINS, {"long_name": "gain"}), "size": [40]})


def _mesh(fig):
    (mesh,) = [c for c in fig.axes[0].collections if isinstance(c, QuadMesh)]
    return mesh


def test_cells_hold_the_values_in_map_orientation(summary):
    """One cell per point; the mesh array is z[y_i, x_j] with both axes ascending."""
    fig = heatmap_figure(summary, "gain", "tau", "q", logx=True, logz=True)
    values = _mesh(fig).get_array()
    expected = _quantity(np.sort(DELAYS)[:, None], np.sort(GAINS)[None, :])
    assert values.shape == (3, 4)
    assert values.mask[2, 3] and values.mask.sum() == 1          # tau = 0.2, gain = 100
    np.testing.assert_allclose(values.filled(np.nan), np.where(values.mask, np.nan, expected),
                               rtol=1e-15)
    norm = _mesh(fig).norm
    assert isinstance(norm, LogNorm)
    assert (norm.vmin, norm.vmax) == (np.nanmin(values), np.nanmax(values))
    plt.close(fig)


def test_cells_are_centred_on_the_swept_values(summary):
    """Log axis: geometric midpoints, each value the geometric centre of its cell; linear
    axis: arithmetic midpoints; ticks at the swept values."""
    fig = heatmap_figure(summary, "gain", "tau", "q", logx=True)
    corners = _mesh(fig).get_coordinates()
    x_edges, y_edges = corners[0, :, 0], corners[:, 0, 1]
    np.testing.assert_allclose(np.sqrt(x_edges[:-1] * x_edges[1:]), np.sort(GAINS), rtol=1e-12)
    np.testing.assert_allclose(x_edges, [10**-1.5, 10**-0.5, 10**0.5, 10**1.5, 10**2.5],
                               rtol=1e-12)
    np.testing.assert_allclose(y_edges, [-0.05, 0.05, 0.15, 0.25], atol=1e-15)
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.get_xticks(), np.sort(GAINS))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "0.1", "0.2"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    plt.close(fig)


def test_missing_cells_are_hatched_with_the_legend_label(summary):
    fig = heatmap_figure(summary, "gain", "tau", "q", logx=True, mark_missing="unstable")
    ax = fig.axes[0]
    hatched = [patch for patch in ax.patches if patch.get_hatch()]
    assert len(hatched) == 1
    x_edges = np.sqrt([10.0 * 100.0, 100.0 * 1000.0])
    assert hatched[0].get_xy() == pytest.approx((x_edges[0], 0.15))
    assert hatched[0].get_width() == pytest.approx(x_edges[1] - x_edges[0])
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["unstable"]
    plt.close(fig)


def test_values_are_printed_and_the_colour_bar_is_labelled(summary):
    fig = heatmap_figure(summary, "gain", "tau", "q", logx=True)
    texts = {(round(t.get_position()[0], 9), round(t.get_position()[1], 9)): t.get_text()
             for t in fig.axes[0].texts}
    assert len(texts) == 11                                       # 12 cells, one NaN
    assert _quantity(0.1, 100.0) == pytest.approx(200.0, rel=0.25)
    assert texts[(100.0, 0.1)] == "2e2"                            # two digits, short exponent
    assert texts[(0.1, 0.0)] == "0.1"
    assert fig.axes[1].get_ylabel() == "quality (m)"
    assert fig.axes[0].get_xlabel() == "gain" and fig.axes[0].get_ylabel() == "delay"
    plt.close(fig)


def test_all_cells_present_draws_no_legend(summary):
    summary["replicate_q"] = summary["replicate_q"].fillna(1.0)
    fig = heatmap_figure(summary, "gain", "tau", "q", zlabel="Q")
    assert not fig.legends and fig.axes[1].get_ylabel() == "Q"
    plt.close(fig)


def test_a_second_swept_dimension_is_refused(summary):
    wide = xr.concat([summary, summary], dim="size")
    with pytest.raises(ValueError, match="not one map"):
        heatmap_figure(wide, "gain", "tau", "q")


def test_named_values_sit_in_sweep_order():
    """A swept name (e.g. an integrator) gets cells at 0, 1, 2 in the order swept."""
    methods = np.array(["RK45", "Radau", "LSODA"])
    q = np.arange(6.0).reshape(2, 3)
    summary = xr.Dataset({"replicate_q": (("k", "method"), q)},
                         coords={"k": [1e2, 1e4], "method": methods})
    fig = heatmap_figure(summary, "method", "k", "q", logy=True)
    np.testing.assert_array_equal(_mesh(fig).get_array(), q)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == list(methods)
    plt.close(fig)


def test_cell_edges_closed_form():
    np.testing.assert_allclose(cell_edges(np.array([1.0, 2.0, 4.0])), [0.5, 1.5, 3.0, 5.0])
    np.testing.assert_allclose(cell_edges(np.array([1.0, 4.0, 16.0]), log=True),
                               [0.5, 2.0, 8.0, 32.0])


def test_wrapped_labels_keep_math_whole():
    label = r"largest link-length error max |d - L| $\max |d - L|$ [m]"
    for width in (5, 20):   # math longer than the width stays on one line too
        wrapped = wrap_label(label, width)
        assert r"$\max |d - L|$" in wrapped and wrapped.replace("\n", " ") == label


def test_make_figure_writes_the_heatmap(summary, tmp_path):
    path = tmp_path / "summary.nc"
    summary.to_netcdf(path)
    spec = {"kind": "heatmap", "x": "gain", "y": "tau", "z": "q", "logx": True,
            "logy": False, "logz": True, "mark_missing": "unstable", "title": "map"}
    outputs = [tmp_path / "map.png", tmp_path / "map.pdf"]
    make_figure(spec, [path], outputs, dpi=50)
    assert all(out.stat().st_size > 0 for out in outputs)
