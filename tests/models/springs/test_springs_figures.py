"""Figures of task results (kind ``task``): config validation, and the springs drawings of a
hand-made stability table and error table, whose plotted data must equal the input."""

from __future__ import annotations

import copy
import json
import math

import matplotlib
import numpy as np
import pytest
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt

from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.figures.kinds import KINDS
from flocklab.models.springs.figures import BAND, classify_limit
from flocklab.pipeline import validate_config
from flocklab.stages.figures import make_figure


@pytest.fixture
def springs_config(repo):
    with open(repo / "config" / "springs_test.yaml") as stream:
        return yaml.safe_load(stream)


def task_figure(spec, path):
    """The figure the ``task`` kind draws from the result document ``path``."""
    return KINDS["task"].draw(spec, [path])


def _error(config) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(copy.deepcopy(config))
    return str(caught.value)


def test_figure_naming_a_missing_task_is_an_error_naming_the_key(springs_config):
    springs_config["figures"]["springs_accuracy"]["task"] = "springs_nothing"
    message = _error(springs_config)
    assert "config key 'figures.springs_accuracy.task'" in message
    assert "unknown task 'springs_nothing'" in message
    assert "springs_stability" in message  # the defined tasks are listed


def test_figure_of_a_task_the_model_does_not_draw_is_an_error(springs_config):
    springs_config["tasks"]["springs_cost"] = {"model": "springs", "task": "cloth_cost"}
    springs_config["figures"]["springs_cost"] = {"kind": "task", "task": "springs_cost"}
    message = _error(springs_config)
    assert message.startswith("config key 'figures.springs_cost.task'")
    assert "task 'cloth_cost' draws no figure" in message


@pytest.mark.parametrize(("options", "key"), [
    ({"colour": ["red"]}, "options.colour"),
    ({"methods": ["leapfrog"]}, "options.methods"),
    ({"methods": "rk4"}, "options.methods"),
])
def test_bad_figure_options_name_the_option(springs_config, options, key):
    springs_config["figures"]["springs_accuracy"]["options"] = options
    assert _error(springs_config).startswith(f"config key 'figures.springs_accuracy.{key}'")


def test_task_figure_takes_no_study_and_other_kinds_need_one(springs_config):
    springs_config["figures"]["springs_accuracy"]["study"] = "springs_energy"
    assert "figures.springs_accuracy" in _error(springs_config)
    del springs_config["figures"]["springs_accuracy"]["study"]
    del springs_config["figures"]["springs_energy"]["study"]
    assert "figures.springs_energy" in _error(springs_config)


def test_a_task_without_a_figure_refuses_figure_options():
    task = get_model("springs").task("cloth_cost")
    with pytest.raises(ParameterError, match="draws no figure"):
        task.resolve_figure({})
    with pytest.raises(NotImplementedError, match="draws no figure"):
        task.draw(plt.figure(), {"task": "cloth_cost", "result": {}}, {})
    plt.close("all")


# --------------------------------------------------------------------------- drawings

STABILITY_ROWS = [
    # configuration, method, theory, measured (None = inf in strict JSON)
    ("A", "explicit_euler", 0.0, 0.0077),
    ("A", "rk4", 0.0197, 0.0196),
    ("A", "implicit_euler", None, None),
    ("A", "implicit_midpoint", None, 1.03),
    ("A", "scipy_DOP853", None, 0.25),
    ("B", "explicit_euler", 0.0027, 0.0),
    ("B", "rk4", 0.068, 0.068),
    ("B", "implicit_euler", None, None),
    ("B", "implicit_midpoint", None, 2.5),
    ("B", "scipy_DOP853", None, None),
]


def _stability_document() -> dict:
    table = [{"configuration": c, "method": m, "dt_theory": t, "dt_measured": d,
              "sqrt_m_over_k": 0.0141, "omega_max": 100.0, "note": ""}
             for c, m, t, d in STABILITY_ROWS]
    return {"model": "springs", "task": "stability", "parameters": {}, "options": {},
            "result": {"table": table, "resolution": 0.02, "verdicts": []}}


def _lines(fig) -> dict:
    return {line.get_label(): line for line in fig.axes[0].get_lines()}


