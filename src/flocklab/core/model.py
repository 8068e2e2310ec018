r"""The contract every model implements: declarations, hooks, run controls.

A model is a subclass of :class:`Model` that *declares* what it is and what it records,
and implements a few small *hooks*; the shared driver (:mod:`flocklab.core.driver`) owns the
time loop — chunking, progress, the finiteness check, checkpoint save/resume, the record
and snapshot schedules — and packages the result as a :class:`~flocklab.core.record.RunRecord`
(a netCDF file, or an :class:`xarray.Dataset` through ``to_xarray``). Stages, rules, the
config schema, figures and captions read only these declarations, never a model's name.

Subclass contract
-----------------
Declarations (class attributes):

``name, description, reference, title``
    Registry name, one-line description, literature reference, file title.
``parameters``
    Tuple of :class:`~flocklab.core.parameters.ParameterSpec`: scalars (``int``, ``float``,
    ``choice``, ``bool``) and structured values (``kind="json"`` with a JSON-schema
    fragment, e.g. a list of obstacles), validated by :meth:`resolve` before any job runs.
``time_mode``
    ``"steps"`` (integer steps, ``dt = 1``, time in ``"step"``) or ``"continuous"``
    (``t_end`` and ``dt`` in :attr:`time_units`; :attr:`default_dt` when ``dt`` is omitted).
``observables``, ``primary_observable``
    Time series recorded on ``time`` (:class:`Observable`) and the order-like one whose
    moments, susceptibility, Binder cumulant and first-passage time the metrics compute.
``size_parameter``
    Parameter multiplying the variance in the susceptibility :math:`\chi = N\,\mathrm{var}`
    (``None``: :math:`\chi` is not computed).
``critical_controls``
    Parameters (or derived coordinates) a critical fit may use (:class:`CriticalControl`).
``snapshot_variables``, ``entity_dim``
    Per-entity arrays recorded in frames, on (``frame``, :attr:`entity_dim`).
``run_metrics``
    Per-run scalars the model adds through :meth:`extra_metrics` (:class:`Metric`).
``factor_targets``
    Derived factors a sensitivity study may vary and the parameter each sets.

Hooks (the driver calls them in this order):

:meth:`check` (cross-parameter rules) → :meth:`initial_state` → (:meth:`advance` ⟶
:meth:`step`, :meth:`observe`, :meth:`snapshot`) per chunk → :meth:`state_arrays` /
:meth:`load_state` for checkpoints → :meth:`extra_outputs` → :meth:`extra_metrics` (later,
at study level, from the run file). :meth:`entity_count`, :meth:`resources`,
:meth:`chunk_steps`, :meth:`derived` and :meth:`draw` describe a run without running it.
:meth:`check_task` / :meth:`run_task` run the named computations in :attr:`tasks`;
:meth:`check_task_figure` / :meth:`draw_task` draw a task's result (figure kind ``task``)
for the tasks in :attr:`task_figures`.
A model with a whole-interval solver (``solve_ivp`` over ``[0, t_end]``) sets
``supports_checkpoint = False`` and overrides :meth:`chunk_steps` to return all steps.

References
----------
Style after scipy.integrate's ``OdeSolver`` (subclass contract in the base docstring) and
HOOMD-blue (state, operations and writers apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.parameters import ParameterError, ParameterSpec, resolve_parameters

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord
    from flocklab.core.time import TimeGrid



class SimulationError(RuntimeError):
    """A simulation became non-finite or blew up; nothing is written."""


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Observable:
    """A time series a model records on ``time``.

    Parameters
    ----------
    name, long_name, units : str
        Variable name, description and unit in the run file.
    low, high : float, optional
        Range of the values (both finite: metrics add a histogram on that range).
    symbol : str
        LaTeX symbol for axis labels (without dollars), e.g. ``"v_a"``.
    """

    name: str
    long_name: str
    units: str = "1"
    low: float | None = None
    high: float | None = None
    symbol: str = ""

    def label(self) -> str:
        """Axis label, e.g. ``"order parameter $v_a$"``."""
        return f"{self.long_name} ${self.symbol}$" if self.symbol else self.long_name

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None


@dataclass(frozen=True)
class Metric:
    """A per-run scalar a model adds through :meth:`Model.extra_metrics`."""

    name: str
    long_name: str
    units: str = "1"


#: ``on_blowup``, for models whose studies may cross a stability limit: ``error`` raises
#: :class:`SimulationError`; ``record`` stops the run at the blow-up, leaves the later
#: records NaN and reports :data:`BLOWUP_METRICS`, so a stability map records "unstable".
ON_BLOWUP = ParameterSpec("on_blowup", "choice", "error",
                          "error: raise SimulationError; record: stop and record stable = 0",
                          choices=("error", "record"))
#: The run metrics that go with ``on_blowup``.
BLOWUP_METRICS = (Metric("stable", "1 if the run did not blow up, else 0"),
                  Metric("t_blowup", "time of blow-up (NaN if stable)", "s"))


@dataclass(frozen=True)
class CriticalControl:
    r"""A control parameter a critical fit may use.

    Parameters
    ----------
    key : str
        Name in the config (``critical: {control: key}``) and in output names
        (``<key>_c``), e.g. ``"eta"``, ``"rho"``.
    coordinate : str
        Summary coordinate the control lives on (a parameter or a derived quantity,
        e.g. ``"density"``).
    ordered_side : {"below", "above"}
        Side of the critical value on which the order parameter is non-zero.
    exponent : str
        Name of the exponent of :math:`v \propto |x - x_c|^{e}` (``"beta"``, ``"delta"``).
    symbol : str
        LaTeX symbol of the control (``r"\eta"``).
    needs : tuple of str
        Parameters of which at least one must be swept for the coordinate to vary.
    """

    key: str
    coordinate: str
    ordered_side: str
    exponent: str
    symbol: str
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.ordered_side not in ("below", "above"):
            raise ValueError(f"ordered_side must be 'below' or 'above', got {self.ordered_side}")


@dataclass(frozen=True)
class SnapshotVariable:
    """A per-entity array recorded in snapshot frames."""

    long_name: str
    units: str = "1"
    dtype: str = "float64"


@dataclass(frozen=True)
class Resources:
    """What one run needs: peak memory (bytes) and an estimate of its run time (s)."""

    memory_bytes: int
    seconds: float


# --------------------------------------------------------------------------- the model


class Model:
    """Base class of a registered model (the subclass contract is in the module docstring)."""

    name: ClassVar[str]
    description: ClassVar[str]
    reference: ClassVar[str]
    title: ClassVar[str] = ""
    parameters: ClassVar[tuple[ParameterSpec, ...]]
    time_mode: ClassVar[str] = "steps"
    time_units: ClassVar[str] = "step"
    default_dt: ClassVar[float] = 1.0
    observables: ClassVar[tuple[Observable, ...]]
    primary_observable: ClassVar[str]
    size_parameter: ClassVar[str | None] = None
    critical_controls: ClassVar[tuple[CriticalControl, ...]] = ()
    entity_dim: ClassVar[str] = "particle"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {}
    run_metrics: ClassVar[tuple[Metric, ...]] = ()
    factor_targets: ClassVar[dict[str, str]] = {}
    supports_checkpoint: ClassVar[bool] = True
    #: Named computations besides time runs, ``name -> one-line description`` (e.g. the
    #: contest questions of the bench dragon); see :meth:`run_task`.
    tasks: ClassVar[dict[str, str]] = {}
    #: Tasks whose result the model draws (figure kind ``task``), ``task -> one-line
    #: description of the drawing`` (the report caption); see :meth:`draw_task`.
    task_figures: ClassVar[dict[str, str]] = {}
    #: Entity-updates per chunk between progress reports and finiteness checks.
    chunk_updates: ClassVar[int] = 1 << 22

    # ----------------------------------------------------------------- parameters

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled, types coerced, ranges and cross-rules checked."""
        params = resolve_parameters(self.parameters, given)
        self.check(params)
        return params

    def check(self, params: dict[str, Any]) -> None:
        """Cross-parameter rules (override); raise ParameterError naming the key."""

    def check_control(self, params: Mapping[str, Any], grid: TimeGrid) -> None:
        """Rules that involve the time step (override), e.g. a maximum ``dt``."""

    def spec(self, name: str) -> ParameterSpec:
        for spec in self.parameters:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def derived(self, params: Mapping[str, Any]) -> dict[str, tuple[float, dict[str, str]]]:
        """Derived scalars ``name -> (value, attrs)`` written with every run (e.g. density)."""
        return {}

    def observable(self, name: str) -> Observable:
        for observable in self.observables:
            if observable.name == name:
                return observable
        raise KeyError(name)

    def critical_control(self, key: str) -> CriticalControl:
        for control in self.critical_controls:
            if control.key == key:
                return control
        allowed = ", ".join(c.key for c in self.critical_controls) or "none"
        raise ParameterError("control", f"model '{self.name}' has no critical control "
                                        f"'{key}'; allowed: {allowed}")

    # ----------------------------------------------------------------- sensitivity factors

    def factor_names(self) -> list[str]:
        """Names a sensitivity study may vary: numeric parameters and derived factors."""
        numeric = [spec.name for spec in self.parameters if spec.kind in ("int", "float")]
        return [*numeric, *self.factor_targets]

    def factor_target(self, name: str) -> str:
        """The model parameter that factor ``name`` sets."""
        return self.factor_targets.get(name, name)

    def set_factor(self, params: dict[str, Any], name: str, value: float) -> None:
        """Set factor ``name`` to ``value`` in ``params`` (integers rounded)."""
        if name in self.factor_targets:
            self.set_derived_factor(params, name, value)
            return
        spec = self.spec(name)
        params[name] = round(value) if spec.kind == "int" else float(value)

    def set_derived_factor(self, params: dict[str, Any], name: str, value: float) -> None:
        """Map a derived factor onto the model parameters (override with factor_targets)."""
        raise ParameterError(name, f"model '{self.name}' cannot vary '{name}'")

    # ----------------------------------------------------------------- hooks

    def entity_count(self, params: Mapping[str, Any]) -> int:
        """Number of entities (particles, agents, ...) on :attr:`entity_dim`."""
        return int(params["N"])

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """The state at ``t = 0`` as a dict; arrays whose names do not start with ``_``
        are the checkpointed state. The driver adds ``state["_dt"]``, the time step, before
        the first :meth:`step`; the time of global step ``k`` is ``k * state["_dt"]``."""
        raise NotImplementedError

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        """Advance ``state`` in place by ``k`` steps from global step ``first_step``."""
        raise NotImplementedError

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        """Values of every observable in the current state."""
        raise NotImplementedError

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Per-entity arrays of every snapshot variable, ordered by entity identity."""
        raise NotImplementedError

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """Advance by ``k`` steps, recording observables and frames on the way.

        The default calls :meth:`step` up to each record or frame step and
        :meth:`observe` / :meth:`snapshot` there; a model with a compiled loop overrides
        it and writes ``record.series`` / ``record.frames`` itself.
        """
        step = first_step
        events = record.event_steps(first_step, first_step + k)
        for target in events:
            if target > step:
                self.step(state, params, step, int(target - step))
                step = int(target)
            record.store(step, self, state, params)
        if step < first_step + k:
            self.step(state, params, step, first_step + k - step)

    def chunk_steps(self, params: Mapping[str, Any], grid: TimeGrid) -> int:
        """Steps per chunk between progress reports, finiteness checks and checkpoints."""
        return max(1, min(grid.steps, self.chunk_updates // max(1, self.entity_count(params))))

    def state_arrays(self, state: dict) -> dict[str, np.ndarray]:
        """Arrays that make up the state (checkpoint contents, finiteness check)."""
        return {name: value for name, value in state.items()
                if isinstance(value, np.ndarray) and not name.startswith("_")}

    def load_state(self, state: dict, arrays: Mapping[str, np.ndarray]) -> None:
        """Overwrite ``state`` (fresh from :meth:`initial_state`) with checkpointed arrays."""
        for name, value in self.state_arrays(state).items():
            value[...] = arrays[name]

    def extra_outputs(self, state: dict, params: Mapping[str, Any]
                      ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        """Run-level variables ``name -> (dims, values, attrs)`` written at the end."""
        return {}

    def extra_metrics(self, run: xr.Dataset, burn_in: float) -> dict[str, float]:
        """Values of :attr:`run_metrics` from a run file's contents (pure function)."""
        return {}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """Peak memory and run-time estimate of one run (override for a sharper one).

        Default: 16 float64 words per entity of state and work space, the recorded
        series and frames, twice over for the copy made when the file is written; run
        time at 10⁶ entity-updates per second.
        """
        n = self.entity_count(params)
        frames = len(grid.frame_steps) * max(1, len(self.snapshot_variables)) * n
        series = len(grid.record_steps) * len(self.observables)
        memory = 8 * (16 * n + 2 * (frames + series))
        return Resources(memory, n * grid.steps / 1.0e6)

    def check_task(self, task: str, params: Mapping[str, Any],
                   options: Mapping[str, Any]) -> None:
        """Validate a task's options before any job runs (override); raise ParameterError
        naming the option."""
        if options:
            name = next(iter(options))
            raise ParameterError(name, f"task '{task}' of model '{self.name}' takes no "
                                       f"option '{name}'")

    def run_task(self, task: str, params: Mapping[str, Any], options: Mapping[str, Any],
                 out_dir: str) -> dict[str, Any]:
        """Run task ``task`` and return its result as a JSON-ready document; tables and
        other files it makes go into ``out_dir`` (override when :attr:`tasks` is set)."""
        raise NotImplementedError(f"model '{self.name}' has no tasks")

    def check_task_figure(self, task: str, options: Mapping[str, Any]) -> None:
        """Validate the options of a figure of task ``task`` before any job runs (override
        to accept options); raise ParameterError naming the option.

        The default accepts a task in :attr:`task_figures` with no options.
        """
        if task not in self.task_figures:
            raise ParameterError("task", f"model '{self.name}' draws no figure of task "
                                         f"'{task}'; it draws: "
                                         f"{', '.join(self.task_figures) or 'none'}")
        if options:
            name = next(iter(options))
            raise ParameterError(name, f"figures of task '{task}' of model '{self.name}' "
                                       f"take no option '{name}'")

    def draw_task(self, fig: Any, document: Mapping[str, Any],
                  options: Mapping[str, Any]) -> None:
        """Draw a task's result on the empty matplotlib figure ``fig`` (override with
        :attr:`task_figures`).

        ``document`` is the task's ``result.json`` as written by the *task* stage (keys
        ``task``, ``parameters``, ``options``, ``result``); ``options`` is the figure's
        ``options`` as checked by :meth:`check_task_figure`. The hook adds its own axes
        (and may resize ``fig``); the stage sets the title and saves.
        """
        raise NotImplementedError(f"model '{self.name}' draws no figure of task "
                                  f"'{document.get('task')}'")

    def projection(self, run: xr.Dataset) -> str | None:
        """Matplotlib projection of the axes :meth:`draw` needs for ``run`` (override).

        ``None`` (the default) means ordinary 2-D axes; e.g. ``"3d"`` makes the figure
        stage create :class:`mpl_toolkits.mplot3d.axes3d.Axes3D` for snapshots and
        animation frames of that run.
        """
        return None

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0,
             label: str = "") -> None:
        """Draw frame ``frame`` of a run on matplotlib axes ``ax`` (override).

        The default draws entity positions ``x``, ``y`` as points.
        """
        ax.plot(run["x"].values[frame], run["y"].values[frame], ".", ms=3)
        ax.set_aspect("equal")
        ax.set_title(f"{label} t = {run['frame'].values[frame]:g}".strip(), fontsize=9)
