"""Checkpoint and resume: a simulation killed mid-run and started again gives the same file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from flocklab.checkpoint import Checkpoint, checkpoint_path, fingerprint
from flocklab.models import RunControl, get_model
from flocklab.resources import metrics_resources, simulation_resources

RUN = ["--N", "4000", "--L", "31.6", "--eta", "2.0", "--steps", "6000", "--seed", "11"]


def flocklab(*args: str) -> list[str]:
    return [sys.executable, "-m", "flocklab.cli", *args]


def test_a_killed_run_resumes_to_the_identical_file(tmp_path):
    reference = tmp_path / "reference.nc"
    subprocess.run(flocklab("simulate", "vicsek", *RUN, "--out", str(reference)), check=True)

    out = tmp_path / "run.nc"
    saved = checkpoint_path(out)
    command = flocklab("-v", "simulate", "vicsek", *RUN, "--checkpoint-every", "500",
                       "--out", str(out))
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not saved.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "the run finished before a checkpoint was seen"
    os.kill(process.pid, signal.SIGKILL)  # as a wall-time limit or preemption would
    process.wait()
    assert saved.exists() and not out.exists()

    resumed = subprocess.run(command, stderr=subprocess.PIPE, text=True, check=True)
    assert "resuming from checkpoint at step" in resumed.stderr
    step = int(resumed.stderr.split("resuming from checkpoint at step ")[1].split(":")[0])
    assert 0 < step < 6000
    assert out.read_bytes() == reference.read_bytes()
    assert not saved.exists(), "the checkpoint is removed once the run file is written"


def test_a_checkpoint_of_another_run_is_ignored(tmp_path):
    model = get_model("vicsek")
    params = model.resolve({"N": 50, "L": 5.0, "eta": 1.0})
    control = RunControl(steps=40, seed=3)
    path = tmp_path / "state.npz"
    other = Checkpoint(path, 10, fingerprint("vicsek", {**params, "eta": 2.0},
                                             control.as_attrs()))
    other.save(20, {"state": np.zeros((4, 50))})
    mine = Checkpoint(path, 10, fingerprint("vicsek", params, control.as_attrs()))
    assert mine.load() is None
    resumed = model.simulate(params, control, checkpoint=mine)
    plain = model.simulate(params, control)
    np.testing.assert_array_equal(resumed.order_parameter, plain.order_parameter)


def test_resources_grow_with_the_run_and_the_attempt():
    small = simulation_resources(100, 1000, 1)
    large = simulation_resources(10**6, 10**5, 101)
    assert large["mem_mb"] > small["mem_mb"] and large["runtime"] > small["runtime"]
    # 10^11 particle-updates at the assumed 10^6 per second
    assert large["runtime"] == 1667
    # 101 frames of 10^6 particles: 2 x 2.4 GB of snapshots
    assert large["mem_mb"] > 4600
    retry = simulation_resources(10**6, 10**5, 101, attempt=2)
    assert retry == {key: 2 * value for key, value in large.items()}
    assert metrics_resources(10**5, attempt=3)["runtime"] == 3 * metrics_resources(10**5)[
        "runtime"]


def test_checkpoint_path_is_hidden_beside_the_output():
    assert checkpoint_path(Path("results/s/runs/p/rep0.nc")) == Path(
        "results/s/runs/p/.rep0.nc.checkpoint.npz")