def test_stability_figure_plots_the_table(tmp_path):
    """Numeric limits are the plotted y values at the methods' positions; infinite and zero
    limits sit in the bands (axes coordinates), the scipy theory (NaN) is not drawn."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps(_stability_document()))
    fig = task_figure({"kind": "task", "task": "t", "title": "T", "options": {}}, path)
    lines = _lines(fig)
    methods = ["explicit_euler", "rk4", "implicit_euler", "implicit_midpoint", "scipy_DOP853"]
    assert [t.get_text().replace("\n", " ") for t in fig.axes[0].get_xticklabels()] == [
        "explicit Euler", "RK4", "implicit Euler", "implicit midpoint", "DOP853 (SciPy)"]
    for config, offset in (("A", -0.3), ("B", 0.3)):
        rows = [r for r in STABILITY_ROWS if r[0] == config]
        for index, kind, key in ((3, "measured", "dt_measured"), (2, "theory", "dt_theory")):
            expected = [(methods.index(r[1]) + offset, r[index]) for r in rows
                        if r[index] is not None and r[index] > 0]
            line = lines[f"{config}: {kind}"]
            np.testing.assert_allclose(line.get_xdata(), [x for x, _ in expected])
            np.testing.assert_allclose(line.get_ydata(), [y for _, y in expected])
            top = lines[f"_{config} {key} stable"]
            bottom = lines[f"_{config} {key} unstable"]
            expected_top = [methods.index(r[1]) + offset for r in rows if r[index] is None
                            and not (kind == "theory" and r[1].startswith("scipy_"))]
            expected_bottom = [methods.index(r[1]) + offset for r in rows if r[index] == 0]
            np.testing.assert_allclose(top.get_xdata(), expected_top)
            np.testing.assert_allclose(top.get_ydata(), [1 - BAND / 2] * len(expected_top))
            np.testing.assert_allclose(bottom.get_xdata(), expected_bottom)
            np.testing.assert_allclose(bottom.get_ydata(), [BAND / 2] * len(expected_bottom))
        np.testing.assert_allclose(lines[f"_{config} sqrt(m/k)"].get_ydata(), [0.0141] * 2)
    # every numeric limit lies between the bands of the log axis
    low, high = (math.log10(v) for v in fig.axes[0].get_ylim())
    numbers = [v for r in STABILITY_ROWS for v in r[2:] if v]
    fractions = [(math.log10(v) - low) / (high - low) for v in numbers]
    assert BAND < min(fractions) and max(fractions) < 1 - BAND
    # and no tick of the value axis sits in a band (no number is read off a band)
    ticks = [(math.log10(v) - low) / (high - low) for v in fig.axes[0].get_yticks()]
    assert len(ticks) >= 2 and all(BAND <= t <= 1 - BAND for t in ticks)
    assert not fig.axes[0].yaxis.get_minorticklocs().size
    plt.close(fig)


def test_stability_figure_selects_configurations_and_rejects_unknown_ones(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(_stability_document()))
    fig = task_figure({"kind": "task", "task": "t", "options": {"configurations": ["B"]}},
                      path)
    assert {label for label in _lines(fig) if not label.startswith("_")} == \
        {"B: measured", "B: theory"}
    plt.close(fig)
    with pytest.raises(ValueError, match="option 'configurations': 'C' is not in the task"):
        task_figure({"kind": "task", "task": "t", "options": {"configurations": ["C"]}}, path)
    plt.close("all")


def test_classify_limit_reads_strict_json_nulls():
    assert classify_limit(None, "rk4", theory=True) == "stable"
    assert classify_limit(None, "scipy_RK45", theory=True) == "none"
    assert classify_limit(None, "scipy_RK45", theory=False) == "stable"
    assert classify_limit(0.0, "explicit_euler", theory=True) == "unstable"
    assert classify_limit(0.01, "rk4", theory=False) == "number"


def test_accuracy_figure_plots_errors_and_orders(tmp_path):
    """Each method's line holds its (dt, error) pairs; the legend gives the fitted order;
    a null error (NaN) is left out, not drawn as a number."""
    methods = {"rk4": {"dt": [0.01, 0.005], "error": [1.6e-7, 1.0e-8], "order": 4.0},
               "semi_implicit_euler": {"dt": [0.01, 0.005, 0.0025],
                                       "error": [2e-3, None, 5e-4], "order": 1.04}}
    document = {"model": "springs", "task": "accuracy", "parameters": {}, "options": {},
                "result": {"problem": "single spring", "methods": methods,
                           "orders": {m: d["order"] for m, d in methods.items()}}}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document))
    outputs = [tmp_path / "accuracy.png", tmp_path / "accuracy.pdf"]
    make_figure({"kind": "task", "task": "t", "title": "", "options": {}}, [path], outputs)
    assert all(out.stat().st_size > 0 for out in outputs)
    fig = task_figure({"kind": "task", "task": "t", "options": {}}, path)
    lines = _lines(fig)
    assert set(lines) == {"RK4 (order 4.00)", "semi-implicit Euler (order 1.04)"}
    np.testing.assert_allclose(lines["RK4 (order 4.00)"].get_xdata(), [0.01, 0.005])
    np.testing.assert_allclose(lines["RK4 (order 4.00)"].get_ydata(), [1.6e-7, 1.0e-8])
    semi = lines["semi-implicit Euler (order 1.04)"]
    np.testing.assert_allclose(semi.get_xdata(), [0.01, 0.0025])
    np.testing.assert_allclose(semi.get_ydata(), [2e-3, 5e-4])
    assert fig.axes[0].get_xscale() == fig.axes[0].get_yscale() == "log"
    plt.close(fig)


def test_the_departures_from_linear_theory_are_marked(tmp_path):
    """A limit theory does not predict gets its letter beside the measured point: n for a
    nonlinear failure (implicit midpoint), s for a saturated growth, b for a measured 0
    where theory gives a positive limit (below the sweep); agreeing rows get none, and the
    legend explains only the letters drawn."""
    document = _stability_document()
    table = document["result"]["table"]
    for row in table:
        row["agreement"] = "agree"
    table[3].update(agreement="nonlinear", dt_measured=2.5, dt_theory=None)
    table[0].update(dt_measured=0.0, dt_theory=0.0027)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document))
    fig = task_figure({"kind": "task", "task": "t", "title": "T", "options": {}}, path)
    marks = sorted(text.get_text() for text in fig.axes[0].texts if len(text.get_text()) == 1)
    assert marks == ["b", "b", "n"]      # A and B explicit Euler below the sweep, A midpoint
    legend = " ".join(text.get_text() for legend in fig.legends for text in legend.texts)
    assert "n: fails for a nonlinear" in legend.replace("\n", " ")
    assert "b: unstable at the sweep" in legend.replace("\n", " ")
    assert "s: above" not in legend.replace("\n", " ")
    plt.close(fig)
