"""The Python API: sweep, open_study, lazy attributes, register's example."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import flocklab
from flocklab.analysis.summary import summary_dataset
from flocklab.api import SWEEP_STUDY, sweep_config
from flocklab.pipeline import validate_config
from flocklab.stages.simulate import run_simulation

GRID = {"eta": [0.2, 5.0]}
PARAMS = {"N": 40, "L": 3.1}


@pytest.fixture(scope="module")
def summary():
    return flocklab.sweep("vicsek", GRID, params=PARAMS, steps=150, replicates=2, seed=3,
                          threads=1)


def test_sweep_summarises_like_the_pipeline(summary):
    assert summary.sizes["eta"] == 2 and summary.sizes["replicate"] == 2
    order = summary["replicate_order_parameter"]
    # Vicsek et al. (1995): ordered at low noise, disordered at eta = 5 and density 4.
    assert float(order.sel(eta=0.2)) > 0.9 > 0.5 > float(order.sel(eta=5.0))
    for name in ("order_parameter_sem", "susceptibility", "binder_cumulant",
                 "replicate_binder_cumulant_err"):
        assert name in summary
    assert summary.attrs["burn_in"] == 75.0  # half the run by default


def test_sweep_runs_are_the_config_study_s_runs(summary, tmp_path):
    config = sweep_config("vicsek", GRID, PARAMS, 2, 3, {"steps": 150, "burn_in": 75.0})
    study = validate_config(config)[SWEEP_STUDY]
    paths = []
    for point in study.points():
        for replicate in range(2):
            path = tmp_path / f"{point.label}-{replicate}.nc"
            run_simulation("vicsek", study.params(point), study.control(point, replicate),
                           path, extra_attrs={"study": SWEEP_STUDY, "point": point.label,
                                              "replicate": replicate})
            paths.append(path)
    runs = [flocklab.core.io.open_dataset(path) for path in paths]
    expected = summary_dataset(runs, study.summary_record())
    for name in ("order_parameter_mean", "replicate_order_parameter", "rng_seed"):
        np.testing.assert_array_equal(summary[name].values, expected[name].values)


def test_sweep_depends_on_the_seed_only(summary):
    again = flocklab.sweep("vicsek", GRID, params=PARAMS, steps=150, replicates=2, seed=3)
    other = flocklab.sweep("vicsek", GRID, params=PARAMS, steps=150, replicates=2, seed=4)
    np.testing.assert_array_equal(again["order_parameter_mean"], summary["order_parameter_mean"])
    assert not np.array_equal(other["rng_seed"], summary["rng_seed"])


def test_sweep_rejects_a_bad_grid_naming_the_key():
    with pytest.raises(ValueError, match=r"sweep\.sweep\[0\]\.etaa'.*did you mean 'eta'"):
        flocklab.sweep("vicsek", {"etaa": [1.0]}, steps=10)


def test_open_study_stacks_points_and_replicates(tmp_path):
    runs = tmp_path / "study" / "runs"
    for size in (10.0, 2.0):  # "L=10.0" sorts before "L=2.0" as text
        for replicate in range(2):
            label = f"L={size}"
            run_simulation("vicsek", {"N": 20, "L": size},
                           {"steps": 20, "seed": replicate + 1, "snapshot_every": 10},
                           runs / label / f"rep{replicate}.nc",
                           extra_attrs={"point": label, "replicate": replicate})
    study = flocklab.open_study(tmp_path / "study")
    assert dict(study.sizes) == {"point": 2, "replicate": 2, "time": 21}
    assert list(study["L"].values) == [2.0, 10.0]
    assert "x" not in study and study["rng_seed"].values.tolist() == [[1, 2], [1, 2]]
    assert study["order_parameter"].sel(point="L=2.0", replicate=1, time=0) >= 0
    frames = flocklab.open_study(runs, snapshots=True)
    assert frames["x"].sizes["frame"] == 3
    with pytest.raises(FileNotFoundError, match="no run files"):
        flocklab.open_study(tmp_path)


def test_simulate_takes_threads_and_needs_no_seed_when_deterministic():
    run = flocklab.simulate("springs", t_end=0.02, dt=0.01, threads=1)
    assert run.attrs["seed"] == 0
    with pytest.raises(flocklab.ParameterError, match="'seed' is required"):
        flocklab.simulate("vicsek", steps=5)


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


def test_dir_shows_public_names_and_subpackages_load_on_first_access():
    names = dir(flocklab)
    assert {"sweep", "open_study", "register", "simulate", "analysis"} <= set(names)
    assert not [name for name in names if name.startswith("_") and name != "__version__"]
    assert "split_controls" not in names and "TYPE_CHECKING" not in names
    out = _fresh("import sys, flocklab; a = 'flocklab.analysis' in sys.modules; "
                 "flocklab.analysis; print(a, 'flocklab.analysis' in sys.modules)")
    assert out.split() == ["False", "True"]


def test_register_example_runs():
    out = _fresh("import doctest, flocklab.core.registry as r; "
                 "print(doctest.run_docstring_examples(r.register, {}, verbose=False))")
    assert out.strip() == "None"
