"""Per-job overhead of the pipeline: short simulate jobs through Snakemake, cold and warm.

Each job simulates N = 10 particles for 10 steps, so its time is almost all overhead:
process start, imports, numba's initialisation and cache load, writing the netCDF file.
The same sweep runs twice in one invocation: with ``job_server: false`` (every job starts
cold) and with ``job_server: true`` (jobs handed to the warm fork server,
:mod:`flocklab.jobserver`; the server's own start-up is inside the sweep's wall time).
Reports the median and 90th percentile of the jobs' wall times (Snakemake's ``benchmark:``
files, which time the job's process from start to exit), the jobs' CPU time (with the
server: the client's plus the server child's, from the job's log) and the sweep's wall
time per job. Writes ``benchmarks/results/job_overhead.md``.

Usage::

    .venv/bin/python benchmarks/bench_overhead.py [--jobs 100] [--cores 2]
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from flocklab.jobserver import job_cpu_seconds

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def sweep(jobs: int, cores: int, job_server: bool) -> dict[str, float]:
    """Run the sweep in a fresh directory; job times and the sweep's wall time."""
    config = {
        "base_seed": 1, "job_server": job_server,
        "studies": {"overhead": {
            "model": "vicsek", "params": {"N": 10, "L": 3.0},
            "sweep": [{"eta": {"start": 0.0, "stop": 6.0, "num": jobs}}],
            "steps": 10, "burn_in": 0}},
        "figures": {},
    }
    with tempfile.TemporaryDirectory() as workdir:
        config_path = Path(workdir) / "config.yaml"
        config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
                   "--directory", workdir, "--configfile", str(config_path),
                   "--cores", str(cores), "--until", "simulate", "--quiet", "all"]
        # a server of its own (cold start inside the measured sweep), in the work directory
        environment = {**os.environ, "FLOCKLAB_JOB_SERVER_DIR": str(Path(workdir, "server"))}
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=environment)
        elapsed = time.perf_counter() - started
        walls, cpus = [], []
        for path in Path(workdir, "results", "benchmarks").rglob("*.tsv"):
            with open(path) as stream:
                row = next(csv.DictReader(stream, delimiter="\t"))
            walls.append(float(row["s"]))
            log = Path(workdir, "results", "logs", path.relative_to(
                Path(workdir, "results", "benchmarks"))).with_suffix(".log")
            child = job_cpu_seconds(log.read_text())
            cpus.append(float(row["cpu_time"]) + (child or 0.0))
    walls.sort()
    return {"median": statistics.median(walls), "p90": walls[int(0.9 * (len(walls) - 1))],
            "cpu": statistics.median(cpus), "per_job": elapsed / len(walls),
            "elapsed": elapsed, "jobs": len(walls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    cold = sweep(args.jobs, args.cores, job_server=False)
    warm = sweep(args.jobs, args.cores, job_server=True)
    rows = [("job wall time, median", "median", 2), ("job wall time, 90th percentile", "p90", 2),
            ("job CPU time (user + system), median", "cpu", 2),
            ("sweep wall time per job (incl. Snakemake scheduling)", "per_job", 2),
            ("sweep wall time", "elapsed", 1)]
    table = "\n".join([
        f"Per-job overhead: {cold['jobs']} simulate jobs (N = 10, 10 steps) through Snakemake on "
        f"{args.cores} cores, {time.strftime('%Y-%m-%d')}, load average before the run "
        f"{load:.2f}.", "",
        "| measure (seconds) | cold start (`job_server: false`) | warm server (default) |",
        "|---|---|---|",
        *(f"| {label} | {cold[key]:.{digits}f} | {warm[key]:.{digits}f} |"
          for label, key, digits in rows),
    ])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "job_overhead.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
