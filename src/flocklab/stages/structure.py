"""Stage *structure*: a study's run files → ``results/<study>/structure.nc`` and
``structure.json``; and the ``flocklab structure`` command on one run file.

I/O only: the analysis is :func:`flocklab.analysis.structure_study.study_structure` (per
point, replicates pooled) and :func:`flocklab.analysis.structure.run_structure` (one run);
files are written with the atomic writers of :mod:`flocklab.core.io`, provenance added here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from flocklab.core.io import open_dataset, write_json, write_netcdf
from flocklab.core.provenance import with_provenance
from flocklab.core.registry import get_model


def run_structure_stage(run_paths: Sequence[str | os.PathLike], study: Mapping[str, Any],
                        settings: Mapping[str, Any], seed: int, out_nc: str | os.PathLike,
                        out_json: str | os.PathLike) -> None:
    """Stage entry: the spatial structure of every point of ``study``."""
    from flocklab.analysis.structure_study import study_structure

    runs = [open_dataset(path) for path in run_paths]
    dataset, document = study_structure(runs, get_model(study["model"]), study, settings, seed)
    write_netcdf(with_provenance(dataset), out_nc)
    write_json(document, out_json)


def run_structure_file(run_path: str | os.PathLike, out_json: str | os.PathLike,
                       first_frame: int | None = None, out_nc: str | os.PathLike | None = None,
                       seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """The ``flocklab structure`` command: one run file's structure as JSON (and netCDF)."""
    from flocklab.analysis.structure import run_structure

    run = open_dataset(run_path)
    dataset, summary = run_structure(run, get_model(run.attrs["model"]), first_frame, seed,
                                     resamples)
    summary = {"run": os.fspath(run_path), **summary}
    write_json(summary, out_json)
    if out_nc is not None:
        write_netcdf(with_provenance(dataset), out_nc)
    return summary
