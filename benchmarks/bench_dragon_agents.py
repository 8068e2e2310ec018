"""Benchmark of the dragon_agents engine against the article's formulation, and a solver
comparison as the penalty stiffness grows.

1. Speed: N = 223 units (the contest dragon), 300 s on the article's circle (radius 15 m,
   0.3 rad/s), Radau with the analytic banded Jacobian (this engine), against the same
   problem written as the article writes it (Python loop over units on the block layout,
   ``solve_ivp(method="Radau")`` without ``jac``, i.e. a dense finite-difference
   Jacobian), in the same run and on the same span (``--article-span``, default 300 s;
   nothing is extrapolated). Also LSODA with the band Jacobian on that span, and Radau
   with a finite-difference Jacobian on the sparsity pattern (10 s).
2. Stiffness: for k_penalty = 1e2 .. 1e6 (N = 10, 5 s), every method's wall and CPU time,
   nfev, steps and error against a tight Radau reference (rtol 1e-11), through
   :func:`flocklab.models.dragon_agents.solvers.compare_solvers` (the model's ``solvers`` task).

Writes ``benchmarks/results/dragon_agents.md``. Run:
``PYTHONPATH=src python benchmarks/bench_dragon_agents.py [--article-span 300]
[--budget-ratio 60] [--sections speed]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from flocklab.models.dragon_agents import DragonAgents
from flocklab.models.dragon_agents.engine import initial_state, simulate_dragon
from flocklab.models.dragon_agents.solve import METHODS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracles"))
from flocklab_oracles.dragon_agents import (
    article_rhs,
    circular_path_velocity,
    from_block_layout,
    to_block_layout,
)

resolve = DragonAgents().resolve

RESULTS = Path(__file__).parent / "results" / "dragon_agents.md"
BIG = {"N": 223, "start": "behind", "method": "Radau", "rtol": 1e-6, "atol": 1e-9}
T_FULL = 300.0


def timed(fun, *args, **kwargs):
    start = time.perf_counter()
    out = fun(*args, **kwargs)
    return out, time.perf_counter() - start


def timed_cpu(fun, *args, **kwargs):
    """``(out, wall seconds, CPU seconds of this process)``: on a shared machine the CPU
    time is the fairer comparison."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fun(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def engine_run(span: float, **extra):
    """This engine on ``[0, span]``: ``(solution, wall s, CPU s)``."""
    t = np.linspace(0.0, span, round(span * 2) + 1)
    return timed_cpu(simulate_dragon, {**BIG, **extra}, t)


class BudgetExceeded(RuntimeError):
    """The article-style solve used up its CPU budget before reaching the end of its span."""


def article_run(span: float, budget: float = np.inf, report_every: float = 60.0):
    """The article's RHS (loop, block layout), Radau, no Jacobian: dense FD.

    Prints the largest time reached every ``report_every`` CPU seconds, so that a run
    stopped before ``span`` still gives a measured rate. Once the solve has used
    ``budget`` CPU seconds it is stopped, and ``(None, wall s, CPU s, t reached)`` is
    returned: a censored measurement, the CPU time to reach ``span`` is larger than that.
    Otherwise ``(solution, wall s, CPU s, span)``."""
    p = resolve(BIG)
    y0 = to_block_layout(initial_state(p))

    def v_desired(t, head):
        return circular_path_velocity(t, head, radius=15.0, angular_speed=0.3)

    wall0, cpu0 = time.perf_counter(), time.process_time()
    progress = {"t": 0.0, "next": cpu0 + report_every}

    def rhs(t, y, *args):
        progress["t"] = max(progress["t"], t)
        if time.process_time() - cpu0 > budget:
            raise BudgetExceeded
        if time.process_time() >= progress["next"]:
            progress["next"] += report_every
            print(f"article style: t = {progress['t']:.2f} s reached after "
                  f"{time.process_time() - cpu0:.0f} s CPU, "
                  f"{time.perf_counter() - wall0:.0f} s wall", flush=True)
        return article_rhs(t, y, *args)

    args = (p["N"], p["L"], p["k_a"], p["k_c"], p["k_p"], p["k_d"], p["k_penalty"], v_desired)
    t = np.linspace(0.0, span, round(span * 2) + 1)
    try:
        sol, wall, cpu = timed_cpu(solve_ivp, rhs, (0.0, span), y0, method="Radau",
                                   t_eval=t, args=args, rtol=p["rtol"], atol=p["atol"])
    except BudgetExceeded:
        return (None, time.perf_counter() - wall0, time.process_time() - cpu0,
                progress["t"])
    return sol, wall, cpu, span


