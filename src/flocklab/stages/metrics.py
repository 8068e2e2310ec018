"""Stage *summarize*: every run of a study → ``results/<study>/summary.nc``.

I/O only: one process per study reads all its run files and writes the summary that
:func:`flocklab.analysis.summary.summary_dataset` makes of them (its module docstring lists
the variables); :func:`run_metrics` does the same for one run (the ``flocklab metrics``
command). A ``burn_in`` change reruns this stage only, no simulation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import xarray as xr

from flocklab.analysis.summary import run_metrics_dataset, summary_dataset
from flocklab.analysis.timeseries import ORDER_THRESHOLD
from flocklab.core.io import open_dataset, write_netcdf
from flocklab.core.provenance import with_provenance


def summarize(run_paths: Sequence[str | os.PathLike], study: Mapping[str, Any],
              out: str | os.PathLike) -> None:
    """Read a study's run files, summarise them and write the summary.

    Parameters
    ----------
    run_paths : sequence of path
        The study's run files, in any order (matched by their attributes).
    study : mapping
        The workflow's ``study_record`` (see
        :func:`flocklab.analysis.summary.summary_dataset`).
    out : path
        Output netCDF file.
    """
    runs = [open_dataset(path) for path in run_paths]
    write_netcdf(with_provenance(summary_dataset(runs, study, run_paths)), out)


def run_metrics(run_path: str | os.PathLike, burn_in: float, out: str | os.PathLike,
                order_threshold: float = ORDER_THRESHOLD) -> xr.Dataset:
    """Per-run metrics of a single run file (the ``flocklab metrics`` command)."""
    ds = with_provenance(run_metrics_dataset(open_dataset(run_path), burn_in, order_threshold))
    write_netcdf(ds, out)
    return ds
