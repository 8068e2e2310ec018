"""Mass–spring integrators: implicit Euler cost against cloth size, explicit vs implicit cost per
simulated second at their stable steps, and (``--claims``) the stability table and verdicts.

1. Implicit Euler (Newton, full sparse Jacobian) on hanging cloths of n x n points, n = 10 ... 100,
   and on tongue chains with the same point counts, with the direct (SuperLU ``spsolve``) and
   the conjugate-gradient linear solver: CPU time per step and per Newton iteration, Newton
   iterations per step and CG iterations per solve (median over ``--rounds`` interleaved rounds
   of ``--steps`` steps at dt = 1/60 s from the initial state, after one warm-up step), and
   the fitted exponents p of time ∝ N^p.
2. Cost per simulated second: semi-implicit Euler (the fastest explicit method per step) at
   0.9 × its linear-theory limit 2/omega_max (omega_max by ``eigsh``; damping lowers the true
   limit slightly, the 10 x 10 row of the claims table gives the measured one), against implicit
   Euler and the diagonal scheme (3 sweeps) at dt = 1/60 s.
3. ``--claims``: :func:`flocklab.models.springs.claims.article_claims` (tongue: both damping
   readings,
   masses 0.01/0.1/1 kg; 10 x 10 cloth), written to ``springs_claims.json`` and ``.md``.

Writes ``benchmarks/results/springs.md`` (and ``springs_claims.*``).

Usage::

    .venv/bin/python benchmarks/bench_springs.py [--sizes 10 20 40 70 100] [--steps 5]
                                                 [--rounds 3] [--claims]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from flocklab.core.io import write_json
from flocklab.models.springs.forces import force_jacobians
from flocklab.models.springs.integrators import get_integrator
from flocklab.models.springs.run import integrate
from flocklab.models.springs.structure import chain, cloth

RESULTS = Path(__file__).resolve().parent / "results"
FRAME = 1.0 / 60.0


def build(structure: str, n: int):
    """The n x n hanging cloth, or the tongue chain with n * n points (same point count)."""
    return cloth(n, n) if structure == "cloth" else chain(n_points=n * n)


def implicit_step_cost(structure: str, n: int, solver: str, steps: int) -> dict[str, float]:
    """CPU seconds per step, Newton iterations per step and CG iterations per solve (all
    solvers here are single-threaded)."""
    system = build(structure, n)
    stepper = get_integrator("implicit_euler", system, FRAME, linear_solver=solver)
    x, v = system.positions.copy(), system.velocities.copy()
    stepper.step(x, v)  # warm-up (compilation, first factorisation)
    solves_before = len(stepper.stats["linear_iterations"])
    start = time.process_time()   # CPU time: fairer than wall time on a shared machine
    for _ in range(steps):
        stepper.step(x, v)
    elapsed = (time.process_time() - start) / steps
    cg = stepper.stats["linear_iterations"][solves_before:]
    return {"step": elapsed, "newton": float(np.mean(stepper.stats["newton_iterations"][1:])),
            "cg": float(np.mean(cg)) if cg else float("nan")}


def omega_max(n: int) -> float:
    """Largest undamped angular frequency of the flat n x n cloth (sparse eigsh)."""
    system = cloth(n, n)
    jx, _ = force_jacobians(system, system.positions, system.velocities)
    free = system.free_dofs
    stiffness = -jx[free][:, free]
    scale = sp.diags(1.0 / np.sqrt(np.repeat(system.mass, 3)[free]))
    value = spla.eigsh(scale @ stiffness @ scale, k=1, which="LA", return_eigenvectors=False)
    return math.sqrt(float(value[0]))


def cost_per_second(n: int, method: str, dt: float, t_end: float, **options) -> tuple[float, bool]:
    system = cloth(n, n)
    integrate(system, method, dt, 3 * dt, **options)  # warm-up
    result = integrate(system, method, dt, t_end, record_every=t_end, **options)
    return result.wall_time / (result.steps * dt), result.stable


def scaling_table(sizes: list[int], steps: int, rounds: int) -> tuple[list[str], dict]:
    """Implicit Euler per step on cloths and chains of N = n * n points, both linear solvers,
    interleaved rounds; fitted exponents p of the time per step and per Newton iteration."""
    cases = [(structure, solver) for structure in ("cloth", "chain") for solver in ("direct", "cg")]
    samples: dict[tuple[str, str, int], list[dict[str, float]]] = {}
    for _ in range(rounds):
        for n in sizes:
            for structure, solver in cases:
                samples.setdefault((structure, solver, n), []).append(
                    implicit_step_cost(structure, n, solver, steps))
    lines = ["| structure | points | solver | CPU ms / step | Newton its / step | CG its / solve "
             "| CPU ms / Newton iteration |", "|---|---:|---|---:|---:|---:|---:|"]
    fits = {}
    for structure, solver in cases:
        per_step, per_iteration = [], []
        for n in sizes:
            runs = samples[(structure, solver, n)]
            step = statistics.median(r["step"] for r in runs)
            its = statistics.median(r["newton"] for r in runs)
            cg = statistics.median(r["cg"] for r in runs)
            per_step.append(step)
            per_iteration.append(step / its)
            name = f"cloth {n}x{n}" if structure == "cloth" else "chain"
            lines.append(f"| {name} | {n * n} | {solver} | {1e3 * step:.3g} | {its:.2f} | "
                         f"{cg:.0f} | {1e3 * step / its:.3g} |".replace("| nan |", "| – |"))
        points = np.log(np.array(sizes, dtype=float) ** 2)
        fits[(structure, solver)] = (float(np.polyfit(points, np.log(per_step), 1)[0]),
                                     float(np.polyfit(points, np.log(per_iteration), 1)[0]))
    return lines, fits


def cost_table(sizes: list[int], t_end: float) -> list[str]:
    lines = ["| cloth | method | dt (s) | stable | wall s per simulated s |",
             "|---|---|---:|---|---:|"]
    for n in sizes:
        dt_explicit = 0.9 * 2.0 / omega_max(n)
        runs = (("semi_implicit_euler", dt_explicit, {}), ("implicit_euler", FRAME, {}),
                ("implicit_euler", FRAME, {"linear_solver": "cg"}),
                ("implicit_euler_diagonal", FRAME, {"iterations": 3}))
        for method, dt, options in runs:
            cost, stable = cost_per_second(n, method, dt, t_end, **options)
            name = method + (f" ({options['linear_solver']})" if "linear_solver" in options
                             else "")
            lines.append(f"| {n}x{n} | {name} | {dt:.3g} | {stable} | {cost:.3g} |")
    return lines


def claims_data(rows_file: str | None) -> dict:
    """The claims data: computed afresh, or from a JSON-lines file of stability rows (as
    written by a previous run) with the verdicts and the cloth cost measured now."""
    from dataclasses import asdict

    from flocklab.models.springs.claims import (
        StabilityRow,
        article_claims,
        cloth_cost_verdicts,
        stability_verdicts,
    )

    if rows_file is None:
        return article_claims()
    start = time.perf_counter()
    with open(rows_file, encoding="utf-8") as stream:
        rows = [StabilityRow(**{k: v for k, v in json.loads(line).items() if k != "seconds"})
                for line in stream if line.strip()]
    cost_verdicts, cost = cloth_cost_verdicts()
    verdicts = [*stability_verdicts(rows), *cost_verdicts]
    return {"table": [asdict(row) for row in rows], "verdicts": [asdict(v) for v in verdicts],
            "cloth_cost": cost, "seconds": time.perf_counter() - start}


def claims_tables(data: dict) -> list[str]:
    write_json(data, RESULTS / "springs_claims.json")
    lines = ["| configuration | method | dt_max theory (s) | dt_max measured (s) | sqrt(m/k) (s) "
             "| 2/omega_max (s) | at the smallest unstable step |",
             "|---|---|---:|---:|---:|---:|---|"]
    for row in data["table"]:
        lines.append(f"| {row['configuration']} | {row['method']} | {row['dt_theory']:.4g} | "
                     f"{row['dt_measured']:.4g} | {row['sqrt_m_over_k']:.4g} | "
                     f"{2 / row['omega_max']:.4g} | {row['note']} |")
    lines += ["", "| claim | verdict | evidence |", "|---|---|---|"]
    lines += [f"| {v['claim']} | **{v['verdict']}** | {v['evidence']} |" for v in data["verdicts"]]
    (RESULTS / "springs_claims.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40, 70, 100])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cost-sizes", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--claims", action="store_true")
    parser.add_argument("--claims-rows", default=None,
                        help="JSON-lines stability rows to reuse (with --claims)")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    scaling, fits = scaling_table(args.sizes, args.steps, args.rounds)
    costs = cost_table(args.cost_sizes, args.t_end)
    header = [f"# Mass–spring benchmark ({platform.processor() or platform.machine()}, "
              f"{time.strftime('%Y-%m-%d')})", "",
              f"## Implicit Euler per step on n x n cloths and chains of n * n points "
              f"(dt = 1/60 s, median of "
              f"{args.rounds} rounds x {args.steps} steps)", ""]
    fit_text = "; ".join(f"{structure} {solver}: N^{step:.2f} per step, N^{it:.2f} per "
                         f"Newton iteration" for (structure, solver), (step, it) in fits.items())
    body = [*header, *scaling, "", f"Fitted growth: {fit_text}.", "",
            f"## Cost per simulated second at stable steps (t_end = {args.t_end} s)", "",
            *costs]
    if args.claims:
        body += ["", "## Stability limits and the articles' claims", "",
                 *claims_tables(claims_data(args.claims_rows))]
    (RESULTS / "springs.md").write_text("\n".join(body) + "\n", encoding="utf-8")
    print("\n".join(body))


if __name__ == "__main__":
    main()
