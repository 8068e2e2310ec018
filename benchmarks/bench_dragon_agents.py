"""Benchmark of the dragon_agents engine against the article's formulation, and a solver
comparison as the penalty stiffness grows.

1. Speed: N = 223 units (the contest dragon), 300 s on the article's circle (radius 15 m,
   0.3 rad/s), Radau with the analytic banded Jacobian (this engine), against the same
   problem written as the article writes it (Python loop over units on the block layout,
   ``solve_ivp(method="Radau")`` without ``jac``, i.e. a dense finite-difference
   Jacobian), in the same run. The article-style solve is timed on ``[0, --article-span]``
   and extrapolated linearly to 300 s unless ``--article-span 300``; the engine is timed
   on both spans. Also Radau with a finite-difference Jacobian on the sparsity pattern
   and LSODA with the band Jacobian.
2. Stiffness: for k_penalty = 1e2 .. 1e6 (N = 10, 5 s), every method's wall time, nfev,
   steps and error against a tight Radau reference (rtol 1e-11).

Writes ``benchmarks/results/dragon_agents.md``. Run:
``PYTHONPATH=src python benchmarks/bench_dragon_agents.py [--article-span 20]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from flocklab.dragon_agents import METHODS, simulate_dragon
from flocklab.dragon_agents.article import (
    article_rhs,
    circular_path_velocity,
    from_block_layout,
    to_block_layout,
)
from flocklab.dragon_agents.engine import initial_state, resolve

RESULTS = Path(__file__).parent / "results" / "dragon_agents.md"
BIG = {"N": 223, "start": "behind", "method": "Radau", "rtol": 1e-6, "atol": 1e-9}
T_FULL = 300.0


def timed(fun, *args, **kwargs):
    start = time.perf_counter()
    out = fun(*args, **kwargs)
    return out, time.perf_counter() - start


def engine_run(span: float, **extra):
    t = np.linspace(0.0, span, int(round(span * 2)) + 1)
    return timed(simulate_dragon, {**BIG, **extra}, t)


def article_run(span: float):
    """The article's RHS (loop, block layout), Radau, no Jacobian: dense FD."""
    p = resolve(BIG)
    y0 = to_block_layout(initial_state(p))

    def v_desired(t, head):
        return circular_path_velocity(t, head, radius=15.0, angular_speed=0.3)

    args = (p["N"], p["L"], p["k_a"], p["k_c"], p["k_p"], p["k_d"], p["k_penalty"], v_desired)
    t = np.linspace(0.0, span, int(round(span * 2)) + 1)
    sol, seconds = timed(solve_ivp, article_rhs, (0.0, span), y0, method="Radau",
                         t_eval=t, args=args, rtol=p["rtol"], atol=p["atol"])
    return sol, seconds


def speed_section(article_span: float) -> list[str]:
    lines = ["## Speed: N = 223, 300 s, article's circle, Radau", ""]
    mine_short, s_short = engine_run(article_span)
    art, s_art = article_run(article_span)
    states = np.array([from_block_layout(col) for col in art.y.T])
    gap = np.abs(states - mine_short.states.reshape(len(mine_short.t), -1)).max()
    mine, s_full = engine_run(T_FULL)
    lsoda, s_lsoda = engine_run(T_FULL, method="LSODA")
    extrapolated = s_art * T_FULL / article_span
    lines += [
        "| run | span (s) | wall (s) | nfev | njev | nlu | steps |",
        "|---|---|---|---|---|---|---|",
        f"| article style (loop RHS, dense FD Jacobian) | {article_span:g} | {s_art:.1f} | "
        f"{art.nfev} | {art.njev} | {art.nlu} | - |",
        _row("engine Radau, analytic banded Jacobian", article_span, s_short, mine_short),
        _row("engine Radau, analytic banded Jacobian", T_FULL, s_full, mine),
        _row("engine LSODA, band Jacobian", T_FULL, s_lsoda, lsoda),
        "",
        f"Same span [0, {article_span:g}] s: article style {s_art:.1f} s, engine "
        f"{s_short:.2f} s, ratio **{s_art / s_short:.0f}x**; largest state difference "
        f"{gap:.2e} (both rtol 1e-6, atol 1e-9).",
        f"300 s: engine {s_full:.1f} s; article style extrapolated linearly from "
        f"{article_span:g} s: {extrapolated:.0f} s, ratio **{extrapolated / s_full:.0f}x** "
        f"(extrapolated, not measured over 300 s).",
        "",
    ]
    return lines


def jacobian_section(span: float) -> list[str]:
    from flocklab.dragon_agents.engine import build_system
    from flocklab.dragon_agents.solve import integrate

    p = resolve(BIG)
    system = build_system(p)
    t = np.linspace(0.0, span, int(round(span * 2)) + 1)
    lines = [f"## Jacobian variants, N = 223, [0, {span:g}] s, Radau", "",
             "| Jacobian | wall (s) | nfev | njev | nlu |", "|---|---|---|---|---|"]
    for kind in ("analytic", "sparsity", "dense_fd"):
        sol, seconds = timed(integrate, system, initial_state(p), t, method="Radau",
                             rtol=p["rtol"], atol=p["atol"], jacobian=kind)
        s = sol.stats
        lines.append(f"| {kind} | {seconds:.2f} | {s['nfev']} | {s['njev']} | {s['nlu']} |")
    return [*lines, ""]


def _row(name: str, span: float, seconds: float, sol) -> str:
    s = sol.stats
    return (f"| {name} | {span:g} | {seconds:.2f} | {s['nfev']} | {s['njev']} | {s['nlu']} | "
            f"{s['steps']} |")


def stiffness_section(n: int = 10, t_end: float = 5.0) -> list[str]:
    lines = [f"## Solvers as k_penalty grows (N = {n}, t_end = {t_end:g} s, circle R = 15 m, "
             f"0.3 rad/s, rtol 1e-6, atol 1e-9)", "",
             "Error: largest |position difference| (m) over the records against Radau with "
             "rtol 1e-11, atol 1e-13.", "",
             "| k_penalty | method | wall (s) | nfev | njev | nlu | steps | error (m) |",
             "|---|---|---|---|---|---|---|---|"]
    t = np.linspace(0.0, t_end, 51)
    for k_pen in (1e2, 1e3, 1e4, 1e5, 1e6):
        base = {"N": n, "k_penalty": k_pen}
        ref = simulate_dragon({**base, "method": "Radau", "rtol": 1e-11, "atol": 1e-13}, t)
        for method in METHODS:
            sol, seconds = timed(simulate_dragon, {**base, "method": method}, t)
            err = np.abs(sol.states[..., :2] - ref.states[..., :2]).max()
            s = sol.stats
            lines.append(f"| {k_pen:.0e} | {method} | {seconds:.3f} | {s['nfev']} | "
                         f"{s['njev']} | {s['nlu']} | {s['steps']} | {err:.1e} |")
            print(lines[-1], flush=True)
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--article-span", type=float, default=20.0,
                        help="seconds of motion the article-style solve is timed on")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    lines = ["# dragon_agents benchmark", "",
             "Machine: 2 cores shared with other jobs; wall times are single runs.", ""]
    if not args.skip_speed:
        lines += speed_section(args.article_span)
        print("\n".join(lines), flush=True)
        lines += jacobian_section(min(args.article_span, 10.0))
    lines += stiffness_section()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
