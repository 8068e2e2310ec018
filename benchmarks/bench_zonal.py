"""Speed of the zonal model against an all-pairs NumPy step and the installable peers.

Compares, in one run:

* flocklab's zonal engine (numba, hashed cell list);
* an all-pairs NumPy implementation of the same Couzin (2002) step, written here
  (:func:`allpairs_couzin2002_step`, O(N²) memory and time);
* ``couzinswarm`` (PyPI, a pure-Python pair loop of the Couzin 2002 model) and Mesa's
  ``boid_flockers`` example, run in a separate virtual environment (``--peer-python``,
  default ``.peer-venv/bin/python``) through a subprocess, so neither needs to be installed
  in the project's environment;
* the per-step cost of the engine against N = 1e2 .. 1e5 at a fixed mean neighbour count
  (constant density in a periodic box).

Writes a markdown table to ``benchmarks/results/zonal.md``. Usage::

    PYTHONPATH=src python benchmarks/bench_zonal.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import numpy as np

from flocklab.models.zonal.engine import ZonalSimulation

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "zonal.md"
COUZIN_2002 = {"rule": "couzin2002", "r_r": 1.0, "delta_o": 2.5, "delta_a": 14.0,
               "field_of_view": 270.0, "turning_rate": 40.0, "speed": 3.0, "noise": 0.05,
               "dt": 0.1}


# --------------------------------------------------------------------------- all-pairs NumPy


def allpairs_couzin2002_step(pos: np.ndarray, head: np.ndarray, p: dict,
                             psi: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One synchronous Couzin (2002) step on the full N x N distance matrix.

    Same reading as the engine (focal heading in d_o, unit d_o and d_a averaged, blind cone
    for orientation and attraction only); ``psi`` (N,) are 2-D noise angles (None: no noise).
    Returns new ``(pos, head)``, both (N, 3).
    """
    r_r = p["r_r"]
    r_o = r_r + p["delta_o"]
    r_a = r_o + p["delta_a"]
    cos_half = math.cos(math.radians(p["field_of_view"]) / 2)
    diff = pos[None, :, :] - pos[:, None, :]
    dist = np.linalg.norm(diff, axis=2)
    np.fill_diagonal(dist, np.inf)
    unit = diff / dist[..., None]
    visible = np.einsum("ik,ijk->ij", head, unit) >= cos_half
    rep = dist < r_r
    ori = (dist >= r_r) & (dist < r_o) & visible
    att = (dist >= r_o) & (dist <= r_a) & visible
    d_r = -np.einsum("ij,ijk->ik", rep, unit)
    n_o = ori.sum(axis=1)
    d_o = ori @ head + head * (n_o > 0)[:, None]
    d_a = np.einsum("ij,ijk->ik", att, unit)

    def _unit(v):
        norm = np.linalg.norm(v, axis=1, keepdims=True)
        return np.divide(v, norm, out=np.zeros_like(v), where=norm > 0)

    d_o, d_a = _unit(d_o), _unit(d_a)
    both = (n_o > 0) & att.any(axis=1)
    desired = np.where(both[:, None], _unit(0.5 * (d_o + d_a)), d_o + d_a)
    desired = np.where(rep.any(axis=1)[:, None], _unit(d_r), desired)
    desired = np.where(np.any(desired != 0, axis=1)[:, None], desired, head)
    if psi is not None:  # 2-D rotation
        c, s = np.cos(psi), np.sin(psi)
        desired = np.c_[c * desired[:, 0] - s * desired[:, 1],
                        s * desired[:, 0] + c * desired[:, 1], desired[:, 2]]
    cap = math.radians(p["turning_rate"]) * p["dt"]
    cos_b = np.clip(np.sum(head * desired, axis=1), -1, 1)
    w = _unit(desired - cos_b[:, None] * head)
    turned = math.cos(cap) * head + math.sin(cap) * w
    new_head = _unit(np.where((np.arccos(cos_b) <= cap)[:, None], desired, turned))
    return pos + p["speed"] * p["dt"] * new_head, new_head


# --------------------------------------------------------------------------- timings


