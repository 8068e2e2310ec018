"""Simulation jobs (flocklab.pipeline.jobs): one per parameter point, whose spec holds what
its runs depend on and nothing else, and whose job writes each run as a single run would."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import xarray as xr
import yaml

from flocklab.core import paths
from flocklab.pipeline import validate_config
from flocklab.pipeline.jobs import point_resources, point_spec, spec_argument
from flocklab.stages.simulate import main, run_point, run_simulation

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def test_config() -> dict:
    return yaml.safe_load((REPO / "config" / "test.yaml").read_text())


def _specs(config: dict, study: str) -> dict[str, str]:
    """Point label -> the job's argument, of a copy of ``config``."""
    studies = validate_config(copy.deepcopy(config))
    return {point.label: spec_argument(point_spec(studies[study], point))
            for point in studies[study].points()}


def test_a_spec_names_the_point_its_runs_and_their_files(test_config):
    studies = validate_config(copy.deepcopy(test_config))
    study = studies["noise"]
    point = next(iter(study.points()))
    spec = point_spec(study, point)
    assert spec["point"] == point.label and spec["study"] == "noise"
    assert spec["params"] == study.params(point)
    assert [run["out"] for run in spec["runs"]] == [
        paths.run_file("noise", point.label, k) for k in range(study.replicates)]
    assert [run["control"]["seed"] for run in spec["runs"]] == [
        study.seed(point, k) for k in range(study.replicates)]
    assert json.loads(spec_argument(spec)) == spec


@pytest.mark.parametrize("change", [
    lambda c: c.update(threads=4),
    lambda c: c["studies"]["noise"].update(burn_in=150),
    lambda c: c["studies"]["noise"].update(checkpoint_every=7),
    lambda c: c["studies"]["noise"]["critical"].update(bootstrap=10),
])
def test_settings_that_change_no_result_leave_every_spec_as_it_was(test_config, change):
    changed = copy.deepcopy(test_config)
    change(changed)
    assert _specs(changed, "noise") == _specs(test_config, "noise")


def test_an_added_point_changes_no_other_spec(test_config):
    changed = copy.deepcopy(test_config)
    changed["studies"]["density"]["sweep"][0]["N"] = [8, 16, 32]
    old, new = _specs(test_config, "density"), _specs(changed, "density")
    assert set(new) - set(old) == {"N=16"} and all(new[label] == old[label] for label in old)


def test_a_changed_parameter_changes_every_spec_of_the_study(test_config):
    changed = copy.deepcopy(test_config)
    changed["studies"]["density"]["params"]["eta"] = 2.5
    old, new = _specs(test_config, "density"), _specs(changed, "density")
    assert set(old) == set(new) and all(new[label] != old[label] for label in old)


def test_resources_are_the_replicates_of_one_run(test_config):
    from flocklab.core.registry import get_model

    study = validate_config(copy.deepcopy(test_config))["noise"]
    point = next(iter(study.points()))
    one = get_model("vicsek").resources(study.params(point), study.grid(point))
    need = point_resources(study, point)
    assert need.seconds == pytest.approx(one.seconds * study.replicates)
    assert need.memory_bytes == one.memory_bytes


def test_the_point_job_writes_each_run_as_a_single_run_would(tmp_path, monkeypatch):
    params = {"N": 20, "L": 3.0, "eta": 2.0, "v0": 0.03, "r": 1.0, "noise": "angular",
              "update": "forward", "init": "random"}
    controls = [{"seed": seed, "steps": 30} for seed in (3, 4)]
    spec = {"model": "vicsek", "study": "s", "point": "p", "params": params,
            "runs": [{"out": str(tmp_path / f"point{k}.nc"), "control": controls[k]}
                     for k in (0, 1)]}
    monkeypatch.chdir(tmp_path)
    assert main([spec_argument(spec), "1", "5"]) == 0  # the job's command line
    for k in (0, 1):
        run_simulation("vicsek", params, controls[k], tmp_path / f"single{k}.nc",
                       extra_attrs={"study": "s", "point": "p", "replicate": k})
        with xr.open_dataset(tmp_path / f"point{k}.nc") as a, \
                xr.open_dataset(tmp_path / f"single{k}.nc") as b:
            xr.testing.assert_identical(a.load(), b.load())
            assert len(a.attrs["run_fingerprint"]) == 64
    assert list(tmp_path.glob(".*checkpoint*")) == []  # removed once each file is written


def test_a_design_point_runs_the_parameters_of_its_design_row(test_config, tmp_path):
    """The spec of a sensitivity study's point holds the parameters its design row sets
    (density sets N at L = 5), as the design file the analysis reads has them."""
    from flocklab.config import design_seed
    from flocklab.stages.sensitivity import write_design

    studies = validate_config(copy.deepcopy(test_config))
    study = studies["sobol"]
    settings = test_config["studies"]["sobol"]["sensitivity"]
    record = {"name": "sobol", "model": "vicsek", "fixed": study.fixed,
              "sensitivity": {key: settings[key] for key in ("method", "factors", "samples")
                              if key in settings} | {"levels": study.sensitivity.levels},
              "seed": design_seed(test_config["base_seed"], "sobol")}
    write_design(record, tmp_path / "design.nc")
    with xr.open_dataset(tmp_path / "design.nc") as design:
        rows = {str(label): row for row, label in enumerate(design["point"].values)}
        assert set(rows) == {point.label for point in study.points()}
        for point in study.points():
            params = point_spec(study, point)["params"]
            row = rows[point.label]
            assert params["N"] == int(design["N"][row])
            assert params["eta"] == float(design["eta"][row])
            assert params["L"] == 5.0


def test_run_point_takes_the_threads_and_checkpoints_beside_the_spec(tmp_path):
    spec = {"model": "vicsek", "study": "s", "point": "p", "params": {"N": 10, "L": 3.0},
            "runs": [{"out": str(tmp_path / "a.nc"), "control": {"seed": 1, "steps": 20}}]}
    run_point(spec, threads=1, checkpoint_every=5)
    with xr.open_dataset(tmp_path / "a.nc") as run:
        assert run.attrs["point"] == "p" and int(run.attrs["replicate"]) == 0
