"""Where the time of a pipeline run went: job start-up against the models' time loops.

Reads the simulate jobs' Snakemake benchmarks (``results/benchmarks/simulate/**.tsv``: wall
and CPU time of each job) and their logs (``results/logs/simulate/**.log``: the time loop's
own wall time, written by :func:`flocklab.stages.simulate.run_simulation`; with the job
server also the server child's CPU time), and prints per study and in total: jobs, summed
job wall and CPU time, summed time-loop time and the wall time outside the loop (start-up,
imports, compilation-cache loads, file writing).

Usage::

    .venv/bin/python benchmarks/run_profile.py [results]
"""

from __future__ import annotations

import csv
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from flocklab.jobserver import job_cpu_seconds

LOOP = re.compile(r"time loop ([0-9.]+) s")


def main() -> None:
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    per_study: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for tsv in (results / "benchmarks" / "simulate").rglob("*.tsv"):
        relative = tsv.relative_to(results / "benchmarks" / "simulate")
        study = relative.parts[0]
        with open(tsv) as stream:
            row = next(csv.DictReader(stream, delimiter="\t"))
        log = results / "logs" / "simulate" / relative.with_suffix(".log")
        text = log.read_text() if log.exists() else ""
        match, child = LOOP.search(text), job_cpu_seconds(text)
        per_study[study]["wall"].append(float(row["s"]))
        per_study[study]["cpu"].append(float(row["cpu_time"]) + (child or 0.0))
        per_study[study]["loop"].append(float(match.group(1)) if match else float("nan"))
    lines = ["| study | jobs | job wall (s) | job CPU (s) | time loops (s) | "
             "outside the loop (s) | median per job outside (s) |",
             "|---|---|---|---|---|---|---|"]
    total = defaultdict(list)
    for study, data in sorted(per_study.items()):
        outside = [w - k for w, k in zip(data["wall"], data["loop"], strict=True)]
        lines.append(f"| {study} | {len(data['wall'])} | {sum(data['wall']):.0f} | "
                     f"{sum(data['cpu']):.0f} | {sum(data['loop']):.0f} | {sum(outside):.0f} | "
                     f"{statistics.median(outside):.2f} |")
        for key in ("wall", "cpu", "loop"):
            total[key] += data[key]
        total["outside"] += outside
    if total["wall"]:
        lines.append(f"| **all** | {len(total['wall'])} | {sum(total['wall']):.0f} | "
                     f"{sum(total['cpu']):.0f} | {sum(total['loop']):.0f} | "
                     f"{sum(total['outside']):.0f} | "
                     f"{statistics.median(total['outside']):.2f} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
