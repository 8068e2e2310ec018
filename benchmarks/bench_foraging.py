"""Speed of the foraging model: the compiled step against the all-pairs NumPy step, and the
cost per agent-step from 10^2 to 10^5 agents, in one run.

* N = 2,000 agents in a 200 x 200 arena (0.05 agents per unit area, 3.9 partners within
  R = 5 on average if uniform), 40 random patches (radius 5, density 2, regrowing), with and
  without four obstacles: one step of :func:`flocklab.models.foraging.engine.advance`
  (hashed cell list, numba) against :func:`flocklab_oracles.foraging.step` (the same
  step on the full N x N distance matrix, NumPy), from the same state, both on one thread,
  wall and CPU time; the largest difference between their results is printed beside the
  times.
* N = 100 ... 100,000 at the same density (arena side sqrt(N / 0.05), N / 50 patches): time
  per step of the engine over 20 steps after a warm-up, with the threads numba has (wall)
  and with one thread (the serial kernels; wall and CPU), and the mean number of partners.

Writes a markdown table to ``benchmarks/results/foraging.md``. Usage::

    PYTHONPATH=src python benchmarks/bench_foraging.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from functools import partial
from pathlib import Path

import numba
import numpy as np

import flocklab
from flocklab.models.foraging import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracles"))
from flocklab_oracles import foraging as reference

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "foraging.md"
DENSITY = 0.05
OBSTACLES = [{"rect": [40.0, 40.0, 60.0, 45.0]}, {"rect": [120.0, 150.0, 125.0, 190.0]},
             {"vertices": [[150.0, 20.0], [180.0, 30.0], [160.0, 60.0]]},
             {"rect": [80.0, 100.0, 110.0, 104.0]}]


def scene(n: int, **extra: object) -> dict:
    """Parameters at the benchmark density: side sqrt(N / 0.05), N / 50 patches."""
    side = math.sqrt(n / DENSITY)
    return flocklab.get_model("foraging").resolve(
        {"N": n, "Lx": side, "Ly": side, "patches": max(1, n // 50), "regrowth": 0.01,
         "E0": 20.0, **extra})


def prepared(params: dict, warm: int = 20) -> dict:
    """An engine state after ``warm`` steps (schools formed, some food eaten)."""
    state = engine.initial_state(params, np.random.default_rng(1))
    state["_dt"] = 0.2
    engine.advance(state, params, 0, warm)
    return state


def copy_state(state: dict) -> dict:
    out = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in state.items()}
    out["_grid"] = state["_grid"]
    return out


def partners(state: dict) -> float:
    grid = state["_grid"]
    grid.update(state["pos"], state["alive"])
    return float(np.diff(grid.start).mean())


def _timed(call) -> tuple[float, float]:
    """Wall and CPU seconds (this process, all threads) of ``call()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(params: dict, repeats: int) -> dict:
    """Median step time (wall and CPU) of the engine and of the all-pairs reference, from
    the same state, on one thread."""
    state = prepared(params)
    fast_times, slow_times, diff = [], [], 0.0
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for k in range(repeats):
            fast, slow = copy_state(state), copy_state(state)
            fast_times.append(_timed(partial(engine.advance, fast, params, 20 + k, 1)))
            slow_times.append(_timed(partial(reference.step, slow, params, 20 + k)))
            diff = max(diff, float(np.abs(fast["pos"] - slow["pos"]).max()),
                       float(np.abs(fast["energy"] - slow["energy"]).max()))
    finally:
        numba.set_num_threads(threads)
    fast_times, slow_times = np.median(fast_times, axis=0), np.median(slow_times, axis=0)
    return {"fast": fast_times[0], "slow": slow_times[0], "fast_cpu": fast_times[1],
            "slow_cpu": slow_times[1], "diff": diff, "partners": partners(state)}


def per_step(params: dict, steps: int) -> tuple[float, float, float]:
    """Wall and CPU time per step over ``steps`` steps, and the mean partner count."""
    state = prepared(params, warm=3)
    wall, cpu = _timed(partial(engine.advance, state, params, 3, steps))
    return wall / steps, cpu / steps, partners(state)


def scaling(sizes: list[int], steps: int) -> list[dict]:
    rows = []
    threads = numba.get_num_threads()
    for n in sizes:
        params = scene(n)
        wall, _, near = per_step(params, steps)
        numba.set_num_threads(1)
        try:
            serial_wall, serial_cpu, _ = per_step(params, steps)
        finally:
            numba.set_num_threads(threads)
        rows.append({"N": n, "step": wall, "agent": wall / n, "serial": serial_wall / n,
                     "serial_cpu": serial_cpu / n, "partners": near})
        print(f"N = {n}: {wall * 1e3:.3f} ms/step, {wall / n * 1e9:.0f} ns/agent-step, "
              f"one thread {serial_wall / n * 1e9:.0f} ns wall, {serial_cpu / n * 1e9:.0f} ns "
              f"CPU, partners {near:.1f}", flush=True)
    return rows


def _time(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else (
        f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s")


def markdown(cases: dict[str, dict], rows: list[dict]) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# Foraging model: speed", "",
        f"Measured by `benchmarks/bench_foraging.py` on {platform.machine()} with "
        f"{os.cpu_count()} cores, {numba.get_num_threads()} numba threads, load average "
        f"{load:.1f} at the end (shared machine: wall times are inflated by the load, CPU "
        f"times of the one-thread runs much less), Python {sys.version.split()[0]}, numba "
        f"{numba.__version__}, NumPy {np.__version__}. Kernels run serially below 4096 "
        "agents. Times are per step of the time loop after warm-up (neighbour grid, "
        "decisions and moves, feeding, regrowth; no recording).", "",
        "One step at N = 2,000 (200 x 200 arena, 40 patches, regrowth on, schools of 10), "
        "from the same state, both on one thread (median of repeats):", "",
        "| case | flocklab (hashed grid, numba): wall / CPU | all-pairs NumPy: wall / CPU | "
        "ratio (CPU) | largest difference | partners/agent |",
        "| --- | --- | --- | --- | --- | --- |"]
    for name, case in cases.items():
        lines.append(f"| {name} | {_time(case['fast'])} / {_time(case['fast_cpu'])} | "
                     f"{_time(case['slow'])} / {_time(case['slow_cpu'])} | "
                     f"{case['slow_cpu'] / case['fast_cpu']:.0f}× | {case['diff']:.1e} | "
                     f"{case['partners']:.1f} |")
    lines += ["", f"Cost per agent-step against N at a fixed density ({DENSITY} agents per "
              "unit area, arena side sqrt(N/0.05), N/50 patches of radius 5, food cells of "
              "side 1, regrowth on; schools of 10):", "",
              "| N | per step (all threads, wall) | per agent-step (all threads, wall) | "
              "one thread: per agent-step, wall | one thread: per agent-step, CPU | "
              "partners/agent |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['N']:,} | {_time(row['step'])} | {row['agent'] * 1e9:.0f} ns | "
                     f"{row['serial'] * 1e9:.0f} ns | {row['serial_cpu'] * 1e9:.0f} ns | "
                     f"{row['partners']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and steps")
    args = parser.parse_args()
    repeats, steps = (2, 5) if args.quick else (5, 20)
    prepared(scene(100), warm=2)  # compile / load the kernels
    cases = {}
    for name, extra in (("open arena", {}), ("four obstacles", {"obstacles": OBSTACLES})):
        cases[name] = compare(scene(2000, **extra), repeats)
        print(name, cases[name], flush=True)
    rows = scaling([100, 1000, 10_000, 100_000], steps)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(markdown(cases, rows), encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
