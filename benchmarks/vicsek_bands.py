"""Where travelling bands appear in the Vicsek model: a noise scan at rho = 2, v0 = 0.5.

For the Vicsek model with the position update of Grégoire & Chaté (``update: forward``),
density rho = N / L^2 = 2, speed v0 = 0.5, radius r = 1 (the setting of Chaté, Ginelli,
Grégoire & Raynaud, Phys. Rev. E 77, 046113, 2008), each run is one
:func:`flocklab.simulate` at one (noise kind, L, eta, start) with v_a recorded every step and
snapshots of the positions and headings after the burn-in. Per run the script reports:

* the steady state: mean v_a over each quarter of the post-burn-in series and the drift z of
  :func:`flocklab.analysis.timeseries.burn_in_drift` (|z| > 3: not stationary);
* mean v_a, its autocorrelation-corrected error, tau_int and the Binder cumulant
  G = 1 - <v^4> / (3 <v^2>^2) with its block-jackknife error
  (:func:`flocklab.analysis.timeseries.series_statistics`);
* the histogram of v_a on [0, 1] (50 bins, as the pipeline's) and whether it is bimodal
  (:func:`bimodality`);
* the band measure :func:`flocklab.analysis.structure.band_profiles` on the snapshots: the
  flag (along-heading density mode amplitude > 0.1 and > 3 times the transverse one), the
  amplitude, the anisotropy, the dominant mode and the density profile along the heading;
* the CPU seconds of the run (``time.process_time``, one numba thread).

Runs are deterministic given their seeds (``seed = 1 + 1000 L + round(1000 eta)`` plus
500 000 for an aligned start, plus 7 for angular noise); each run's results are kept as JSON in
``--cache-dir`` and reused, so the scan can be run piece by piece and the table rebuilt
from the cache (the CPU seconds are those of the first computation).

Usage::

    .venv/bin/python benchmarks/vicsek_bands.py --cache-dir DIR [--plan measured]
        [--noise vectorial --L 64 --eta 0.56 0.57 --steps 30000 [--init random]]
        [--markdown FILE]

Without ``--eta`` nothing new is run unless ``--plan`` names a plan (``measured``: every run
of ``benchmarks/results/vicsek_bands.md``; ``quick``: L = 16, short runs, checks the script);
the table is printed from all runs in the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Fixed model parameters of every run.
DENSITY = 2.0
BASE = {"v0": 0.5, "r": 1.0, "update": "forward"}
#: Fraction of the run discarded before statistics and snapshots.
BURN_FRACTION = 1 / 3
#: Snapshots after the burn-in.
FRAMES = 40
#: A histogram is bimodal when the deepest valley between its two highest peaks is below
#: this fraction of the lower peak (after a [1, 2, 1] smoothing) ...
VALLEY = 0.5
#: ... and the lower peak's side holds at least this fraction of the records.
MINOR_WEIGHT = 0.05
#: Runs of the results file: (noise, L, eta values, steps, init).
MEASURED: tuple[tuple[str, int, tuple[float, ...], int, str], ...] = (
    ("vectorial", 16, (0.60, 0.61, 0.62), 40_000, "random"),
    ("vectorial", 32, (0.58, 0.60, 0.61, 0.62, 0.63, 0.64, 0.66), 40_000, "random"),
    ("vectorial", 32, (0.61,), 10_000, "random"),
    ("vectorial", 32, (0.612, 0.614, 0.616, 0.618), 100_000, "random"),
    ("vectorial", 32, (0.615,), 300_000, "random"),
    ("vectorial", 64, (0.56, 0.57, 0.58, 0.59, 0.60, 0.61, 0.62, 0.63), 30_000, "random"),
    ("vectorial", 64, (0.614, 0.617), 60_000, "random"),
    ("vectorial", 64, (0.617,), 60_000, "aligned"),
    ("vectorial", 64, (0.615,), 150_000, "random"),
    ("vectorial", 128, (0.61, 0.62), 30_000, "random"),
    ("angular", 64, (2.6, 2.8, 2.9, 3.0), 20_000, "random"),
    ("angular", 128, (2.8, 3.0), 20_000, "random"),
)
QUICK = (("vectorial", 16, (0.5, 0.6), 3000, "random"),)
SPARK = " ▁▂▃▄▅▆▇█"


def set_one_thread() -> None:
    """Make numba use one thread (before numba is imported)."""
    os.environ["NUMBA_NUM_THREADS"] = "1"


def run_seed(noise: str, L: int, eta: float, init: str) -> int:
    """The run's seed: ``1 + 1000 L + round(1000 eta)`` (+ 500 000 aligned, + 7 angular)."""
    return (1 + 1000 * L + round(1000 * eta) + (500_000 if init == "aligned" else 0)
            + (7 if noise == "angular" else 0))


