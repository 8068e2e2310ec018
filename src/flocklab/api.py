"""The Python API beyond one run: a parameter sweep summarised as the pipeline summarises a
study (:func:`sweep`), and a study's run files as one dataset (:func:`open_study`).

Both use the pipeline's own pieces: :func:`sweep` builds its study with the config validator
(:func:`flocklab.pipeline.validate_config`) and summarises with
:func:`flocklab.analysis.summary.summary_dataset`, so its means, autocorrelation-corrected
errors, susceptibility and Binder cumulant are those of a study's ``summary.nc``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

#: Study name of a :func:`sweep` (its runs' seeds derive from it and the base seed).
SWEEP_STUDY = "sweep"
#: Attributes of a run file that are no parameters (identity, provenance, run controls).
RUN_IDENTITY = ("seed", "point", "replicate", "study", "run_fingerprint", "git_commit",
                "flocklab_version")


@contextlib.contextmanager
def kernel_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` numba threads (``None``: as they are), then restore
    the previous count. The count is set even before any kernel has imported numba, so the
    first run of a process honours it too (numba is imported here then)."""
    if threads is None:
        yield
        return
    from flocklab.core.threads import set_threads

    previous = set_threads(None)
    set_threads(threads)
    try:
        yield
    finally:
        set_threads(previous)


def sweep_config(model: str, grid: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                 params: Mapping[str, Any], replicates: int, seed: int,
                 time: Mapping[str, Any]) -> dict[str, Any]:
    """The one-study config of a :func:`sweep` (each mapping of ``grid`` is an axis whose
    parameters vary together; a mapping of several names becomes one axis per name)."""
    axes = ([{name: values} for name, values in grid.items()] if isinstance(grid, Mapping)
            else [dict(axis) for axis in grid])
    study = {"model": model, "params": dict(params), "sweep": axes,
             "replicates": replicates, **time}
    return {"base_seed": seed, "studies": {SWEEP_STUDY: study}}


def sweep(model: str, grid: Mapping[str, Any] | Sequence[Mapping[str, Any]], *,
          replicates: int = 1, seed: int = 0, threads: int | None = None,
          burn_in: float | None = None, params: Mapping[str, Any] | None = None,
          progress: bool | None = None, **time: Any) -> xr.Dataset:
    r"""Simulate every point of a parameter grid and summarise it as the pipeline does.

    Each point is run ``replicates`` times with seeds derived from ``seed``, the point and
    the replicate (as a config study's). The summary holds, per point, the time average
    :math:`\langle P\rangle` of every observable after ``burn_in`` with its error corrected
    for autocorrelation, the replicate mean and spread, the susceptibility
    :math:`\chi = N(\langle P^2\rangle - \langle P\rangle^2)` and the Binder cumulant
    :math:`U = 1 - \langle P^4\rangle / (3\langle P^2\rangle^2)` of the primary observable
    (Binder, "Finite size scaling analysis of Ising model block distribution functions",
    Z. Phys. B 43, 1981).

    Parameters
    ----------
    model : str
        Registered model name.
    grid : mapping of str to values, or sequence of mappings
        Swept parameters: ``{"eta": [0.5, 1.0, 2.0], "N": [40, 100]}`` crosses the two;
        a list of mappings is the config's ``sweep`` (names in one mapping vary together;
        values may be ``{start, stop, step}``).
    replicates : int
        Runs per point.
    seed : int
        Base seed (the config's ``base_seed``).
    threads : int, optional
        Kernel threads (results do not depend on it).
    burn_in : float, optional
        Records at times <= this are left out (model time units); default half the run.
    params : mapping, optional
        Fixed model parameters.
    progress : bool or None
        One line per finished run on stderr (``None``: only on a terminal).
    **time
        Run length and records: ``steps`` or ``t_end`` (with ``dt``), ``record_every``.

    Returns
    -------
    xarray.Dataset
        Dimensions: the swept parameters and ``replicate``; the variables of a study's
        ``summary.nc``: per run ``order_parameter_mean`` with its error ``_sem`` and
        autocorrelation time ``_tau``, ``susceptibility``, ``binder_cumulant``; over the
        replicates ``replicate_order_parameter``, ``replicate_susceptibility``,
        ``replicate_binder_cumulant`` with their ``_err``.

    Examples
    --------
    >>> import flocklab
    >>> summary = flocklab.sweep("vicsek", {"eta": [0.5, 4.0]}, params={"N": 40, "L": 3.1},
    ...                          steps=200, replicates=2, seed=1)
    >>> summary["replicate_order_parameter"].sizes["eta"]
    2
    """
    from flocklab.analysis.summary import summary_dataset
    from flocklab.core.driver import simulate as simulate_model
    from flocklab.core.progress import Progress
    from flocklab.core.registry import get_model
    from flocklab.pipeline import validate_config

    length = time.get("steps", time.get("t_end"))
    if burn_in is None and length is not None:
        burn_in = 0.5 * float(length)
    config = sweep_config(model, grid, params or {}, replicates, seed,
                          {**time, **({} if burn_in is None else {"burn_in": burn_in})})
    study = validate_config(config)[SWEEP_STUDY]
    instance = get_model(study.model)
    points = list(study.points())
    bar = Progress(len(points) * replicates, f"sweep {model}", enabled=progress)
    runs = []
    with kernel_threads(threads):
        for point in points:
            for replicate in range(replicates):
                run = simulate_model(instance, study.params(point),
                                     study.control(point, replicate))
                run.attrs.update(study=SWEEP_STUDY, point=point.label, replicate=replicate)
                runs.append(run)
                bar.update(len(runs))
    bar.close()
    return summary_dataset(runs, study.summary_record())