def time_engine(params: dict, steps: int, seed: int = 1,
                serial: bool = False) -> tuple[float, float]:
    """Seconds per step of the engine after 5 warm-up steps, and mean neighbours per agent.

    ``serial`` forces the kernels onto one thread (they otherwise go parallel from 4096 agents).
    """
    sim = ZonalSimulation.from_parameters(params, seed)
    if serial:
        sim.chunks = sim.grid.chunks = 1
    sim.advance(5)
    start = time.perf_counter()
    sim.advance(steps)
    per_step = (time.perf_counter() - start) / steps
    return per_step, sim.grid.start[-1] / max(int(sim.alive.sum()), 1)


def time_allpairs(n: int, steps: int, seed: int = 1, params: dict | None = None) -> float:
    sim = ZonalSimulation.from_parameters(params or {**COUZIN_2002, "N": n, "dim": 3}, seed)
    pos, head = sim.pos.copy(), sim.head.copy()
    start = time.perf_counter()
    for _ in range(steps):
        pos, head = allpairs_couzin2002_step(pos, head, sim.p)
    return (time.perf_counter() - start) / steps


COUZINSWARM = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from couzinswarm import Swarm
    n, steps = int(sys.argv[1]), int(sys.argv[2])
    np.random.seed(1)
    swarm = Swarm(number_of_fish=n, repulsion_radius=1.0, orientation_width=2.5,
                  attraction_width=14.0, angle_of_perception=np.radians(135.0),
                  turning_rate=np.radians(40.0), speed=3.0, noise_sigma=0.05, dt=0.1,
                  box_lengths=[1000.0] * 3)
    for fish in swarm.fish:  # the same start as flocklab: a ball of radius 5 (dense group)
        v = np.random.randn(3)
        fish.position = 500.0 + 5.0 * np.random.rand() ** (1 / 3) * v / np.linalg.norm(v)
    start = time.perf_counter()
    swarm.simulate(steps)
    print(json.dumps({"per_step": (time.perf_counter() - start) / steps}))
""")

MESA_BOIDS = textwrap.dedent("""
    import json, sys, time
    from mesa.examples.basic.boid_flockers.model import BoidFlockers
    n, steps = int(sys.argv[1]), int(sys.argv[2])
    model = BoidFlockers(population_size=n, width=100, height=100, vision=10, seed=1)
    model.step()
    start = time.perf_counter()
    for _ in range(steps):
        model.step()
    print(json.dumps({"per_step": (time.perf_counter() - start) / steps}))
