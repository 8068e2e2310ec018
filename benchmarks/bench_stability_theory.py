"""The springs' linear stability theory on the cloth preset: BLAS threads as given against one.

The theory limits of ``flocklab stability springs --preset cloth`` (the model's preset
"cloth": 10 x 10, 294 free coordinates) are dense eigenvalue problems of the one-step matrix
G(h), shape 588 x 588, one per step tried (sweep and bisections; the stability-function
methods need one of the generator only). The cloth's spring dampers act along the springs
while its stiffness has the tension's transverse part, so C is not a combination of M and K
(printed: the relative commutator of M^-1/2 K M^-1/2 and M^-1/2 C M^-1/2) and no modal
decomposition reduces G(h) to 2 x 2 blocks: every step needs its own dense problem.

In one process, for each partitioned method (the others use the generator's eigenvalues):
the limits at the tolerance and at the rate threshold, with NumPy's OpenBLAS on the threads
it was given (``OPENBLAS_NUM_THREADS`` or all cores) and on one
(:func:`flocklab.core.threads.blas_threads`), interleaved over ``--rounds``; the number of
eigenvalue problems, the median times, and whether the limits agree (relative 1e-8).

Writes ``benchmarks/results/stability_theory.md``.

Usage::

    .venv/bin/python benchmarks/bench_stability_theory.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from flocklab.core.registry import get_model
from flocklab.core.threads import _numpy_openblas, blas_threads
from flocklab.models.springs.stability import (
    RATE_THEORY_REFINE,
    RATE_THRESHOLD,
    linearise,
    theory_dt_max,
)

METHODS = ("semi_implicit_euler", "velocity_verlet", "position_verlet",
           "implicit_euler_diagonal")
RESULTS = Path(__file__).resolve().parent / "results"


def cloth_system():
    """The linear system of the model's preset "cloth" at its equilibrium."""
    model = get_model("springs")
    preset = next(p for p in model.presets if p.name == "cloth")
    params = {k: v for k, v in preset.params.items() if k != "integrator"}
    return linearise(model.build(model.resolve(params)))


def commutator(lin) -> float:
    """||AB - BA|| / (||A|| ||B||) of the mass-scaled stiffness A and damping B (Frobenius)."""
    scale = 1.0 / np.sqrt(lin.mass)
    a = scale[:, None] * lin.stiffness * scale[None, :]
    b = scale[:, None] * lin.damping * scale[None, :]
    return float(np.linalg.norm(a @ b - b @ a) / (np.linalg.norm(a) * np.linalg.norm(b)))


def limits(method: str, lin, mu: np.ndarray) -> tuple[float, float, int]:
    """Theory limits at the tolerance and at the rate threshold, and the radii computed."""
    cache: dict[float, float] = {}
    first = theory_dt_max(method, lin, generator_eigenvalues=mu, radii=cache)
    second = theory_dt_max(method, lin, tolerance=math.expm1(RATE_THRESHOLD),
                           refine=RATE_THEORY_REFINE, generator_eigenvalues=mu, radii=cache)
    return first.dt_max, second.dt_max, len(cache)


def timed(method: str, lin, mu: np.ndarray, one_thread: bool) -> tuple[float, tuple]:
    start = time.perf_counter()
    if one_thread:
        with blas_threads(1):
            result = limits(method, lin, mu)
    else:
        result = limits(method, lin, mu)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    lin = cloth_system()
    mu = np.linalg.eigvals(lin.generator())
    found = _numpy_openblas()
    threads = int(found[0]()) if found else 0
    rows = []
    for method in METHODS:
        times: dict[bool, list[float]] = {False: [], True: []}
        results: dict[bool, tuple] = {}
        for _ in range(args.rounds):
            for one in (False, True):
                seconds, results[one] = timed(method, lin, mu, one)
                times[one].append(seconds)
        agree = all(a == b or math.isclose(a, b, rel_tol=1e-8)
                    for a, b in zip(results[False][:2], results[True][:2], strict=True))
        rows.append((method, results[True][2], statistics.median(times[False]),
                     statistics.median(times[True]), results[True][0], agree))
        print(rows[-1], flush=True)
    lines = [f"# Linear stability theory of the cloth preset ({platform.machine()}, "
             f"{platform.python_version()})", "",
             f"G(h) is {2 * lin.mass.size} x {2 * lin.mass.size}; relative commutator of the "
             f"mass-scaled stiffness and damping: {commutator(lin):.3g} (not zero: no modal "
             f"shortcut). BLAS threads as given: {threads or 'unknown'}; median of "
             f"{args.rounds} interleaved rounds.", "",
             "| method | eigenvalue problems | as given (s) | one thread (s) | dt_max (s) | "
             "limits agree |", "|---|---|---|---|---|---|"]
    lines += [f"| {m} | {n} | {a:.2f} | {b:.2f} | {dt:.6g} | {'yes' if ok else 'NO'} |"
              for m, n, a, b, dt, ok in rows]
    total = [sum(r[2] for r in rows), sum(r[3] for r in rows)]
    lines += ["", f"Total: {total[0]:.1f} s as given, {total[1]:.1f} s on one thread."]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "stability_theory.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
