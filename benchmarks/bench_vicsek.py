"""Vicsek kernel throughput against N and threads, with a scipy cKDTree baseline.

Measures particle-updates per second (N × steps / wall time of the time loop; set-up and
compilation cancelled by differencing two run lengths) at density 4, r = 1, v0 = 0.03,
eta = 2, angular noise, for

* the flocklab kernel with 1 and 2 numba threads, and
* a plain cKDTree implementation (``query_pairs`` + ``bincount``) written here as the baseline.

Repeats are interleaved (every configuration once per round) so that slow phases of a
shared machine hit all configurations alike; the table reports the median and min–max over
rounds. Writes ``benchmarks/results/vicsek_throughput.csv``, ``.md`` and ``.png``.

Usage::

    .venv/bin/python benchmarks/bench_vicsek.py [--sizes 1000 10000 100000 1000000]
                                                [--rounds 5] [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import csv
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

import flocklab
from flocklab.core.driver import simulate
from flocklab.core.registry import get_model
from flocklab.core.threads import set_threads
from flocklab.core.time import RunControl

RESULTS = Path(__file__).resolve().parent / "results"
DENSITY, RADIUS, SPEED, NOISE = 4.0, 1.0, 0.03, 2.0


def ckdtree_run(n: int, box: float, steps: int, seed: int) -> None:
    """The baseline: one Vicsek run with a periodic cKDTree pair search per step."""
    rng = np.random.default_rng(seed)
    position = rng.random((n, 2)) * box
    theta = rng.uniform(-np.pi, np.pi, n)
    for _ in range(steps):
        tree = cKDTree(position, boxsize=box)
        pairs = tree.query_pairs(RADIUS, output_type="ndarray")
        cos, sin = np.cos(theta), np.sin(theta)
        sum_cos = cos + np.bincount(pairs[:, 0], cos[pairs[:, 1]], n) + \
            np.bincount(pairs[:, 1], cos[pairs[:, 0]], n)
        sum_sin = sin + np.bincount(pairs[:, 0], sin[pairs[:, 1]], n) + \
            np.bincount(pairs[:, 1], sin[pairs[:, 0]], n)
        theta = np.arctan2(sum_sin, sum_cos) + NOISE * (rng.random(n) - 0.5)
        position += SPEED * np.column_stack([np.cos(theta), np.sin(theta)])
        position %= box


def flocklab_run(n: int, box: float, steps: int, seed: int) -> None:
    simulate(get_model("vicsek"), {"N": n, "L": box, "eta": NOISE, "v0": SPEED, "r": RADIUS},
             RunControl(steps=steps, seed=seed))


def timed(function, n: int, steps: int) -> float:
    """Updates per second of the time loop alone.

    Two runs, of ``s`` and ``s + steps`` steps, cancel the set-up (initial state, first
    sort of random positions, allocation, dataset assembly): rate = N steps / (t2 - t1).
    """
    box = math.sqrt(n / DENSITY)
    short = max(2, steps // 4)
    durations = []
    for run_steps in (short, short + steps):
        started = time.perf_counter()
        function(n, box, run_steps, 1)
        durations.append(time.perf_counter() - started)
    if durations[1] <= durations[0]:
        raise RuntimeError(f"timing noise exceeds the measurement at N = {n}; raise --seconds")
    return n * steps / (durations[1] - durations[0])


def steps_for(rate_guess: float, n: int, seconds: float) -> int:
    return max(3, int(seconds * rate_guess / n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="target time per measurement")
    parser.add_argument("--baseline-max", type=int, default=1_000_000,
                        help="largest N for the (slow) cKDTree baseline")
    args = parser.parse_args()

    configurations = [("flocklab", 1), ("flocklab", 2), ("ckdtree", 1)]
    functions = {"flocklab": flocklab_run, "ckdtree": ckdtree_run}
    flocklab_run(1000, math.sqrt(1000 / DENSITY), 5, 1)  # compile / load the numba cache
    # One short calibration per configuration fixes the steps of every round.
    steps: dict[tuple[str, int, int], int] = {}
    for name, threads in configurations:
        set_threads(threads)
        for n in args.sizes:
            if name == "ckdtree" and n > args.baseline_max:
                continue
            box = math.sqrt(n / DENSITY)
            started = time.perf_counter()
            functions[name](n, box, 4, 1)
            rate = 4 * n / (time.perf_counter() - started)  # includes set-up: an underestimate
            steps[(name, threads, n)] = steps_for(rate, n, args.seconds)
    rates: dict[tuple[str, int, int], list[float]] = {key: [] for key in steps}
    for round_number in range(args.rounds):
        for key in steps:
            name, threads, n = key
            set_threads(threads)
            rates[key].append(timed(functions[name], n, steps[key]))
        print(f"round {round_number + 1}/{args.rounds} done", flush=True)

    RESULTS.mkdir(parents=True, exist_ok=True)
    rows = []
    for (name, threads, n), values in rates.items():
        rows.append({"implementation": name, "threads": threads, "N": n,
                     "steps": steps[(name, threads, n)],
                     "median_updates_per_s": statistics.median(values),
                     "min_updates_per_s": min(values), "max_updates_per_s": max(values)})
    with open(RESULTS / "vicsek_throughput.csv", "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    median = {(r["implementation"], r["threads"], r["N"]): r["median_updates_per_s"] for r in rows}
    machine = f"{platform.processor() or platform.machine()}, {platform.python_version()}, " \
              f"flocklab {flocklab.__version__}"
    lines = [f"Vicsek throughput (particle-updates/s, median of {args.rounds} interleaved "
             f"rounds; min–max in brackets). Machine: {machine}.", "",
             "| N | flocklab 1 thread | flocklab 2 threads | 2-thread speed-up | cKDTree | "
             "flocklab 1 thread / cKDTree |", "|---|---|---|---|---|---|"]
    by_key = {(r["implementation"], r["threads"], r["N"]): r for r in rows}

    def cell(key):
        row = by_key.get(key)
        if row is None:
            return "—"
        return (f"{row['median_updates_per_s'] / 1e6:.2f} M ({row['min_updates_per_s'] / 1e6:.2f}"
                f"–{row['max_updates_per_s'] / 1e6:.2f})")

    for n in args.sizes:
        one, two = median[("flocklab", 1, n)], median[("flocklab", 2, n)]
        base = median.get(("ckdtree", 1, n))
        lines.append(f"| {n} | {cell(('flocklab', 1, n))} | {cell(('flocklab', 2, n))} | "
                     f"{two / one:.2f}× | {cell(('ckdtree', 1, n))} | "
                     f"{(one / base) if base else float('nan'):.1f}× |")
    table = "\n".join(lines)
    (RESULTS / "vicsek_throughput.md").write_text(table + "\n")
    print(table)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, threads in configurations:
        ns = [n for n in args.sizes if (name, threads, n) in rates]
        med = [median[(name, threads, n)] for n in ns]
        low = [min(rates[(name, threads, n)]) for n in ns]
        high = [max(rates[(name, threads, n)]) for n in ns]
        ax.errorbar(ns, med, yerr=[np.subtract(med, low), np.subtract(high, med)], marker="o",
                    capsize=3, label=f"{name}, {threads} thread{'s' if threads > 1 else ''}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (density 4)")
    ax.set_ylabel("particle-updates per second")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "vicsek_throughput.png", dpi=120)


if __name__ == "__main__":
    main()
