"""Run controls and the integer step schedule every run follows.

A :class:`RunControl` says how long a run is, which seed it uses and when it records; a
:class:`TimeGrid` is its checked schedule in whole steps, ``t_k = k dt``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.parameters import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

TIME_MODES = ("steps", "continuous")
#: Relative tolerance when checking that a time is a whole number of steps.
GRID_TOLERANCE = 1e-9


#: Bytes per recorded time of the smallest record: the step index, the time coordinate and
#: one float64 observable.
RECORD_BYTES = 24


# --------------------------------------------------------------------------- run controls


@dataclass(frozen=True)
class RunControl:
    """Run length, seed and recording schedule, in the model's time units.

    Give either ``steps`` (stepped and continuous models) or ``t_end`` (continuous).
    All times (``record_every``, ``snapshot_every``, ``snapshot_start``) are in model
    time units and must be whole numbers of steps of ``dt`` (checked by :meth:`grid`).

    Parameters
    ----------
    seed : int
        Seed of the run's random stream (``0 <= seed < 2**63``).
    steps : int, optional
        Number of time steps.
    t_end : float, optional
        Final time (continuous models).
    dt : float, optional
        Time step; stepped models have ``dt = 1``.
    record_every : float, optional
        Interval between recorded observable values (default: every step).
    snapshot_every : float
        Interval between snapshot frames (0: only the initial frame).
    snapshot_start : float
        Time of the first frame after the initial one.
    min_independent_samples : int, optional
        Adaptive length: the run is extended beyond ``steps`` (stepped runs only) until the
        second half of its primary observable holds at least this many independent samples,
        n / tau_int >= K, or ``max_steps`` is reached (see
        :func:`check_points` and :func:`flocklab.core.driver.run`).
    max_steps : int, optional
        Longest adaptive run (required with ``min_independent_samples``).
    """

    seed: int
    steps: int | None = None
    t_end: float | None = None
    dt: float | None = None
    record_every: float | None = None
    snapshot_every: float = 0
    snapshot_start: float = 0
    min_independent_samples: int | None = None
    max_steps: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) \
                or not 0 <= self.seed < 2**63:
            raise ParameterError("seed", f"'seed' = {self.seed!r} is out of range: allowed is "
                                         f"an integer >= 0 and < 2**63")
        if (self.steps is None) == (self.t_end is None):
            raise ParameterError("steps", "give exactly one of 'steps' and 't_end'")
        for name in ("t_end", "dt", "record_every"):
            value = getattr(self, name)
            if value is not None and not _positive_number(value):
                raise ParameterError(name, f"'{name}' = {value!r} is out of range: allowed "
                                           f"is a number > 0")
        for name in ("snapshot_every", "snapshot_start"):
            value = getattr(self, name)
            if not _positive_number(value, allow_zero=True):
                raise ParameterError(name, f"'{name}' = {value!r} is out of range: allowed "
                                           f"is a number >= 0")
        if self.steps is not None and (isinstance(self.steps, bool) or
                                       not isinstance(self.steps, int | np.integer) or
                                       self.steps < 1):
            raise ParameterError("steps", f"'steps' = {self.steps!r} is out of range: "
                                          f"allowed is an integer >= 1")
        self._check_adaptive()

    def _check_adaptive(self) -> None:
        """``min_independent_samples`` and ``max_steps`` come together, with ``steps``."""
        wanted, longest = self.min_independent_samples, self.max_steps
        if wanted is None and longest is None:
            return
        if wanted is None or longest is None:
            missing, given = (("max_steps", "min_independent_samples") if longest is None
                              else ("min_independent_samples", "max_steps"))
            raise ParameterError(missing, f"'{missing}' is needed with '{given}'")
        if self.steps is None:
            raise ParameterError("min_independent_samples", "an adaptive run length needs "
                                                            "'steps' (not 't_end')")
        for name, value, low in (("min_independent_samples", wanted, 1),
                                 ("max_steps", longest, self.steps)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) \
                    or value < low:
                raise ParameterError(name, f"'{name}' = {value!r} is out of range: allowed "
                                           f"is an integer >= {low}")

    def as_attrs(self) -> dict[str, Any]:
        """The controls as given (``None`` omitted), for file attributes and fingerprints."""
        names = ("steps", "t_end", "dt", "record_every", "snapshot_every", "snapshot_start",
                 "seed", "min_independent_samples", "max_steps")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}

    def grid(self, model: Model) -> TimeGrid:
        """The integer step schedule of this run for ``model`` (checks every time)."""
        return TimeGrid.build(self, model)

    @property
    def adaptive(self) -> bool:
        """True when the run length adapts to the data (``min_independent_samples``)."""
        return self.min_independent_samples is not None

    def longest_grid(self, model: Model) -> TimeGrid:
        """The schedule of the longest run these controls allow: ``max_steps`` for an
        adaptive run (its buffers, memory and run-time requests), else :meth:`grid`."""
        if not self.adaptive:
            return self.grid(model)
        return TimeGrid.build(dataclasses.replace(self, steps=self.max_steps,
                                                  min_independent_samples=None,
                                                  max_steps=None), model)


def _positive_number(value: Any, allow_zero: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        return False
    return math.isfinite(value) and (value >= 0 if allow_zero else value > 0)


def _whole_steps(name: str, value: float, dt: float) -> int:
    steps = value / dt
    nearest = round(steps)
    if abs(steps - nearest) > GRID_TOLERANCE * max(1.0, abs(steps)):
        raise ParameterError(name, f"'{name}' = {value!r} is not a whole number of time "
                                   f"steps dt = {dt!r}")
    return int(nearest)


@dataclass(frozen=True)
class TimeGrid:
    """A run's schedule in integer steps: ``t_k = k dt``, ``k = 0..steps``.

    Attributes
    ----------
    steps : int
        Number of steps.
    dt : float
        Step length in model time units.
    units : str
        Time unit.
    integer : bool
        Time is a step count (stepped models): coordinates are integers.
    record_steps : ndarray of int64
        Steps at which observables are recorded (always includes 0 and ``steps``).
    frame_steps : ndarray of int64
        Steps at which snapshot frames are recorded (always includes 0).
    """

    steps: int
    dt: float
    units: str
    integer: bool
    record_steps: np.ndarray = field(repr=False)
    frame_steps: np.ndarray = field(repr=False)

    @classmethod
    def build(cls, control: RunControl, model: Model) -> TimeGrid:
        stepped = model.time_mode == "steps"
        if stepped:
            if control.t_end is not None:
                raise ParameterError("t_end", f"'t_end' = {control.t_end!r}: model "
                                              f"'{model.name}' takes a number of 'steps'")
            if control.dt not in (None, 1, 1.0):
                raise ParameterError("dt", f"'dt' = {control.dt!r}: model '{model.name}' "
                                           f"takes unit steps (give 'steps', not 'dt')")
            dt = 1.0
        else:
            dt = float(control.dt if control.dt is not None else model.default_dt)
        steps = control.steps if control.steps is not None else _whole_steps(
            "t_end", float(control.t_end), dt)
        steps = int(steps)
        record = 1 if control.record_every is None else _whole_steps(
            "record_every", float(control.record_every), dt)
        if record < 1:
            raise ParameterError("record_every", f"'record_every' = {control.record_every!r} "
                                                 f"must be at least one step dt = {dt!r}")
        every = _whole_steps("snapshot_every", float(control.snapshot_every), dt)
        start = _whole_steps("snapshot_start", float(control.snapshot_start), dt)
        _check_schedule_size(control, steps, record, every, start)
        record_steps = np.arange(0, steps + 1, record, dtype=np.int64)
        if record_steps[-1] != steps:
            record_steps = np.append(record_steps, np.int64(steps))
        if start > steps:
            raise ParameterError("snapshot_start", f"'snapshot_start' = "
                                                   f"{control.snapshot_start!r} is after the "
                                                   f"end of the run")
        frames = [0] if every == 0 else [0, *[t for t in range(start, steps + 1, every) if t]]
        return cls(steps, dt, model.time_units, stepped, record_steps,
                   np.asarray(frames, dtype=np.int64))

    def times(self, steps: np.ndarray) -> np.ndarray:
        """Model times of integer ``steps`` (int64 for stepped models)."""
        return steps.astype(np.int64) if self.integer else steps * self.dt

    @property
    def t_end(self) -> float:
        return self.steps * self.dt




def _check_schedule_size(control: RunControl, steps: int, record: int, every: int,
                         start: int) -> None:
    """Refuse a schedule whose record and frame arrays alone exceed the available memory,
    before any of them is allocated: ``RECORD_BYTES`` per recorded time and 8 bytes per
    frame time."""
    from flocklab.core.driver import available_memory

    records = steps // record + 2
    frames = 1 if every == 0 else (steps - start) // every + 2
    need = RECORD_BYTES * records + 8 * frames
    have = available_memory()
    if have is None or need <= have:
        return
    if records * RECORD_BYTES >= 8 * frames:
        key = "steps" if control.record_every is None else "record_every"
        advice = "record less often ('record_every') or run fewer 'steps'"
    else:
        key, advice = "snapshot_every", "store fewer frames ('snapshot_every')"
    value = getattr(control, key)
    raise ParameterError(key, f"'{key}' = {value!r}: {records - 1:.3g} records and "
                              f"{frames - 1:.3g} frames need at least {need / 2**30:.3g} GiB, "
                              f"more than the {have / 2**30:.3g} GiB of memory available; "
                              f"{advice}")


#: Growth factor of the adaptive schedule (:func:`check_points`): each check point is 1.5
#: times the previous one, so a run is at most 50 % longer than it needed to be.
GROWTH = 1.5


def check_points(steps: int, max_steps: int, record: int = 1) -> list[int]:
    r"""Steps at which an adaptive run decides whether to go on.

    :math:`T_0` = ``steps``, :math:`T_{j+1} = \min(T_{\max}, \lceil 1.5\,T_j\rceil)`
    rounded up to whole record intervals: a fixed schedule, so the decision at
    :math:`T_j` depends only on the run up to :math:`T_j` and a run resumed from a
    checkpoint, or repeated, stops at the same step.

    Examples
    --------
    >>> check_points(2000, 6000)
    [2000, 3000, 4500, 6000]
    """
    points = [steps]
    while points[-1] < max_steps:
        grown = math.ceil(points[-1] * GROWTH / record) * record
        points.append(min(max_steps, max(grown, points[-1] + record)))
    return points


def truncate_grid(grid: TimeGrid, steps: int) -> TimeGrid:
    """``grid`` cut at ``steps``: the schedule of a run of ``steps`` with the same
    recording (``steps`` a record step of ``grid``)."""
    return dataclasses.replace(grid, steps=steps,
                               record_steps=grid.record_steps[grid.record_steps <= steps],
                               frame_steps=grid.frame_steps[grid.frame_steps <= steps])
