"""CPU cost of a config's Vicsek studies: runs, particle-steps and kernel seconds.

For every Vicsek study of the given config files (the studies of each file itself, not of
its includes) the script expands the sweep (a mapping of lists is one paired axis, the axes
are crossed; ``density`` sets N = density L^2), multiplies by the replicates and sums
N x steps. Adaptive studies (``min_independent_samples``) cost between ``steps`` (every run
long enough at the pilot) and ``max_steps`` (every run extended to the end); with
``--results DIR`` the steps the runs of a finished study actually took are read from
``DIR/<study>/runs/*/*.nc``. Seconds come from the kernel's rate (particle-updates per CPU
second of the time loop, one thread) measured here at every (N, L) of the studies, so that
all configs are costed by the same clock (job start-up, file writing and the analysis stages
are not counted). ``--results`` applies to the last config.

Usage::

    .venv/bin/python benchmarks/vicsek_study_cost.py CONFIG [CONFIG ...] [--results DIR]
        [--markdown benchmarks/results/vicsek_study_cost.md] [--no-timing]
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import xarray as xr
import yaml

from flocklab.config.study import expand_values, point_label
from flocklab.core.driver import simulate
from flocklab.core.registry import get_model
from flocklab.core.time import RunControl


def kernel_rate(n: int, box: float, cache: dict[tuple[int, float], float]) -> float:
    """Particle-updates per CPU second of the time loop at N = ``n`` in a box ``box``
    (eta = 2, v0 = 0.03, r = 1, one thread), the set-up cancelled by differencing two run
    lengths; measured once per (N, L)."""
    key = (n, round(box, 4))
    if cache.get("off"):
        return float("nan")
    if key not in cache:
        model = get_model("vicsek")
        params = {"N": n, "L": box, "eta": 2.0, "v0": 0.03, "r": 1.0}
        simulate(model, params, RunControl(steps=5, seed=1))   # compile / load the cache
        steps = int(np.clip(1.5e6 / n, 200, 30000))
        durations = []
        for run_steps in (steps // 4, steps // 4 + steps):
            started = time.process_time()
            simulate(model, params, RunControl(steps=run_steps, seed=1))
            durations.append(time.process_time() - started)
        cache[key] = n * steps / max(durations[1] - durations[0], 1e-9)
    return cache[key]


def study_points(study: dict) -> list[dict]:
    """The parameter points of a study: paired axes crossed, ``density`` turned into N."""
    axes = []
    for axis in study.get("sweep", []):
        values = {name: expand_values(spec) for name, spec in axis.items()}
        axes.append([dict(zip(values, combo, strict=True))
                     for combo in zip(*values.values(), strict=True)])
    points = []
    for combo in itertools.product(*axes) if axes else [()]:
        point = {**study.get("params", {})}
        for part in combo:
            point.update(part)
        points.append(point)
    return points


def run_steps(results: Path | None, name: str, point: dict, replicates: int) -> list[int] | None:
    """Steps the runs of one point took (None if a run is missing)."""
    if results is None:
        return None
    label = point_label({k: v for k, v in point.items() if k in point.get("_swept", ())})
    folder = results / name / "runs" / label
    files = sorted(folder.glob("rep*.nc"))
    if len(files) < replicates:
        return None
    out = []
    for file in files:
        with xr.open_dataset(file) as ds:
            out.append(int(ds.attrs["steps"]))
    return out


def study_cost(name: str, study: dict, rates: dict[tuple[int, float], float],
               results: Path | None
               ) -> dict:
    """Runs, particle-steps (min, max, measured) and seconds of one study."""
    swept = [k for axis in study.get("sweep", []) for k in axis]
    k = int(study.get("replicates", 1))
    low = high = seconds_low = seconds_high = measured = seconds_measured = 0.0
    complete, runs = True, 0
    for point in study_points(study):
        point["_swept"] = swept
        L = float(point["L"])
        n = round(point["density"] * L * L) if "density" in point else int(point["N"])
        rate = kernel_rate(n, L, rates)
        shortest = int(study["steps"])
        longest = int(study.get("max_steps", shortest))
        runs += k
        low, high = low + k * n * shortest, high + k * n * longest
        seconds_low += k * n * shortest / rate
        seconds_high += k * n * longest / rate
        taken = run_steps(results, name, point, k)
        if taken is None:
            complete = False
        else:
            measured += n * sum(taken)
            seconds_measured += n * sum(taken) / rate
    return {"study": name, "runs": runs, "min": low, "max": high, "seconds_min": seconds_low,
            "seconds_max": seconds_high, "measured": measured if complete else None,
            "seconds_measured": seconds_measured if complete else None}


def config_cost(path: Path, rates: dict[tuple[int, float], float], results: Path | None
                ) -> list[dict]:
    studies = yaml.safe_load(path.read_text())["studies"]
    return [study_cost(name, study, rates, results) for name, study in studies.items()
            if study.get("model") == "vicsek" and "sweep" in study
            and "sensitivity" not in study]


def _seconds(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.0f}"


def table(path: Path, rows: list[dict]) -> str:
    lines = [f"`{path}`", "", "| study | runs | particle-steps min – max | measured "
             "| kernel CPU s min – max | measured |", "| --- | --- | --- | --- | --- | --- |"]
    total = {"runs": 0, "min": 0.0, "max": 0.0, "seconds_min": 0.0, "seconds_max": 0.0}
    for row in rows:
        for key in total:
            total[key] += row[key]
        measured = f"{row['measured']:.3g}" if row["measured"] is not None else "–"
        seconds = _seconds(row["seconds_measured"])
        low, high = _seconds(row["seconds_min"]), _seconds(row["seconds_max"])
        lines.append(f"| {row['study']} | {row['runs']} | {row['min']:.3g} – {row['max']:.3g} "
                     f"| {measured} | {low} – {high} | {seconds} |")
    lines.append(f"| **total** | {total['runs']} | {total['min']:.3g} – {total['max']:.3g} | "
                 f"| {_seconds(total['seconds_min'])} – {_seconds(total['seconds_max'])} | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", type=Path, nargs="+")
    parser.add_argument("--results", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--no-timing", action="store_true",
                        help="particle-steps only (no kernel rates, no seconds)")
    args = parser.parse_args()
    rates: dict = {"off": True} if args.no_timing else {}
    text = []
    for number, path in enumerate(args.configs):
        results = args.results if number == len(args.configs) - 1 else None
        text.append(table(path, config_cost(path, rates, results)))
    if not args.no_timing:
        text.append(f"Kernel rates measured at {len(rates)} (N, L) pairs: "
                    f"{min(rates.values()):.3g} – {max(rates.values()):.3g} particle-updates "
                    f"per CPU second.")
    out = "\n".join(text)
    print(out)
    if args.markdown:
        args.markdown.write_text(out)


if __name__ == "__main__":
    main()
