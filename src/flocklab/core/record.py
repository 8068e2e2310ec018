"""What a run records: observable series, snapshot frames and run-level variables.

A :class:`RunRecord` is allocated by the driver from a model's declarations and its
:class:`~flocklab.core.model.TimeGrid`, filled during the run (by the model's compiled
loop, or by :meth:`RunRecord.store`), and written with :meth:`RunRecord.write` (netCDF4
directly, no xarray) or turned into an :class:`xarray.Dataset` by :meth:`to_xarray`.

Run file layout (every model):

=====================  ======================  ==============================================
variable               dimensions              meaning
=====================  ======================  ==============================================
<observable>           time                    each declared observable, at the record steps
<snapshot variable>    frame, <entity_dim>     each declared snapshot variable, by identity
time                   time                    model time of each record (step index for
                                               stepped models)
frame                  frame                   model time of each frame (frame 0: t = 0)
<entity_dim>           <entity_dim>            entity index (identity kept across frames)
extra outputs          model-defined           e.g. solver statistics, alive masks
=====================  ======================  ==============================================

Attributes: ``title``, ``model``, ``reference``, every parameter (and all of them as JSON
in ``parameters``), the run controls, ``dt``, ``time_units``, ``primary_observable``,
derived quantities, ``flocklab_version``, ``git_commit``; in the pipeline also ``study``,
``point``, ``replicate``. No time stamps, so the same inputs give the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.io import write_netcdf_variables
from flocklab.core.provenance import netcdf_attrs, provenance_attrs

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.model import Model
    from flocklab.core.time import RunControl, TimeGrid


def _index_of(steps: np.ndarray, total: int) -> np.ndarray:
    index = np.full(total + 1, -1, dtype=np.int64)
    index[steps] = np.arange(len(steps), dtype=np.int64)
    return index


@dataclass
class RunRecord:
    """Buffers of one run, indexed by record and frame number.

    Attributes
    ----------
    grid : TimeGrid
        The run's schedule.
    series : dict of str to ndarray, shape (R,)
        One array per observable, at ``grid.record_steps``.
    frames : dict of str to ndarray, shape (F, N)
        One array per snapshot variable, at ``grid.frame_steps``.
    record_of_step, frame_of_step : ndarray of int64, shape (steps + 1,)
        Record / frame index of each step, ``-1`` where none is taken.
    extra : dict
        Run-level variables ``name -> (dims, values, attrs)``.
    attrs : dict
        Global attributes.
    """

    grid: TimeGrid
    series: dict[str, np.ndarray]
    frames: dict[str, np.ndarray]
    record_of_step: np.ndarray
    frame_of_step: np.ndarray
    model: Model
    entities: int
    extra: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = field(
        default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    #: The resolved parameters of the run (set with the attributes).
    params: dict[str, Any] = field(default_factory=dict)
    #: Wall time of the time loop (s), for logs and benchmarks; never written to the file.
    loop_seconds: float = 0.0

    @classmethod
    def allocate(cls, model: Model, params: Mapping[str, Any], grid: TimeGrid) -> RunRecord:
        n = model.entity_count(params)
        records, frames = len(grid.record_steps), len(grid.frame_steps)
        series = {obs.name: np.full(records, np.nan) for obs in model.observables}
        snapshots = {}
        for name, spec in model.snapshot_variables.items():
            count = n if spec.count is None else int(spec.count(params))
            if count:
                shape = (frames, count, *(size for _, size in spec.trailing))
                snapshots[name] = np.zeros(shape, dtype=spec.dtype)
        return cls(grid, series, snapshots, _index_of(grid.record_steps, grid.steps),
                   _index_of(grid.frame_steps, grid.steps), model, n)

    def event_steps(self, start: int, stop: int) -> np.ndarray:
        """Steps in ``(start, stop]`` at which a record or a frame is due."""
        window = slice(start + 1, stop + 1)
        due = (self.record_of_step[window] >= 0) | (self.frame_of_step[window] >= 0)
        return np.nonzero(due)[0] + start + 1

    def store(self, step: int, model: Model, state: dict, params: Mapping[str, Any]) -> None:
        """Observe and/or snapshot ``state`` at ``step`` if either is due there."""
        record = self.record_of_step[step]
        if record >= 0:
            for name, value in model.observe(state, params).items():
                self.series[name][record] = value
        frame = self.frame_of_step[step]
        if frame >= 0:
            for name, values in model.snapshot(state, params).items():
                if name in self.frames:
                    self.frames[name][frame] = values

    def truncate(self, steps: int) -> None:
        """Cut the record at ``steps`` (a record step): an adaptive run that stopped early
        then holds exactly what a run of ``steps`` would
        (:func:`flocklab.core.time.truncate_grid`)."""
        from flocklab.core.time import truncate_grid

        self.grid = truncate_grid(self.grid, steps)
        records, frames = len(self.grid.record_steps), len(self.grid.frame_steps)
        self.series = {name: values[:records] for name, values in self.series.items()}
        self.frames = {name: values[:frames] for name, values in self.frames.items()}
        self.record_of_step = self.record_of_step[:steps + 1]
        self.frame_of_step = self.frame_of_step[:steps + 1]

    def checkpoint_arrays(self) -> dict[str, np.ndarray]:
        arrays = {f"series.{name}": values for name, values in self.series.items()}
        arrays.update({f"frames.{name}": values for name, values in self.frames.items()})
        return arrays

    def load_checkpoint(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name, values in self.checkpoint_arrays().items():
            values[...] = arrays[name]

    # ----------------------------------------------------------------- output

    def set_attrs(self, params: Mapping[str, Any], control: RunControl) -> None:
        self.params = dict(params)
        model = self.model
        attrs: dict[str, Any] = {
            "title": model.title or f"{model.name} simulation",
            "model": model.name,
            "reference": model.reference,
            "parameters": dict(params),
            **params,
            **control.as_attrs(),
            "steps": self.grid.steps,
            "dt": self.grid.dt,
            "time_units": self.grid.units,
            "primary_observable": model.primary_observable,
            **model.derived(params),
            **provenance_attrs(),
        }
        self.attrs = netcdf_attrs(attrs)

    def variables(self) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        """Every variable of the run file, ``name -> (dims, values, attrs)``."""
        model, grid = self.model, self.grid
        time_units = grid.units
        out: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = {}
        for obs in model.observables:
            out[obs.name] = (("time",), self.series[obs.name],
                             {"long_name": obs.long_name, "units": obs.units})
        for name, spec in model.snapshot_variables.items():
            if name not in self.frames:
                continue
            dims = ("frame", spec.entity_dim or model.entity_dim,
                    *(dim for dim, _ in spec.trailing))
            out[name] = (dims, self.frames[name],
                         {"long_name": spec.long_name, "units": spec.units})
        out.update(self.extra)
        what = "time step" if grid.integer else "time"
        out["time"] = (("time",), grid.times(grid.record_steps),
                       {"long_name": what, "units": time_units})
        out["frame"] = (("frame",), grid.times(grid.frame_steps),
                        {"long_name": f"{what} of the snapshot", "units": time_units})
        out[model.entity_dim] = ((model.entity_dim,), np.arange(self.entities),
                                 {"long_name": f"{model.entity_dim} index (identity kept "
                                               f"across frames)"})
        return out

    def write(self, path: str | os.PathLike, extra_attrs: Mapping[str, Any] | None = None
              ) -> None:
        """Write the run file atomically (netCDF4, no xarray)."""
        attrs = {**self.attrs, **netcdf_attrs(extra_attrs or {})}
        write_netcdf_variables(self.variables(), attrs, path)

    def to_xarray(self) -> xr.Dataset:
        """The run as an :class:`xarray.Dataset` (the same content as the file)."""
        import xarray as xr

        variables = self.variables()
        coords = {name: variables.pop(name) for name in ("time", "frame",
                                                         self.model.entity_dim)}
        ds = xr.Dataset({name: xr.Variable(*value) for name, value in variables.items()},
                        coords={name: xr.Variable(*value) for name, value in coords.items()})
        ds.attrs = dict(self.attrs)
        return ds
