"""``flocklab init``, ``check-config`` (the plan) and ``run`` (its checks before Snakemake)."""

from __future__ import annotations

import pytest
import yaml

from flocklab.cli.main import main
from flocklab.cli.pipeline import workflow_dir
from flocklab.pipeline import load_config


def test_init_writes_a_valid_commented_config(tmp_path, capsys):
    assert main(["init", str(tmp_path / "project")]) == 0
    path = tmp_path / "project" / "config.yaml"
    assert f"wrote {path}" in capsys.readouterr().out
    text = path.read_text()
    assert text.count("#") > 10
    config, studies = load_config(path)
    assert studies and config["figures"]
    with pytest.raises(SystemExit) as exit_info:
        main(["init", str(tmp_path / "project")])
    assert exit_info.value.code == 2 and "--force" in capsys.readouterr().err
    assert main(["init", str(tmp_path / "project"), "--force"]) == 0


def test_check_config_ends_with_the_plan(repo, capsys):
    assert main(["check-config", str(repo / "config" / "test.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "noise: model vicsek, 104 runs of 300 steps" in lines
    assert lines[-2] == "plan: 6 studies, 156 runs, 0 tasks (none), 13 figures"
    assert lines[-1].startswith("estimate: about ") and "peak memory of one run" in lines[-1]


def test_a_config_with_tasks_and_no_studies_is_valid(tmp_path, capsys):
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({"tasks": {"orders": {
        "model": "springs", "task": "accuracy",
        "options": {"methods": ["rk4"], "steps": [0.01, 0.005]}}}}))
    assert main(["check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "plan: 0 studies, 0 runs, 1 tasks (orders), 0 figures" in out


def _study(**changes):
    study = {"model": "vicsek", "params": {"L": 10.0}, "steps": 100, "burn_in": 50}
    study.update(changes)
    return {"studies": {"big": study}}


def test_a_run_that_cannot_fit_in_memory_is_refused(tmp_path, capsys):
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(_study(params={"L": 1000.0, "N": 10**9},
                                          snapshots={"every": 1, "start": 0})))
    with pytest.raises(SystemExit) as exit_info:
        main(["check-config", str(path)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 1 and "Traceback" not in err
    assert "'studies.big': one run needs about" in err and "available" in err


def test_totals_out_of_proportion_are_warned_about(tmp_path, capsys):
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(_study(params={"L": 50.0, "N": 10000}, steps=10**7,
                                          burn_in=10, record_every=1000, replicates=20)))
    assert main(["check-config", str(path)]) == 0
    err = capsys.readouterr().err
    assert "warning: the runs need about" in err and "of CPU time in total" in err


def test_run_checks_its_arguments_before_snakemake(repo, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = str(repo / "config" / "test.yaml")
    for argv, text in [
        (["run", config, "--only", "fig2"], "did you mean 'fig2b' or 'fig2a'"),
        (["run"], "no config file config/config.yaml; give one, or write a starter"),
        (["run", config, "--profile", "slrum"], "did you mean 'slurm'?"),
        (["run", config, "--cores", "0"], "--cores 0: must be at least 1"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and text in err and "Traceback" not in err
    assert not (tmp_path / "results").exists()


def test_the_workflow_ships_inside_the_package(repo):
    shipped = workflow_dir()
    assert (shipped / "Snakefile").is_file()
    for folder in ("rules", "scripts", "report", "envs", "profiles/slurm", "profiles/default"):
        assert any((shipped / folder).iterdir()), folder
    assert (shipped / "schemas" / "config.schema.yaml").read_text() == (
        repo / "src" / "flocklab" / "config" / "schema.yaml").read_text()
    assert "src/flocklab/workflow/Snakefile" in (repo / "Snakefile").read_text()


def test_package_data_covers_every_workflow_file(repo):
    import fnmatch
    import tomllib

    patterns = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["flocklab"]
    package = repo / "src" / "flocklab"
    files = [path.relative_to(package).as_posix()
             for path in (package / "workflow").rglob("*")
             if path.is_file() and "__pycache__" not in path.parts]
    assert "workflow/Snakefile" in files
    missed = [name for name in files
              if not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]
    assert not missed


def test_a_config_after_only_is_taken_as_the_config(repo, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = str(repo / "config" / "test.yaml")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--only", "fig2", config])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--only 'fig2'" in err and "config.yaml" not in err
