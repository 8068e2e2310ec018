"""Sizing of finite-size-scaling studies of the Vicsek noise transition.

For the standard 2-D Vicsek model (Vicsek et al., Phys. Rev. Lett. 75, 1226, 1995) at density
rho = N / L^2 = 4, speed v0 = 0.03, radius r = 1, angular noise and the paper's position update
(``update: backward``), from an aligned start, the script measures, for each box side L:

1. the pseudo-critical noise eta*(L): a coarse scan of <v_a>, chi = N var(v_a) and the Binder
   cumulant G = 1 - <v^4> / (3 <v^2>^2) against eta with :func:`flocklab.sweep`, then long runs
   (:func:`flocklab.simulate`) on a grid of step 0.1 around the coarse maximum of chi, widened
   while the maximum lies at an end of the grid; eta*(L) is the grid maximum and the vertex of
   the parabola through it and its neighbours (error: chi redrawn within its errors);
2. the integrated autocorrelation time tau_int of v_a (in steps, Sokal's window) at and near
   eta*(L), its growth tau ~ L^z, and the burn-in after an aligned start (the first step at
   which v_a, averaged over blocks of 10 steps, reaches its stationary mean; and the first
   against the second half of the run, z in units of the autocorrelation-corrected error);
3. the kernel cost, CPU seconds per particle-step at each N (two run lengths differenced, so
   set-up cancels) from the uniform start and, as used for the costs, averaged over the long
   runs (the stationary state is clustered and costs several times more per particle), and
   the fixed start-up of a run in a fresh process;
4. from these, the steps a run needs (burn-in + 100 tau_int) and the CPU cost of a study with
   10-12 noise values and 4 or 8 replicates per point for L up to 32, 64, 128 and 256 (the
   last two with tau extrapolated by the fit and the kernel cost measured at their N);
5. a first look at a Binder dip below the disordered value near eta*(L) and at hysteresis:
   random against aligned starts at the same eta near eta*(L) at the largest fully scanned L.

The largest size (L = 64 by default) gets no scan: one long run at eta* of the largest scanned
size (:func:`unscanned_centre`), for tau_int and the cost.

Everything runs on one numba thread: ``NUMBA_NUM_THREADS=1`` is set before numba is imported,
because ``flocklab.simulate(..., threads=1)`` only takes effect once numba has been imported
(the first run of a process would otherwise use every core). CPU seconds are
``time.process_time`` of this process. Runs are deterministic given their seeds; with
``--cache-dir`` their v_a series are kept, and a second invocation reuses them (the CPU seconds
stored with a run are those of its first computation).

Usage::

    .venv/bin/python benchmarks/vicsek_tau.py [--quick] [--cache-dir DIR]
        [--markdown benchmarks/results/vicsek_tau.md] [--json FILE]

``--quick`` (L = 8, 16, short runs, about a minute) checks the script, not the physics.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: Fixed model parameters of every run.
DENSITY = 4.0
V0 = 0.03
RADIUS = 1.0
BASE = {"v0": V0, "r": RADIUS, "noise": "angular", "update": "backward"}
#: Spacing of the fine noise grid (rad).
FINE_STEP = 0.1
#: Run length in units of tau_int that the cost tables assume after the burn-in.
TARGET_TAU = 100
#: Burn-in rule of the cost tables: the larger of these multiples of the measured
#: relaxation time of an aligned start and of tau_int.
BURN_RELAX, BURN_TAU = 3, 10
#: Block length (steps) of the relaxation-time estimate.
RELAX_BLOCK = 10
#: Sokal's window constant (as :mod:`flocklab.analysis.timeseries`).
SOKAL = 5.0


@dataclass(frozen=True)
class SizePlan:
    """What is run at one box side.

    Attributes
    ----------
    L : int
        Box side (N = 4 L^2).
    coarse : tuple of float or None
        ``(first, last, step)`` of the coarse eta grid; None: no scan, one long run at eta*
        extrapolated from the smaller sizes.
    coarse_steps, coarse_reps : int
        Steps and replicates of each coarse point (burn-in: the first fifth).
    fine_steps, fine_reps : int
        Steps and replicates of each long run (statistics after the first tenth).
    fine_half_width : int
        Fine grid points on each side of the centre.
    extend : int
        How many times the fine grid may be widened by one point towards a maximum of chi
        that lies at its end.
    """

    L: int
    coarse: tuple[float, float, float] | None
    coarse_steps: int
    coarse_reps: int
    fine_steps: int
    fine_reps: int
    fine_half_width: int = 2
    extend: int = 2

    @property
    def N(self) -> int:
        """Number of particles."""
        return round(DENSITY * self.L * self.L)


FULL = [SizePlan(8, (2.0, 5.0, 0.25), 20_000, 2, 200_000, 2),
        SizePlan(16, (2.5, 4.75, 0.25), 20_000, 2, 60_000, 2),
        SizePlan(32, (2.6, 4.0, 0.2), 8_000, 2, 100_000, 1, extend=1),
        SizePlan(64, None, 0, 0, 60_000, 1, fine_half_width=0, extend=0)]
QUICK = [SizePlan(8, (2.5, 5.0, 0.5), 5_000, 1, 30_000, 1, 1, 1),
         SizePlan(16, (2.5, 4.5, 0.5), 5_000, 1, 15_000, 1, 1, 1)]
#: Steps of the random-start runs of the hysteresis check (full, quick).
HYSTERESIS_STEPS = {"full": 40_000, "quick": 10_000}
#: Sizes whose kernel cost is measured (full: also the extrapolation sizes 128 and 256).
KERNEL_SIZES = {"full": (8, 16, 32, 64, 128, 256), "quick": (8, 16)}
#: Box sides of the cost tables; those beyond the measured ones use the tau fit.
COST_SIZES = (8, 16, 32, 64, 128, 256)
#: Study budgets to compare with: (largest L, CPU seconds, what).
BUDGETS = ((32, 12 * 60, "default pipeline, ~12 CPU-minutes"),
           (64, 2 * 3600, "reduced config, 2 cores x 1 h"))


# --------------------------------------------------------------------------- running


def set_one_thread() -> None:
    """Make numba use one thread (must run before numba is imported).

    Raises
    ------
    RuntimeError
        If numba was already imported with more threads.
    """
    if "numba" not in sys.modules:
        os.environ["NUMBA_NUM_THREADS"] = "1"
    import numba

    if numba.get_num_threads() != 1:
        numba.set_num_threads(1)
    if numba.get_num_threads() != 1:
        raise RuntimeError("could not restrict numba to one thread")


@dataclass
class Ledger:
    """CPU seconds spent per phase of this benchmark."""

    cpu: dict[str, float] = field(default_factory=dict)
    wall: dict[str, float] = field(default_factory=dict)
    load: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, cpu: float, wall: float, load: float | None = None) -> None:
        """Add ``cpu`` and ``wall`` seconds to ``phase``, noting the 1-min load when its first
        run started (``load``; default now; NaN: not recorded with a cached run)."""
        self.cpu[phase] = self.cpu.get(phase, 0.0) + cpu
        self.wall[phase] = self.wall.get(phase, 0.0) + wall
        self.load.setdefault(phase, os.getloadavg()[0] if load is None else load)


class Runner:
    """Runs of the model, optionally cached as ``.npz`` files.

    Parameters
    ----------
    cache_dir : Path or None
        Where to keep the v_a series of the long runs and the coarse-scan tables.
    ledger : Ledger
        Where the CPU seconds go.
    """

    def __init__(self, cache_dir: Path | None, ledger: Ledger) -> None:
        self.cache_dir = cache_dir
        self.ledger = ledger
        self.memory: dict[str, tuple[np.ndarray, float]] = {}
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)

    def _cached(self, key: str, phase: str, compute: Callable[[], dict[str, np.ndarray]]
                ) -> dict[str, np.ndarray]:
        path = None if self.cache_dir is None else self.cache_dir / f"{key}.npz"
        if path is not None and path.exists():
            with np.load(path) as data:
                out = {name: data[name] for name in data.files}
            self.ledger.add(phase, float(out["cpu"]), float(out["wall"]),
                            float(out["load"]) if "load" in out else float("nan"))
            return out
        load = os.getloadavg()[0]
        cpu, wall = time.process_time(), time.perf_counter()
        out = compute()
        out["cpu"] = np.array(time.process_time() - cpu)
        out["wall"] = np.array(time.perf_counter() - wall)
        out["load"] = np.array(load)
        self.ledger.add(phase, float(out["cpu"]), float(out["wall"]), load)
        if path is not None:
            np.savez(path, **out)
        return out

    def series(self, L: int, eta: float, init: str, steps: int, seed: int, phase: str
               ) -> tuple[np.ndarray, float]:
        """v_a(t), t = 0..steps, of one run and its CPU seconds.

        Parameters
        ----------
        L : int
            Box side (N = 4 L^2).
        eta : float
            Noise amplitude (rad).
        init : {"aligned", "random"}
            Initial headings.
        steps, seed : int
            Run length and seed.
        phase : str
            Ledger entry.
        """
        import flocklab

        n = round(DENSITY * L * L)

        def compute() -> dict[str, np.ndarray]:
            ds = flocklab.simulate("vicsek", N=n, L=float(L), eta=float(eta), init=init,
                                   steps=steps, seed=seed, threads=1, progress=False, **BASE)
            return {"v": ds["order_parameter"].values.astype(np.float64)}

        key = f"run_L{L}_eta{eta:.4f}_{init}_s{steps}_seed{seed}"
        if key not in self.memory:
            out = self._cached(key, phase, compute)
            self.memory[key] = out["v"], float(out["cpu"])
        return self.memory[key]

    def coarse(self, plan: SizePlan, phase: str) -> dict[str, np.ndarray]:
        """The coarse scan of one size with :func:`flocklab.sweep` (burn-in: first fifth)."""
        import flocklab

        first, last, step = plan.coarse
        etas = [round(first + k * step, 6) for k in range(round((last - first) / step) + 1)]

        def compute() -> dict[str, np.ndarray]:
            summary = flocklab.sweep(
                "vicsek", {"eta": etas}, params={"N": plan.N, "L": float(plan.L),
                                                 "init": "aligned", **BASE},
                steps=plan.coarse_steps, burn_in=plan.coarse_steps // 5,
                replicates=plan.coarse_reps, seed=plan.L, threads=1, progress=False)
            tau = summary["order_parameter_tau"].mean("replicate")
            return {"eta": summary["eta"].values,
                    "va": summary["replicate_order_parameter"].values,
                    "va_err": summary["replicate_order_parameter_err"].values,
                    "chi": summary["replicate_susceptibility"].values,
                    "chi_err": summary["replicate_susceptibility_err"].values,
                    "G": summary["replicate_binder_cumulant"].values,
                    "G_err": summary["replicate_binder_cumulant_err"].values,
                    "tau": tau.values,
                    "independent": summary["replicate_order_parameter_independent"].values}

        key = (f"coarse_L{plan.L}_{first}_{last}_{step}_s{plan.coarse_steps}"
               f"_r{plan.coarse_reps}")
        return self._cached(key, phase, compute)


def run_seed(L: int, eta: float, replicate: int, init: str) -> int:
    """Seed of a long run: distinct for every size, noise, replicate and start."""
    return 1 + replicate + 10 * round(eta * 100) + 100_000 * L + (50_000 if init == "random"
                                                                   else 0)


# --------------------------------------------------------------------------- statistics


def tau_and_window(series: np.ndarray) -> tuple[float, int]:
    """Integrated autocorrelation time (samples) and the Sokal window it stopped at.

    The same estimator as :func:`flocklab.core.autocorrelation.integrated_autocorrelation_time`
    (tau = 1 + 2 sum_{t<=W} rho(t), smallest W >= 5 tau), returning the window as well.
    """
    from flocklab.core.autocorrelation import autocorrelation

    rho = autocorrelation(series)
    n = rho.size
    tau, window = 1.0, 0
    for window in range(1, n):
        tau += 2.0 * rho[window]
        if window >= SOKAL * tau:
            break
    return float(min(max(tau, 1.0 / n), n)), window


def tau_error(tau: float, window: int, n: int) -> float:
    """Madras-Sokal error of tau_int: tau sqrt(2 (2W + 1) / n)."""
    return tau * math.sqrt(2.0 * (2 * window + 1) / n)


def halves_z(series: np.ndarray) -> float:
    """Mean of the first half minus that of the second, over its autocorrelation-corrected
    error (each half's own tau_int)."""
    half = series.size // 2
    parts = series[:half], series[half:2 * half]
    variance = 0.0
    for part in parts:
        variance += tau_and_window(part)[0] * part.var(ddof=1) / part.size
    if variance <= 0:
        return 0.0
    return float((parts[0].mean() - parts[1].mean()) / math.sqrt(variance))


def relaxation_time(series: np.ndarray, stationary: float, init: str) -> int:
    """First step at which the block mean of v_a (blocks of :data:`RELAX_BLOCK` steps)
    reaches the stationary mean: from above after an aligned start, from below after a random
    one (``series.size`` if it never does)."""
    blocks = series[1:1 + (series.size - 1) // RELAX_BLOCK * RELAX_BLOCK]
    means = blocks.reshape(-1, RELAX_BLOCK).mean(axis=1)
    hit = np.flatnonzero(means <= stationary if init == "aligned" else means >= stationary)
    return int(hit[0] * RELAX_BLOCK + RELAX_BLOCK) if hit.size else int(series.size)


def run_statistics(series: np.ndarray, n: int, init: str) -> dict[str, float]:
    """Statistics of one long run (after its first tenth) and its burn-in measures.

    Returns
    -------
    dict
        ``va``, ``sem``, ``m1``, ``m2``, ``m4``, ``chi``, ``chi_err``, ``G``, ``G_err``,
        ``tau``, ``tau_err``, ``independent``, ``relax`` (steps), ``z0`` (halves of the whole
        run), ``z`` (halves after the burn-in), ``burn`` (steps left out).
    """
    from flocklab.analysis.timeseries import series_statistics

    steps = series.size - 1
    burn = steps // 10
    kept = series[burn + 1:]
    stats = series_statistics(kept, n)
    tau, window = tau_and_window(kept)
    stationary = float(kept[kept.size // 2:].mean())
    return {"va": stats.mean, "sem": stats.sem, "m1": stats.mean, "m2": stats.m2,
            "m4": stats.m4, "chi": stats.susceptibility, "chi_err": stats.susceptibility_err,
            "G": stats.binder_cumulant, "G_err": stats.binder_cumulant_err, "tau": tau,
            "tau_err": tau_error(tau, window, kept.size), "independent": kept.size / tau,
            "relax": relaxation_time(series, stationary, init), "z0": halves_z(series[1:]),
            "z": halves_z(kept), "burn": burn, "samples": kept.size}


def pool(runs: Sequence[dict[str, float]], n: int) -> dict[str, float]:
    """Replicates of one point pooled: moments averaged (equal lengths), chi and G from the
    pooled moments, errors of independent replicates combined, tau averaged."""
    k = len(runs)

    def mean(name: str) -> float:
        return float(np.mean([run[name] for run in runs]))

    def combined(name: str) -> float:
        return float(math.sqrt(sum(run[name] ** 2 for run in runs)) / k)

    m1, m2, m4 = mean("m1"), mean("m2"), mean("m4")
    return {"va": m1, "sem": combined("sem"), "chi": n * (m2 - m1 * m1),
            "chi_err": combined("chi_err"), "G": 1.0 - m4 / (3.0 * m2 * m2),
            "G_err": combined("G_err"), "tau": mean("tau"), "tau_err": combined("tau_err"),
            "tau_spread": float(np.std([run["tau"] for run in runs], ddof=1)) if k > 1
            else float("nan"),
            "independent": float(sum(run["independent"] for run in runs)),
            "relax": float(max(run["relax"] for run in runs)),
            "z0": float(max((run["z0"] for run in runs), key=abs)),
            "z": float(max((run["z"] for run in runs), key=abs)),
            "burn": runs[0]["burn"], "samples": runs[0]["samples"], "replicates": k}


def vertex(etas: np.ndarray, chi: np.ndarray) -> float:
    """eta of the maximum of the parabola through the largest chi and its neighbours (the
    grid maximum at an end of the grid or where the three points are not concave)."""
    i = int(np.argmax(chi))
    if i == 0 or i == etas.size - 1:
        return float(etas[i])
    x, y = etas[i - 1:i + 2], chi[i - 1:i + 2]
    a, b, _ = np.polyfit(x, y, 2)
    if a >= 0:
        return float(etas[i])
    return float(np.clip(-b / (2 * a), x[0], x[2]))


def peak(etas: np.ndarray, chi: np.ndarray, chi_err: np.ndarray, draws: int = 2000,
         seed: int = 0) -> dict[str, float]:
    """Location of the chi maximum with its spread when chi is redrawn within its errors.

    Returns
    -------
    dict
        ``grid`` (eta of the largest chi), ``vertex`` (:func:`vertex`), ``vertex_err``
        (standard deviation of the redrawn vertices), ``grid_share`` (fraction of redraws
        with the maximum at the same grid point), ``at_edge`` (maximum at an end).
    """
    rng = np.random.default_rng(seed)
    i = int(np.argmax(chi))
    redrawn = chi[None, :] + rng.normal(size=(draws, chi.size)) * chi_err[None, :]
    vertices = np.array([vertex(etas, row) for row in redrawn])
    return {"grid": float(etas[i]), "vertex": vertex(etas, chi),
            "vertex_err": float(vertices.std()),
            "grid_share": float(np.mean(np.argmax(redrawn, axis=1) == i)),
            "at_edge": bool(i in (0, etas.size - 1))}


def smooth_argmax(etas: np.ndarray, chi: np.ndarray) -> float:
    """eta of the largest chi after a 1-2-1 running mean (the coarse estimate of eta*)."""
    padded = np.concatenate([chi[:1], chi, chi[-1:]])
    smooth = (padded[:-2] + 2 * padded[1:-1] + padded[2:]) / 4
    return float(etas[int(np.argmax(smooth))])


def power_fit(sizes: Sequence[float], values: Sequence[float], errors: Sequence[float]
              ) -> dict[str, float]:
    """Weighted least squares of log(value) = log(a) + z log(L).

    Returns
    -------
    dict
        ``z``, ``z_err`` (scaled by sqrt(chi2/dof) when that exceeds 1), ``a``, ``chi2dof``.
    """
    x = np.log(np.asarray(sizes, float))
    y = np.log(np.asarray(values, float))
    sigma = np.asarray(errors, float) / np.asarray(values, float)
    if x.size < 2:
        return {"z": float("nan"), "z_err": float("nan"), "a": float("nan"),
                "chi2dof": float("nan")}
    weights = 1.0 / sigma**2
    design = np.column_stack([np.ones_like(x), x])
    cov = np.linalg.inv(design.T @ (weights[:, None] * design))
    coef = cov @ design.T @ (weights * y)
    residual = y - design @ coef
    dof = max(x.size - 2, 1)
    chi2dof = float(np.sum(weights * residual**2) / dof) if x.size > 2 else float("nan")
    scale = max(1.0, chi2dof) if x.size > 2 else 1.0
    return {"z": float(coef[1]), "z_err": float(math.sqrt(cov[1, 1] * scale)),
            "a": float(math.exp(coef[0])), "chi2dof": chi2dof}


# --------------------------------------------------------------------------- timing


def startup_seconds(repeats: int = 3) -> dict[str, float]:
    """Wall and CPU seconds of a fresh process that imports flocklab and runs one step at
    N = 16 (numba cache hit), and of a bare interpreter; medians of ``repeats``."""
    tiny = ("import flocklab; flocklab.simulate('vicsek', N=16, L=2.0, eta=3.0, steps=1, "
            "seed=1, threads=1, progress=False, update='backward', init='aligned')")
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    out = {}
    for name, code in (("python", "pass"), ("tiny_run", tiny)):
        walls, cpus = [], []
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        out[f"{name}_wall"] = statistics.median(walls)
        out[f"{name}_cpu"] = statistics.median(cpus)
    return out


def kernel_cost(sizes: Sequence[int], rounds: int = 3, work: float = 8e6
                ) -> dict[int, dict[str, float]]:
    """CPU seconds per particle-step at N = 4 L^2, eta = 3.5, aligned start.

    Each round times runs of ``s`` and ``5 s`` steps (``4 s N`` about ``work``
    particle-steps) and divides the difference by ``4 s N``; the sizes are interleaved within
    a round and the median over rounds is kept. The in-process set-up of a run (state,
    dataset) is the short run minus ``s`` steps at that rate.
    """
    import flocklab

    def timed(L: int, steps: int) -> float:
        started = time.process_time()
        flocklab.simulate("vicsek", N=round(DENSITY * L * L), L=float(L), eta=3.5,
                          init="aligned", steps=steps, seed=1, threads=1, progress=False,
                          **BASE)
        return time.process_time() - started

    timed(sizes[0], 2)   # load the numba cache
    per_step = {L: [] for L in sizes}
    setup = {L: [] for L in sizes}
    for _ in range(rounds):
        for L in sizes:
            n = round(DENSITY * L * L)
            short = max(2, round(work / (4 * n)))
            first, second = timed(L, short), timed(L, 5 * short)
            rate = (second - first) / (4 * short * n)
            per_step[L].append(rate)
            setup[L].append(first - short * n * rate)
    return {L: {"per_particle_step": statistics.median(per_step[L]),
                "spread": (max(per_step[L]) - min(per_step[L])) / statistics.median(
                    per_step[L]),
                "setup": statistics.median(setup[L])} for L in sizes}


# --------------------------------------------------------------------------- phases


def fine_scan(runner: Runner, plan: SizePlan, centre: float, phase: str
              ) -> dict[str, Any]:
    """Long aligned-start runs on the fine grid around ``centre``, widened towards an
    edge maximum of chi up to ``plan.extend`` times."""
    points: dict[float, dict[str, Any]] = {}

    def run_point(eta: float) -> None:
        runs = []
        for rep in range(plan.fine_reps):
            series, _ = runner.series(plan.L, eta, "aligned", plan.fine_steps,
                                      run_seed(plan.L, eta, rep, "aligned"), phase)
            runs.append(run_statistics(series, plan.N, "aligned"))
        points[eta] = {"runs": runs, **pool(runs, plan.N)}

    grid = [round(centre + k * FINE_STEP, 4)
            for k in range(-plan.fine_half_width, plan.fine_half_width + 1)]
    for eta in grid:
        if 0.0 < eta <= 2 * math.pi:
            run_point(eta)
    for _ in range(plan.extend):
        etas = np.array(sorted(points))
        chi = np.array([points[eta]["chi"] for eta in etas])
        i = int(np.argmax(chi))
        if 0 < i < etas.size - 1 or etas.size < 2:
            break
        new = round(etas[i] + (FINE_STEP if i else -FINE_STEP), 4)
        if not 0.0 < new <= 2 * math.pi:
            break
        run_point(new)
    etas = np.array(sorted(points))
    chi = np.array([points[eta]["chi"] for eta in etas])
    chi_err = np.array([points[eta]["chi_err"] for eta in etas])
    return {"points": {float(eta): points[eta] for eta in etas},
            "peak": peak(etas, chi, chi_err, seed=plan.L)}


def unscanned_centre(stars: dict[int, float], L: int) -> float:
    """Noise of the one long run at an unscanned size: eta*(L) of the largest scanned size,
    rounded to 0.05.

    The shift to the larger L extrapolated from the two largest scanned sizes (eta*(L) =
    eta_c + a / L: half the shift between them when L doubles) is not applied: in the
    default run eta*(32) itself is not resolved to better than the width of its flat chi
    maximum, so the shift would move the run by an amount no better known than eta*(32).
    """
    largest = max(stars)
    return round(stars[largest] / 0.05) * 0.05


def nearest(points: dict[float, Any], eta: float) -> float:
    """The grid eta of ``points`` nearest to ``eta``."""
    return min(points, key=lambda value: abs(value - eta))


def hysteresis(runner: Runner, plan: SizePlan, fine: dict[str, Any], steps: int
               ) -> list[dict[str, Any]]:
    """Random-start runs at the three fine-grid points around eta*, against the aligned
    runs (first replicate) cut to the same length."""
    points = fine["points"]
    etas = sorted(points)
    centre = etas.index(nearest(points, fine["peak"]["vertex"]))
    rows = []
    for eta in etas[max(0, centre - 1):centre + 2]:
        random_series, _ = runner.series(plan.L, eta, "random", steps,
                                         run_seed(plan.L, eta, 0, "random"), "hysteresis")
        aligned_series, _ = runner.series(plan.L, eta, "aligned", plan.fine_steps,
                                          run_seed(plan.L, eta, 0, "aligned"),
                                          f"fine L={plan.L}")
        random_stats = run_statistics(random_series, plan.N, "random")
        aligned_stats = run_statistics(aligned_series[:steps + 1], plan.N, "aligned")
        diff = aligned_stats["va"] - random_stats["va"]
        rows.append({"eta": eta, "aligned": aligned_stats, "random": random_stats,
                     "z": diff / math.hypot(aligned_stats["sem"], random_stats["sem"])})
    return rows


# --------------------------------------------------------------------------- costs


def nice_up(value: float) -> int:
    """``value`` rounded up to two significant figures."""
    if value <= 0:
        return 0
    scale = 10 ** max(0, math.floor(math.log10(value)) - 1)
    return int(math.ceil(value / scale) * scale)


def per_size_costs(measured: dict[int, dict[str, float]], fit: dict[str, float],
                   long_rates: dict[int, float], startup: float) -> list[dict[str, Any]]:
    """Steps and CPU seconds of one run at every cost size.

    ``measured`` maps L to ``tau`` and ``relax`` at eta*(L); beyond the measured sizes tau
    comes from the fit (with the range of z +- its error) and the relaxation time scales
    with tau. The CPU seconds per particle-step are those of the long runs at that L
    (``long_rates``: the stationary, clustered state, where a particle has several times the
    neighbours of the uniform start); beyond the measured sizes the largest measured rate
    (low) and that rate grown by the factor between the two largest measured sizes per
    doubling of L (high).
    """
    rows = []
    largest = max(measured)
    sizes = sorted(long_rates)
    growth = long_rates[sizes[-1]] / long_rates[sizes[-2]] if len(sizes) > 1 else 1.0
    for L in COST_SIZES:
        n = round(DENSITY * L * L)
        if L in measured:
            tau, relax = measured[L]["tau"], measured[L]["relax"]
            low = high = tau
            rate = rate_high = long_rates[L]
            source = "measured"
        else:
            tau = fit["a"] * L ** fit["z"]
            low = fit["a"] * largest ** fit["z"] * (L / largest) ** (fit["z"] - fit["z_err"])
            high = fit["a"] * largest ** fit["z"] * (L / largest) ** (fit["z"] + fit["z_err"])
            relax = measured[largest]["relax"] * tau / measured[largest]["tau"]
            rate = long_rates[sizes[-1]]
            rate_high = rate * growth ** math.log2(L / sizes[-1])
            source = "fit"
        burn = max(BURN_RELAX * relax, BURN_TAU * tau)
        steps = nice_up(burn + TARGET_TAU * tau)
        steps_high = nice_up(max(BURN_RELAX * relax, BURN_TAU * high) + TARGET_TAU * high)
        rows.append({"L": L, "N": n, "tau": tau, "relax": relax, "startup": startup,
                     "tau_low": low, "tau_high": high,
                     "source": source, "burn": nice_up(burn), "steps": steps,
                     "steps_high": steps_high, "rate": rate, "rate_high": rate_high,
                     "step_seconds": n * rate, "run_seconds": startup + steps * n * rate,
                     "run_seconds_high": startup + steps_high * n * rate_high})
    return rows


# --------------------------------------------------------------------------- report


def fmt(value: float, digits: int = 3) -> str:
    """A number with ``digits`` significant figures (– for NaN)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}g}"


def pm(value: float, error: float, digits: int = 3) -> str:
    """``value ± error``."""
    return f"{fmt(value, digits)} ± {fmt(error, 2)}"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def machine_text() -> str:
    """Date, machine, load and versions."""
    import numba

    import flocklab

    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return (f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n"
            f"- machine: {platform.node()}, {cpu}, {os.cpu_count()} logical CPUs, "
            f"Python {platform.python_version()}, numba {numba.__version__} "
            f"({numba.get_num_threads()} thread), flocklab {flocklab.__version__}\n"
            f"- `uptime`: {uptime}")


def report(results: dict[str, Any], mode: str) -> str:
    """All tables as markdown."""
    out = [f"## Vicsek tau_int and study cost ({mode})", "", results["machine_start"],
           f"- at the end: {results['uptime_end']}", "",
           f"Model: `vicsek`, rho = N/L^2 = {DENSITY:g}, v0 = {V0:g}, r = {RADIUS:g}, "
           "`noise: angular`, `update: backward`, `init: aligned` (random only in the "
           "hysteresis table), one numba thread. Times are in steps; tau_int is Sokal's "
           "integrated autocorrelation time of v_a (window 5 tau) with the Madras-Sokal error "
           "tau sqrt(2(2W+1)/n). Long-run statistics leave out the first tenth of each run.",
           ""]
    plans = results["plans"]
    out.append(table(
        ["L", "N", "coarse grid (first:last:step)", "coarse steps x reps", "fine step",
         "long-run steps x reps"],
        [[p["L"], p["N"], "–" if p["coarse"] is None else ":".join(f"{c:g}" for c in p["coarse"]),
          f"{p['coarse_steps']} x {p['coarse_reps']}" if p["coarse"] else "–",
          FINE_STEP, f"{p['fine_steps']} x {p['fine_reps']}"] for p in plans]))
    out.append("")

    # kernel and start-up
    s = results["startup"]
    out += ["### Kernel cost and start-up", "",
            f"Fresh process, import and a 1-step run at N = 16 (numba cache hit): "
            f"{s['tiny_run_wall']:.2f} s wall, {s['tiny_run_cpu']:.2f} s CPU "
            f"(bare interpreter: {s['python_wall']:.2f} s wall); medians of 3.", "",
            "Short runs from the uniform aligned start (eta = 3.5), two lengths differenced:",
            ""]
    kernel = results["kernel"]
    out.append(table(["L", "N", "CPU s / particle-step", "CPU s / step", "steps / CPU s",
                      "spread over rounds", "in-process set-up per run (s)"],
                     [[L, round(DENSITY * L * L), fmt(k["per_particle_step"]),
                       fmt(k["per_particle_step"] * DENSITY * L * L),
                       fmt(1 / (k["per_particle_step"] * DENSITY * L * L)),
                       f"{100 * k['spread']:.0f} %", fmt(k["setup"], 2)]
                      for L, k in sorted(kernel.items(), key=lambda item: int(item[0]))]))
    out.append("")
    long_rates = results["long_run_rates"]
    if long_rates:
        out.append("CPU s per particle-step of the long runs themselves (all overheads, "
                   "mean over the runs at each L; these are the costs used below, since "
                   "particles cluster in the stationary state and have several times the "
                   "~4 pi neighbours of the uniform start): " + ", ".join(
                       f"L = {L}: {fmt(v)}" for L, v in sorted(long_rates.items(),
                                                               key=lambda i: int(i[0]))) + ".")
        out.append("")

    # coarse scans
    out.append("### Coarse scans (flocklab.sweep, burn-in: first fifth)")
    for L, scan in results["coarse"].items():
        out += ["", f"L = {L} (N = {round(DENSITY * int(L) ** 2)}); smoothed chi maximum at "
                    f"eta = {scan['centre']:g}", ""]
        out.append(table(["eta", "<v_a>", "chi", "G", "tau_int", "n/tau (all reps)"],
                         [[f"{e:g}", pm(v, ve), pm(c, ce), pm(g, ge), fmt(t), fmt(i, 2)]
                          for e, v, ve, c, ce, g, ge, t, i in zip(
                              scan["eta"], scan["va"], scan["va_err"], scan["chi"],
                              scan["chi_err"], scan["G"], scan["G_err"], scan["tau"],
                              scan["independent"], strict=True)]))
    out.append("")

    # fine scans
    out.append("### Long runs around eta*(L)")
    for L, fine in results["fine"].items():
        pk = fine["peak"]
        where = ("one run at eta* of L = 32, no scan" if fine.get("predicted") else
                 f"chi maximum at eta = {pk['grid']:g} (kept in {100 * pk['grid_share']:.0f} % "
                 f"of redraws), parabola vertex {pm(pk['vertex'], pk['vertex_err'])}"
                 + (", **at an end of the grid**" if pk["at_edge"] else ""))
        out += ["", f"L = {L}: {where}", ""]
        out.append(table(
            ["eta", "<v_a>", "chi", "G", "tau_int (steps)", "tau spread (reps)", "n/tau",
             "relax (steps)", "z halves, whole run", "z halves, after burn-in"],
            [[f"{e:g}", pm(p["va"], p["sem"]), pm(p["chi"], p["chi_err"]),
              pm(p["G"], p["G_err"]), pm(p["tau"], p["tau_err"]), fmt(p["tau_spread"], 2),
              fmt(p["independent"], 3), fmt(p["relax"], 3), f"{p['z0']:+.1f}",
              f"{p['z']:+.1f}"] for e, p in fine["points"].items()]))
    out.append("")

    # summary per L
    out += ["### Per size", ""]
    summary = results["summary"]
    out.append(table(
        ["L", "N", "eta*(L)", "chi max", "G at eta*", "tau_int at eta* (steps)",
         "max tau_int near eta*", "relax, aligned start (max)", "burn-in (rule)",
         "CPU s / step (long runs)", "steps / run", "CPU s / run"],
        [[r["L"], r["N"], r["eta_star"], r["chi_max"], r["G"], r["tau"], r["tau_max"],
          r["relax"], r["burn"], r["step_seconds"], r["steps"], r["run_seconds"]]
         for r in summary]))
    fit = results["tau_fit"]
    out += ["", f"tau_int(eta*) ~ L^z: z = {pm(fit['z'], fit['z_err'], 3)} (weighted fit over "
            f"L = {', '.join(str(L) for L in fit['sizes'])}, chi2/dof = {fmt(fit['chi2dof'], 2)}); "
            f"with the largest tau_int of each fine grid: z = "
            f"{pm(results['tau_fit_max']['z'], results['tau_fit_max']['z_err'], 3)}.", "",
            f"Burn-in rule: max({BURN_RELAX} x relaxation time of an aligned start, "
            f"{BURN_TAU} tau_int); steps per run = burn-in + {TARGET_TAU} tau_int, rounded up "
            "to two figures; CPU s per run adds the start-up of a fresh process.", ""]

    # costs
    out += ["### Study cost", ""]
    rows = results["costs"]
    out.append(table(["L", "N", "tau_int (steps)", "source", "burn-in", "steps / run",
                      "CPU s / particle-step", "CPU s / run", "high: steps / run",
                      "high: CPU s / particle-step", "high: CPU s / run"],
                     [[r["L"], r["N"], f"{fmt(r['tau'])}" + (
                         f" [{fmt(r['tau_low'])}, {fmt(r['tau_high'])}]"
                         if r["source"] == "fit" else ""), r["source"], r["burn"],
                       r["steps"], fmt(r["rate"]), fmt(r["run_seconds"]), r["steps_high"],
                       fmt(r["rate_high"]), fmt(r["run_seconds_high"])] for r in rows]))
    out += ["", "Costs use the CPU seconds per particle-step of the long runs (stationary "
            "state); beyond L = 64 the low estimate keeps the L = 64 rate and tau from the fit, "
            "the high one takes tau at z + 1 sigma and the rate growing per doubling of L as "
            "from L = 32 to 64."]
    out.append("")
    study_rows = []
    for largest in COST_SIZES[2:]:
        for etas in (10, 12):
            for reps in (4, 8):
                chosen = [r for r in rows if r["L"] <= largest]
                seconds = sum(etas * reps * r["run_seconds"] for r in chosen)
                high = sum(etas * reps * r["run_seconds_high"] for r in chosen)
                study_rows.append([f"8-{largest}", etas, reps, etas * reps * len(chosen),
                                   fmt(seconds), fmt(seconds / 60), fmt(seconds / 3600),
                                   fmt(high / 3600)])
    out.append(table(["L", "eta values", "replicates", "runs", "CPU s", "CPU min",
                      "core-hours", "core-hours, high"], study_rows))
    out.append("")
    for largest, budget, what in BUDGETS:
        chosen = [r for r in rows if r["L"] <= largest]
        lines = []
        for etas, reps in ((10, 4), (12, 4), (12, 8)):
            per_tau = sum(r["tau"] * r["step_seconds"] for r in chosen)
            afford = []
            for burn in (lambda r: r["burn"], lambda r: BURN_RELAX * r["relax"]):
                fixed = sum(r["startup"] + burn(r) * r["step_seconds"] for r in chosen)
                afford.append((budget / (etas * reps) - fixed) / per_tau)
            lines.append(f"{etas} x {reps}: " + " / ".join(
                f"{fmt(value, 2)}" if value > 0 else "none" for value in afford))
        out.append(f"- budget {budget} CPU s ({what}), L <= {largest}: tau_int per run after "
                   f"the burn-in that fit (burn-in by the rule / only {BURN_RELAX} x the "
                   f"measured relaxation; none: start-up and burn-in alone exceed the "
                   f"budget), per eta values x replicates: " + "; ".join(lines))
    out.append("")

    # Binder and hysteresis
    out += ["### Binder cumulant near eta*(L)", ""]
    out.append(table(["L", "min G over the scans (eta)", "G at eta*",
                      "G at the largest coarse eta (disordered side)"],
                     [[b["L"], f"{pm(b['G_min'], b['G_min_err'])} ({b['G_min_eta']:g})",
                       b["G_star"], b["G_far"]] for b in results["binder"]]))
    out.append("")
    if results["hysteresis"]:
        out += [f"### Hysteresis: random against aligned start, L = {results['hysteresis_L']} "
                f"({results['hysteresis_steps']} steps each, statistics after the first tenth)",
                ""]
        out.append(table(
            ["eta", "<v_a> aligned", "<v_a> random", "z (aligned - random)", "chi aligned",
             "chi random", "G aligned", "G random", "relax aligned", "relax random",
             "tau aligned", "tau random"],
            [[f"{h['eta']:g}", pm(h["aligned"]["va"], h["aligned"]["sem"]),
              pm(h["random"]["va"], h["random"]["sem"]), f"{h['z']:+.1f}",
              fmt(h["aligned"]["chi"]), fmt(h["random"]["chi"]), fmt(h["aligned"]["G"]),
              fmt(h["random"]["G"]), fmt(h["aligned"]["relax"]), fmt(h["random"]["relax"]),
              fmt(h["aligned"]["tau"]), fmt(h["random"]["tau"])]
             for h in results["hysteresis"]]))
        out.append("")

    # cost of this benchmark
    ledger = results["ledger"]
    out += ["### What this benchmark cost", ""]
    out.append(table(["phase", "CPU s", "wall s", "1-min load at start"],
                     [[phase, fmt(ledger["cpu"][phase]), fmt(ledger["wall"][phase]),
                       fmt(ledger["load"][phase], 2)] for phase in ledger["cpu"]]))
    total_cpu = sum(ledger["cpu"].values())
    out += ["", f"Total {total_cpu:.0f} CPU s; script wall time {results['wall']:.0f} s "
            "(runs reused from the cache count with the seconds of their first computation)."]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main


def measure(mode: str, cache_dir: Path | None) -> dict[str, Any]:
    """Run every phase; return the numbers the report needs."""
    started = time.perf_counter()
    plans = QUICK if mode == "quick" else FULL
    ledger = Ledger()
    runner = Runner(cache_dir, ledger)
    results: dict[str, Any] = {"machine_start": machine_text(),
                               "plans": [{"L": p.L, "N": p.N, "coarse": p.coarse,
                                          "coarse_steps": p.coarse_steps,
                                          "coarse_reps": p.coarse_reps,
                                          "fine_steps": p.fine_steps,
                                          "fine_reps": p.fine_reps} for p in plans]}

    cpu, wall = time.process_time(), time.perf_counter()
    results["startup"] = startup_seconds()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    ledger.add("start-up (subprocesses)", usage.ru_utime + usage.ru_stime,
               time.perf_counter() - wall)
    cpu, wall = time.process_time(), time.perf_counter()
    results["kernel"] = kernel_cost(KERNEL_SIZES[mode])
    ledger.add("kernel cost", time.process_time() - cpu, time.perf_counter() - wall)
    print(f"kernel: {results['kernel']}", file=sys.stderr, flush=True)

    results["coarse"], results["fine"] = {}, {}
    long_rates: dict[int, list[float]] = {}
    stars: dict[int, float] = {}
    for plan in plans:
        if plan.coarse is not None:
            scan = runner.coarse(plan, f"coarse L={plan.L}")
            centre = smooth_argmax(scan["eta"], scan["chi"])
            results["coarse"][plan.L] = {**{k: v.tolist() for k, v in scan.items()
                                            if k not in ("cpu", "wall", "load")}, "centre": centre}
            predicted = False
        else:
            centre = unscanned_centre(stars, plan.L)
            predicted = True
        print(f"L = {plan.L}: fine scan around {centre:g}", file=sys.stderr, flush=True)
        fine = fine_scan(runner, plan, centre, f"fine L={plan.L}")
        fine["predicted"] = predicted
        if not predicted:
            stars[plan.L] = fine["peak"]["vertex"]
        results["fine"][plan.L] = fine
        n_runs = sum(p["replicates"] for p in fine["points"].values())
        long_rates[plan.L] = ledger.cpu[f"fine L={plan.L}"] / (n_runs * plan.fine_steps
                                                              * plan.N)
        print(f"L = {plan.L}: peak {fine['peak']}", file=sys.stderr, flush=True)
    results["long_run_rates"] = long_rates

    # tau at eta*, fit, summary per size
    measured, fit_rows, fit_max_rows, summary, binder = {}, [], [], [], []
    for plan in plans:
        fine = results["fine"][plan.L]
        points = fine["points"]
        star = nearest(points, fine["peak"]["vertex"])
        at = points[star]
        near = [points[e] for e in points if abs(e - star) <= 2 * FINE_STEP + 1e-9]
        worst = max(near, key=lambda p: p["tau"])
        relax = max(p["relax"] for p in points.values())
        measured[plan.L] = {"tau": at["tau"], "relax": relax}
        fit_rows.append((plan.L, at["tau"], at["tau_err"]))
        fit_max_rows.append((plan.L, worst["tau"], worst["tau_err"]))
        scan = results["coarse"].get(plan.L)
        g_values = [(p["G"], p["G_err"], e) for e, p in points.items()]
        if scan is not None:
            g_values += list(zip(scan["G"], scan["G_err"], scan["eta"], strict=True))
        g_min = min(g_values, key=lambda item: item[0])
        binder.append({"L": plan.L, "G_min": g_min[0], "G_min_err": g_min[1],
                       "G_min_eta": g_min[2], "G_star": pm(at["G"], at["G_err"]),
                       "G_far": "–" if scan is None else
                       f"{pm(scan['G'][-1], scan['G_err'][-1])} (eta = {scan['eta'][-1]:g})"})
        pk = fine["peak"]
        summary.append({"L": plan.L, "N": plan.N,
                        "eta_star": (f"{star:g} (eta*(32), not scanned)" if fine["predicted"]
                                     else f"{pm(pk['vertex'], pk['vertex_err'])} "
                                          f"(grid {pk['grid']:g})"),
                        "chi_max": pm(at["chi"], at["chi_err"]), "G": pm(at["G"], at["G_err"]),
                        "tau": f"{pm(at['tau'], at['tau_err'])} (eta = {star:g})",
                        "tau_max": f"{pm(worst['tau'], worst['tau_err'])}",
                        "relax": fmt(relax)})
    sizes, taus, errors = zip(*fit_rows, strict=True)
    results["tau_fit"] = {**power_fit(sizes, taus, errors), "sizes": list(sizes)}
    sizes_m, taus_m, errors_m = zip(*fit_max_rows, strict=True)
    results["tau_fit_max"] = power_fit(sizes_m, taus_m, errors_m)
    startup = results["startup"]["tiny_run_wall"]
    results["costs"] = per_size_costs(measured, results["tau_fit"], long_rates, startup)
    by_L = {r["L"]: r for r in results["costs"]}
    for row in summary:
        cost = by_L[row["L"]]
        row.update(burn=cost["burn"], steps=cost["steps"], step_seconds=fmt(cost["step_seconds"]),
                   run_seconds=fmt(cost["run_seconds"]))
    results["summary"] = summary
    results["binder"] = binder

    # hysteresis at the largest scanned size
    scanned_plans = [p for p in plans if p.coarse is not None]
    target = scanned_plans[-1]
    results["hysteresis_L"] = target.L
    results["hysteresis_steps"] = HYSTERESIS_STEPS[mode]
    results["hysteresis"] = hysteresis(runner, target, results["fine"][target.L],
                                       HYSTERESIS_STEPS[mode])

    results["ledger"] = {"cpu": ledger.cpu, "wall": ledger.wall, "load": ledger.load}
    results["uptime_end"] = subprocess.run(["uptime"], capture_output=True,
                                           text=True).stdout.strip()
    results["wall"] = time.perf_counter() - started
    return results


def main() -> None:
    """Command line: measure, print the markdown, optionally write it and the raw numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="L = 8, 16 with short runs (checks the script, about a minute)")
    parser.add_argument("--cache-dir", type=Path,
                        help="keep and reuse the runs' v_a series here")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    parser.add_argument("--json", type=Path, help="write the raw numbers here")
    args = parser.parse_args()
    set_one_thread()
    mode = "quick" if args.quick else "full"
    results = measure(mode, args.cache_dir)
    text = report(results, mode)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float))


if __name__ == "__main__":
    main()
