"""Vicsek model with metric, k-nearest (k = 7) and Voronoi neighbours: cost and order.

1. Time per particle-step of the time loop (set-up and compilation cancelled by differencing
   two run lengths) at N = 10^3, 10^4, 10^5, density 2, v0 = 0.5, eta = 1, angular noise,
   r = 1 (metric), one numba thread; median and min-max over interleaved rounds.
2. The order parameter v_a at L = 32, density 2 (N = 2048), v0 = 0.5, angular noise, from
   random headings: mean over the last 1000 of 3000 steps, for eta in {0.3, 1.0, 2.0}, with
   the wall time per step of each run (one thread, compilation excluded by a warm-up run).

Writes ``benchmarks/results/vicsek_neighbours.md``.

Usage::

    .venv/bin/python benchmarks/bench_vicsek_neighbours.py [--rounds 3] [--seconds 1.0]
                                                           [--order-steps 3000]
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from flocklab.core.driver import simulate
from flocklab.core.registry import get_model
from flocklab.core.threads import set_threads
from flocklab.core.time import RunControl

RESULTS = Path(__file__).resolve().parent / "results"
RULES = ("metric", "knn", "voronoi")
DENSITY, SPEED, NOISE = 2.0, 0.5, 1.0
DATE = "2026-12-05"


def run(rule: str, n: int, steps: int, eta: float = NOISE, seed: int = 1):
    box = math.sqrt(n / DENSITY)
    return simulate(
        get_model("vicsek"),
        {"N": n, "L": box, "v0": SPEED, "eta": eta, "neighbours": rule, "k": 7},
        RunControl(steps=steps, seed=seed))


def seconds_per_update(rule: str, n: int, steps: int) -> float:
    """Wall seconds per particle-step: two runs of s and s + steps steps, differenced."""
    short = max(2, steps // 4)
    durations = []
    for run_steps in (short, short + steps):
        started = time.perf_counter()
        run(rule, n, run_steps)
        durations.append(time.perf_counter() - started)
    if durations[1] <= durations[0]:
        raise RuntimeError(f"timing noise exceeds the measurement ({rule}, N = {n})")
    return (durations[1] - durations[0]) / (n * steps)


def timing_table(sizes: list[int], rounds: int, seconds: float) -> list[str]:
    steps = {}
    for rule in RULES:
        for n in sizes:
            started = time.perf_counter()
            run(rule, n, 3)
            rate = (time.perf_counter() - started) / (3 * n)  # set-up included: an overestimate
            steps[(rule, n)] = max(3, int(seconds / (rate * n)))
    times: dict[tuple[str, int], list[float]] = {key: [] for key in steps}
    for round_number in range(rounds):
        for key in steps:
            times[key].append(seconds_per_update(*key, steps[key]))
        print(f"round {round_number + 1}/{rounds} done", flush=True)
    lines = ["| N | rule | µs per particle-step (median) | min–max | steps per round |",
             "|---|---|---|---|---|"]
    for n in sizes:
        for rule in RULES:
            values = [1e6 * t for t in times[(rule, n)]]
            lines.append(f"| {n} | {rule} | {statistics.median(values):.3f} | "
                         f"{min(values):.3f}–{max(values):.3f} | {steps[(rule, n)]} |")
    return lines


def order_table(steps: int) -> list[str]:
    n = round(DENSITY * 32.0**2)
    lines = ["| eta | rule | v_a (mean of last 1000 steps) | v_a at the end | ms per step |",
             "|---|---|---|---|---|"]
    for eta in (0.3, 1.0, 2.0):
        for rule in RULES:
            started = time.perf_counter()
            ds = run(rule, n, steps, eta=eta, seed=7)
            elapsed = time.perf_counter() - started
            series = ds["order_parameter"].values
            lines.append(f"| {eta} | {rule} | {np.mean(series[-1000:]):.3f} | "
                         f"{series[-1]:.3f} | {1e3 * elapsed / steps:.3f} |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="target time per measurement")
    parser.add_argument("--order-steps", type=int, default=3000)
    args = parser.parse_args()
    set_threads(1)
    for rule in RULES:
        run(rule, 1000, 3)  # compile / load the numba cache
    timing = timing_table(args.sizes, args.rounds, args.seconds)
    order = order_table(args.order_steps)
    RESULTS.mkdir(parents=True, exist_ok=True)
    text = [
        "# Vicsek model: metric, k-nearest and Voronoi neighbours", "",
        f"Measured {DATE} with `benchmarks/bench_vicsek_neighbours.py` on one numba thread "
        f"({platform.processor() or platform.machine()}, Python {platform.python_version()}; "
        "a shared 2-core machine, so expect ±20 %). Density 2, v0 = 0.5, angular noise, "
        "r = 1 (metric), k = 7 (knn).", "",
        f"## Time per particle-step (eta = {NOISE}, {args.rounds} interleaved rounds)", "",
        *timing, "",
        f"## Order parameter at L = 32 (N = 2048), {args.order_steps} steps from random "
        "headings (seed 7)", "", *order, ""]
    (RESULTS / "vicsek_neighbours.md").write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
