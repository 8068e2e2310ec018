"""Compare two results/ trees: every netCDF file identical (xarray), every JSON equal.

    python tests/compare_results.py RESULTS_A RESULTS_B

Provenance attributes that may legitimately differ between machines or runs (none are
written today: no host names or time stamps) are dropped first; exit code 1 and a list of the
differences otherwise. Used by .ci/slurm-test (SLURM run against a local run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import xarray as xr

#: Attributes allowed to differ between two runs of the same inputs.
PROVENANCE = ("host", "hostname", "created", "date", "slurm_job_id")


def _strip(ds: xr.Dataset) -> xr.Dataset:
    ds.attrs = {k: v for k, v in ds.attrs.items() if k not in PROVENANCE}
    return ds


def compare(first: Path, second: Path) -> list[str]:
    """Differences between the netCDF and JSON files of two results directories."""
    problems = []
    names = {p.relative_to(first) for p in first.rglob("*") if p.suffix in (".nc", ".json")}
    other = {p.relative_to(second) for p in second.rglob("*") if p.suffix in (".nc", ".json")}
    for missing in sorted(names ^ other):
        problems.append(f"only in one tree: {missing}")
    for name in sorted(names & other):
        if name.suffix == ".json":
            if json.loads((first / name).read_text()) != json.loads((second / name).read_text()):
                problems.append(f"JSON differs: {name}")
            continue
        with xr.open_dataset(first / name) as a, xr.open_dataset(second / name) as b:
            try:
                xr.testing.assert_identical(_strip(a.load()), _strip(b.load()))
            except AssertionError as error:
                problems.append(f"netCDF differs: {name}: {str(error).splitlines()[0]}")
    if not names:
        problems.append(f"no netCDF or JSON files under {first}")
    return problems


def main(argv: list[str]) -> int:
    first, second = Path(argv[1]), Path(argv[2])
    problems = compare(first, second)
    for line in problems:
        print(line)
    count = len(list(first.rglob("*.nc")))
    print(f"compared {count} netCDF files: {'identical' if not problems else 'DIFFERENT'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
