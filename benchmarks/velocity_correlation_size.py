r"""Velocity-correlation length :math:`r_0` against flock size :math:`L` (scale-free test).

A. Cavagna, A. Cimarelli, I. Giardina, G. Parisi, R. Santagati, F. Stefanini and M. Viale,
"Scale-free correlations in starling flocks", PNAS 107, 11865 (2010), measure the connected
velocity correlation :math:`C(r)` of :math:`\delta\mathbf{v}_i = \mathbf{v}_i - \mathbf{V}`,
normalised to :math:`C(0) = 1`, and its first zero :math:`r_0`, in flocks of linear size
:math:`L` (the largest distance between two birds): :math:`r_0 \approx 0.35\,L` from 9 to
86 m, i.e. :math:`r_0 \propto L` (scale-free); a finite correlation length would make
:math:`r_0` saturate as :math:`L` grows.

This script runs the same measurement on simulated flocks for a list of flock sizes N and
seeds, with :func:`flocklab.analysis.structure.velocity_correlation` applied to each snapshot
frame after the burn-in (one frame at a time, as one photographed flock):

* the 3-D zonal model (``--model zonal``; Couzin et al. 2002 zones in the dynamic-parallel
  regime, :data:`PRESETS`), from its usual start (random headings in a ball of radius 5);
* the 3-D force-based swarm (``--model forces``; Morse potential cut at :math:`r_c = 1.9`,
  where the shifted potential's integral is still positive, so that the density stays
  fixed as N grows, with alignment and acceleration noise), from an aligned start.

Per run: the polarisation :math:`P` over the measurement window and its integrated
autocorrelation time :math:`\tau_P` (frames must be spaced by more than it), the smallest
largest-group share, and per frame :math:`L`, :math:`r_0` and :math:`r_0/L` (run values:
means over frames). Over runs: the proportional fit :math:`r_0 = aL`, the power law
:math:`r_0 \propto L^\gamma` (:math:`\gamma = 1`: scale-free; :math:`\gamma < 1`: saturating)
and the saturating form :math:`r_0 = r_{sat}(1 - e^{-L/\ell})`, each with a 95 % interval
from a bootstrap over runs. CPU seconds are ``time.process_time`` of the simulation, one numba
thread (``NUMBA_NUM_THREADS=1`` set before numba is imported).

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/velocity_correlation_size.py \
        [--model zonal] [--N 100 200 400 800] [--seeds 3] [--markdown FILE]
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one thread, set before numba is imported (not on import)
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Model parameters, run controls and measurement window of each model.
PRESETS: dict[str, dict[str, Any]] = {
    "zonal": {
        "params": {"rule": "couzin2002", "dim": 3, "r_r": 1.0, "delta_o": 6.0,
                   "delta_a": 14.0, "field_of_view": 270.0, "turning_rate": 40.0,
                   "speed": 3.0, "noise": 0.05, "start_radius": 5.0},
        "controls": {"t_end": 150.0, "dt": 0.1, "record_every": 1.0,
                     "snapshot_every": 10.0, "snapshot_start": 60.0},
        "burn_in": 50.0,
    },
    "forces": {
        "params": {"dim": 3, "alpha": 1.0, "beta": 0.5, "C_r": 2.0, "l_r": 0.5, "C_a": 1.0,
                   "l_a": 1.0, "r_cut": 1.9, "r_link": 2.5, "r_align": 2.0,
                   "w_alignment": 1.0, "noise": 0.1, "initial": "aligned"},
        "controls": {"t_end": 100.0, "dt": 0.05, "record_every": 0.5,
                     "snapshot_every": 5.0, "snapshot_start": 45.0},
        "burn_in": 40.0,
    },
}
LEVEL = 0.95
#: Pair distances, as fractions of L, over which the mean of C(r)/C(0) is reported (in
#: starling flocks, r_0 = 0.35 L, C is positive there).
MID_RANGE = (0.1, 0.3)
#: Smallest ratio of the largest to the smallest L for the saturating fit.
SATURATION_SPAN = 1.5
#: A saturating fit with ℓ above this multiple of the largest L is its linear limit.
LINEAR_LIMIT = 100.0


@dataclass(frozen=True)
class RunResult:
    """Measurements of one run (frame values averaged over the frames after burn-in).

    Attributes
    ----------
    n, seed : int
        Flock size and seed.
    cpu : float
        CPU seconds of the simulation (one thread).
    polarisation, tau_p, largest_min : float
        Mean polarisation after the burn-in, its integrated autocorrelation time (model
        time units) and the smallest largest-group share.
    frames : int
        Frames measured.
    size, r0, ratio : float
        Means over frames of L (largest pair distance), r_0 and r_0/L (model length units).
    missing : int
        Frames whose C(r) never crosses zero (left out of the means).
    pooled_r0, mid_correlation : float
        r_0 of C summed over the frames, and that C averaged over r/L in :data:`MID_RANGE`.
    """

    n: int
    seed: int
    cpu: float
    polarisation: float
    tau_p: float
    largest_min: float
    frames: int
    size: float
    r0: float
    ratio: float
    missing: int
    pooled_r0: float
    mid_correlation: float


def start_radius(model: str, n: int) -> float | None:
    """The forces preset starts at a density fixed in N (radius 0.7 N^(1/3), about 1.5 times
    the equilibrium density); zonal: None (the preset's fixed radius)."""
    return 0.7 * n ** (1.0 / 3.0) if model == "forces" else None


def run_one(model: str, n: int, seed: int) -> RunResult:
    """Simulate one flock and measure :math:`P`, :math:`\\tau_P`, :math:`L`, :math:`r_0`.

    Per frame f after the burn-in, :math:`L_f` (largest pair distance) and :math:`r_{0,f}`
    (first zero of :math:`C(r)/C(0)`, 50 shells on :math:`[0, L_f]`) come from
    :func:`~flocklab.analysis.structure.velocity_correlation` on that frame alone; frames
    without a zero crossing are counted in ``missing`` and left out of the means.
    """
    import flocklab
    from flocklab.analysis.structure import Frames, run_frames, velocity_correlation
    from flocklab.core.autocorrelation import integrated_autocorrelation_time
    from flocklab.core.registry import get_model

    preset = PRESETS[model]
    params = dict(preset["params"], N=n)
    radius = start_radius(model, n)
    if radius is not None:
        params["start_radius"] = radius
    clock = time.process_time()
    ds = flocklab.simulate(model, seed=seed, threads=1, progress=False, **params,
                           **preset["controls"])
    cpu = time.process_time() - clock
    instance = get_model(model)
    window = ds["time"].values >= preset["burn_in"]
    pol = ds["polarisation"].values[window]
    first = int(np.searchsorted(ds["frame"].values, preset["burn_in"]))
    frames = run_frames(ds, instance.kinematics, instance.run_parameters(ds), first)
    sizes, zeros = [], []
    for pos, vel, when in zip(frames.positions, frames.velocities or [], frames.times,
                              strict=True):
        one = velocity_correlation(Frames([pos], [vel], np.array([when]), frames.box))
        sizes.append(one.attrs["flock_size"])
        zeros.append(one.attrs["correlation_length"])
    size, r0 = np.asarray(sizes), np.asarray(zeros)
    ok = np.isfinite(r0)
    pooled = velocity_correlation(frames)
    shells = pooled["r"].values / size.mean()
    middle = (shells >= MID_RANGE[0]) & (shells <= MID_RANGE[1])
    return RunResult(n, seed, cpu, float(pol.mean()),
                     float(integrated_autocorrelation_time(pol)) * float(
                         preset["controls"]["record_every"]),
                     float(ds["largest_fraction"].values[window].min()), len(frames),
                     float(size.mean()), float(r0[ok].mean()) if ok.any() else math.nan,
                     float((r0[ok] / size[ok]).mean()) if ok.any() else math.nan,
                     int((~ok).sum()), float(pooled.attrs["correlation_length"]),
                     float(np.nanmean(pooled["velocity_correlation"].values[middle])))


def _fit_exponent(size: np.ndarray, r0: np.ndarray) -> float:
    return float(np.polyfit(np.log(size), np.log(r0), 1)[0])


def _fit_saturating(size: np.ndarray, r0: np.ndarray) -> tuple[float, float]:
    """Least-squares :math:`r_{sat}, \\ell` of :math:`r_0 = r_{sat}(1 - e^{-L/\\ell})`
    (NaN if the fit fails, or if L varies by less than :data:`SATURATION_SPAN`, where
    the two parameters are not identified)."""
    from scipy.optimize import curve_fit

    if size.max() < SATURATION_SPAN * size.min():
        return math.nan, math.nan
    try:
        (r_sat, ell), _ = curve_fit(lambda x, a, b: a * (1.0 - np.exp(-x / b)), size, r0,
                                    p0=(2.0 * r0.max(), 2.0 * size.max()),
                                    bounds=([0.0, 1e-6], [1e6, 1e6]), maxfev=2000)
    except (RuntimeError, ValueError):
        return math.nan, math.nan
    return float(r_sat), float(ell)


def fits(results: Sequence[RunResult], resamples: int = 1000, seed: int = 0
         ) -> dict[str, Any]:
    r"""Fits of :math:`r_0` against :math:`L` over runs, with bootstrap intervals.

    Proportional :math:`a = \sum L r_0 / \sum L^2`; power law :math:`\gamma` (least
    squares in log-log); saturating :math:`r_{sat}, \ell`; slope of :math:`r_0/L` against
    :math:`\ln L`. Intervals: central 95 % of the estimates over resamples of the runs
    (drawn with replacement within each N, so that every size stays represented).
    """
    keep = [r for r in results if math.isfinite(r.r0)]
    size = np.array([r.size for r in keep])
    r0 = np.array([r.r0 for r in keep])
    groups = [np.flatnonzero([r.n == n for r in keep]) for n in sorted({r.n for r in keep})]
    rng = np.random.default_rng(seed)

    def estimate(rows: np.ndarray) -> list[float]:
        s, z = size[rows], r0[rows]
        return [float(s @ z / (s @ s)), _fit_exponent(s, z),
                float(np.polyfit(np.log(s), z / s, 1)[0]), *_fit_saturating(s, z)]

    value = estimate(np.arange(size.size))
    draws = np.array([estimate(np.concatenate([rng.choice(g, g.size) for g in groups]))
                      for _ in range(resamples)])
    tail = 50.0 * (1.0 - LEVEL)
    names = ("a", "gamma", "ratio_slope", "r_sat", "ell")
    out: dict[str, Any] = {}
    for k, name in enumerate(names):
        column = draws[:, k][np.isfinite(draws[:, k])]
        ci = np.percentile(column, [tail, 100.0 - tail]) if column.size else [math.nan] * 2
        out[name] = (value[k], float(ci[0]), float(ci[1]))
    out["sat_residual"], out["prop_residual"] = _residuals(size, r0, value)
    out["size_max"] = float(size.max())
    return out


def _residuals(size: np.ndarray, r0: np.ndarray, value: Sequence[float]
               ) -> tuple[float, float]:
    """Root-mean-square residuals of the saturating and the proportional fit."""
    sat = value[3] * (1.0 - np.exp(-size / value[4])) if math.isfinite(value[3]) else size * 0
    return (float(np.sqrt(np.mean((r0 - sat) ** 2))),
            float(np.sqrt(np.mean((r0 - value[0] * size) ** 2))))


def _spread(values: Sequence[float]) -> str:
    arr = np.asarray([v for v in values if math.isfinite(v)])
    if arr.size == 0:
        return "—"
    sd = arr.std(ddof=1) if arr.size > 1 else math.nan
    return f"{arr.mean():.3g} ± {sd:.2g}"


def table(results: Sequence[RunResult]) -> str:
    """Markdown table: per N, mean ± s.d. over seeds of the run values."""
    lines = ["| N | seeds | P | τ_P | min largest share | frames | L | r_0 | r_0/L "
             "| frames without zero | pooled r_0 | C at 0.1-0.3 L | CPU s/run |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
             "| --- |"]
    for n in sorted({r.n for r in results}):
        rows = [r for r in results if r.n == n]
        lines.append(
            f"| {n:,} | {len(rows)} | {_spread([r.polarisation for r in rows])} "
            f"| {_spread([r.tau_p for r in rows])} "
            f"| {min(r.largest_min for r in rows):.2f} | {rows[0].frames} "
            f"| {_spread([r.size for r in rows])} | {_spread([r.r0 for r in rows])} "
            f"| {_spread([r.ratio for r in rows])} | {sum(r.missing for r in rows)} "
            f"| {_spread([r.pooled_r0 for r in rows])} "
            f"| {_spread([r.mid_correlation for r in rows])} "
            f"| {_spread([r.cpu for r in rows])} |")
    return "\n".join(lines)


def fit_lines(fit: dict[str, Any]) -> str:
    """The fits as markdown bullet lines (value [95 % interval])."""
    def show(name: str) -> str:
        value, low, high = fit[name]
        return f"{value:.3g} [{low:.3g}, {high:.3g}]"

    ell, ell_low = fit["ell"][0], fit["ell"][1]
    if math.isfinite(ell) and ell < LINEAR_LIMIT * fit["size_max"]:
        saturating = (f"r_sat = {show('r_sat')}, ℓ = {show('ell')} "
                      f"(rms residual {fit['sat_residual']:.3g})")
    else:
        saturating = (f"no finite fit (least squares run to the linear limit, ℓ = {ell:.3g}, "
                      f"2.5 % quantile {ell_low:.3g}, against L ≤ {fit['size_max']:.3g})")
    return "\n".join([
        f"- r_0 = a L: a = {show('a')} (rms residual {fit['prop_residual']:.3g})",
        f"- r_0 ∝ L^γ: γ = {show('gamma')} (1: scale-free; < 1: saturating)",
        f"- d(r_0/L)/d ln L = {show('ratio_slope')} (0: constant ratio)",
        f"- r_0 = r_sat (1 - exp(-L/ℓ)): {saturating}"])


def main(argv: Sequence[str] | None = None) -> None:
    """Run the measurement and print (or write) the markdown table and fits."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(PRESETS), default="zonal")
    parser.add_argument("--N", type=int, nargs="+", default=[100, 200, 400, 800])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--fit-min-n", type=int, default=0,
                        help="also fit the runs with N at least this (large flocks only)")
    parser.add_argument("--markdown", help="append the table and fits to this file")
    args = parser.parse_args(argv)
    results = []
    for n in args.N:
        for seed in range(1, args.seeds + 1):
            result = run_one(args.model, n, seed)
            print(result, flush=True)
            results.append(result)
    text = (f"### {args.model}\n\nParameters: {PRESETS[args.model]}\n\n{table(results)}\n\n"
            f"All runs:\n\n{fit_lines(fits(results))}\n")
    large = [r for r in results if r.n >= args.fit_min_n]
    if args.fit_min_n and len({r.n for r in large}) >= 2:
        text += f"\nN >= {args.fit_min_n}:\n\n{fit_lines(fits(large))}\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