def article_rhs_seconds(repeat: int = 20) -> float:
    """Wall time of one call of the article's loop RHS at N = 223 (s)."""
    p = resolve(BIG)
    y0 = to_block_layout(initial_state(p))

    def v_desired(t, head):
        return circular_path_velocity(t, head, radius=15.0, angular_speed=0.3)

    args = (p["N"], p["L"], p["k_a"], p["k_c"], p["k_p"], p["k_d"], p["k_penalty"], v_desired)
    _, seconds = timed(lambda: [article_rhs(0.0, y0, *args) for _ in range(repeat)])
    return seconds / repeat


def speed_section(article_span: float, budget_ratio: float) -> list[str]:
    """Engine and article style on the same span (300 s unless ``article_span`` says).

    The article-style solve gets ``budget_ratio`` times the engine's CPU time; if it has
    not reached the end of the span by then, the ratio is reported as a measured lower
    bound (``>= budget_ratio``) with the time it had reached."""
    lines = [f"## Speed: N = 223, article's circle, Radau, [0, {article_span:g}] s", ""]
    engine_run(1.0)  # compile the kernels outside the timing
    mine, s_mine, c_mine = engine_run(article_span)
    print(_row("engine Radau, analytic banded Jacobian", article_span, s_mine, c_mine, mine),
          flush=True)
    lsoda, s_lsoda, c_lsoda = engine_run(article_span, method="LSODA")
    print(_row("engine LSODA, band Jacobian", article_span, s_lsoda, c_lsoda, lsoda),
          flush=True)
    budget = budget_ratio * c_mine
    print(f"article style: CPU budget {budget:.0f} s ({budget_ratio:g} x engine)", flush=True)
    art, s_art, c_art, reached = article_run(article_span, budget)
    per_call = article_rhs_seconds()
    lines += [
        "| run | span (s) | wall (s) | CPU (s) | nfev | njev | nlu | steps |",
        "|---|---|---|---|---|---|---|---|",
        _article_row(art, article_span, reached, s_art, c_art),
        _row("engine Radau, analytic banded Jacobian", article_span, s_mine, c_mine, mine),
        _row("engine LSODA, band Jacobian", article_span, s_lsoda, c_lsoda, lsoda),
        "",
    ]
    if art is None:
        verdict = (f"the article style was stopped at its budget of {c_art:.0f} s CPU "
                   f"({budget_ratio:g} x the engine's {c_mine:.2f} s CPU) having reached only "
                   f"t = {reached:.1f} s of the {article_span:g} s, so the ratio on the full "
                   f"span is **> {c_art / c_mine:.0f}x** in CPU time (a measured lower bound; "
                   f"wall {s_art:.0f} s against {s_mine:.2f} s)")
    else:
        states = np.array([from_block_layout(col) for col in art.y.T])
        gap = np.abs(states - mine.states.reshape(len(mine.t), -1)).max()
        verdict = (f"article style {c_art:.1f} s CPU ({s_art:.1f} s wall), engine "
                   f"{c_mine:.2f} s CPU ({s_mine:.2f} s wall), ratio **{c_art / c_mine:.0f}x** "
                   f"in CPU time ({s_art / s_mine:.0f}x in wall time); largest state "
                   f"difference {gap:.2e} (both rtol 1e-6, atol 1e-9)")
    lines += [f"Measured in this run on the same span [0, {article_span:g}] s: {verdict}. One "
              f"article-style RHS call: {per_call * 1e3:.2f} ms; each dense FD Jacobian costs "
              f"{4 * BIG['N']} calls.", ""]
    return lines


