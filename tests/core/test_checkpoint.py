"""Checkpoint and resume: a simulation killed mid-run and started again gives the same file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from flocklab.core import driver
from flocklab.core.checkpoint import Checkpoint, checkpoint_path, fingerprint
from flocklab.core.registry import get_model
from flocklab.core.resources import BASE_MEMORY_MB, job_resources
from flocklab.core.time import RunControl

RUN = ["--N", "4000", "--L", "31.6", "--eta", "2.0", "--steps", "6000", "--seed", "11"]


def flocklab(*args: str) -> list[str]:
    return [sys.executable, "-m", "flocklab.cli.main", *args]


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
    resumed = driver.simulate(model, params, control, checkpoint=mine)
    plain = driver.simulate(model, params, control)
    np.testing.assert_array_equal(resumed.order_parameter, plain.order_parameter)


def test_resources_come_from_the_model_hook_and_grow_with_the_attempt():
    model = get_model("vicsek")
    grid = RunControl(steps=10**5, seed=1, snapshot_every=1000).grid(model)
    large = model.resources(model.resolve({"N": 10**6, "L": 500.0}), grid)
    small = model.resources(model.resolve({"N": 100, "L": 5.0}), grid)
    # 101 frames x 3 words x 10^6 particles, twice over: 4.8 GB of snapshots alone
    assert large.memory_bytes > 2 * 101 * 3 * 8 * 10**6
    assert large.seconds == 10**11 / 1.0e6
    request = job_resources(large)
    assert request["mem_mb"] > BASE_MEMORY_MB + 4600 > job_resources(small)["mem_mb"]
    assert job_resources(large, attempt=2) == {k: 2 * v for k, v in request.items()}


def test_a_run_larger_than_the_available_memory_stops_at_once():
    """The typo N = 3e9 needs hundreds of GiB: refused before any allocation."""
    result = subprocess.run(flocklab("simulate", "vicsek", "--N", "3000000000", "--L", "5",
                                     "--steps", "10", "--seed", "1", "--out", "/dev/null"),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "GiB of memory but" in result.stderr and "available" in result.stderr


def test_checkpoint_path_is_hidden_beside_the_output():
    assert checkpoint_path(Path("results/s/runs/p/rep0.nc")) == Path(
        "results/s/runs/p/.rep0.nc.checkpoint.npz")
