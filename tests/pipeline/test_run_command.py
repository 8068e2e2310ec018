"""``flocklab run``: the packaged workflow run in any directory, ``--only`` one figure."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
import xarray as xr
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
    # the density study: 2 points of 2 replicates, one job each
    assert _jobs(out.out + out.err) == {"simulate_2": 2, "summarize": 1, "figure": 1}
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


def _interrupt_config(path: Path) -> None:
    """Two Vicsek runs of several seconds each (N = 400 for 100 000 steps), one core."""
    path.write_text(yaml.safe_dump({
        "studies": {"long": {"model": "vicsek", "params": {"N": 400, "L": 10.0, "eta": 2.0},
                             "replicates": 2, "steps": 100000, "burn_in": 1000}},
        "figures": {}, "tasks": {}}, sort_keys=False))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_unlocks_and_the_same_command_resumes(tmp_path, signum):
    """Ctrl-C (SIGINT) or a scheduler's time limit (SIGTERM) while a simulation runs: the
    run ends without a traceback, with the shell's status 128 + signal, leaves no lock and
    no run file that looks complete; the same command then finishes the study."""
    import subprocess
    import sys
    import time

    config = tmp_path / "config.yaml"
    _interrupt_config(config)
    command = [str(Path(sys.executable).parent / "flocklab"), "run", str(config),
               "--cores", "1"]
    log = tmp_path / "first.log"
    with log.open("w") as stream:
        process = subprocess.Popen(command, cwd=tmp_path, stdout=stream, stderr=stream)
        # the simulation job has started once its log exists (Snakemake's own output to a
        # file is buffered and may show the job only later)
        logs = tmp_path / "results" / "logs" / "simulate" / "long"
        deadline = time.monotonic() + 120
        while not list(logs.glob("*.log")) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # inside the simulation job
        assert process.poll() is None, "the run ended before the signal"
        process.send_signal(signum)
        code = process.wait(timeout=120)
    text = log.read_text()
    assert code == 128 + signum, text[-2000:]
    assert "Traceback" not in text and "interrupted (" in text
    assert not list((tmp_path / ".snakemake" / "locks").glob("*")), "a lock was left"
    assert not (tmp_path / "results" / "long" / "summary.nc").exists(), "not interrupted"
    # a run file there is a finished run's (written under a temporary name, then renamed)
    for path in (tmp_path / "results" / "long" / "runs").rglob("*.nc"):
        with xr.open_dataset(path) as run:
            assert run.sizes["time"] > 1 and "parameters" in run.attrs, path
    second = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert (tmp_path / "results" / "long" / "summary.nc").is_file()


def test_unlock_removes_a_stale_lock(tmp_path, monkeypatch, capfd):
    """A run killed outright (kill -9) leaves Snakemake's lock; ``--unlock`` removes it and
    runs nothing."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.yaml"
    _interrupt_config(config)
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text(str(tmp_path / "results" / "long" / "summary.nc"))
    assert main(["run", str(config), "--unlock"]) == 0
    assert not list(locks.glob("*.lock"))
    assert not (tmp_path / "results").exists()


def test_a_figure_named_like_its_study_is_reachable(tmp_path, monkeypatch, capfd):
    """``fig2b`` is a study and a figure of the default config: unqualified, both are built;
    ``study:`` / ``figure:`` pick one; a wrong section is refused with the nearest names."""
    from flocklab.core.parameters import ConfigError
    from flocklab.figures.kinds import FigureContext
    from flocklab.pipeline import load_config
    from flocklab.pipeline.targets import only_targets

    config, studies = load_config(REPO / "config" / "config.yaml")
    context = FigureContext(config, studies)
    both = only_targets(config, context, ["fig2b"], False)
    assert "results/figures/fig2b.png" in both and "results/fig2b/summary.nc" in both
    study = only_targets(config, context, ["study:fig2b"], False)
    assert "results/figures/fig2b.png" not in study and "results/fig2b/summary.nc" in study
    assert only_targets(config, context, ["figure:fig2b"], False) == [
        p for p in both if "figures/" in p]
    with pytest.raises(ConfigError, match="--only 'task:fig2b': no task of that name"):
        only_targets(config, context, ["task:fig2b"], False)
