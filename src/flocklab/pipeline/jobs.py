r"""Simulation jobs: one per parameter point, holding that point's replicates.

A simulate job starts a Python process, imports numpy, numba and netCDF4 and loads the
compiled kernels (about a second) before any physics, so a job runs every replicate of one
parameter point in one process. The rules ``simulate_<R>`` (one per replicate count R of the
config) have the wildcards ``study`` and ``point``, and a job's outputs are the point's R run
files (:func:`flocklab.core.paths.run_file`), whatever is on disk. What reruns is decided by
Snakemake alone, from the job's parameters (:func:`point_spec`, passed through the rule's
``params``) and its command:

* adding a point adds a job of that point only (the other points' specs are unchanged);
* a changed parameter, seed or run length changes the spec of every affected point;
* thread counts, ``--cores``, ``checkpoint_every``, ``burn_in`` and analysis options are
  not in the spec, so they never rerun a simulation;
* a sensitivity design grown or sampled again runs only its new points: a point's label
  names its values, and its spec holds them (planned from the same design as the
  ``design.nc`` that the analysis reads). The runs do not read ``design.nc``: as an input,
  its new time would rerun every row of a grown design.

On a cluster, point jobs are grouped into submissions (group ``runs``,
``--group-components``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flocklab.core import paths
from flocklab.core.model import Resources

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.config.study import Point, Study


def point_spec(study: Study, point: Point) -> dict[str, Any]:
    """The whole input of the job of one parameter point, JSON-ready.

    Parameters
    ----------
    study : Study
        A validated study.
    point : Point
        One of its points.

    Returns
    -------
    dict
        ``model``, ``study``, ``point``, ``params`` and ``runs`` (per replicate: ``out``,
        ``control``): what the runs' results depend on, and nothing else (threads and
        ``checkpoint_every`` are given to the job beside it).
    """
    runs = [{"out": paths.run_file(study.name, point.label, replicate),
             "control": study.control(point, replicate).as_attrs()}
            for replicate in range(study.replicates)]
    return {"model": study.model, "study": study.name, "point": point.label,
            "params": study.params(point), "runs": runs}


def point_resources(study: Study, point: Point) -> Resources:
    """Estimated CPU seconds of the point's replicates together and the memory of one run
    (the model's :meth:`~flocklab.core.model.Model.resources` hook)."""
    from flocklab.core.registry import get_model

    need = get_model(study.model).resources(study.params(point), study.grid(point))
    return Resources(need.memory_bytes, need.seconds * study.replicates)


def spec_argument(spec: Mapping[str, Any]) -> str:
    """The spec as the job's one command-line argument (compact JSON, keys sorted: the same
    spec is always the same text, so Snakemake sees a change only where there is one)."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"))
