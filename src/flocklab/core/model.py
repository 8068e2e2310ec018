r"""The model contract: declarations, a few dynamics hooks, and lookups built on them.

A model is a subclass of :class:`Model` that *declares* what it is and what it records and
implements a handful of *hooks*; the shared driver (:mod:`flocklab.core.driver`) owns the
time loop (chunking, progress, the finiteness check, checkpoints, the record and snapshot
schedules) and returns a :class:`~flocklab.core.record.RunRecord`. Stages, rules, the config
schema, figures and captions read only these declarations, never a model's name. This
module imports neither the driver nor any kernel: looking a model up costs its declarations.

Subclass contract
-----------------
Declarations (class attributes):

``name, description, reference, title``
    Registry name, one-line description, literature reference (author, title, venue, year),
    run-file title.
``parameters``
    :class:`~flocklab.core.parameters.ParameterSpec` tuple: scalars (``int``, ``float``,
    ``choice``, ``bool``) and structured values (``kind="json"`` with a JSON-schema fragment).
``time_mode, time_units, default_dt``
    ``"steps"`` (integer steps, ``dt = 1``) or ``"continuous"`` (``t_end`` and ``dt`` in
    ``time_units``; ``default_dt`` when ``dt`` is omitted).
``observables, primary_observable``
    Time series recorded on ``time`` (:class:`Observable`) and the one whose moments (and
    susceptibility, with a ``size_parameter``) the summary computes.
``primary_is_order_parameter``
    Whether the primary observable is an order parameter on :math:`[0, 1]` (0 disorder,
    1 full order: Vicsek's :math:`v_a`, a polarisation, a magnetisation). Only then does the
    summary add the order-parameter statistics — the Binder cumulant, the first-passage
    time ``time_to_order`` and the histogram — and may a study ask for a critical fit or
    finite-size scaling; a model with ``critical_controls`` declares it.
``size_parameter``
    Parameter N (or derived quantity) of the susceptibility :math:`\chi = N\,\mathrm{var}`
    (``None``: no χ); its value is read from the run's attributes.
``critical_controls``
    Coordinates a critical fit may use (:class:`CriticalControl`).
``entity_dim, snapshot_variables``
    Per-entity arrays recorded in frames, on (``frame``, ``entity_dim``).
``run_metrics``
    Per-run scalars that :meth:`metrics` computes from a run file (:class:`Metric`).
``derived_quantities``
    Scalars computed from the parameters and written with every run, usable as figure and
    critical-fit coordinates (:class:`DerivedQuantity`, e.g. the density :math:`N/L^2`).
``derived_factors``
    Factors a sensitivity study may vary that set a parameter (:class:`DerivedFactor`).
``tasks``
    Named computations besides time runs (:class:`flocklab.core.tasks.Task` instances).
``presets``
    Named parameter sets from the literature (:class:`Preset`), one click away in live
    views (``flocklab explore``).
``drawing``
    How a run is drawn: a :class:`flocklab.figures.drawing.Drawing` subclass or its
    ``"module:Class"`` path (imported only when a figure is drawn); ``None`` draws the
    entities' ``x``, ``y`` as points.
``commands``
    The model's own ``flocklab`` sub-commands besides ``simulate`` and ``task``: a sequence
    of :class:`flocklab.core.commands.Command` or its ``"module:NAME"`` path (imported only
    when the command line is built); ``None``: none.
``kinematics``
    Where snapshot frames keep positions, velocities and the periodic box
    (:class:`Kinematics`), for the spatial structure analysis (``flocklab structure``);
    ``None``: the model has no spatial structure to analyse.

Hooks, in the order the driver calls them:

Once per run, :meth:`prepare`: the declared parameters resolved (defaults, types,
ranges), :meth:`complete` (derived keys: values an engine reads, structured entries with
their defaults) and :meth:`check` (cross-parameter rules, with the run's
:class:`~flocklab.core.time.TimeGrid`) → :meth:`initial_state` → per chunk :meth:`advance`
(by default :meth:`step` between records, :meth:`observe` and :meth:`snapshot` at them) →
:meth:`run_outputs` (run-level variables) → later, from the written file,
:meth:`metrics`. Every hook receives the one prepared dict (``params``); nothing after
:meth:`prepare` resolves or validates parameters again (an engine checks only its physics
state, e.g. a blow-up). The run file's ``parameters`` attribute is its declared part
(:meth:`public`), and :meth:`metrics` receives the same dict prepared from that attribute
(:meth:`run_parameters`). :meth:`entity_count`, :meth:`resources` and :meth:`uses_seed`
describe a run without running it. A model whose solver integrates the whole interval at once
(``solve_ivp`` over :math:`[0, t_{end}]`) subclasses :class:`IntervalModel` and implements
:meth:`IntervalModel.solve` instead of the stepping hooks.

State: :meth:`initial_state` returns a dict; its :class:`numpy.ndarray` entries whose names
do not start with ``_`` are the state the driver checks for finiteness and checkpoints;
everything else is work space rebuilt by :meth:`initial_state`.

References
----------
Style after scipy.integrate's ``OdeSolver`` (the subclass contract in the base docstring)
and HOOMD-blue (state, operations and writers apart).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.parameters import ParameterError, ParameterSpec, resolve_parameters

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord
    from flocklab.core.tasks import Task
    from flocklab.core.time import TimeGrid

#: A run-level variable: ``(dims, values, attrs)``.
Output = tuple[tuple[str, ...], np.ndarray, dict[str, str]]


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
    """A per-run scalar a model computes with :meth:`Model.metrics` (name, description, UDUNITS
    unit and mathtext symbol for figures).

    A metric that is the time until an event which may not happen within the run is
    *censored* where it did not: the run shows only that the time exceeds its censoring time.
    The declaration says how the run records that, in one of two ways:

    ``event``
        The name of a companion metric that is 1 where the event happened and 0 where the
        value is the censoring time (e.g. ``turn_time`` with ``turned``).
    ``censored_at_end``
        The value is NaN where the event did not happen; the run is censored at its end
        ``t_end`` (e.g. ``first_capture_time``, measured from the run's start).

    Claims on a censored metric are tested by survival methods
    (:func:`flocklab.analysis.survival.survival_trend`), never by ranks or means of the values.
    """

    name: str
    long_name: str
    units: str = "1"
    symbol: str = ""
    event: str = ""
    censored_at_end: bool = False

    @property
    def censored(self) -> bool:
        """Whether the metric is a time that may be censored."""
        return bool(self.event) or self.censored_at_end

    def survival_data(self, values: np.ndarray, indicator: np.ndarray | None = None,
                      t_end: float = math.nan) -> tuple[np.ndarray, np.ndarray]:
        """The runs' ``values`` (any shape) as survival times and event indicators.

        ``indicator``: the ``event`` metric's values (same shape); ``t_end``: the runs' end
        time (``censored_at_end``). Returns ``(times, events)``: events 1 or 0, and NaN for
        both where a run has no value (e.g. the indicator is NaN: no event was possible).
        """
        values = np.asarray(values, float)
        if self.event:
            events = np.asarray(indicator, float)
            return np.where(np.isfinite(events), values, np.nan), events
        if self.censored_at_end:
            happened = np.isfinite(values)
            return np.where(happened, values, t_end), happened.astype(float)
        raise ValueError(f"metric '{self.name}' is not a censored time")


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
    """A per-entity array recorded in snapshot frames, on (``frame``, entity[, ...]).

    Parameters
    ----------
    long_name, units : str
        Description and unit in the run file.
    dtype : str
        Array type.
    entity_dim : str
        Dimension of the entities it describes ('' for the model's :attr:`Model.entity_dim`),
        e.g. ``"predator"`` beside the agents.
    count : callable, optional
        ``count(params) -> int``, the number of those entities (required with
        ``entity_dim``); a variable with none is not recorded.
    trailing : tuple of (str, int)
        Further dimensions and their sizes, e.g. ``(("axis", 3),)``.
    """

    long_name: str
    units: str = "1"
    dtype: str = "float64"
    entity_dim: str = ""
    count: Callable[[Mapping[str, Any]], int] | None = None
    trailing: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Resources:
    """What one run needs: peak memory (bytes) and an estimate of its run time (s)."""

    memory_bytes: int
    seconds: float


@dataclass(frozen=True)
class Preset:
    """A named parameter set from a source's table, for live views.

    Parameters
    ----------
    name : str
        Short label, e.g. ``"torus"``.
    description : str
        One line: what it shows.
    params : mapping
        Parameter values (the rest take their defaults).
    reference : str
        Where the values come from (author, title, venue, year).
    dt : float, optional
        Time step of a continuous model (``None``: :attr:`Model.default_dt`).
    """

    name: str
    description: str
    params: Mapping[str, Any]
    reference: str = ""
    dt: float | None = None


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class DerivedQuantity:
    """A scalar computed from the parameters, written with every run.

    Parameters
    ----------
    name, long_name, units, symbol : str
        Attribute name, description, unit and LaTeX symbol (without dollars).
    value : callable
        ``value(params) -> float`` of the resolved parameters.
    """

    name: str
    long_name: str
    units: str
    symbol: str
    value: Callable[[Mapping[str, Any]], float]

    def attrs(self) -> dict[str, str]:
        return {"long_name": self.long_name, "units": self.units, "symbol": self.symbol}


@dataclass(frozen=True)
class DerivedFactor:
    r"""A factor a sensitivity study may vary that sets a model parameter.

    Parameters
    ----------
    name : str
        Factor name in the config (e.g. ``"density"``).
    target : str
        The parameter it sets (e.g. ``"N"``).
    setting : callable
        ``setting(params, value) -> target value``, given the other resolved parameters
        (e.g. :math:`N = \max(1, \mathrm{round}(\rho L^2))`).
    """

    name: str
    target: str
    setting: Callable[[Mapping[str, Any], float], Any]


@dataclass(frozen=True)
class Kinematics:
    r"""Where a model's snapshot frames keep positions and motion (for spatial analyses,
    :mod:`flocklab.analysis.structure`).

    Parameters
    ----------
    position : tuple of str
        Snapshot variables of the coordinates, e.g. ``("x", "y", "z")``; only the first
        ``dimension`` are used.
    velocity : tuple of str
        Snapshot variables of the velocity components, or of the unit heading when
        ``speed`` names its length.
    heading_angle : str
        Instead of ``velocity``: a 2-D heading angle (rad), velocity
        :math:`s\,(\cos\theta, \sin\theta)`.
    speed : str
        A parameter or snapshot variable that scales the heading (``""``: velocity as given;
        a heading angle alone then gives unit vectors).
    alive : str
        Snapshot variable, 1 for entities still present (``""``: all are).
    box : callable, optional
        ``box(params) -> float``, the side of the periodic box (0: open space); ``None``:
        always open.
    dimension : callable, optional
        ``dimension(params) -> int`` (``None``: the number of ``position`` variables).
    """

    position: tuple[str, ...]
    velocity: tuple[str, ...] = ()
    heading_angle: str = ""
    speed: str = ""
    alive: str = ""
    box: Callable[[Mapping[str, Any]], float] | None = None
    dimension: Callable[[Mapping[str, Any]], int] | None = None

    def periodic_box(self, params: Mapping[str, Any]) -> float:
        """Side of the periodic box for ``params`` (0.0: open space)."""
        return float(self.box(params)) if self.box is not None else 0.0

    def dimensions(self, params: Mapping[str, Any]) -> int:
        """Spatial dimension for ``params``."""
        return int(self.dimension(params)) if self.dimension is not None else len(self.position)


class Model:
    """Base class of a registered model (the subclass contract is in the module docstring)."""

    name: ClassVar[str]
    description: ClassVar[str]
    reference: ClassVar[str]
    title: ClassVar[str] = ""
    parameters: ClassVar[tuple[ParameterSpec, ...]]
    time_mode: ClassVar[str] = "steps"
    time_units: ClassVar[str] = "1"
    default_dt: ClassVar[float] = 1.0
    observables: ClassVar[tuple[Observable, ...]]
    primary_observable: ClassVar[str]
    size_parameter: ClassVar[str | None] = None
    primary_is_order_parameter: ClassVar[bool] = False
    critical_controls: ClassVar[tuple[CriticalControl, ...]] = ()
    entity_dim: ClassVar[str] = "particle"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {}
    run_metrics: ClassVar[tuple[Metric, ...]] = ()
    derived_quantities: ClassVar[tuple[DerivedQuantity, ...]] = ()
    derived_factors: ClassVar[tuple[DerivedFactor, ...]] = ()
    tasks: ClassVar[tuple[Task, ...]] = ()
    presets: ClassVar[tuple[Preset, ...]] = ()
    drawing: ClassVar[str | type | None] = None
    commands: ClassVar[str | tuple | None] = None
    kinematics: ClassVar[Kinematics | None] = None
    #: Entity-updates per chunk between progress reports, finiteness checks and checkpoints.
    chunk_updates: ClassVar[int] = 1 << 22

    # ----------------------------------------------------------------- lookups

    def prepare(self, given: Mapping[str, Any], grid: TimeGrid | None = None
                ) -> dict[str, Any]:
        """The parameters every hook of a run receives, resolved and checked in one pass.

        Declared parameters get their defaults and are coerced and range-checked
        (:func:`~flocklab.core.parameters.resolve_parameters`), :meth:`complete` adds the
        derived keys, and :meth:`check` applies the cross-parameter rules (with ``grid``,
        those on the time step and run length too). The driver calls it once per run; the
        declared keys of the result (:meth:`public`) are what the run file records.

        Parameters
        ----------
        given : mapping
            Any subset of the declared parameters.
        grid : TimeGrid, optional
            The run's step schedule (``None``: parameters alone, as for planning).

        Returns
        -------
        dict
            Every declared parameter, then the derived keys of :meth:`complete`.

        Raises
        ------
        ParameterError
            Naming the offending parameter.
        """
        params = self.complete(resolve_parameters(self.parameters, given))
        self.check(params, grid)
        return params

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The declared parameters of :meth:`prepare` (defaults filled, types coerced,
        ranges and cross-rules checked): what a run file records, and what planning and
        the config checks compare.

        Raises
        ------
        ParameterError
            Naming the offending parameter.
        """
        return self.public(self.prepare(given))

    def public(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The declared parameters of prepared ``params``, in declaration order (the derived
        keys of :meth:`complete` left out): a run file's ``parameters`` attribute."""
        return {spec.name: params[spec.name] for spec in self.parameters}

    def run_parameters(self, run: xr.Dataset) -> dict[str, Any]:
        """The prepared parameters of a run file: its ``parameters`` attribute (JSON),
        parsed and completed by :meth:`prepare` (what :meth:`metrics` receives)."""
        import json

        return self.prepare(json.loads(run.attrs.get("parameters", "{}")))

    def spec(self, name: str) -> ParameterSpec:
        """The declaration of parameter ``name`` (KeyError if there is none)."""
        for spec in self.parameters:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def observable(self, name: str) -> Observable:
        """The declaration of observable ``name`` (KeyError if there is none)."""
        for observable in self.observables:
            if observable.name == name:
                return observable
        raise KeyError(name)

    def critical_control(self, key: str) -> CriticalControl:
        """The declared critical control ``key`` (ParameterError naming the allowed ones)."""
        for control in self.critical_controls:
            if control.key == key:
                return control
        allowed = ", ".join(c.key for c in self.critical_controls) or "none"
        raise ParameterError("control", f"model '{self.name}' has no critical control "
                                        f"'{key}'; allowed: {allowed}")

    def task(self, name: str) -> Task:
        """The declared task ``name`` (ParameterError naming the allowed ones)."""
        for task in self.tasks:
            if task.name == name:
                return task
        allowed = ", ".join(task.name for task in self.tasks) or "none"
        raise ParameterError("task", f"model '{self.name}' has no task '{name}'; "
                                     f"allowed: {allowed}")

    def derived(self, params: Mapping[str, Any]) -> dict[str, float]:
        """Value of every :attr:`derived_quantities` entry for resolved ``params``."""
        return {quantity.name: quantity.value(params) for quantity in self.derived_quantities}

    def derived_value(self, params: Mapping[str, Any], name: str) -> float:
        """Value of the derived quantity ``name`` alone (planning computes no other: some,
        such as an exact integral, import numerical libraries the planner does not need)."""
        for quantity in self.derived_quantities:
            if quantity.name == name:
                return quantity.value(params)
        raise KeyError(f"model {self.name!r} has no derived quantity {name!r}")

    def factor_names(self) -> list[str]:
        """Names a sensitivity study may vary: numeric parameters and derived factors."""
        numeric = [spec.name for spec in self.parameters if spec.kind in ("int", "float")]
        return [*numeric, *(factor.name for factor in self.derived_factors)]

    def factor_target(self, name: str) -> str:
        """The model parameter that factor ``name`` sets."""
        for factor in self.derived_factors:
            if factor.name == name:
                return factor.target
        return name

    def set_factor(self, params: dict[str, Any], name: str, value: float) -> None:
        """Set factor ``name`` to ``value`` in ``params`` (integers rounded)."""
        for factor in self.derived_factors:
            if factor.name == name:
                params[factor.target] = factor.setting(params, value)
                return
        spec = self.spec(name)
        params[name] = round(value) if spec.kind == "int" else float(value)

    # ----------------------------------------------------------------- hooks

    def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        """The resolved declared ``params`` with the derived keys the hooks use (override).

        Returns a new dict (default: a copy): every declared key, plus derived values (e.g.
        a cruise speed, structured entries with their defaults filled, arrays an engine
        reads) under names that are not parameters. A declared value may only be brought
        to its canonical form (it is recorded); element rules of structured values raise
        ParameterError naming the element. Called once per :meth:`prepare`, before
        :meth:`check`.
        """
        return dict(params)

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """Cross-parameter rules on completed ``params`` (override); raise ParameterError
        naming the key.

        Called once per :meth:`prepare`: with ``grid = None`` when parameters are resolved
        for planning, with the run's step schedule when a run is prepared (then also the
        rules on the time step or run length). It re-resolves nothing.
        """

    def uses_seed(self, params: Mapping[str, Any]) -> bool:
        """Whether a run with resolved ``params`` depends on its seed (default ``True``).

        ``False`` promises the same data for every seed: captions then speak of one
        deterministic run, not of seeds and replicates. The conformance suite checks the
        promise both ways (``False``: two seeds give the same data; ``True``: different data).
        """
        return True

    def entity_count(self, params: Mapping[str, Any]) -> int:
        """Number of entities on :attr:`entity_dim` (default: parameter ``N``)."""
        return int(params["N"])

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """Peak memory and run-time estimate of one run (override for a sharper one).

        Default: 16 float64 words per entity of state and work space, the recorded series
        and frames, twice over for the copy made when the file is written; run time at 10⁶
        entity-updates per second.
        """
        n = self.entity_count(params)
        frames = len(grid.frame_steps) * max(1, len(self.snapshot_variables)) * n
        series = len(grid.record_steps) * len(self.observables)
        memory = 8 * (16 * n + 2 * (frames + series))
        return Resources(memory, n * grid.steps / 1.0e6)

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """The state at ``t = 0`` (see the module docstring). The driver adds
        ``state["_dt"]``, the time step; the time of global step ``k`` is
        ``k * state["_dt"]``."""
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
        for target in record.event_steps(first_step, first_step + k):
            if target > step:
                self.step(state, params, step, int(target - step))
                step = int(target)
            record.store(step, self, state, params)
        if step < first_step + k:
            self.step(state, params, step, first_step + k - step)

    def run_outputs(self, state: dict, params: Mapping[str, Any]) -> dict[str, Output]:
        """Run-level variables ``name -> (dims, values, attrs)`` written at the end."""
        return {}

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """Values of :attr:`run_metrics` from a run file's contents and its prepared
        ``params`` (:meth:`run_parameters`; a pure function)."""
        return {}


class IntervalModel(Model):
    """A model whose solver integrates the whole interval :math:`[0, t_{end}]` at once.

    It implements :meth:`initial_state` and :meth:`solve` instead of the stepping hooks;
    the driver calls :meth:`solve` once, so its runs are not chunked or checkpointed.
    """

    def solve(self, state: dict, params: Mapping[str, Any], record: RunRecord
              ) -> dict[str, Output]:
        """Integrate from ``state`` over the record's time grid, fill ``record.series`` (and
        ``record.frames``) at every record and frame step, leave the final state in
        ``state`` and return the run-level variables (as :meth:`Model.run_outputs`)."""
        raise NotImplementedError
