"""The zonal model through the Snakemake pipeline (config/zonal_test.yaml, 10 short runs).

Checks that every figure kind the zonal default studies use is drawn, that the oat claim gets
a verdict, and that the physics survives the plumbing: the swarm, torus and parallel states
of Couzin et al. (2002) in the summary, no agent or predator inside an obstacle in any frame,
and the capture count agreeing with the surviving share.
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
CONFIG = REPO / "config" / "zonal_test.yaml"
@pytest.fixture(scope="module")
def finished(run_config):
    return run_config(CONFIG)


def test_every_figure_and_the_claim_verdict(finished):
    figures = finished / "figures"
    for name in ("states_polarisation", "states_milling", "memory_series", "memory_branches",
                 "hunt_oat", "scene_snapshots"):
        assert (figures / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
    assert (figures / "scene_animation.gif").read_bytes()[:3] == b"GIF"
    analysis = json.loads((finished / "hunt" / "sensitivity.json").read_text())
    verdicts = [claim["verdict"] for claim in analysis["claims"]]
    assert len(verdicts) == 1 and verdicts[0] in VERDICTS


def test_the_three_states_survive_the_pipeline(finished):
    """Time averages after burn-in (30-60 s, 3-D, N = 30): swarm at delta_o = 0 (random
    headings give P about 0.17 at N = 30; measured 0.14-0.17 over 4 seeds), torus at
    delta_o = 1 (m = 0.82-0.92), highly parallel at delta_o = 10 (P = 1.00). The bounds
    0.5 / 0.5 / 0.9 leave margins of several seed-to-seed spreads."""
    with xr.open_dataset(finished / "states" / "summary.nc") as summary:
        polarisation = summary["replicate_polarisation"]
        milling = summary["replicate_milling_mean"]
        assert float(polarisation.sel(delta_o=0.0)) < 0.5
        assert float(milling.sel(delta_o=1.0)) > 0.5
        assert float(polarisation.sel(delta_o=1.0)) < 0.5
        assert float(polarisation.sel(delta_o=10.0)) > 0.9


def test_no_agent_or_predator_inside_the_obstacle_in_any_frame(finished):
    runs = sorted((finished / "scene" / "runs").glob("*/rep*.nc"))
    assert len(runs) == 1
    with xr.open_dataset(runs[0]) as run:
        assert run.sizes["frame"] == 101  # t = 0 and every step of 10 s
        cx, cy, _, radius, _, _ = run["obstacle_geometry"].values[0]
        alive = run["alive"].values.astype(bool)
        distance = np.hypot(run["x"].values - cx, run["y"].values - cy)
        assert np.all(distance[alive] >= radius - 1e-9)
        predator = run["predator_position"].values
        assert np.all(np.hypot(predator[..., 0] - cx, predator[..., 1] - cy) >= radius - 1e-9)


def test_captures_agree_with_the_surviving_share(finished):
    with xr.open_dataset(finished / "hunt" / "summary.nc") as summary:
        captures = summary["captures"].values.ravel()
        survivors = summary["alive_fraction_mean"]
    assert np.all(np.isfinite(captures)) and np.all(captures >= 0)
    for path in sorted((finished / "hunt" / "runs").glob("*/rep*.nc")):
        with xr.open_dataset(path) as run:
            caught = int(np.isfinite(run["capture_time"].values).sum())
            assert caught == round(30 * (1.0 - float(run["alive_fraction"].values[-1])))
    assert survivors.notnull().all()
    with xr.open_dataset(finished / "hunt" / "summary.nc") as summary:
        ranks = summary["danger_rank"].values.ravel()
    assert np.all((ranks[np.isfinite(ranks)] >= 0) & (ranks[np.isfinite(ranks)] <= 1))
    assert np.isfinite(ranks).sum() == np.sum(captures > 0)  # every capture ranked (2-D)


def test_the_schedule_runs_in_the_pipeline(finished):
    """One run carries the widths 0 -> 2 -> 0 (recorded as they were in force); the
    hysteresis metrics are numbers (width 0 is met on both branches)."""
    with xr.open_dataset(finished / "memory" / "summary.nc") as summary:
        for name in ("memory_gap_p", "memory_gap_m", "memory_hysteresis"):
            assert np.isfinite(summary[name].values).all(), name
    runs = sorted((finished / "memory" / "runs").glob("*/rep*.nc"))
    with xr.open_dataset(runs[0]) as run:
        widths = run["orientation_width"].values
    assert widths.tolist() == [0.0] * 11 + [2.0] * 10 + [0.0] * 10


def test_every_figure_passes_the_layout_check(finished, figure_layouts):
    """No text of any figure or animation leaves the canvas or lies over another text."""
    problems = figure_layouts(finished.parent, CONFIG)
    assert problems and not {name: found for name, found in problems.items() if found}
