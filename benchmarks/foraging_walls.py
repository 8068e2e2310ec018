"""Why foraging agents die at the walls: the default ``foraging_scene`` (one school of 20 in a
50 x 30 arena, a food patch, an obstacle, a predator of speed 1.5; prey flee at 2 within 5),
seeds 1-10, with its predator and without it.

    .venv/bin/python benchmarks/foraging_walls.py [--seeds 10] [--out FILE]

Per agent: the share of its recorded life (frames every 1 s while alive) within 1 length
unit of a wall, over its first half and over its last fifth, and the share of that last fifth
spent fleeing; per death: its cause and whether it happened within 1 unit of a wall. The
band within 1 unit of the walls covers 10.4 % of the arena (its area share is what uniformly
spread agents would show). Intervals are 95 % Student intervals over the runs' means (runs are
the independent units: agents of one run share a predator).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import yaml

import flocklab
from flocklab.analysis.verdicts import mean_interval

CONFIG = Path(__file__).resolve().parents[1] / "config" / "foraging.yaml"
BAND = 1.0


def agent_rows(ds, lx: float, ly: float) -> list[dict]:
    """One row per agent that lived at least 10 recorded frames."""
    x, y = ds["x"].values, ds["y"].values
    alive = ds["alive"].values.astype(bool)
    fleeing = ds["behaviour"].values == 4
    near = np.minimum.reduce([x, lx - x, y, ly - y]) < BAND
    rows = []
    for i in range(x.shape[1]):
        life = np.flatnonzero(alive[:, i])
        if life.size < 10:
            continue
        late, early = life[int(0.8 * life.size):], life[: life.size // 2]
        rows.append({"cause": int(ds["cause"].values[i]), "near_early": near[early, i].mean(),
                     "near_late": near[late, i].mean(), "flee_late": fleeing[late, i].mean(),
                     "died_at_wall": bool(near[life[-1], i])})
    return rows


def run_means(runs: list[list[dict]], key: str, causes: tuple[int, ...]) -> list[float]:
    """Per run, the mean of ``key`` over its agents of the given causes (runs without any
    left out)."""
    out = []
    for rows in runs:
        values = [row[key] for row in rows if row["cause"] in causes]
        if values:
            out.append(float(np.mean(values)))
    return out


def describe(label: str, values: list[float]) -> str:
    if len(values) < 2:
        return f"| {label} | {len(values)} | – |"
    if not any(values):
        return f"| {label} | {len(values)} | 0 in every run |"
    mean, low, high = mean_interval(np.asarray(values))[:3]
    return f"| {label} | {len(values)} | {mean:.3f} [{low:.3f}, {high:.3f}] |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    study = yaml.safe_load(CONFIG.read_text())["studies"]["foraging_scene"]
    params = study["params"]
    lx, ly = params["Lx"], params["Ly"]
    lines = [f"`benchmarks/foraging_walls.py --seeds {args.seeds}` (the default foraging_scene, "
             "with and without its predator).", "",
             f"Band within {BAND:g} of the walls: {1 - (lx - 2) * (ly - 2) / (lx * ly):.1%} "
             "of the arena.", ""]
    for variant, extra in (("with the predator", {}), ("without a predator",
                                                        {"predators": []})):
        runs = []
        for seed in range(1, args.seeds + 1):
            ds = flocklab.simulate("foraging", **{**params, **extra}, t_end=study["t_end"],
                                   dt=study["dt"], record_every=1.0, snapshot_every=1.0,
                                   snapshot_start=0.0, seed=seed, progress=False)
            runs.append(agent_rows(ds, lx, ly))
        deaths = [row for rows in runs for row in rows if row["cause"] > 0]
        counts = {name: sum(row["cause"] == code for row in deaths)
                  for code, name in ((1, "starved"), (2, "captured"))}
        at_wall = sum(row["died_at_wall"] for row in deaths)
        lines += [f"# {variant.capitalize()} ({args.seeds} runs; deaths: "
                  f"{counts['starved']} starved, {counts['captured']} captured; "
                  f"{at_wall} of {len(deaths)} within {BAND:g} of a wall at death)", "",
                  "| share of life within 1 of a wall (mean over runs) | runs | mean [95 %] |",
                  "| --- | --- | --- |"]
        for label, key, causes in (
                ("survivors, first half", "near_early", (0,)),
                ("survivors, last fifth", "near_late", (0,)),
                ("starved, first half", "near_early", (1,)),
                ("starved, last fifth", "near_late", (1,)),
                ("captured, first half", "near_early", (2,)),
                ("captured, last fifth", "near_late", (2,)),
                ("dead, last fifth: share fleeing", "flee_late", (1, 2))):
            lines.append(describe(label, run_means(runs, key, causes)))
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
