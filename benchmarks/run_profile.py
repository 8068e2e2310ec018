"""Where the time of a pipeline run went: job start-up against the models' time loops.

Reads the simulate jobs' Snakemake benchmarks (``results/benchmarks/simulate/**.tsv``: wall
and CPU time of each job, the replicates of one point) and their logs
(``results/logs/simulate/**.log``: each run's time-loop wall time, written by
:func:`flocklab.stages.simulate.run_simulation`), and
prints per study and in total: simulate jobs, runs, summed job wall and CPU time, summed
time-loop time, and the wall time outside the loops per run (process start-up, imports,
compiled-kernel loads, parameter checks, file writing).

Usage::

    .venv/bin/python benchmarks/run_profile.py [results]
"""

from __future__ import annotations

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

LOOP = re.compile(r"time loop ([0-9.]+) s")


def job_profile(results: Path) -> dict[str, dict[str, float]]:
    """``study -> {jobs, runs, wall, cpu, loop}`` (seconds) of the simulate jobs under
    ``results``, plus ``"total"``."""
    table: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for tsv in (results / "benchmarks" / "simulate").rglob("*.tsv"):
        relative = tsv.relative_to(results / "benchmarks" / "simulate")
        with open(tsv) as stream:
            row = next(csv.DictReader(stream, delimiter="\t"))
        log = results / "logs" / "simulate" / relative.with_suffix(".log")
        loops = [float(value) for value in LOOP.findall(log.read_text())]
        for key in (relative.parts[0], "total"):
            entry = table[key]
            entry["jobs"] += 1
            entry["runs"] += len(loops)
            entry["wall"] += float(row["s"])
            entry["cpu"] += float(row["cpu_time"])
            entry["loop"] += sum(loops)
    return {key: dict(value) for key, value in table.items()}


def main() -> None:
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    print(f"{'study':32s} {'jobs':>5s} {'runs':>5s} {'job wall':>9s} {'job CPU':>8s} "
          f"{'loops':>8s} {'outside/run':>11s}")
    profile = job_profile(results)
    for study in sorted(profile, key=lambda name: (name == "total", name)):
        e = profile[study]
        outside = (e["wall"] - e["loop"]) / max(e["runs"], 1)
        print(f"{study:32s} {e['jobs']:5.0f} {e['runs']:5.0f} {e['wall']:9.1f} "
              f"{e['cpu']:8.1f} {e['loop']:8.1f} {outside:11.3f}")


if __name__ == "__main__":
    main()
