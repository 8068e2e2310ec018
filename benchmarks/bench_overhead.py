"""Cost outside the physics per run: simulate jobs through Snakemake, locally or on Slurm.

A sweep of ``--runs`` runs of N = 10 Vicsek particles for 10 steps (physics ≈ 0), so a
job's time is almost all overhead: process start, imports, numba's initialisation and cache
loads, parameter checks, writing the netCDF file. A simulate job runs the replicates of one
parameter point, so the sweep runs twice in one invocation: as ``--runs / 8`` points of 8
replicates (8 runs per job) and as ``--runs`` points of one replicate (one run per job).
Reported per run:
the jobs' wall time outside the time loops (Snakemake's ``benchmark:`` files minus the
loops' own times from the job logs), the jobs' CPU time, and the sweep's wall time including
Snakemake's scheduling. ``--slurm`` submits the jobs through the Slurm profile
(``workflow/profiles/slurm``; a running cluster is needed, e.g. the one ``.ci/slurm-test``
starts). Writes ``benchmarks/results/job_overhead[_slurm].md``.

Usage::

    .venv/bin/python benchmarks/bench_overhead.py [--runs 192] [--cores 2] [--slurm]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from run_profile import job_profile

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def sweep(runs: int, cores: int, replicates: int, slurm: bool) -> dict[str, float]:
    """Run the sweep (``runs // replicates`` points) in a fresh directory; per-run costs and
    the sweep's wall time."""
    config = {
        "base_seed": 1,
        "studies": {"overhead": {
            "model": "vicsek", "params": {"N": 10, "L": 3.0},
            "sweep": [{"eta": {"start": 0.0, "stop": 6.0, "num": runs // replicates}}],
            "replicates": replicates, "steps": 10, "burn_in": 0}},
        "figures": {},
    }
    with tempfile.TemporaryDirectory(dir=os.getcwd() if slurm else None) as workdir:
        config_path = Path(workdir) / "config.yaml"
        config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
                   "--directory", workdir, "--configfile", str(config_path),
                   "--cores", str(cores), "--quiet", "all"]
        if slurm:
            command += ["--workflow-profile", str(REPO / "workflow" / "profiles" / "slurm"),
                        "--slurm-no-account"]
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        elapsed = time.perf_counter() - started
        total = job_profile(Path(workdir) / "results")["total"]
    n = total["runs"]
    return {"jobs": total["jobs"], "runs": n, "outside": (total["wall"] - total["loop"]) / n,
            "cpu": total["cpu"] / n, "sweep": elapsed / n, "elapsed": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=192)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--slurm", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    blocks = sweep(args.runs, args.cores, 8, args.slurm)
    single = sweep(args.runs, args.cores, 1, args.slurm)
    rows = [("simulate jobs", "jobs", 0), ("job wall time outside the time loops, per run",
                                           "outside", 3),
            ("job CPU time (user + system), per run", "cpu", 3),
            ("sweep wall time per run (incl. Snakemake scheduling)", "sweep", 3),
            ("sweep wall time", "elapsed", 1)]
    where = "Slurm (workflow/profiles/slurm)" if args.slurm else f"{args.cores} local cores"
    table = "\n".join([
        f"Cost outside the physics: {blocks['runs']:.0f} runs (Vicsek, N = 10, 10 steps) "
        f"through Snakemake on {where}, {time.strftime('%Y-%m-%d')}, load average before "
        f"the run {load:.2f}.", "",
        "| measure (seconds) | points of 8 replicates (8 runs per job) | points of one replicate |",
        "|---|---|---|",
        *(f"| {label} | {blocks[key]:.{digits}f} | {single[key]:.{digits}f} |"
          for label, key, digits in rows),
    ])
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "job_overhead_slurm.md" if args.slurm else "job_overhead.md"
    (RESULTS / name).write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
