"""``flocklab run``: the packaged workflow run in any directory, ``--only`` one figure."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from flocklab.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def _jobs(text: str) -> dict[str, int]:
    table = text.split("Job stats:", 1)[1]
    jobs = {}
    for line in table.splitlines()[3:]:
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not match:
            break
        jobs[match.group(1)] = int(match.group(2))
    jobs.pop("total", None)
    return jobs


def test_only_plans_one_figure_s_inputs(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text((REPO / "config" / "test.yaml").read_text())
    assert main(["run", str(config), "--only", "fig2b", "--dry-run", "--cores", "1"]) == 0
    out = capfd.readouterr()
    assert _jobs(out.out + out.err) == {"simulate_density_0": 1, "summarize": 1, "figure": 1}
    assert "results/figures/fig2b.png" in out.out + out.err
    assert not (tmp_path / "results").exists()


def test_only_builds_one_figure_and_nothing_else(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
    config["plot"]["formats"] = ["png"]
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    assert main(["run", str(path), "--only", "fig2b", "--cores", "2"]) == 0
    assert "wrote results/figures/fig2b.png" in capfd.readouterr().out
    assert sorted(p.name for p in (tmp_path / "results" / "figures").iterdir()) == ["fig2b.png"]
    studies = {p.name for p in (tmp_path / "results").iterdir()} - {"figures", "logs",
                                                                      "benchmarks"}
    assert studies == {"density"}
    assert main(["run", str(path), "--only", "fig2b", "--dry-run"]) == 0
    assert "Nothing to be done" in "".join(capfd.readouterr())


def test_a_config_with_tasks_only_runs_its_tasks(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({"tasks": {"orders": {
        "model": "springs", "task": "accuracy",
        "options": {"methods": ["rk4"], "steps": [0.01, 0.005]}}}}))
    assert main(["run", str(path), "--dry-run", "--cores", "1"]) == 0
    out = capfd.readouterr()
    assert _jobs(out.out + out.err).get("task") == 1


def test_the_root_snakefile_still_runs_the_workflow(snakemake, tmp_path):
    result = snakemake(tmp_path, "--configfile", str(REPO / "config" / "test.yaml"),
                       "--dry-run", "--cores", "1")
    assert "figure" in _jobs(result.stdout + result.stderr)