def _article_row(art, span: float, reached: float, wall: float, cpu: float) -> str:
    name = "article style (loop RHS, dense FD Jacobian)"
    if art is None:
        return (f"| {name}, stopped at its CPU budget at t = {reached:.1f} s | {span:g} | "
                f"> {wall:.0f} | > {cpu:.0f} | - | - | - | - |")
    return (f"| {name} | {span:g} | {wall:.1f} | {cpu:.1f} | {art.nfev} | {art.njev} | "
            f"{art.nlu} | - |")


def jacobian_section(span: float) -> list[str]:
    from flocklab.models.dragon_agents.engine import build_system
    from flocklab.models.dragon_agents.solve import integrate

    p = resolve(BIG)
    system = build_system(p)
    t = np.linspace(0.0, span, round(span * 2) + 1)
    lines = [f"## Jacobian variants, N = 223, [0, {span:g}] s, Radau", "",
             "| Jacobian | wall (s) | nfev | njev | nlu |", "|---|---|---|---|---|"]
    for kind in ("analytic", "sparsity", "dense_fd"):
        sol, seconds = timed(integrate, system, initial_state(p), t, method="Radau",
                             rtol=p["rtol"], atol=p["atol"], jacobian=kind)
        s = sol.stats
        lines.append(f"| {kind} | {seconds:.2f} | {s['nfev']} | {s['njev']} | {s['nlu']} |")
    return [*lines, ""]


def _row(name: str, span: float, seconds: float, cpu: float, sol) -> str:
    s = sol.stats
    return (f"| {name} | {span:g} | {seconds:.2f} | {cpu:.2f} | {s['nfev']} | {s['njev']} | "
            f"{s['nlu']} | {s['steps']} |")


