"""Coverage of the finite-size scaling intervals on exactly solved models.

Many independent copies of one finite-size study of the 2-D Ising model (Wolff cluster
updates) are analysed by ``flocklab.analysis.fss``; the table gives, per quantity, how often
the 68 % interval holds the exact value, the mean and spread of the estimates and the median
half-width. The three-state Potts model is analysed the same way, to show that the tool
returns that model's exponents, not Ising's.

Exact values: Ising T_c = 2/ln(1 + sqrt 2) (L. Onsager, Phys. Rev. 65, 117, 1944), nu = 1,
beta/nu = 1/8, gamma/nu = 7/4; three-state Potts (H = -J sum delta) T_c = 1/ln(1 + sqrt 3),
nu = 5/6, beta/nu = 2/15, gamma/nu = 26/15 (R. J. Baxter, *Exactly Solved Models in
Statistical Mechanics*, Academic Press, 1982).

Usage::

    .venv/bin/python benchmarks/fss_calibration.py ising 50 [--sizes 16,32,64] \
        [--steps 3000] [--replicates 4] [--workers 2] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "plugins"))  # the reference models are test plugins

from flocklab.validation import calibrate, coverage  # noqa: E402

EXACT = {
    "ising": {"x_c": 2.0 / math.log(1.0 + math.sqrt(2.0)), "nu": 1.0, "beta_over_nu": 0.125,
              "gamma_over_nu": 1.75},
    "potts": {"x_c": 1.0 / math.log(1.0 + math.sqrt(3.0)), "nu": 5.0 / 6.0,
              "beta_over_nu": 2.0 / 15.0, "gamma_over_nu": 26.0 / 15.0},
}


def table(model: str, result: dict, copies: int, args: argparse.Namespace, seconds: float
          ) -> str:
    """The markdown table of one calibration."""
    exact = EXACT[model]
    lines = [f"`{model}`, L = {args.sizes}, {args.replicates} replicates x {args.steps} steps "
             f"per point, 12 points per size, {args.resamples} resamples, {copies} copies "
             f"(seeds {args.first_seed}-{args.first_seed + copies - 1}); "
             f"{seconds / 60:.1f} min wall on {args.workers} processes, "
             f"{datetime.date.today().isoformat()}.", "",
             "| quantity | exact | mean of estimates | sd | bias / sd | median half-width "
             "| coverage of 68 % intervals |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, row in result.items():
        ratio = row["bias"] / row["sd"] if row["sd"] else float("nan")
        lines.append(f"| {name} | {exact[name]:.5g} | {row['mean']:.5g} | {row['sd']:.3g} | "
                     f"{ratio:+.2f} | {row['median_half_width']:.3g} | "
                     f"{100 * row['covered']:.0f} % ± {100 * row['standard_error']:.0f} "
                     f"({row['n']} of {copies}) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=sorted(EXACT))
    parser.add_argument("copies", type=int)
    parser.add_argument("--sizes", default="16,32,64")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--replicates", type=int, default=4)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None, help="markdown file (default: print)")
    parser.add_argument("--json", default=None, help="also write every copy's results here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    exact = EXACT[args.model]
    # the Potts clusters decorrelate |m| about eight times slower than the Ising ones
    params = {"q": 3, "clusters": 8} if args.model == "potts" else {}
    start = time.time()
    copies = calibrate(args.model, "T", sizes, exact["x_c"], 1.0 / exact["nu"],
                       range(args.first_seed, args.first_seed + args.copies), params=params,
                       steps=args.steps, replicates=args.replicates,
                       settings={"resamples": args.resamples, "collapse": False},
                       workers=args.workers)
    text = table(args.model, coverage(copies, exact), args.copies, args, time.time() - start)
    if args.json:
        Path(args.json).write_text(json.dumps(copies, indent=1))
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
