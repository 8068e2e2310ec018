"""Error rates and interval coverage of the claim tests (flocklab.analysis.verdicts) on data
with a known answer.

    .venv/bin/python benchmarks/verdict_calibration.py [--copies 1000] [--markdown FILE]

Rows: the share of studies in which a claim without any effect is called significant (the
test's size; nominal at most 5 %, two-sided), the coverage of each 95 % interval of a known
population value, and the share of equivalence claims called "holds" when the true effect
sits exactly on the margin (nominal at most 2.5 %). Binomial standard errors in the table.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

from flocklab.analysis.verdicts import (
    group_difference,
    mean_interval,
    no_improvement,
    rank_trend,
    rho_interval,
)


def rate(hits: int, copies: int) -> str:
    share = hits / copies
    return f"{100 * share:.1f} % ± {100 * math.sqrt(max(share * (1 - share), 1e-9) / copies):.1f}"


def trend_size(n: int, copies: int, rng: np.random.Generator) -> str:
    hits = sum(rank_trend("c", np.arange(float(n)), rng.normal(size=(n, 1)), "increasing")
               .verdict != "inconclusive" for _ in range(copies))
    return rate(hits, copies)


def trend_size_with_ties(levels: int, replicates: int, copies: int,
                         rng: np.random.Generator) -> str:
    hits = sum(rank_trend("c", np.arange(float(levels)),
                          rng.integers(0, 3, size=(levels, replicates)).astype(float),
                          "increasing").verdict not in ("inconclusive", "untestable")
               for _ in range(copies))
    return rate(hits, copies)


def rho_coverage(n: int, copies: int, rng: np.random.Generator) -> str:
    truth = 6 / math.pi * math.asin(0.25)          # Pearson 0.5, bivariate normal
    hits = 0
    for _ in range(copies):
        x, y = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=n).T
        low, high = rho_interval(stats.spearmanr(x, y)[0], n)
        hits += low <= truth <= high
    return rate(hits, copies)


def mean_coverage(n: int, copies: int, rng: np.random.Generator, share: bool = False) -> str:
    hits = 0
    for _ in range(copies):
        values = (rng.random(n) < 0.3).astype(float) if share else rng.exponential(1.0, n)
        _, low, high, _ = mean_interval(values)
        hits += low <= (0.3 if share else 1.0) <= high
    return rate(hits, copies)


def group_size(copies: int, rng: np.random.Generator) -> str:
    groups, strata = np.repeat([0, 1, 2], 12), np.tile(np.repeat([0, 1, 2, 3], 3), 3)
    hits = sum(group_difference("c", rng.normal(size=36) + strata, groups, strata,
                                resamples=50).verdict == "holds" for _ in range(copies))
    return rate(hits, copies)


def equivalence_size(copies: int, rng: np.random.Generator) -> str:
    hits = sum(no_improvement("c", rng.normal(11.0, 1.0, 10), rng.normal(10.0, 1.0, 10),
                              margin=1.0).verdict == "holds" for _ in range(copies))
    return rate(hits, copies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--markdown", help="write the table here")
    args = parser.parse_args()
    rng = np.random.default_rng(20261204)
    c = args.copies
    start = time.perf_counter()
    rows = [
        ("trend, no effect: significant", "5 runs (exact)", "≤ 5 %", trend_size(5, c, rng)),
        ("", "6 runs (exact)", "≤ 5 %", trend_size(6, c, rng)),
        ("", "12 runs (permutation)", "≤ 5 %", trend_size(12, c, rng)),
        ("", "30 runs (permutation)", "≤ 5 %", trend_size(30, c, rng)),
        ("", "5 levels × 4 runs, outputs 0/1/2 (ties)", "≤ 5 %",
         trend_size_with_ties(5, 4, c, rng)),
        ("95 % interval of Spearman ρ covers ρ_s = 0.483", "10 runs", "95 %",
         rho_coverage(10, c, rng)),
        ("", "30 runs", "95 %", rho_coverage(30, c, rng)),
        ("95 % interval of a mean (exponential runs) covers 1", "3 runs", "95 %",
         mean_coverage(3, c, rng)),
        ("", "10 runs", "95 %", mean_coverage(10, c, rng)),
        ("95 % Clopper-Pearson interval covers a share of 0.3", "10 runs", "≥ 95 %",
         mean_coverage(10, c, rng, share=True)),
        ("group difference, no effect (3 groups × 4 strata × 3 runs): holds", "36 runs",
         "≤ 5 %", group_size(max(c // 5, 50), rng)),
        ("equivalence, true gain on the margin (10 + 10 runs, s.d. 1): holds", "20 runs",
         "≤ 2.5 %", equivalence_size(c, rng)),
    ]
    lines = ["| test | design | nominal | measured (± binomial s.e.) |",
             "| --- | --- | --- | --- |"]
    lines += [f"| {a} | {b} | {nominal} | {measured} |" for a, b, nominal, measured in rows]
    text = "\n".join(lines) + (f"\n\n{c} studies per row (group difference: {max(c // 5, 50)});"
                               f" {time.perf_counter() - start:.0f} s.\n")
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as stream:
            stream.write(text)


if __name__ == "__main__":
    main()
