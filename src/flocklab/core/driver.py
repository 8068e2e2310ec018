"""The one time loop every model runs in.

:func:`run` prepares the parameters once (:func:`prepare`: resolved, completed and
checked by :meth:`~flocklab.core.model.Model.prepare` into the dict every hook receives)
with the step schedule, checks the memory the run needs against what the machine has,
draws the initial state from the run's :class:`numpy.random.Generator`, and advances the
model in chunks. Between chunks it
reports progress, checks that the state is finite (a non-finite state stops the run with
:class:`~flocklab.core.model.SimulationError` naming the model, parameters, seed and
time; nothing is written), and saves a checkpoint when one is due. A resumed run gives the
same record as an uninterrupted one, because chunk boundaries never change what a model
computes (counter-based noise; models with whole-interval solvers declare no checkpoint
support and run in one chunk).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.model import IntervalModel, Model, SimulationError
from flocklab.core.parameters import ParameterError
from flocklab.core.progress import Progress
from flocklab.core.record import RunRecord
from flocklab.core.time import RunControl, TimeGrid, check_points

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.checkpoint import Checkpoint


class ResourceError(MemoryError):
    """A run needs more memory than the machine has available; nothing was started."""


def available_memory() -> int | None:
    """Bytes of memory available to new processes (``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(model: Model, params: Mapping[str, Any], grid: TimeGrid) -> None:
    """Raise :class:`ResourceError` if the run needs more memory than is available."""
    need = model.resources(params, grid).memory_bytes
    have = available_memory()
    if have is not None and need > have:
        raise ResourceError(
            f"{model.name} run needs about {need / 2**30:.3g} GiB of memory but "
            f"{have / 2**30:.3g} GiB are available (parameters "
            f"{json.dumps(dict(params), sort_keys=True, default=str)}, {grid.steps} steps)")


def state_arrays(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The arrays that make up a model's state: its :class:`numpy.ndarray` entries whose
    names do not start with ``_`` (checkpoint contents, finiteness check)."""
    return {name: value for name, value in state.items()
            if isinstance(value, np.ndarray) and not name.startswith("_")}


def load_state(state: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Overwrite the state arrays of ``state`` (fresh from ``initial_state``) in place with
    saved ones, ``name -> array`` as :func:`state_arrays` gave them."""
    for name, value in state_arrays(state).items():
        value[...] = arrays[name]


def _finite(state: Mapping[str, Any]) -> bool:
    return all(np.isfinite(values).all() for values in state_arrays(state).values()
               if values.dtype.kind == "f")


@dataclass(frozen=True)
class PreparedRun:
    """A run's prepared parameters and step schedule (:func:`prepare`).

    Attributes
    ----------
    params : dict
        :meth:`Model.prepare <flocklab.core.model.Model.prepare>`'s dict: what every hook
        receives; its declared part (:attr:`public`) is what the run file records.
    grid : TimeGrid
        The checked step schedule (the longest one of an adaptive run).
    public : dict
        The declared parameters (defaults filled): the run file's ``parameters``, and what
        checkpoint and run fingerprints hash.
    """

    params: dict[str, Any]
    grid: TimeGrid
    public: dict[str, Any]


def prepare(model: Model, params: Mapping[str, Any], control: RunControl) -> PreparedRun:
    """A run's parameters, resolved, completed and checked once (with its step schedule),
    and the schedule; no run started."""
    grid = control.grid(model)
    prepared = model.prepare(params, grid)
    if control.adaptive:
        grid = adaptive_grid(model, control, grid)
    return PreparedRun(prepared, grid, model.public(prepared))


def run(model: Model, params: Mapping[str, Any] | PreparedRun, control: RunControl, *,
        progress: bool | None = False, checkpoint: Checkpoint | None = None) -> RunRecord:
    """Run ``model`` and return its filled :class:`RunRecord`.

    Parameters
    ----------
    model : Model
        A registered model instance.
    params : mapping or PreparedRun
        Model parameters (missing ones take their defaults), or the run already prepared
        by :func:`prepare` (with the same ``control``): parameters are prepared once.
    control : RunControl
        Seed, run length and recording schedule.
    progress : bool or None
        Progress bar on stderr (``None``: only on a terminal).
    checkpoint : Checkpoint, optional
        Save the state every ``checkpoint.every`` steps and resume from a matching
        checkpoint (ignored by an :class:`~flocklab.core.model.IntervalModel`).

    Raises
    ------
    SimulationError
        If the state becomes non-finite (or the model detects a blow-up).
    ResourceError
        If the run needs more memory than is available.
    """
    prepared = params if isinstance(params, PreparedRun) else prepare(model, params, control)
    p, grid = prepared.params, prepared.grid
    check_memory(model, p, grid)
    state = model.initial_state(p, np.random.default_rng(control.seed))
    state["_dt"] = grid.dt
    record = RunRecord.allocate(model, p, grid)
    started = time.perf_counter()
    if isinstance(model, IntervalModel):
        record.extra = model.solve(state, p, record)
        _check_finite(model, state, p, control, 0, grid.steps, grid)
    else:
        final = _step_through(model, state, p, control, record, checkpoint, progress)
        if final < grid.steps:
            record.truncate(final)
        record.extra = model.run_outputs(state, p)
    record.loop_seconds = time.perf_counter() - started
    record.set_attrs(prepared.public, control)
    return record


def adaptive_grid(model: Model, control: RunControl, pilot: TimeGrid) -> TimeGrid:
    """The longest schedule of an adaptive run, after checking the model steps in chunks
    and the run lengths are whole record intervals."""
    if isinstance(model, IntervalModel):
        raise ParameterError("min_independent_samples", f"model '{model.name}' integrates a "
                                                         f"whole interval at once and cannot "
                                                         f"extend a run")
    longest = control.longest_grid(model)
    interval = _record_interval(pilot)
    for name, value in (("steps", pilot.steps), ("max_steps", longest.steps)):
        if value % interval:
            raise ParameterError(name, f"'{name}' = {value} must be a whole number of record "
                                       f"intervals ({interval} steps) for an adaptive run")
    return longest


def enough_samples(record: RunRecord, step: int, wanted: int) -> bool:
    r"""Whether the second half of the run up to ``step`` holds ``wanted`` independent
    samples of the primary observable, :math:`n / \tau_{\mathrm{int}} \ge K`
    (:func:`flocklab.core.autocorrelation.independent_samples`; the first half is the
    burn-in of this test, so it does not depend on the study's ``burn_in``)."""
    from flocklab.core.autocorrelation import independent_samples

    steps = record.grid.record_steps
    kept = (steps > step / 2) & (steps <= step)
    series = record.series[record.model.primary_observable][kept]
    return bool(series.size >= 2 and independent_samples(series) >= wanted)


def _step_through(model: Model, state: dict, p: dict[str, Any], control: RunControl,
                  record: RunRecord, checkpoint: Checkpoint | None,
                  progress: bool | None) -> int:
    """The chunked time loop: advance, check, checkpoint, report progress. An adaptive
    run stops at the first check point (:func:`flocklab.core.time.check_points`) with
    enough independent samples (:func:`enough_samples`); returns the last step."""
    grid = record.grid
    step = _resume(state, record, checkpoint)
    if step == 0:
        record.store(0, model, state, p)
    stops = (check_points(control.steps, grid.steps, _record_interval(grid))
             if control.adaptive else [grid.steps])
    bar = Progress(grid.steps, label=f"{model.name}", enabled=progress)
    for stop in stops:
        if stop < step:
            continue
        step = _advance_to(model, state, p, control, record, checkpoint, step, stop, bar)
        if control.adaptive and enough_samples(record, stop,
                                               int(control.min_independent_samples)):
            break
    bar.close()
    return step


def _record_interval(grid: TimeGrid) -> int:
    return int(grid.record_steps[1] - grid.record_steps[0]) if grid.record_steps.size > 1 else 1


def _advance_to(model: Model, state: dict, p: dict[str, Any], control: RunControl,
                record: RunRecord, checkpoint: Checkpoint | None, step: int, stop: int,
                bar: Progress) -> int:
    """Advance from ``step`` to ``stop`` in chunks, checking and checkpointing."""
    grid = record.grid
    chunk = max(1, min(grid.steps, model.chunk_updates // max(1, model.entity_count(p))))
    while step < stop:
        k = min(chunk, stop - step)
        if checkpoint is not None:
            k = min(k, checkpoint.next_step(step) - step)
        model.advance(state, p, step, k, record)
        step += k
        _check_finite(model, state, p, control, step - k, step, grid)
        if checkpoint is not None and step % checkpoint.every == 0 and step < grid.steps:
            checkpoint.save(step, {**{f"state.{name}": value for name, value
                                      in state_arrays(state).items()},
                                   **record.checkpoint_arrays()})
        bar.update(step)
    return step


def _check_finite(model: Model, state: dict, p: Mapping[str, Any], control: RunControl,
                  first: int, last: int, grid: TimeGrid) -> None:
    if not _finite(state):
        raise SimulationError(
            f"{model.name} simulation became non-finite in t = ({first * grid.dt:g}, "
            f"{last * grid.dt:g}] {grid.units} (steps {first}-{last}; parameters "
            f"{json.dumps(p, sort_keys=True, default=str)}, seed {control.seed})")


def simulate(model: Model, params: Mapping[str, Any], control: RunControl, *,
             progress: bool | None = False, checkpoint: Checkpoint | None = None
             ) -> xr.Dataset:
    """Run ``model`` (see :func:`run`) and return the run as an :class:`xarray.Dataset`."""
    return run(model, params, control, progress=progress, checkpoint=checkpoint).to_xarray()


def _resume(state: dict, record: RunRecord,
            checkpoint: Checkpoint | None) -> int:
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is None:
        return 0
    step, arrays = saved
    load_state(state, {name.removeprefix("state."): value for name, value in arrays.items()
                       if name.startswith("state.")})
    record.load_checkpoint(arrays)
    return step
