"""Hamilton's domain of danger against the rank a random approach side would meet, in the
default ``zonal_predation`` setting (60 prey, 40 s, speed spread 0.6), seeds 1-10, for the
nearest (w_v = 0) and the optimal (w_v = 1) target rule.

    .venv/bin/python benchmarks/zonal_danger_null.py [--seeds 10]

Prints, per rule: the captures, the mean domain rank of the captured prey, the mean rank the
nearest-prey rule would meet from a random side (the geometry's baseline) and their paired
difference per capture with its standard error, pooled over the runs.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import yaml

import flocklab

CONFIG = Path(__file__).resolve().parents[1] / "config" / "zonal.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    study = yaml.safe_load(CONFIG.read_text())["studies"]["zonal_predation"]
    controls = {key: study[key] for key in ("t_end", "dt", "record_every")}
    for w_v in (0.0, 1.0):
        ranks, nulls, per_run = [], [], []
        for seed in range(1, args.seeds + 1):
            ds = flocklab.simulate("zonal", **{**study["params"], "predator_w_v": w_v},
                                   **controls, seed=seed)
            rank, null = ds["capture_domain_rank"].values, ds["capture_null_rank"].values
            both = np.isfinite(rank) & np.isfinite(null)
            ranks += rank[both].tolist()
            nulls += null[both].tolist()
            if both.any():
                per_run.append(float(np.mean(rank[both] - null[both])))
        excess = np.asarray(ranks) - np.asarray(nulls)
        sem = excess.std(ddof=1) / math.sqrt(excess.size)
        print(f"w_v = {w_v:g}: {excess.size} captures; domain rank {np.mean(ranks):.3f}, "
              f"random-side rank {np.mean(nulls):.3f}, excess {excess.mean():+.3f} ± "
              f"{sem:.3f} (s.e. over captures); per-run excess mean {np.mean(per_run):+.3f}, "
              f"s.d. {np.std(per_run, ddof=1):.3f} over {len(per_run)} runs")


if __name__ == "__main__":
    main()