def bimodality(histogram: np.ndarray) -> tuple[bool, float]:
    r"""Whether a histogram has two separated peaks, and the weight of the lesser one.

    The counts are smoothed with the kernel [1, 2, 1]/4; with :math:`p_1 \ge p_2` the two
    highest local maxima and :math:`m` the lowest bin between them, the histogram is bimodal
    when :math:`m < 0.5\,p_2` (:data:`VALLEY`) and the records on :math:`p_2`'s side of
    :math:`m` are at least 5 % (:data:`MINOR_WEIGHT`). Near a discontinuous transition the
    order parameter of a finite system switches between a disordered and an ordered
    (banded) state, and its histogram has this shape (Chaté, Ginelli, Grégoire & Raynaud,
    "Collective motion of self-propelled particles interacting without cohesion",
    Phys. Rev. E 77, 046113, 2008).

    Parameters
    ----------
    histogram : ndarray, shape (B,)
        Fractions of the records per bin (sum 1).

    Returns
    -------
    bimodal : bool
    minor_weight : float
        The fraction of records on the lesser peak's side (0 with one peak).
    """
    h = np.convolve(np.pad(histogram, 1), [0.25, 0.5, 0.25], mode="valid")
    peaks = [i for i in range(len(h)) if h[i] > 0 and h[i] >= h[max(i - 1, 0)]
             and h[i] >= h[min(i + 1, len(h) - 1)]]
    if len(peaks) < 2:
        return False, 0.0
    top = sorted(sorted(peaks, key=lambda i: h[i])[-2:])
    valley = top[0] + int(np.argmin(h[top[0]:top[1] + 1]))
    lesser = min(top, key=lambda i: h[i])
    weight = float(histogram[:valley].sum() if lesser < valley else histogram[valley:].sum())
    deep = h[valley] < VALLEY * h[lesser]
    return bool(deep and weight >= MINOR_WEIGHT), weight


def sparkline(values: np.ndarray, top: float | None = None) -> str:
    """The values as a row of block characters, the largest (or ``top``) a full block."""
    top = float(np.max(values)) if top is None else top
    scaled = np.clip(np.asarray(values) / top, 0, 1) if top > 0 else np.zeros(len(values))
    return "".join(SPARK[round(v * (len(SPARK) - 1))] for v in scaled)


