r"""Integrators compared as the penalty stiffness grows: cost, work and accuracy.

The bench-dragon article (:data:`flocklab.references.BENCH_DRAGON_ARTICLE`, section 4) warns
that the penalty constraint makes the dragon ODE stiff: the link modes have frequencies
:math:`\omega \approx \sqrt{2 k_\mathrm{pen}/m}` (Jacobian eigenvalues :math:`\approx -k_d/m
\pm i\omega`), so an explicit method's step is bounded by its stability region, :math:`h
\lesssim C/\omega \propto k_\mathrm{pen}^{-1/2}`, and it advises Radau or BDF.
:func:`compare_solvers` measures that: for every penalty stiffness and method, the CPU and
wall time of the solve, ``solve_ivp``'s statistics, and the largest position error over the
records against a tight-tolerance reference (default DOP853 at rtol 1e-12, atol 1e-14: on N
= 10, 2 s, it agrees with Radau at rtol 1e-11, atol 1e-13 within 1e-12 m at k_pen = 1e4 and
1e6, for a tenth of the CPU time). :func:`growth_exponents` fits :math:`\log(\cdot) = a + b
\log k_\mathrm{pen}` per method: :math:`b \approx 1/2` for a stability-limited step count.

Used by the ``solvers`` task of the model (:mod:`flocklab.models.dragon_agents.tasks`) and by
``benchmarks/bench_dragon_agents.py``.

Reference: E. Hairer, G. Wanner, *Solving ODEs II*, 2nd ed., Springer 1996, sections IV.2–3
(stability regions; Radau IIA), IV.5 (BDF's loss of A-stability near the imaginary axis).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flocklab.models.dragon_agents.engine import simulate_dragon

#: The reference solve: (method, rtol, atol).
REFERENCE = ("DOP853", 1e-12, 1e-14)


def compare_solvers(base: Mapping[str, Any], k_penalties: Sequence[float],
                    methods: Sequence[str], rtol: float = 1e-6, atol: float = 1e-9,
                    t_end: float = 2.0, records: int = 51,
                    reference: tuple[str, float, float] = REFERENCE
                    ) -> list[dict[str, Any]]:
    """Every method at every penalty stiffness on the motion of ``base``.

    Parameters
    ----------
    base : mapping
        Model parameters shared by all solves (``k_penalty``, ``method``, ``rtol``,
        ``atol`` are overridden).
    k_penalties : sequence of float
        Penalty stiffnesses (N/m).
    methods : sequence of str
        ``solve_ivp`` methods (implicit ones get the analytic banded Jacobian).
    rtol, atol : float
        Tolerances of the compared solves.
    t_end : float
        Span of each solve (s), recorded at ``records`` equally spaced times.
    reference : (str, float, float)
        (method, rtol, atol) of the reference each error is measured against.

    Returns
    -------
    list of dict
        One row per (k_penalty, method): ``cpu_s`` (process CPU time), ``wall_s``,
        ``nfev``, ``njev``, ``nlu``, ``steps`` and ``error_m`` = max over records and units
        of the position difference from the reference (m). Times are single runs after
        a warm-up that compiles every kernel; they are not reproducible to the byte.
    """
    t = np.linspace(0.0, t_end, records)
    simulate_dragon({**base, "method": "Radau"}, t[:3])  # compile outside the timing
    rows = []
    for k_pen in k_penalties:
        params = {**base, "k_penalty": float(k_pen)}
        ref = simulate_dragon({**params, "method": reference[0], "rtol": reference[1],
                               "atol": reference[2]}, t)
        for method in methods:
            wall, cpu = time.perf_counter(), time.process_time()
            sol = simulate_dragon({**params, "method": method, "rtol": rtol, "atol": atol}, t)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            error = np.hypot(*(sol.states[..., k] - ref.states[..., k] for k in (0, 1)))
            rows.append({"k_penalty": float(k_pen), "method": method, "rtol": rtol,
                         "atol": atol, "cpu_s": cpu, "wall_s": wall,
                         **{key: int(sol.stats[key]) for key in ("nfev", "njev", "nlu",
                                                                  "steps")},
                         "error_m": float(error.max())})
    return rows


def growth_exponents(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, float]:
    r"""Per method, the slope :math:`b` of :math:`\log(\text{key}) = a + b \log
    k_\mathrm{pen}` (least squares over the rows with a positive value; NaN with fewer than
    two)."""
    slopes = {}
    for method in dict.fromkeys(row["method"] for row in rows):
        pairs = [(row["k_penalty"], row[key]) for row in rows
                 if row["method"] == method and row[key] > 0]
        if len(pairs) < 2:
            slopes[method] = float("nan")
            continue
        x, y = np.log(np.array(pairs, dtype=float)).T
        slopes[method] = float(np.polyfit(x, y, 1)[0])
    return slopes
