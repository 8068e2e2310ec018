"""Per-job overhead of the pipeline: a sweep of 100 short simulate jobs through Snakemake.

Each job simulates N = 10 particles for 10 steps, so its time is almost all overhead:
process start, imports, loading the numba cache, writing the netCDF file. Reports the
median and 90th percentile of the jobs' own wall times (Snakemake's ``benchmark:`` files)
and the sweep's wall time per job. Writes ``benchmarks/results/job_overhead.md``.

Usage::

    .venv/bin/python benchmarks/bench_overhead.py [--jobs 100] [--cores 2]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    config = {
        "base_seed": 1,
        "studies": {"overhead": {
            "model": "vicsek", "params": {"N": 10, "L": 3.0},
            "sweep": [{"eta": {"start": 0.0, "stop": 6.0, "num": args.jobs}}],
            "steps": 10, "burn_in": 0}},
        "figures": {},
    }
    with tempfile.TemporaryDirectory() as workdir:
        config_path = Path(workdir) / "config.yaml"
        config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
                   "--directory", workdir, "--configfile", str(config_path),
                   "--cores", str(args.cores), "--until", "simulate", "--quiet", "all"]
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        elapsed = time.perf_counter() - started
        walls, cpus = [], []
        for path in Path(workdir, "results", "benchmarks").rglob("*.tsv"):
            with open(path) as stream:
                row = next(csv.DictReader(stream, delimiter="\t"))
                walls.append(float(row["s"]))
                cpus.append(float(row["cpu_time"]))
    walls.sort()
    median = statistics.median(walls)
    p90 = walls[int(0.9 * (len(walls) - 1))]
    table = "\n".join([
        f"Per-job overhead: {len(walls)} simulate jobs (N = 10, 10 steps) through Snakemake on "
        f"{args.cores} cores.", "",
        "| measure | seconds |", "|---|---|",
        f"| job wall time, median | {median:.2f} |",
        f"| job wall time, 90th percentile | {p90:.2f} |",
        f"| job CPU time (user + system), median | {statistics.median(cpus):.2f} |",
        f"| sweep wall time per job (incl. Snakemake scheduling) | {elapsed / len(walls):.2f} |",
        f"| sweep wall time | {elapsed:.1f} |",
    ])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "job_overhead.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
