"""The force-based swarm through the Snakemake pipeline (config/forces_test.yaml: 15 short
runs and two small tasks).

Checks that every figure kind the default forces studies use is drawn (the state map and the
heatmap with their power-law lines, oat, survival, series, snapshots, animation, task
figures), that the claims and the tasks get verdicts (the censored turn time by the log-rank
test), and that the physics survives the plumbing: rotating swarms where the Morse potential
is catastrophic and dispersal in the H-stable corner, the closed forms in the task's
document, the shark surrounded without a capture, and captures agreeing with the survivors.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from flocklab.analysis.verdicts import VERDICTS

pytestmark = pytest.mark.pipeline

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config" / "forces_test.yaml"


@pytest.fixture(scope="module")
def finished(run_config):
    return run_config(CONFIG)


def test_every_figure_and_every_verdict(finished):
    figures = finished / "figures"
    for name in ("phases_states", "phases_rotation", "phases_snapshots", "leaders_oat",
                 "leaders_survival", "escape_oat", "shark_series", "closed_forms",
                 "hierarchy"):
        assert (figures / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
    assert (figures / "shark_animation.gif").read_bytes()[:3] == b"GIF"
    for study in ("leaders", "escape"):
        claims = json.loads((finished / study / "sensitivity.json").read_text())["claims"]
        assert [c["verdict"] in VERDICTS for c in claims] == [True]
    # turn_time is a censored time: its trend claim goes to the log-rank test
    (turning,) = json.loads((finished / "leaders" / "sensitivity.json").read_text())["claims"]
    assert "log-rank" in turning["test"] + turning["evidence"]
    verdicts = json.loads((finished / "tasks" / "hierarchy" / "result.json").read_text())[
        "result"]["verdicts"]
    assert len(verdicts) == 3 and all(v["verdict"] in VERDICTS for v in verdicts)


def test_catastrophic_swarms_rotate_and_the_h_stable_corner_disperses(finished):
    """C = 0.5 (not H-stable at l = 0.3 and 1.5: C l^2 = 0.045, and C < l): rotation
    R > 0.6 at both l (measured 0.99, 0.91); C = 4, l = 1.5 (C l^2 = 9 and C > l: H-stable):
    dispersed (largest group < 1/2; measured R = 0.07)."""
    with xr.open_dataset(finished / "phases" / "summary.nc") as summary:
        rotation = summary["replicate_rotation_mean"]
        assert np.all(rotation.sel(C_r=0.5).values > 0.6)
        assert float(summary["state"].sel(l_r=1.5, C_r=4.0).squeeze()) == 0.0
        assert float(summary["replicate_largest_fraction_mean"].sel(l_r=1.5, C_r=4.0)) < 0.5


def test_the_closed_forms_in_the_task_document(finished):
    result = json.loads((finished / "tasks" / "closed_forms" / "result.json").read_text())[
        "result"]
    assert result["logistic_speed"]["max_relative_error"] < 1e-12
    for case in result["equilibrium_distance"].values():
        assert abs(case["error"]) < 1e-9
    assert result["momentum_balance"]["momentum_drift"] < 1e-12
    for order in result["integrator_order"].values():
        assert abs(order["order"] - 2.0) < 0.15
    assert all(row["max_difference"] < 1e-12 * row["max_force"] for row in result["cell_list"])


def test_the_shark_is_surrounded_without_a_capture(finished):
    """Mean surround coverage after t = 0 of 12 sectors within 5 of the shark (measured
    0.95) and a vacuole around it (1.35, the fish-shark repulsion), no capture."""
    with xr.open_dataset(finished / "shark" / "summary.nc") as summary:
        assert float(summary["replicate_surround_mean"].squeeze()) > 0.8
        assert float(summary["replicate_vacuole_mean"].squeeze()) > 0.5
        assert float(summary["captures"].squeeze()) == 0.0


def test_captures_agree_with_the_survivors(finished):
    runs = sorted((finished / "escape" / "runs").glob("*/rep*.nc"))
    assert runs
    for path in runs:
        with xr.open_dataset(path) as run:
            caught = int(np.isfinite(run["capture_time"].values).sum())
            assert caught == round(20 * (1.0 - float(run["alive_fraction"].values[-1])))


def test_every_figure_passes_the_layout_check(finished, figure_layouts):
    """No text of any figure or animation leaves the canvas or lies over another text."""
    problems = figure_layouts(finished.parent, CONFIG)
    assert problems and not {name: found for name, found in problems.items() if found}