""")


def time_peer(python: str, script: str, n: int, steps: int) -> float | str:
    """Seconds per step of a peer script run by ``python``, or the reason it could not run."""
    if not Path(python).exists():
        return f"not run: {python} missing"
    result = subprocess.run([python, "-c", script, str(n), str(steps)], capture_output=True,
                            text=True, timeout=1800, check=False)
    if result.returncode != 0:
        return "failed: " + result.stderr.strip().splitlines()[-1][:120]
    return json.loads(result.stdout.strip().splitlines()[-1])["per_step"]


def scaling_params(n: int, dim: int, neighbours: float) -> dict:
    """Couzin 2002 zones of repulsion and orientation (range 5, no attraction, so the agents
    stay spread) uniform in a periodic box at the density giving ``neighbours`` on average."""
    reach = 5.0
    ball = math.pi * reach**2 if dim == 2 else 4.0 / 3.0 * math.pi * reach**3
    box = (n * ball / neighbours) ** (1.0 / dim)
    return {**COUZIN_2002, "N": n, "dim": dim, "delta_o": 4.0, "delta_a": 0.0, "box": box,
            "start": "box", "noise": 1.0}


# --------------------------------------------------------------------------- report


def _fmt(seconds: float | str) -> str:
    if isinstance(seconds, str):
        return seconds
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def _ratio(peer: float | str, ours: float) -> str:
    return f"{peer / ours:,.0f}×" if isinstance(peer, float) else "—"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and N <= 1e4")
    parser.add_argument("--peer-python", default=str(ROOT / ".peer-venv" / "bin" / "python"))
    args = parser.parse_args(argv)
    scale = 0.2 if args.quick else 1.0
    rows = []

    ours_100, k_100 = time_engine({**COUZIN_2002, "N": 100, "dim": 3}, int(2000 * scale))
    peer = time_peer(args.peer_python, COUZINSWARM, 100, max(2, int(20 * scale)))
    allp = time_allpairs(100, int(300 * scale))
    rows.append(("Couzin 2002, 3-D, N = 100 (all within range)", _fmt(ours_100),
                 f"{_fmt(allp)} ({_ratio(allp, ours_100)})", f"{_fmt(peer)} "
                 f"({_ratio(peer, ours_100)})", f"{k_100:.0f}"))
    ours_1k, k_1k = time_engine({**COUZIN_2002, "N": 1000, "dim": 3, "start_radius": 10.0},
                                int(200 * scale))
    allp_1k = time_allpairs(1000, max(2, int(10 * scale)))
    rows.append(("Couzin 2002, 3-D, N = 1000", _fmt(ours_1k),
                 f"{_fmt(allp_1k)} ({_ratio(allp_1k, ours_1k)})", "—", f"{k_1k:.0f}"))
    sparse = {**COUZIN_2002, "N": 2000, "dim": 2, "delta_o": 4.0, "delta_a": 0.0,
              "start_radius": 50.0}  # about 20 neighbours each, open space
    ours_sparse, k_sparse = time_engine(sparse, int(100 * scale))
    allp_sparse = time_allpairs(2000, max(2, int(5 * scale)), params=sparse)
    rows.append(("Couzin 2002 zones (no attraction), 2-D open space, N = 2000",
                 _fmt(ours_sparse), f"{_fmt(allp_sparse)} ({_ratio(allp_sparse, ours_sparse)})",
                 "—", f"{k_sparse:.0f}"))
    boids = {"rule": "boids", "N": 100, "dim": 2, "box": 100.0, "start_radius": 50.0,
             "vision": 10.0, "separation": 2.0, "speed": 1.0, "dt": 1.0, "noise": 0.0,
             "turning_rate": 360.0}
    ours_b, k_b = time_engine(boids, int(2000 * scale))
    mesa = time_peer(args.peer_python, MESA_BOIDS, 100, int(200 * scale))
    rows.append(("Boids, 2-D periodic 100 × 100, N = 100, vision 10", _fmt(ours_b), "—",
                 f"Mesa boid_flockers {_fmt(mesa)} ({_ratio(mesa, ours_b)})", f"{k_b:.1f}"))

    scaling = []
    sizes = [100, 1000, 10_000] + ([] if args.quick else [100_000])
    for dim in (2, 3):
        for n in sizes:
            steps = max(3, int(scale * min(50, 1e6 / n)))  # short: no time to cluster
            per_step, k = time_engine(scaling_params(n, dim, 20.0), steps)
            serial, _ = time_engine(scaling_params(n, dim, 20.0), steps, serial=True)
            scaling.append((dim, n, per_step, serial, k))
    write_report(rows, scaling, args.quick)
    print(RESULTS.read_text())


def write_report(rows: list[tuple], scaling: list[tuple], quick: bool) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# Zonal model: speed",
        "",
        f"Measured by `benchmarks/bench_zonal.py{' --quick' if quick else ''}` on "
        f"{platform.machine()} with {os.cpu_count()} cores, {numba.get_num_threads()} numba "
        f"threads, load average {load:.1f} at the end (shared machine), Python "
        f"{platform.python_version()}, numba {numba.__version__}. Kernels run serially below "
        "4096 agents. Times are wall-clock seconds per step after warm-up.",
        "",
        "| case | flocklab zonal | all-pairs NumPy (ratio) | peer (ratio) | neighbours/agent |",
        "| --- | --- | --- | --- | --- |",
        *[f"| {' | '.join(row)} |" for row in rows],
        "",
        "Per-step cost against N at a fixed mean neighbour count (about 20: Couzin 2002 "
        "repulsion and orientation zones, range 5, no attraction, noise 1 rad, uniform in a "
        "periodic box at constant density, timed over at most 50 steps so that no clusters "
        "form):",
        "",
        "| dim | N | per step | per agent-step | one thread: per agent-step | neighbours/agent |",
        "| --- | --- | --- | --- | --- | --- |",
        *[f"| {d} | {n:,} | {_fmt(t)} | {t / n * 1e9:.0f} ns | {t1 / n * 1e9:.0f} ns | {k:.1f} |"
          for d, n, t, t1, k in scaling],
        "",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
