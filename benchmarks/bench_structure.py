"""Cost of the spatial structure analysis against N: ten frames in a periodic square box.

Times each measure of :mod:`flocklab.analysis.structure` (number fluctuations with the
exponent's 1,000 bootstrap resamples, g(r), S(k), the velocity correlation by FFT, the band
profiles) and the whole :func:`structure_dataset` (which adds the uniform control), on ten
frames of N uniform positions at density 2 with random unit velocities, one thread. Writes
``benchmarks/results/structure_cost.md``.

Usage::

    .venv/bin/python benchmarks/bench_structure.py [--sizes 1000 10000 100000] [--frames 10]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from flocklab.analysis import structure as st

RESULTS = Path(__file__).resolve().parent / "results"


def frames_of(n: int, count: int, seed: int = 0) -> st.Frames:
    rng = np.random.default_rng(seed)
    box = float(np.sqrt(n / 2.0))
    positions = [rng.random((n, 2)) * box for _ in range(count)]
    angles = [rng.uniform(-np.pi, np.pi, n) for _ in range(count)]
    velocities = [np.column_stack([np.cos(a), np.sin(a)]) for a in angles]
    return st.Frames(positions, velocities, np.arange(count, dtype=float), box)


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure(n: int, count: int) -> dict[str, float]:
    frames = frames_of(n, count)
    st.structure_dataset(frames_of(500, 2), resamples=10)  # imports, first calls
    return {
        "number fluctuations + alpha": timed(lambda: st.fluctuation_exponent(
            st.number_fluctuations(frames))),
        "g(r)": timed(lambda: st.pair_correlation(frames)),
        "S(k)": timed(lambda: st.structure_factor(frames)),
        "C(r) (FFT)": timed(lambda: st.velocity_correlation(frames)),
        "bands": timed(lambda: st.band_profiles(frames)),
        "all (structure_dataset, with the control)": timed(lambda: st.structure_dataset(frames)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--frames", type=int, default=10)
    args = parser.parse_args()
    rows = {n: measure(n, args.frames) for n in args.sizes}
    names = list(next(iter(rows.values())))
    lines = [f"# Spatial structure analysis: cost of {args.frames} frames",
             "",
             f"`benchmarks/bench_structure.py`, {datetime.date.today()}, "
             f"{platform.machine()}, one thread, load average "
             f"{os.getloadavg()[0]:.1f} at the end. Wall seconds for {args.frames} frames of "
             "N uniform positions at density 2 in a periodic square box, random unit "
             "velocities.",
             "",
             "| measure | " + " | ".join(f"N = {n:,}" for n in rows) + " |",
             "|---|" + "---|" * len(rows)]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(f"{rows[n][name]:.2f}" for n in rows) + " |")
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "structure_cost.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