def simulate(noise: str, L: int, eta: float, steps: int, init: str) -> tuple[Any, float]:
    """One run with snapshots after the burn-in, and its CPU seconds."""
    import flocklab

    burn = round(steps * BURN_FRACTION)
    every = max(1, (steps - burn) // FRAMES)
    start = time.process_time()
    run = flocklab.simulate("vicsek", **BASE, N=round(DENSITY * L * L), L=float(L), eta=eta,
                            noise=noise, init=init, seed=run_seed(noise, L, eta, init),
                            steps=steps, snapshot_every=every, snapshot_start=burn + every,
                            threads=1, progress=False)
    return run, time.process_time() - start


def measure(noise: str, L: int, eta: float, steps: int, init: str) -> dict[str, Any]:
    """Every reported number of one run (see the module docstring)."""
    from flocklab.analysis.structure import band_profiles, run_frames
    from flocklab.analysis.summary import HISTOGRAM_BINS
    from flocklab.analysis.timeseries import burn_in_drift, series_statistics
    from flocklab.core.registry import get_model

    run, cpu = simulate(noise, L, eta, steps, init)
    model = get_model("vicsek")
    burn = round(steps * BURN_FRACTION)
    series = run["order_parameter"].values[burn + 1:]
    stats = series_statistics(series, run.attrs["N"])
    histogram = np.histogram(series, bins=HISTOGRAM_BINS, range=(0.0, 1.0))[0] / series.size
    bimodal, minor = bimodality(histogram)
    bands = band_profiles(run_frames(run, model.kinematics, model.run_parameters(run)))
    return {
        "noise": noise, "L": L, "N": int(run.attrs["N"]), "eta": eta, "steps": steps,
        "init": init, "seed": run_seed(noise, L, eta, init), "burn_in": burn, "cpu_s": cpu,
        "mean": stats.mean, "sem": stats.sem, "tau": stats.tau,
        "binder": stats.binder_cumulant, "binder_err": stats.binder_cumulant_err,
        "drift_z": burn_in_drift(series),
        "quarters": [float(q.mean()) for q in np.array_split(series, 4)],
        "histogram": histogram.tolist(), "bimodal": bimodal, "minor_weight": minor,
        "band": int(bands.attrs["band"]), "band_amplitude": bands.attrs["band_amplitude"],
        "band_anisotropy": bands.attrs["band_anisotropy"],
        "dominant_mode": int(bands.attrs["dominant_mode"]),
        "random_amplitude": bands.attrs["random_amplitude"],
        "frames": int(run.sizes["frame"]),
        "density_profile": bands["density_profile"].values.tolist(),
        "order_profile": bands["order_profile"].values.tolist(),
    }


def cached(cache: Path, noise: str, L: int, eta: float, steps: int, init: str
           ) -> dict[str, Any]:
    """The run's results from ``cache``, computed and stored first if absent."""
    path = cache / f"{noise}_L{L}_eta{eta:.4f}_{steps}_{init}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = measure(noise, L, eta, steps, init)
    path.write_text(json.dumps(result, default=float))
    print(f"# {noise} L={L} eta={eta} steps={steps} {init}: v_a = {result['mean']:.3f}, "
          f"G = {result['binder']:.3f}, band = {result['band']}, "
          f"{result['cpu_s']:.0f} CPU s", flush=True)
    return result


def row(r: dict[str, Any]) -> str:
    """One markdown table row of a run."""
    quarters = " ".join(f"{q:.2f}" for q in r["quarters"])
    return (f"| {r['noise']} | {r['L']} | {r['eta']:g} | {r['init']} | {r['steps']} | "
            f"{r['mean']:.3f} ± {r['sem']:.3f} | {quarters} | {r['drift_z']:+.1f} | "
            f"{r['tau']:.0f} | {r['binder']:.3f} ± {r['binder_err']:.3f} | "
            f"{'yes' if r['bimodal'] else 'no'} ({r['minor_weight']:.2f}) | "
            f"`{sparkline(np.array(r['histogram']))}` | {r['band']} | "
            f"{r['band_amplitude']:.3f} | {r['band_anisotropy']:.1f} | {r['dominant_mode']} | "
            f"{r['cpu_s']:.0f} |")


def table(results: Sequence[dict[str, Any]]) -> str:
    """The markdown table of all runs, ordered by noise kind, L, start and eta."""
    head = ("| noise | L | eta | start | steps | <v_a> ± err | v_a per quarter | drift z | "
            "tau_int | G ± err | bimodal (minor weight) | v_a histogram on [0, 1] | band | "
            "A_q* | anisotropy | q* | CPU s |\n" + "|---" * 17 + "|")
    key = ("noise", "L", "init", "eta", "steps")
    lines = [row(r) for r in sorted(results, key=lambda r: tuple(r[k] for k in key))]
    return "\n".join([head, *lines])


def profiles(results: Sequence[dict[str, Any]]) -> str:
    """Density (relative to the mean) and polar-order profiles of the banded runs."""
    lines = []
    for r in results:
        if r["band"] != 1:
            continue
        density, order = np.array(r["density_profile"]), np.array(r["order_profile"])
        lines.append(f"{r['noise']} L = {r['L']}, eta = {r['eta']:g} ({r['init']}): density "
                     f"{density.min():.2f}-{density.max():.2f}, order "
                     f"{order.min():.2f}-{order.max():.2f}\n"
                     f"  rho/rho0 `{sparkline(density)}`\n  order    `{sparkline(order, 1.0)}`")
    return "\n".join(lines) if lines else "(no run has a band by the criterion)"


def plan_runs(args: argparse.Namespace) -> list[tuple[str, int, float, int, str]]:
    """The runs asked for on the command line: a named plan and/or one explicit set."""
    named = {"measured": MEASURED, "quick": QUICK, "none": ()}[args.plan]
    runs = [(noise, L, eta, steps, init) for noise, L, etas, steps, init in named
            for eta in etas]
    if args.eta:
        runs += [(args.noise, args.L, eta, args.steps, args.init) for eta in args.eta]
    return runs


def main() -> None:
    """Command line: run what is asked for, then print the table of every cached run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--plan", choices=("none", "measured", "quick"), default="none")
    parser.add_argument("--noise", choices=("vectorial", "angular"), default="vectorial")
    parser.add_argument("--L", type=int, default=64)
    parser.add_argument("--eta", type=float, nargs="*", default=[])
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--init", choices=("random", "aligned"), default="random")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    args = parser.parse_args()
    set_one_thread()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    for run in plan_runs(args):
        cached(args.cache_dir, *run)
    results = [json.loads(p.read_text()) for p in sorted(args.cache_dir.glob("*.json"))]
    text = f"{table(results)}\n\nBand profiles:\n\n{profiles(results)}\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
