"""A run that advances frame by frame while its parameters change: the engine of the live
explorer (no user interface here).

:class:`LiveRun` drives a registered model through its own hooks, as the driver does
(:meth:`~flocklab.core.model.Model.initial_state`, then
:meth:`~flocklab.core.model.Model.advance` into a :class:`~flocklab.core.record.RunRecord`
that asks for one record and one frame at the end of each video frame), so the explorer runs
the pipeline's compiled kernels. A parameter change keeps the state arrays and rebuilds the
work space from the new parameters (what a resumed checkpoint does), so it takes effect at
the next step; when the new parameters give state arrays of other shapes (``N``, the number
of chain points, the cell grid) the run restarts from ``t = 0`` and says so. A model that
integrates its whole interval at once (:class:`~flocklab.core.model.IntervalModel`) is
solved ahead over :data:`PLAYBACK_FRAMES` frames and played back; a change solves it again.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.driver import load_state, run, state_arrays
from flocklab.core.model import IntervalModel, Model, Preset, SimulationError
from flocklab.core.parameters import ParameterError
from flocklab.core.provenance import netcdf_attrs
from flocklab.core.record import RunRecord
from flocklab.core.time import RunControl, TimeGrid

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

#: Frames an interval model is solved ahead for.
PLAYBACK_FRAMES = 600
#: Frames kept for trails.
TRAIL_FRAMES = 12


class LiveRun:
    """One model run advanced a video frame at a time.

    Parameters
    ----------
    model : Model
        A registered model instance.
    params : mapping, optional
        Parameter values (the rest take their defaults); checked as the driver checks them.
    seed : int
        Seed of the run's random stream.
    dt : float, optional
        Time step of a continuous model (default :attr:`Model.default_dt`).
    steps_per_frame : int
        Model steps between two frames (the speed).

    Attributes
    ----------
    params : dict
        The declared parameters (defaults filled in).
    prepared : dict
        The run's prepared parameters (:meth:`Model.prepare
        <flocklab.core.model.Model.prepare>`), the dict the model's hooks receive.
    step : int
        Global step of the current state.
    times, series : list, dict of str to list
        Time of each frame so far and each observable's value there.
    message : str
        What the last change did (a restart, a blow-up), for the user.
    """

    def __init__(self, model: Model, params: Mapping[str, Any] | None = None, seed: int = 0,
                 dt: float | None = None, steps_per_frame: int = 1) -> None:
        self.model = model
        self.seed = int(seed)
        self.dt = 1.0 if model.time_mode == "steps" else float(dt or model.default_dt)
        self.steps_per_frame = max(1, int(steps_per_frame))
        self._use(self._checked(params or {}))
        self.message = ""
        self.changes: list[tuple[int, str, Any]] = []
        self.reset()

    # ----------------------------------------------------------------- control

    def _checked(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Prepared parameters, the cross-rules checked on a one-step grid (ParameterError)."""
        control = RunControl(seed=self.seed, steps=1,
                             dt=None if self.model.time_mode == "steps" else self.dt)
        return self.model.prepare(given, control.grid(self.model))

    def _use(self, prepared: dict[str, Any]) -> None:
        self.prepared = prepared
        self.params = self.model.public(prepared)

    def reset(self, seed: int | None = None) -> None:
        """Start again from ``t = 0`` (with a new ``seed`` if given)."""
        if seed is not None:
            self.seed = int(seed)
        self.step = 0
        self.finished = False
        self.times: list[float] = []
        self.series: dict[str, list[float]] = {o.name: [] for o in self.model.observables}
        self.frames: collections.deque = collections.deque(maxlen=TRAIL_FRAMES + 1)
        self.changes = []
        self._playback: xr.Dataset | None = None
        if isinstance(self.model, IntervalModel):
            self._solve_ahead()
            return
        self.state = self._fresh_state(self.prepared)
        self._outputs = self.model.run_outputs(self.state, self.prepared)
        self._remember(self.model.observe(self.state, self.prepared),
                       self.model.snapshot(self.state, self.prepared))

    def _fresh_state(self, params: Mapping[str, Any]) -> dict:
        state = self.model.initial_state(params, np.random.default_rng(self.seed))
        state["_dt"] = self.dt
        return state

    def set_dt(self, dt: float) -> str:
        """Change the time step of a continuous model: the run restarts from ``t = 0``.

        Raises
        ------
        ParameterError
            If ``dt`` is not a number > 0 or the model's rules refuse it.
        """
        if self.model.time_mode == "steps" or float(dt) == self.dt:
            return ""
        previous = self.dt
        self.dt = float(dt)
        try:
            self._use(self._checked(self.params))
        except ParameterError:
            self.dt = previous
            raise
        self.reset()
        self.message = f"dt changed to {self.dt:g} {self.model.time_units}: restarted"
        return self.message

    def apply_preset(self, preset: Preset) -> str:
        """Take a preset's parameters (the others at their defaults) and time step, and
        restart from ``t = 0``."""
        self._use(self._checked(dict(preset.params)))
        if preset.dt is not None and self.model.time_mode == "continuous":
            self.dt = float(preset.dt)
        self.reset()
        self.message = f"preset '{preset.name}': {preset.description}"
        return self.message

    def set_parameters(self, given: Mapping[str, Any]) -> str:
        """Change parameters (the others keep their values); returns what happened.

        Raises
        ------
        ParameterError
            Naming the offending parameter; nothing is changed.
        """
        prepared = self._checked({**self.params, **given})
        changed = {name: value for name, value in self.model.public(prepared).items()
                   if self.params[name] != value}
        if not changed:
            return ""
        self._use(prepared)
        if isinstance(self.model, IntervalModel):
            self.reset()
            self.message = (f"{', '.join(changed)} changed: the interval is solved again "
                            f"from t = 0")
            return self.message
        if self.step == 0:  # nothing run yet: start with the new values
            self.reset()
            self.message = f"{', '.join(changed)} set"
            return self.message
        fresh = self._fresh_state(prepared)
        old = state_arrays(self.state)
        new = state_arrays(fresh)
        same = old.keys() == new.keys() and all(
            old[name].shape == new[name].shape and old[name].dtype == new[name].dtype
            for name in old)
        if not same:
            self.reset()
            self.message = (f"{', '.join(changed)} changed the shape of the state: "
                            f"restarted from t = 0")
            return self.message
        load_state(fresh, old)
        self.state = fresh
        self._outputs = self.model.run_outputs(self.state, self.prepared)
        self.changes.extend((self.step, name, value) for name, value in changed.items())
        self.message = f"{', '.join(changed)} changed at {self.time_text()}"
        return self.message

    # ----------------------------------------------------------------- stepping

    def advance(self) -> bool:
        """Advance one frame (``steps_per_frame`` steps); ``False`` when the run cannot go
        on (it blew up, or an interval model's solved interval is used up)."""
        if self.finished:
            return False
        if self._playback is not None:
            return self._play()
        first, k = self.step, self.steps_per_frame
        record = self._frame_record(first + k)
        try:
            self.model.advance(self.state, self.prepared, first, k, record)
        except (SimulationError, ParameterError) as error:
            return self.stop(getattr(error, "message", str(error)))
        self.step = first + k
        if not all(np.isfinite(values).all() for values in state_arrays(self.state).values()
                   if values.dtype.kind == "f"):
            return self.stop(f"the state became non-finite in the {k} steps before "
                              f"{self.time_text()}")
        self._remember({name: values[0] for name, values in record.series.items()},
                       {name: values[0] for name, values in record.frames.items()})
        return True

    def stop(self, why: str) -> bool:
        """Stop the run, saying ``why`` in :attr:`message`; returns ``False``."""
        self.finished = True
        self.message = f"stopped: {why}"
        return False

    def _frame_record(self, stop: int) -> RunRecord:
        """A record buffer with one record and one frame, at global step ``stop``."""
        grid = TimeGrid(stop, self.dt, self.model.time_units, self.model.time_mode == "steps",
                        np.array([stop]), np.array([stop]))
        record = RunRecord.allocate(self.model, self.prepared,
                                    TimeGrid(0, self.dt, grid.units, grid.integer,
                                             np.array([0]), np.array([0])))
        index = np.full(stop + 1, -1, dtype=np.int64)
        index[stop] = 0
        record.grid, record.record_of_step, record.frame_of_step = grid, index, index.copy()
        return record

    def _remember(self, values: Mapping[str, float], frame: Mapping[str, np.ndarray]) -> None:
        self.times.append(self.step * self.dt)
        for name in self.series:
            self.series[name].append(float(values.get(name, np.nan)))
        self.frames.append((self.step * self.dt, {name: np.array(values, copy=True)
                                                   for name, values in frame.items()}))

    # ----------------------------------------------------------------- interval models

    def _solve_ahead(self) -> None:
        """Solve an interval model over :data:`PLAYBACK_FRAMES` frames (through the driver)."""
        every = self.steps_per_frame * self.dt
        control = RunControl(seed=self.seed, t_end=PLAYBACK_FRAMES * every, dt=self.dt,
                             record_every=every, snapshot_every=every)
        try:
            self._playback = run(self.model, self.params, control).to_xarray()
        except SimulationError as error:
            self._playback = None
            self.state = {}
            self.stop(str(error))
            return
        self._play_index = -1
        self._play()

    def _play(self) -> bool:
        run_ = self._playback
        self._play_index += 1
        if self._play_index >= run_.sizes["time"]:
            return self.stop("end of the solved interval (reset to solve it again)")
        index = self._play_index
        self.step = round(float(run_["time"].values[index]) / self.dt)
        self.times.append(float(run_["time"].values[index]))
        for name in self.series:
            self.series[name].append(float(run_[name].values[index]))
        return True

    # ----------------------------------------------------------------- views

    def time_text(self) -> str:
        """``step 120`` or ``t = 1.2 s``."""
        if self.model.time_mode == "steps":
            return f"step {self.step}"
        return f"t = {self.step * self.dt:.4g} {self.model.time_units}"

    def view(self) -> xr.Dataset:
        """The recent frames as a run file's dataset (what a :class:`Drawing` reads); its
        last frame is the current one."""
        import xarray as xr

        if self._playback is not None:
            return self._playback.isel(frame=slice(0, self._play_index + 1))
        model = self.model
        times = [t for t, _ in self.frames]
        data = {}
        for name, spec in model.snapshot_variables.items():
            if name not in self.frames[-1][1]:
                continue
            dims = ("frame", spec.entity_dim or model.entity_dim,
                    *(dim for dim, _ in spec.trailing))
            data[name] = (dims, np.stack([frame[name] for _, frame in self.frames]))
        for name, (dims, values, attrs) in self._outputs.items():
            data[name] = xr.Variable(dims, values, attrs)
        ds = xr.Dataset(data, coords={"frame": ("frame", np.asarray(times),
                                                {"units": model.time_units})})
        ds.attrs = netcdf_attrs({"model": model.name, "parameters": self.params,
                                 **self.params, "dt": self.dt,
                                 "time_units": model.time_units, **model.derived(self.params)})
        return ds

    def control(self) -> RunControl:
        """The run controls that reproduce the run so far from ``t = 0`` (a record every
        frame, about a hundred snapshot frames)."""
        steps = max(1, self.step)
        every = self.steps_per_frame
        frames = max(every, steps // 100 // every * every)
        if self.model.time_mode == "steps":
            return RunControl(seed=self.seed, steps=steps, record_every=every,
                              snapshot_every=frames)
        return RunControl(seed=self.seed, steps=steps, dt=self.dt,
                          record_every=every * self.dt, snapshot_every=frames * self.dt)
