"""Stages *sample* and *analyse_sensitivity* of a sensitivity study.

I/O only; the datasets are made by :mod:`flocklab.analysis.sensitivity`, whose functions
document their variables:

* :func:`write_design` → ``results/<study>/design.nc``
  (:func:`flocklab.analysis.sensitivity.design_record_dataset`);
* :func:`run_analysis` → ``results/<study>/sensitivity.nc`` and a JSON digest
  (:func:`flocklab.analysis.sensitivity.analyse_sensitivity`).

Both files also carry the version and commit (:func:`flocklab.core.provenance.with_provenance`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flocklab.analysis.sensitivity import analyse_sensitivity, design_record_dataset
from flocklab.config import design_points, sensitivity_design
from flocklab.core.io import open_dataset, write_json, write_netcdf
from flocklab.core.provenance import with_provenance

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


def write_design(record: Mapping[str, Any], out: str | os.PathLike) -> None:
    """Generate a study's design (as the config validation did) and write it.

    ``record``: ``name``, ``model``, ``fixed``, ``sensitivity`` (``method``, ``factors``,
    ``samples``, ``levels`` of the section: what the design depends on), ``seed``
    (:func:`flocklab.config.design_seed`).
    """
    design = sensitivity_design(record["model"], record["fixed"], record["sensitivity"],
                                record["seed"], f"studies.{record['name']}.sensitivity")
    points = design_points(record["model"], record["fixed"], design,
                           f"studies.{record['name']}.sensitivity.factors")
    write_netcdf(with_provenance(design_record_dataset(record, design, points)), out)


def display_names(model_name: str, names: list[str]) -> dict[str, str]:
    """The long name of each of a model's parameters or outputs ``names`` (for evidence)."""
    from flocklab.core.registry import get_model
    from flocklab.figures.labels import quantity

    model = get_model(model_name)
    return {name: quantity(model, name).long_name for name in names}


def is_deterministic(design: xr.Dataset) -> bool:
    """Whether no run of the design depends on its seed: each row's model parameters
    (the fixed ones and those its factors set), resolved and asked
    :meth:`~flocklab.core.model.Model.uses_seed`."""
    from flocklab.core.registry import get_model

    model = get_model(design.attrs["model"])
    fixed = json.loads(design.attrs["fixed_parameters"])
    set_by_factors = [name for name, variable in design.data_vars.items()
                      if str(variable.attrs.get("long_name", "")).startswith("model parameter ")]
    rows = {tuple((name, design[name].values[row].item()) for name in set_by_factors)
            for row in range(design.sizes["row"])}
    return not any(model.uses_seed(model.resolve({**fixed, **dict(row)})) for row in rows)


def run_analysis(design_path: str | os.PathLike, summary_path: str | os.PathLike,
                 settings: Mapping[str, Any], replicates: int, out_nc: str | os.PathLike,
                 out_json: str | os.PathLike) -> None:
    """Read the design and the summary, :func:`analyse_sensitivity` them and write both
    outputs."""
    design = open_dataset(design_path)
    names = display_names(design.attrs["model"], [*settings["outputs"],
                                                  *design["parameter"].values.tolist()])
    ds, document = analyse_sensitivity(design, open_dataset(summary_path), settings,
                                       replicates, names, is_deterministic(design))
    write_json(document, out_json)
    write_netcdf(with_provenance(ds), out_nc)
