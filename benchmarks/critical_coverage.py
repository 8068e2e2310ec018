"""Coverage of the 68 % intervals of the critical fits on synthetic data with a known truth.

Fits ``CASES`` synthetic studies per side (ordered below x_c like the Vicsek noise, ordered
above like the density; :mod:`flocklab.analysis.coverage`) with
:func:`flocklab.analysis.rounded.calibrated_fit` and reports, per side and quantity, the
fraction of intervals that contain the truth, its binomial standard error and the median
half-width (absolute and relative to the truth). The two sides run in two processes. Writes
the JSON to stdout and a Markdown table to ``benchmarks/results/critical_coverage.md``
(included by ``docs/explanation/critical-exponents.md``).

Usage::

    .venv/bin/python benchmarks/critical_coverage.py [CASES] [SEED]
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from flocklab.analysis.coverage import measure_coverage

OUT = Path(__file__).parent / "results" / "critical_coverage.md"
NAMES = {"below": ("eta_c", "beta"), "above": ("rho_c", "delta")}


def _side(args: tuple[int, str, int]) -> dict:
    cases, side, seed = args
    started = time.perf_counter()
    report = measure_coverage(cases, side, seed)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def markdown(report: dict[str, dict], seed: int) -> str:
    """The table of the docs page: one row per quantity."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    lines = [f"Measured {stamp} with `benchmarks/critical_coverage.py "
             f"{report['below']['cases']} {seed}` (nominal 68 %).", "",
             "| quantity | side | fitted / cases | coverage | binomial s.e. "
             "| median half-width | median half-width / truth |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for side, names in NAMES.items():
        entry = report[side]
        for name, key in zip(names, ("critical", "exponent"), strict=True):
            q = entry[key]
            lines.append(f"| {name} | ordered {side} | {entry['fitted']} / {entry['cases']} "
                         f"| {100 * q['coverage']:.1f} % | {100 * q['binomial_error']:.1f} "
                         f"| {q['median_half_width']:.4f} "
                         f"| {100 * q['median_relative_half_width']:.1f} % |")
    seconds = sum(report[side]["seconds"] for side in NAMES)
    lines += ["", f"CPU time of the fits: {seconds:.0f} s (both sides)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    cases = int(argv[0]) if argv else 600
    seed = int(argv[1]) if len(argv) > 1 else 2026
    with ProcessPoolExecutor(2) as pool:
        reports = list(pool.map(_side, [(cases, side, seed) for side in NAMES]))
    report = dict(zip(NAMES, reports, strict=True))
    print(json.dumps(report, indent=1))
    OUT.write_text(markdown(report, seed))


if __name__ == "__main__":
    main(sys.argv[1:])
