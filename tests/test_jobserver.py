"""The warm job server: same bytes as a cold job, reuse, failures, hang-ups, staleness."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from flocklab import jobserver
from flocklab.job import run_spec

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(socket, "send_fds"),
                                reason="needs fork and Unix sockets with descriptor passing")


def vicsek_spec(out: Path, steps: int = 20, N: int = 50) -> dict:
    return {"model": "vicsek", "params": {"N": N, "L": 4.0, "eta": 0.5},
            "control": {"seed": 7, "steps": steps}, "threads": 1,
            "attrs": {"study": "s", "point": "p0", "replicate": 0},
            "out": str(out), "log": str(out.with_suffix(".log"))}


@pytest.fixture
def server_env(tmp_path, monkeypatch):
    """A private server directory; servers started here exit 3 s after their last job."""
    monkeypatch.setenv("FLOCKLAB_JOB_SERVER", "1")
    monkeypatch.setenv("FLOCKLAB_JOB_SERVER_DIR", str(tmp_path / "server"))
    monkeypatch.setenv("FLOCKLAB_JOB_SERVER_IDLE", "3")
    for name in jobserver.BATCH_JOB_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path / "server"


def server_pids(directory: Path) -> list[int]:
    pids = []
    for log in directory.glob("*.log"):
        pids += [int(line.split()[4]) for line in log.read_text().splitlines()
                 if " job server " in line]
    return pids


def test_server_job_writes_the_same_bytes_as_a_cold_job(server_env, tmp_path):
    run_spec(vicsek_spec(tmp_path / "cold.nc"))
    assert jobserver.submit(vicsek_spec(tmp_path / "warm.nc")) == 0
    assert (tmp_path / "warm.nc").read_bytes() == (tmp_path / "cold.nc").read_bytes()
    assert "simulating vicsek" in (tmp_path / "warm.log").read_text()


def test_one_server_serves_successive_jobs_then_exits_when_idle(server_env, tmp_path):
    for k in range(3):
        assert jobserver.submit(vicsek_spec(tmp_path / f"run{k}.nc")) == 0
    (pid,) = server_pids(server_env)  # started once
    assert psutil.pid_exists(pid)
    deadline = time.monotonic() + 30
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "server did not exit after its idle time"
        time.sleep(0.2)
    assert not list(server_env.glob("*.sock"))


def test_failed_job_returns_its_status_and_traceback(server_env, tmp_path, capfd):
    spec = vicsek_spec(tmp_path / "bad.nc")
    spec["params"]["N"] = -3
    assert jobserver.submit(spec) == 1
    assert "ParameterError" in capfd.readouterr().err
    assert not (tmp_path / "bad.nc").exists()


def test_client_killed_mid_run_stops_the_job_without_output(server_env, tmp_path):
    out = tmp_path / "long.nc"
    spec = vicsek_spec(out, steps=10**7, N=2000)  # hours, in long compiled chunks
    client = subprocess.Popen([sys.executable, "-m", "flocklab.job", json.dumps(spec)],
                              env=os.environ.copy())
    try:
        log = out.with_suffix(".log")
        deadline = time.monotonic() + 60
        while not (log.exists() and "simulating" in log.read_text()):
            assert time.monotonic() < deadline, "the long job never started"
            time.sleep(0.1)
        # the client's server (its sys.path, hence its key, differs from this process's)
        jobs = [process for server in server_pids(server_env)
                for process in psutil.Process(server).children(recursive=True)
                if process.status() != psutil.STATUS_ZOMBIE]
        assert len(jobs) == 2  # the watcher and the job it runs
        time.sleep(1.0)  # well inside a compiled chunk
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    _, alive = psutil.wait_procs(jobs, timeout=15)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".long", "long.nc"))]


def test_changed_source_is_detected(tmp_path, monkeypatch):
    module = tmp_path / "flocklab_watch_probe.py"
    module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import flocklab_watch_probe  # noqa: F401

    watch = jobserver.SourceWatch()
    assert str(module) in watch.stamps
    assert watch.changed() == []
    module.write_text("X = 22\n")
    assert watch.changed() == [str(module)]


def test_stale_server_is_replaced(server_env, tmp_path, monkeypatch):
    assert jobserver.submit(vicsek_spec(tmp_path / "a.nc")) == 0
    (first,) = server_pids(server_env)
    # make the running server see one of its loaded sources as changed
    watched = Path(jobserver.__file__)
    stamp = watched.stat()
    os.utime(watched, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))
    try:
        assert jobserver.submit(vicsek_spec(tmp_path / "b.nc")) == 0
    finally:
        os.utime(watched, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    pids = server_pids(server_env)
    assert len(pids) == 2 and pids[0] == first
    assert (tmp_path / "a.nc").read_bytes() == (tmp_path / "b.nc").read_bytes()


@pytest.mark.parametrize("variable", jobserver.BATCH_JOB_VARIABLES)
def test_not_used_inside_batch_system_jobs(server_env, monkeypatch, variable):
    assert jobserver.usable() is None
    monkeypatch.setenv(variable, "123")
    assert variable in jobserver.usable()


def test_job_entry_point_runs_in_process_when_server_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOCKLAB_JOB_SERVER", "0")
    monkeypatch.setenv("FLOCKLAB_JOB_SERVER_DIR", str(tmp_path / "server"))
    from flocklab.job import main

    assert main([json.dumps(vicsek_spec(tmp_path / "x.nc"))]) == 0
    assert (tmp_path / "x.nc").exists()
    assert not (tmp_path / "server").exists()
