"""Coverage of the 68 % intervals of the critical fits on synthetic data with a known truth.

Fits ``CASES`` synthetic studies per side (ordered below x_c like the Vicsek noise, ordered
above like the density; :mod:`flocklab.analysis.coverage`) with
:func:`flocklab.analysis.rounded.calibrated_fit` and prints, per side and quantity, the
fraction of intervals that contain the truth, its binomial standard error and the median
half-width (absolute and relative to the truth), as JSON.

Usage::

    .venv/bin/python benchmarks/critical_coverage.py [CASES] [SEED]
"""

from __future__ import annotations

import json
import sys
import time

from flocklab.analysis.coverage import measure_coverage


def main(argv: list[str]) -> None:
    cases = int(argv[0]) if argv else 600
    seed = int(argv[1]) if len(argv) > 1 else 2026
    report = {}
    for side in ("below", "above"):
        started = time.perf_counter()
        report[side] = measure_coverage(cases, side, seed)
        report[side]["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