def _run_parameters(run: xr.Dataset) -> dict[str, Any]:
    text = run.attrs.get("parameters")
    if isinstance(text, str):
        return json.loads(text)
    return {key: value for key, value in run.attrs.items() if key not in RUN_IDENTITY}


def open_study(path: str | Path, *, snapshots: bool = False) -> xr.Dataset:
    """A study's run files as one dataset over ``point`` x ``replicate``.

    Parameters
    ----------
    path : path
        The study's results directory (``results/<study>``, holding ``runs/<point>/rep<k>.nc``)
        or its ``runs`` directory.
    snapshots : bool
        Also load the snapshot frames (padded with NaN where the points' entity counts
        differ); default: the recorded series only.

    Returns
    -------
    xarray.Dataset
        The runs' variables with dimensions ``point`` and ``replicate`` in front; the
        parameters that differ between points are coordinates along ``point``, the seed of
        every run is ``rng_seed`` (point, replicate); the first run's attributes.

    Raises
    ------
    FileNotFoundError
        If ``path`` holds no run files.
    """
    root = Path(path)
    runs_dir = root / "runs" if (root / "runs").is_dir() else root
    files = sorted(runs_dir.glob("*/rep*.nc"))
    if not files:
        raise FileNotFoundError(f"no run files (runs/<point>/rep<k>.nc) under {root}")
    by_point: dict[str, dict[int, Path]] = {}
    for file in files:
        by_point.setdefault(file.parent.name, {})[int(file.stem.removeprefix("rep"))] = file
    replicates = max(len(reps) for reps in by_point.values())
    points = {label: _point_runs(reps, replicates, snapshots) for label, reps in by_point.items()}
    varying = _varying_parameters([params for params, _, _ in points.values()])
    order = sorted(points, key=lambda label: tuple(
        _sort_key(points[label][0].get(name)) for name in varying))
    study = xr.concat([points[label][1] for label in order], dim="point", join="outer")
    study = study.assign_coords(point=order, replicate=np.arange(replicates))
    study = study.assign_coords({name: ("point", [points[label][0].get(name) for label in order])
                                 for name in varying})
    seeds = [points[label][2] for label in order]
    missing = any(seed is None for row in seeds for seed in row)
    study["rng_seed"] = (("point", "replicate"),
                         np.array([[np.nan if seed is None else seed for seed in row]
                                   for row in seeds], dtype=float if missing else np.uint64),
                         {"long_name": "seed of the run's random stream"})
    study.attrs = {key: value for key, value in study.attrs.items()
                   if key not in RUN_IDENTITY and key not in varying and key != "parameters"}
    return study


def _point_runs(reps: Mapping[int, Path], replicates: int, snapshots: bool
                ) -> tuple[dict[str, Any], xr.Dataset, list[Any]]:
    """The parameters, the runs stacked on ``replicate`` (NaN where a file is missing) and
    the seeds of one point."""
    loaded = [_load_run(reps[k], snapshots) if k in reps else None for k in range(replicates)]
    present = [run for run in loaded if run is not None]
    filler = xr.full_like(present[0], np.nan, dtype=float)
    stacked = xr.concat([filler if run is None else run for run in loaded], dim="replicate",
                        join="outer", combine_attrs="override")
    seeds = [None if run is None else run.attrs.get("seed") for run in loaded]
    return _run_parameters(present[0]), stacked, seeds


def _varying_parameters(params: Sequence[Mapping[str, Any]]) -> list[str]:
    """Names whose values differ between the points, in the first point's order."""
    return [name for name in params[0]
            if len({json.dumps(row.get(name), sort_keys=True) for row in params}) > 1]


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))


def _load_run(path: Path, snapshots: bool) -> xr.Dataset:
    from flocklab.core.io import open_dataset

    run = open_dataset(path)
    if not snapshots:
        run = run.drop_vars([name for name, var in run.data_vars.items()
                             if "frame" in var.dims])
        run = run.drop_dims([dim for dim in run.dims if dim not in ("time",)
                             and not any(dim in var.dims for var in run.data_vars.values())])
    return run.load()
