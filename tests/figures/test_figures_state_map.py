"""The ``state_map`` figure kind (the most frequent per-run state of each point) and the
power-law ``lines`` a heatmap or a state map draws over its cells."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import xarray as xr
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt
from matplotlib.collections import QuadMesh

from flocklab.core.parameters import ConfigError
from flocklab.figures.kinds import FigureContext
from flocklab.figures.plotting import heatmap_figure, modal_states, state_map_figure
from flocklab.pipeline import validate_config
from flocklab.stages.figures import make_figure

STATES = ["zero", "one", "two", "three"]
L = np.array([0.9, 0.1, 0.3])      # swept out of order: the map sorts them
C = np.array([1.0, 4.0])


@pytest.fixture
def summary():
    """Per-run codes on (C, l, replicate): cell (C = 1, l = 0.3) disagrees 2:1, cell
    (C = 4, l = 0.9) is unknown (NaN, -1, NaN)."""
    codes = np.empty((2, 3, 3))
    codes[0] = [[3, 3, 3], [1, 1, 1], [2, 2, 0]]           # l = 0.9, 0.1, 0.3 at C = 1
    codes[1] = [[np.nan, -1, np.nan], [0, 1, 1], [2, 3, 2]]  # at C = 4
    return xr.Dataset({"state": (("C", "l", "replicate"), codes),
                       "replicate_q": (("C", "l"), codes.mean(axis=2))},
                      coords={"C": C, "l": L, "replicate": [0, 1, 2]})


def test_modal_states_take_the_most_frequent_known_code():
    codes = np.array([[2, 2, 0], [0, 1, 1], [1, 0, np.nan], [np.nan, -1, np.nan]])
    mode, share = modal_states(codes)
    np.testing.assert_array_equal(mode[:3], [2, 1, 0])     # a tie goes to the smaller code
    np.testing.assert_allclose(share[:3], [2 / 3, 2 / 3, 0.5])
    assert np.isnan(mode[3]) and np.isnan(share[3])


def test_the_map_colours_each_cell_by_its_modal_state(summary):
    fig = state_map_figure(summary, "l", "C", "state", STATES, logx=True, logy=True)
    (mesh,) = [c for c in fig.axes[0].collections if isinstance(c, QuadMesh)]
    values = mesh.get_array()
    assert values.shape == (2, 3)                           # C rows, l columns (0.1, 0.3, 0.9)
    np.testing.assert_array_equal(values[0].filled(-9), [1, 2, 3])
    np.testing.assert_array_equal(values[1].filled(-9), [1, 2, -9])
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    assert texts == ["0.67", "0.67", "0.67"]                 # the three cells that disagree
    legend = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert sorted(legend) == ["no known state", "one", "three", "two"]
    plt.close(fig)


def test_power_lines_are_drawn_over_the_cells(summary):
    """y = a x^b in the swept coordinates, across the whole map, the axes kept on it."""
    line = {"coefficient": 1.0, "exponent": -2.0, "label": "C l^2 = 1"}
    for fig in (state_map_figure(summary, "l", "C", "state", STATES, logx=True, logy=True,
                                 lines=[line]),
                heatmap_figure(summary, "l", "C", "q", logx=True, logy=True, lines=[line])):
        ax = fig.axes[0]
        (drawn,) = ax.get_lines()
        x, y = drawn.get_data()
        np.testing.assert_allclose(y, x ** -2.0, rtol=1e-12)
        assert x[0] == pytest.approx(ax.get_xlim()[0]) and x[-1] == pytest.approx(
            ax.get_xlim()[1])
        assert drawn.get_label() == "C l^2 = 1"
        plt.close(fig)


@pytest.fixture
def forces_config(repo):
    with open(repo / "config" / "forces_test.yaml") as stream:
        return yaml.safe_load(stream)


def test_the_state_map_is_checked_and_captioned(forces_config):
    studies = validate_config(forces_config)
    context = FigureContext(forces_config, studies)
    text = context.caption("phases_states")
    assert "0 dispersed" in text and "Line: C l^2 = 1" in text
    forces_config["figures"]["phases_states"]["z"] = "rotation_mean"
    with pytest.raises(ConfigError) as error:
        validate_config(forces_config)
    assert "figures.phases_states.z': 'rotation_mean' is not a per-run metric" in str(
        error.value)


def test_a_line_needs_its_coefficient_and_exponent(forces_config):
    forces_config["figures"]["phases_states"]["lines"] = [{"coefficient": 1.0}]
    with pytest.raises(ConfigError) as error:
        validate_config(forces_config)
    assert "figures.phases_states" in str(error.value)


def test_make_figure_writes_the_state_map(summary, tmp_path):
    path = tmp_path / "summary.nc"
    summary.to_netcdf(path)
    spec = {"kind": "state_map", "x": "l", "y": "C", "z": "state", "states": STATES,
            "logx": True, "logy": False, "title": "states",
            "lines": [{"coefficient": 1.0, "exponent": -2.0}]}
    outputs = [tmp_path / "map.png"]
    make_figure(spec, [path], outputs, dpi=50)
    assert outputs[0].stat().st_size > 0


def test_contours_follow_the_level_between_the_cell_centres():
    """z = x exactly: linear interpolation between centres puts the line z = 0.5 at x = 0.5
    for every y; a level outside the values draws nothing but keeps its legend entry."""
    x, y = np.array([0.0, 0.25, 1.0]), np.array([1.0, 2.0, 3.0])
    summary = xr.Dataset({"replicate_q": (("y", "x"), np.tile(x, (3, 1)))},
                         coords={"x": x, "y": y})
    fig = heatmap_figure(summary, "x", "y", "q", contours=[
        {"level": 0.5, "label": "q = 0.5"}, {"level": 2.0, "label": "never"}])
    ax = fig.axes[0]
    paths = [path for collection in ax.collections if hasattr(collection, "levels")
             for path in collection.get_paths()]
    vertices = np.concatenate([path.vertices for path in paths])
    np.testing.assert_allclose(vertices[:, 0], 0.5, atol=1e-12)
    assert vertices[:, 1].min() == pytest.approx(1.0) and vertices[:, 1].max() == pytest.approx(
        3.0)
    legend = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert legend == ["q = 0.5", "never"]
    plt.close(fig)


def test_a_contour_needs_its_level_and_is_captioned(forces_config):
    figure = forces_config["figures"]["phases_rotation"] = {
        "kind": "heatmap", "study": "phases", "title": "R", "x": "l_r", "y": "C_r",
        "z": "rotation_mean", "contours": [{"level": 0.6, "label": "R = 0.6"}]}
    studies = validate_config(forces_config)
    assert "Contour: R = 0.6" in FigureContext(forces_config, studies).caption(
        "phases_rotation")
    figure["contours"] = [{"label": "no level"}]
    with pytest.raises(ConfigError) as error:
        validate_config(forces_config)
    assert "figures.phases_rotation" in str(error.value)
