"""Bench dragon (2024 CUMCM problem A): time of each question, with a brentq baseline for Q1.

Measures wall and CPU time (``time.process_time``; the machine is shared, so CPU time is the
fairer number) of

* Q1: all 224 handles at t = 0..300 s, positions and speeds, formatted as the result1 CSV
  tables — flocklab (compiled polar-angle Newton) against a baseline written here: scipy
  ``brentq`` per handle and per second on the polar-angle chord equation, the usual contest
  approach;
* Q2 (collision search), Q3 (minimum pitch), Q4 (turnaround table), Q5 (maximum speed).

Numba kernels are compiled (or loaded from cache) in a warm-up call before timing. Each
timing is the best of ``--repeats`` runs (Q3 once). Writes ``benchmarks/results/dragon_chain.md``.

Usage::

    .venv/bin/python benchmarks/bench_dragon_chain.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from flocklab.models.dragon_chain.geometry import BenchGeometry
from flocklab.models.dragon_chain.questions import (
    q1_spiral,
    q2_collision,
    q3_min_pitch,
    q4_turnaround,
    q5_max_speed,
    s_curve_length_vs_ratio,
)
from flocklab.models.dragon_chain.tables import contest_tables, to_csv

RESULTS = Path(__file__).resolve().parent / "results"


def timed(call: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    """Best wall and CPU seconds over ``repeats`` calls, and the last result."""
    best_wall, best_cpu, result = math.inf, math.inf, None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, result


def q1_flocklab() -> list[str]:
    q1 = q1_spiral()
    return [to_csv(t) for t in contest_tables(q1.times, q1.state.xy, q1.state.speed)]


def q1_brentq(pitch: float = 0.55) -> np.ndarray:
    """Baseline: brentq on b^2 (t^2 + ti^2 - 2 t ti cos(t - ti)) = d^2 for every handle."""
    b = pitch / (2 * math.pi)
    spacings = BenchGeometry().spacings
    theta0 = 32 * math.pi
    out = np.empty((301, spacings.size + 1))
    for k, t in enumerate(range(301)):
        # head: invert the arc length by brentq as well
        target = 0.5 * b * (theta0 * math.hypot(1, theta0) + math.asinh(theta0)) - t
        ti = brentq(lambda x, f=target: 0.5 * b * (x * math.hypot(1, x) + math.asinh(x)) - f,
                    0.0, theta0)
        out[k, 0] = ti
        for i, d in enumerate(spacings):
            ti = brentq(lambda x, a=ti, d=d: b * b * (x * x + a * a - 2 * x * a * math.cos(x - a))
                        - d * d, ti, ti + math.pi, xtol=1e-13)
            out[k, i + 1] = ti
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    q1_spiral(t_end=2.0)  # warm-up: compile or load the numba kernels
    q4_turnaround(t_start=0.0, t_end=1.0)
    rows = []
    wall, cpu, _ = timed(q1_flocklab, args.repeats)
    rows.append(("Q1 table, flocklab", wall, cpu, "≤ 1 s"))
    wall, cpu, _ = timed(q1_brentq, 1)
    rows.append(("Q1 positions, brentq baseline", wall, cpu, "peer"))
    wall, cpu, q2 = timed(q2_collision, args.repeats)
    rows.append(("Q2 collision", wall, cpu, ""))
    wall, cpu, q3 = timed(q3_min_pitch, 1)
    rows.append(("Q3 minimum pitch", wall, cpu, ""))
    wall, cpu, _ = timed(q4_turnaround, args.repeats)
    rows.append(("Q4 table", wall, cpu, ""))
    wall, cpu, q5 = timed(q5_max_speed, 1)
    rows.append(("Q5 maximum speed", wall, cpu, ""))
    total_wall = sum(r[1] for r in rows if "baseline" not in r[0])
    total_cpu = sum(r[2] for r in rows if "baseline" not in r[0])
    rows.append(("Q1–Q5 total", total_wall, total_cpu, "≤ 60 s"))
    lengths = s_curve_length_vs_ratio()
    answers = [
        ("Q2 collision time (s)", f"{q2['time']:.6f}"),
        ("Q2 touching benches", ", ".join(str(p["benches"]) for p in q2["touching"])),
        ("Q3 minimum pitch (m)", f"{q3['min_pitch']:.6f}"),
        ("Q4 S-curve length (m), ratios 0.25..10", f"{lengths.min():.6f} .. {lengths.max():.6f}"),
        ("Q5 maximum head speed (m/s)", f"{q5['max_head_speed']:.6f}"),
        ("Q5 peak speed ratio, handles, time (s)",
         f"{q5['max_ratio']:.6f}, {q5['binding_handles']}, {q5['time']:.6f}"),
    ]
    lines = [
        "# Bench dragon benchmark",
        "",
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"one core; best of {args.repeats} (Q1 baseline, Q3, Q5 once). Machine shared: "
        "CPU time is the fairer figure.",
        "",
        "| task | wall (s) | CPU (s) | target |",
        "|---|---:|---:|---|",
        *[f"| {name} | {wall:.3f} | {cpu:.3f} | {target} |" for name, wall, cpu, target in rows],
        "",
        "| answer | value |",
        "|---|---|",
        *[f"| {name} | {value} |" for name, value in answers],
        "",
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "dragon_chain.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
