"""Speed of the force-based swarm against an all-pairs NumPy step, and its cost against N.

Measures, in one run:

* one inertial step (Morse pair forces cut at r_c, exact self-propulsion half flows, velocity
  Verlet) of flocklab's engine (numba, hashed cell list) against the same step written with
  NumPy on the full N x N distance matrix (:func:`flocklab_oracles.forces.
  inertial_step`) at N = 2,000, after checking that the two give the same state;
* the engine's cost per agent-step for N = 1e2 .. 1e5 at a fixed density (uniform in a
  periodic box, about 20 neighbours within the cut-off), 2-D and 3-D, with all threads and
  with one (the serial kernels the pipeline's one-thread jobs use).

Writes a markdown table to ``benchmarks/results/forces.md``. Usage::

    PYTHONPATH=src python benchmarks/bench_forces.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numba
import numpy as np

from flocklab.models.forces.engine import ForcesSimulation

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracles"))
from flocklab_oracles import forces as reference

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "forces.md"
#: The swarm of the benchmark: Morse C = 2, l = 0.5, cut at 2.5, no steering terms.
SWARM = {"alpha": 1.0, "beta": 0.5, "C_r": 2.0, "l_r": 0.5, "C_a": 1.0, "l_a": 1.0,
         "r_cut": 2.5, "r_align": 2.5, "initial_speed": 1.0}
DT = 0.02


def box_for(n: int, dim: int, neighbours: float) -> float:
    """Side of the periodic box holding ``n`` agents with ``neighbours`` within r_c."""
    r_c = SWARM["r_cut"]
    ball = math.pi * r_c ** 2 if dim == 2 else 4.0 / 3.0 * math.pi * r_c ** 3
    return (n * ball / neighbours) ** (1.0 / dim)


def uniform_swarm(n: int, dim: int, neighbours: float, seed: int = 1) -> ForcesSimulation:
    """A swarm spread uniformly over its periodic box (the start ball replaced)."""
    box = box_for(n, dim, neighbours)
    sim = ForcesSimulation.from_parameters(
        {**SWARM, "N": n, "dim": dim, "box": box, "start_radius": box / 2},
        np.random.default_rng(seed), DT)
    rng = np.random.default_rng(seed + 1)
    sim.pos[:, :dim] = rng.random((n, dim)) * box
    return sim


def time_engine(sim: ForcesSimulation, steps: int) -> float:
    """Seconds per step after one warm-up step."""
    sim.advance(1)
    start = time.perf_counter()
    sim.advance(steps)
    return (time.perf_counter() - start) / steps


def time_reference(sim: ForcesSimulation, steps: int) -> tuple[float, float]:
    """Seconds per all-pairs NumPy step, and the largest difference from the engine's state
    after the same steps."""
    pos, vel = sim.pos.copy(), sim.vel.copy()
    start = time.perf_counter()
    for _ in range(steps):
        pos, vel = reference.inertial_step(pos, vel, sim.p, DT)
    seconds = (time.perf_counter() - start) / steps
    sim.advance(steps)
    box = sim.p["box"]
    diff = sim.pos - pos
    diff -= box * np.rint(diff / box)
    return seconds, float(max(np.abs(diff).max(), np.abs(sim.vel - vel).max()))


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def comparison(quick: bool) -> list[str]:
    n = 2000
    steps = 2 if quick else 5
    rows = []
    for dim in (2, 3):
        engine = time_engine(uniform_swarm(n, dim, 20.0), steps)
        ref, difference = time_reference(uniform_swarm(n, dim, 20.0), steps)
        rows.append(f"| {dim}-D periodic, N = {n:,}, about 20 neighbours | {fmt(engine)} | "
                    f"{fmt(ref)} ({ref / engine:.0f}×) | {difference:.1e} |")
    return rows


def scaling(quick: bool) -> list[str]:
    sizes = (100, 1000, 10000) if quick else (100, 1000, 10000, 100000)
    rows = []
    threads = numba.get_num_threads()
    for dim in (2, 3):
        for n in sizes:
            steps = max(3, min(200, 200_000 // n))
            sim = uniform_swarm(n, dim, 20.0)
            per_step = time_engine(sim, steps)
            neighbours = float(np.diff(sim.grid.start).mean())
            numba.set_num_threads(1)
            serial = time_engine(uniform_swarm(n, dim, 20.0), steps)
            numba.set_num_threads(threads)
            rows.append(f"| {dim} | {n:,} | {fmt(per_step)} | {per_step / n * 1e9:.0f} ns | "
                        f"{serial / n * 1e9:.0f} ns | {neighbours:.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and steps")
    args = parser.parse_args()
    compare = comparison(args.quick)
    scale = scaling(args.quick)
    load = os.getloadavg()[0]
    lines = [
        "# Force-based swarm: speed", "",
        f"Measured by `benchmarks/bench_forces.py` on {platform.machine()} with "
        f"{os.cpu_count()} cores, {numba.get_num_threads()} numba threads, load average "
        f"{load:.1f} at the end (shared machine), Python {sys.version.split()[0]}, numba "
        f"{numba.__version__}. One inertial step: Morse pair forces (C = 2, l = 0.5, cut at "
        f"r_c = 2.5), exact self-propulsion half flows, velocity Verlet, dt = {DT}; agents "
        "uniform in a periodic box. Wall-clock seconds per step after a warm-up step; the "
        "difference column is the largest difference of positions and velocities between "
        "the two after the timed steps. Kernels run serially below 4096 agents.", "",
        "| case | flocklab forces | all-pairs NumPy (ratio) | largest difference |",
        "| --- | --- | --- | --- |", *compare, "",
        "Cost against N at a fixed density (about 20 neighbours within r_c; the neighbour "
        "list holds those within max(r_c, r_align) = 2.5):", "",
        "| dim | N | per step | per agent-step | one thread: per agent-step | "
        "neighbours/agent |",
        "| --- | --- | --- | --- | --- | --- |", *scale, ""]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
