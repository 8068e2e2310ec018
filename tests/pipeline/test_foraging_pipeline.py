"""The foraging model through the Snakemake pipeline (config/foraging_test.yaml).

Checks that every figure kind the foraging default studies use is drawn, that the claims
get verdicts (the sensitivity claims and the grouping task's paired tests), and that the
physics survives the plumbing: the energy budget's closed forms, energy never above E_max,
survival equal to the final alive share, and no agent or predator inside an obstacle in
any frame.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from matplotlib.path import Path as Polygon

from flocklab.analysis.verdicts import VERDICTS

pytestmark = pytest.mark.pipeline

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config" / "foraging_test.yaml"


@pytest.fixture(scope="module")
def finished(run_config):
    return run_config(CONFIG)


def test_every_figure_and_every_verdict(finished):
    figures = finished / "figures"
    for name in ("survival_oat", "density_curve", "budget", "grouping", "scene_snapshots"):
        assert (figures / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
    assert (figures / "scene_animation.gif").read_bytes()[:3] == b"GIF"
    claims = json.loads((finished / "survival" / "sensitivity.json").read_text())["claims"]
    assert [claim["verdict"] in VERDICTS for claim in claims] == [True, True]
    grouping = json.loads((finished / "tasks" / "grouping" / "result.json").read_text())
    assert [claim["output"] for claim in grouping["result"]["verdicts"]] == ["survival",
                                                                            "food_time"]
    assert all(claim["verdict"] in VERDICTS for claim in grouping["result"]["verdicts"])


def test_the_energy_budget_meets_its_closed_forms_in_the_pipeline(finished):
    result = json.loads((finished / "tasks" / "budget" / "result.json").read_text())["result"]
    assert result["largest_error"] < 1e-9
    assert len(result["rows"]) == 4


def test_survival_is_the_final_alive_share_and_energy_stays_capped(finished):
    runs = sorted((finished / "density" / "runs").glob("*/rep*.nc"))
    assert len(runs) == 8
    for path in runs:
        with xr.open_dataset(path) as run:
            alive = run["alive_fraction"].values
            assert np.all(np.diff(alive) <= 0)  # the dead stay dead
            survival = float(np.mean(run["cause"].values == 0))
            assert survival == pytest.approx(float(alive[-1]))
            assert np.nanmax(run["energy_mean"].values) <= 1.0
            assert np.all(run["food_remaining"].values <= 1.0 + 1e-12)
    with xr.open_dataset(finished / "density" / "summary.nc") as summary:
        assert np.all(np.isfinite(summary["replicate_survival"].values))


def test_no_agent_or_predator_inside_an_obstacle_in_any_frame(finished):
    runs = sorted((finished / "scene" / "runs").glob("*/rep*.nc"))
    assert len(runs) == 1
    with xr.open_dataset(runs[0]) as run:
        assert run.sizes["frame"] == 151  # t = 0 and every step of 30 s
        edges = run["obstacle_edges"].values
        owner = run["obstacle_polygon"].values
        points = np.c_[run["x"].values.ravel(), run["y"].values.ravel()]
        predator = run["predator_position"].values.reshape(-1, 2)
        for k in np.unique(owner):
            polygon = Polygon(edges[owner == k, :2])
            assert not polygon.contains_points(points).any()
            assert not polygon.contains_points(predator).any()


def test_every_figure_passes_the_layout_check(finished, figure_layouts):
    """No text of any figure or animation leaves the canvas or lies over another text."""
    problems = figure_layouts(finished.parent, CONFIG)
    assert problems and not {name: found for name, found in problems.items() if found}
