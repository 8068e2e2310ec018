"""The springs model's default set in miniature through Snakemake (config/springs_test.yaml):
studies, the series and snapshot figures, the stability and accuracy tasks and their figures
(kind ``task``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flocklab.pipeline import load_config

pytestmark = pytest.mark.pipeline

REPO = Path(__file__).resolve().parents[2]

CONFIG = REPO / "config" / "springs_test.yaml"


@pytest.fixture(scope="module")
def finished(tmp_path_factory, snakemake):
    workdir = tmp_path_factory.mktemp("springs_pipeline")
    snakemake(workdir, "--configfile", str(CONFIG), "--cores", "2")
    snakemake(workdir, "--configfile", str(CONFIG), "--report",
              str(workdir / "results" / "report.html"))
    return workdir / "results"


def test_config_validates_with_the_tasks():
    config, _ = load_config(CONFIG)
    assert {"springs_stability", "springs_accuracy"} <= set(config["tasks"])


def test_outputs_exist(finished):
    for name in ("springs_energy", "springs_tongue", "springs_stability", "springs_accuracy"):
        for ext in ("png", "pdf"):
            assert (finished / "figures" / f"{name}.{ext}").stat().st_size > 0
    for task in ("springs_stability", "springs_accuracy"):
        assert (finished / "tasks" / task / "result.json").exists()
    assert (finished / "tasks" / "springs_stability" / "stability.csv").exists()


def test_measured_stability_limits_match_linear_theory(finished):
    """Semi-implicit Euler and RK4 on the tongue: the bisected limit lies within the sweep's
    resolution (plus 3 % for slow growth near the edge in short runs) of the theory limit."""
    result = json.loads((finished / "tasks" / "springs_stability" / "result.json"
                         ).read_text())["result"]
    tolerance = result["resolution"] + 0.03
    for row in result["table"]:
        ratio = row["dt_measured"] / row["dt_theory"]
        assert abs(ratio - 1.0) <= tolerance, row


def test_fitted_orders_in_the_pipeline(finished):
    """Semi-implicit Euler is first order, RK4 fourth (fitted slopes within 0.3)."""
    orders = json.loads((finished / "tasks" / "springs_accuracy" / "result.json"
                         ).read_text())["result"]["orders"]
    assert abs(orders["semi_implicit_euler"] - 1.0) < 0.3
    assert abs(orders["rk4"] - 4.0) < 0.3


def test_task_figures_are_logged_and_in_the_report(finished):
    """The task figures ran through rule figure (a log each) and the HTML report shows
    them with captions naming the drawing and the task's result file."""
    logs = finished / "logs" / "figures"
    assert (logs / "springs_stability.log").exists()
    assert (logs / "springs_accuracy.log").exists()
    report = (finished / "report.html").read_text()
    assert "springs_stability.png" in report and "springs_accuracy.png" in report
    assert "Largest stable time step of each integrator" in report
    assert "results/tasks/springs_accuracy/result.json" in report


def test_every_figure_passes_the_layout_check(finished, figure_layouts):
    """No text of any figure or animation leaves the canvas or lies over another text."""
    problems = figure_layouts(finished.parent, CONFIG)
    assert problems and not {name: found for name, found in problems.items() if found}
