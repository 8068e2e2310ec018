"""The one time loop every model runs in.

:func:`run` resolves the parameters, builds the step schedule, checks the memory the run
needs against what the machine has, draws the initial state from the run's
:class:`numpy.random.Generator`, and advances the model in chunks. Between chunks it
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
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.model import IntervalModel, Model, SimulationError
from flocklab.core.progress import Progress
from flocklab.core.record import RunRecord
from flocklab.core.time import RunControl, TimeGrid

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


def prepare(model: Model, params: Mapping[str, Any], control: RunControl
            ) -> tuple[dict[str, Any], TimeGrid]:
    """Resolved parameters and the checked step schedule of a run (no run started)."""
    resolved = model.resolve(params)
    grid = control.grid(model)
    model.check(resolved, grid)
    return resolved, grid


def run(model: Model, params: Mapping[str, Any], control: RunControl, *,
        progress: bool | None = False, checkpoint: Checkpoint | None = None) -> RunRecord:
    """Run ``model`` and return its filled :class:`RunRecord`.

    Parameters
    ----------
    model : Model
        A registered model instance.
    params : mapping
        Model parameters (missing ones take their defaults).
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
    p, grid = prepare(model, params, control)
    check_memory(model, p, grid)
    state = model.initial_state(p, np.random.default_rng(control.seed))
    state["_dt"] = grid.dt
    record = RunRecord.allocate(model, p, grid)
    started = time.perf_counter()
    if isinstance(model, IntervalModel):
        record.extra = model.solve(state, p, record)
        _check_finite(model, state, p, control, 0, grid.steps, grid)
    else:
        _step_through(model, state, p, control, record, checkpoint, progress)
        record.extra = model.run_outputs(state, p)
    record.loop_seconds = time.perf_counter() - started
    record.set_attrs(p, control)
    return record


def _step_through(model: Model, state: dict, p: dict[str, Any], control: RunControl,
                  record: RunRecord, checkpoint: Checkpoint | None,
                  progress: bool | None) -> None:
    """The chunked time loop: advance, check, checkpoint, report progress."""
    grid = record.grid
    step = _resume(state, record, checkpoint)
    if step == 0:
        record.store(0, model, state, p)
    chunk = max(1, min(grid.steps, model.chunk_updates // max(1, model.entity_count(p))))
    bar = Progress(grid.steps, label=f"{model.name}", enabled=progress)
    while step < grid.steps:
        k = min(chunk, grid.steps - step)
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
    bar.close()


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
