"""Stages *fit_critical* and *fss*: a study's ``summary.nc`` → critical points and exponents.

I/O only: read the summary, run the analysis, write the results with the atomic writers
of :mod:`flocklab.core.io` (provenance attributes added here).

* :func:`run_fit_critical` → ``results/<study>/critical.nc`` and ``critical.json``
  (:func:`flocklab.analysis.critical.fit_critical_summary`, whose module docstring lists
  the variables);
* :func:`run_fss` → ``results/<study>/fss.nc`` and ``fss.json``
  (:func:`flocklab.analysis.fss.finite_size_scaling`; where the study is also fitted, its
  ``critical.nc`` is compared with the χ maxima by
  :func:`flocklab.analysis.fss.compare.with_fit_comparison`). A summary the analysis
  cannot use at all writes its reason (``refused`` in the JSON and the dataset's
  attributes) instead of failing the workflow.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import xarray as xr

from flocklab.analysis.critical import fit_critical_summary
from flocklab.analysis.fss import finite_size_scaling
from flocklab.analysis.fss.compare import with_fit_comparison
from flocklab.analysis.reading import CriticalFitError
from flocklab.core.io import open_dataset, write_json, write_netcdf
from flocklab.core.provenance import with_provenance


def run_fit_critical(summary_path: str | os.PathLike, settings: Mapping[str, Any],
                     out_nc: str | os.PathLike, out_json: str | os.PathLike, seed: int) -> None:
    """Stage entry: fit the study's summary with the config's ``critical`` settings."""
    ds, document = fit_critical_summary(
        open_dataset(summary_path), settings["control"], settings.get("select") or {},
        settings["reduced_min"], settings["reduced_max"], settings["bootstrap"], seed,
        refusals=True)
    write_netcdf(with_provenance(ds), out_nc)
    write_json(document, out_json)


def run_fss(summary_path: str | os.PathLike, settings: Mapping[str, Any],
            out_nc: str | os.PathLike, out_json: str | os.PathLike, seed: int,
            critical_path: str | os.PathLike | None = None) -> None:
    """Stage entry: finite-size scaling with the config's ``fss`` settings, compared with
    the study's effective fits (``critical_path``) where given."""
    summary = open_dataset(summary_path)
    try:
        ds, document = finite_size_scaling(summary, settings["control"], settings["size"],
                                           settings, seed=seed)
    except CriticalFitError as error:
        document = {"control": settings["control"], "size": settings["size"],
                    "refused": str(error), "verdict": f"refused: {error}"}
        ds = xr.Dataset(attrs={"title": "finite-size scaling", "control": settings["control"],
                               "size": settings["size"], "refused": str(error),
                               "verdict": document["verdict"]})
    else:
        if critical_path is not None:
            ds, document = with_fit_comparison(ds, document, open_dataset(critical_path))
    write_netcdf(with_provenance(ds), out_nc)
    write_json(document, out_json)