def stiffness_section(n: int = 10, t_end: float = 5.0,
                      tolerances: tuple = ((1e-6, 1e-9), (1e-4, 1e-6))) -> list[str]:
    """Every method at k_penalty 1e2 .. 1e6 and two tolerances
    (:func:`flocklab.models.dragon_agents.solvers.compare_solvers`), against Radau at rtol 1e-11."""
    from flocklab.models.dragon_agents.solvers import compare_solvers

    lines = [f"## Solvers as k_penalty grows (N = {n}, t_end = {t_end:g} s, circle R = 15 m, "
             f"0.3 rad/s)", "",
             "Error: largest |position difference| (m) over the records against Radau with "
             "rtol 1e-11, atol 1e-13. CPU: process time of the solve.", "",
             "| k_penalty | rtol, atol | method | wall (s) | CPU (s) | nfev | njev | nlu | "
             "steps | error (m) |", "|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for rtol, atol in tolerances:
        rows += compare_solvers({"N": n}, (1e2, 1e3, 1e4, 1e5, 1e6), METHODS, rtol, atol,
                                t_end, records=51, reference=("Radau", 1e-11, 1e-13))
    for row in sorted(rows, key=lambda row: (row["k_penalty"], row["rtol"])):
        lines.append(f"| {row['k_penalty']:.0e} | {row['rtol']:.0e}, {row['atol']:.0e} | "
                     f"{row['method']} | {row['wall_s']:.3f} | {row['cpu_s']:.3f} | "
                     f"{row['nfev']} | {row['njev']} | {row['nlu']} | {row['steps']} | "
                     f"{row['error_m']:.1e} |")
    return [*lines, ""]


CLAIM_BASE = {"N": 20, "path": {"kind": "turnaround"}, "guidance": "reference",
              "cross_track_gain": 1.0, "method": "LSODA", "rtol": 1e-6, "atol": 1e-9}
CLAIM_SWEEPS = {
    "k_a": (0.1, 0.3, 1.0, 3.0, 10.0, 30.0),
    "k_c": (0.1, 0.5, 2.0, 5.0, 20.0, 100.0),
    "k_d": (0.05, 0.15, 0.5, 1.5, 5.0),
}


def claim_metrics(params: dict, t_end: float = 90.0, turn_start: float = 35.0) -> dict:
    """Metrics of one run on the contest turnaround (head enters the S-curve near 38 s)
    and of one run entering a circle (radius 10 m, 1 m/s) from the straight start."""
    from flocklab.models.dragon_agents import metrics as dm
    from flocklab.models.dragon_agents.engine import build_system

    t = np.linspace(0.0, t_end, int(t_end / 0.05) + 1)
    sol = simulate_dragon({**CLAIM_BASE, **params}, t)
    guide = build_system(resolve({**CLAIM_BASE, **params})).guide
    keep = t >= turn_start
    whip = dm.rigid_chain_deviation(sol.x[keep], sol.y[keep], guide, 1.0)[:, -1]
    dev = dm.link_deviation(sol.x, sol.y, 1.0)
    circle = {**CLAIM_BASE, **params,
              "path": {"kind": "circle", "radius": 10.0, "angular_speed": 0.1}}
    t2 = np.linspace(0.0, 120.0, 2401)
    entry = simulate_dragon(circle, t2)
    lag = dm.rigid_chain_deviation(entry.x, entry.y, build_system(resolve(circle)).guide,
                                   1.0)[:, -1]
    final = lag[-200:].mean()
    return {"whip (m)": whip.max(),
            "oscillation (m^2)": dm.oscillation_power(t[keep], dev[keep], 0.5),
            "link error mean (m)": dev[keep].mean(),
            "alignment": float(np.nanmean(dm.velocity_alignment(sol.vx, sol.vy)[keep])),
            "circle settling (s)": dm.settling_time(t2, lag, 0.0, band=0.1, rel=0.05),
            "circle overshoot (m)": lag.max() - final,
            "circle final (m)": final,
            "steps": sol.stats["steps"]}


def claims_section() -> list[str]:
    lines = ["## The article's claims, one gain at a time (N = 20, reference guidance with "
             "cross-track gain 1/s, other gains as the article)", "",
             "Turnaround (the contest path, 1 m/s), t >= 35 s (the head enters the S-curve "
             "at about 38 s): whip = largest distance of the tail from where a rigid chain "
             "on the path would be (flocklab.geometry.chain.follow, anchored at the head); "
             "oscillation = link-error power above 0.5 Hz; alignment = mean over time. "
             "Circle entry (radius 10 m, 1 m/s, 120 s, from the straight start tangent to "
             "it), on the tail's distance from the rigid chain: settling = time until it "
             "stays within 0.1 m (or 5 %) of its final value (mean of the last 10 s); "
             "overshoot = its largest value minus the final one.", ""]
    for gain, values in CLAIM_SWEEPS.items():
        rows = [(v, claim_metrics({gain: v})) for v in values]
        names = list(rows[0][1])
        lines += [f"| {gain} | " + " | ".join(names) + " |",
                  "|---" * (len(names) + 1) + "|"]
        for value, out in rows:
            lines.append(f"| {value:g} | " + " | ".join(f"{out[n]:.3g}" for n in names)
                         + " |")
            print(lines[-1], flush=True)
        lines.append("")
    return lines


def delay_section() -> list[str]:
    """Large k_a with and without a perception delay (circle entry, N = 10, 30 s)."""
    from flocklab.core.model import SimulationError
    from flocklab.models.dragon_agents import metrics as dm

    base = {"N": 10, "path": {"kind": "circle", "radius": 10.0, "angular_speed": 0.1},
            "guidance": "reference", "cross_track_gain": 1.0, "method": "DOP853",
            "rtol": 1e-6, "atol": 1e-9}
    t = np.linspace(0.0, 30.0, 601)
    keep = t >= 10.0
    lines = ["## Alignment gain and perception delay (circle entry, N = 10, 30 s, DOP853)",
             "", "Over t >= 10 s: link-error power above 0.5 Hz, largest link error, "
             "largest deviation of a unit's velocity from the chain's mean velocity.", "",
             "| k_a | tau (s) | oscillation (m^2) | max link error (m) | velocity spread "
             "(m/s) |", "|---|---|---|---|---|"]
    for k_a in (2.0, 10.0, 30.0):
        for tau in (0.0, 0.1, 0.3):
            try:
                sol = simulate_dragon({**base, "k_a": k_a, "delay": tau}, t)
            except SimulationError as error:
                when = str(error).split("(")[0].replace("dragon_agents ", "")
                lines.append(f"| {k_a:g} | {tau:g} | {when.strip()} | | |")
                continue
            dev = dm.link_deviation(sol.x, sol.y, 1.0)[keep]
            spread = np.hypot(sol.vx - sol.vx.mean(1, keepdims=True),
                              sol.vy - sol.vy.mean(1, keepdims=True))[keep].max()
            lines.append(f"| {k_a:g} | {tau:g} | "
                         f"{dm.oscillation_power(t[keep], dev, 0.5):.2e} | "
                         f"{dev.max():.2e} | {spread:.3g} |")
            print(lines[-1], flush=True)
    return [*lines, ""]


PROJECTION_PATHS = {
    "spiral": {"kind": "spiral", "pitch": 1.7, "r_start": 12.0, "r_end": 4.5, "speed": 1.0},
    "turnaround": {"kind": "turnaround"},
    "s_curve": {"kind": "s_curve", "radius": 5.0, "speed": 1.0},
    "figure_eight": {"kind": "figure_eight", "radius": 5.0, "speed": 1.0},
}


def projection_section(points: int = 200, t_end: float = 10.0) -> list[str]:
    """The tangent law's head projection: the path library's vectorised projection (what
    the law used before) against the scalar ``nearest_frame``, per call and per run."""
    from flocklab.geometry.compiled import nearest_frame
    from flocklab.models.dragon_agents.guidance import make_guide

    def library_frame(path, p):
        s = path.project(p)
        return path.frame(s), path.curvature(s)

    lines = ["## Tangent law: head projection per call (random points in [-15, 15]^2 m)", "",
             "| path | paths.project + frame + curvature (ms) | nearest_frame (us) | ratio |",
             "|---|---|---|---|"]
    rng = np.random.default_rng(0)
    for name, spec in PROJECTION_PATHS.items():
        path = make_guide(spec).path
        pts = rng.uniform(-15.0, 15.0, (points, 2))
        nearest_frame(path, pts[0])  # compile
        _, slow = timed(lambda path=path, pts=pts: [library_frame(path, p) for p in pts])
        _, fast = timed(lambda path=path, pts=pts: [nearest_frame(path, p) for p in pts])
        lines.append(f"| {name} | {slow / points * 1e3:.2f} | {fast / points * 1e6:.1f} | "
                     f"{slow / fast:.0f}x |")
    lines += ["", f"Whole runs with the tangent law (N = 20, {t_end:g} s, cross-track gain "
              "1/s), scalar projection:", "", "| path | method | wall (s) | nfev |",
              "|---|---|---|---|"]
    t = np.linspace(0.0, t_end, 201)
    for name in ("spiral", "turnaround"):
        for method in ("LSODA", "Radau"):
            params = {"N": 20, "path": PROJECTION_PATHS[name], "guidance": "tangent",
                      "cross_track_gain": 1.0, "method": method}
            sol, seconds = timed(simulate_dragon, params, t)
            lines.append(f"| {name} | {method} | {seconds:.2f} | {sol.stats['nfev']} |")
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--article-span", type=float, default=T_FULL,
                        help="seconds of motion the article-style solve is timed on")
    parser.add_argument("--budget-ratio", type=float, default=60.0,
                        help="CPU budget of the article-style solve, in multiples of the "
                             "engine's CPU time on the same span (inf: no budget)")
    parser.add_argument("--sections", default="speed,jacobian,stiffness,claims,delay,projection",
                        help="comma-separated subset of speed, jacobian, stiffness, claims, "
                             "delay, projection")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    sections = args.sections.split(",")
    lines = ["# dragon_agents benchmark", "",
             "Machine: 2 cores shared with other jobs; wall times are single runs.", ""]
    if "speed" in sections:
        lines += speed_section(args.article_span, args.budget_ratio)
        print("\n".join(lines), flush=True)
    if "jacobian" in sections:
        lines += jacobian_section(min(args.article_span, 10.0))
    if "stiffness" in sections:
        lines += stiffness_section()
    if "claims" in sections:
        lines += claims_section()
    if "delay" in sections:
        lines += delay_section()
    if "projection" in sections:
        lines += projection_section()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
