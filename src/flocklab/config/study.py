"""The study model: swept values, parameter points and expanded studies.

A :class:`Study` is a validated config study (see :func:`flocklab.pipeline.validate_config`):
its parameter points are the Cartesian product of its :class:`Axis` list or, for a
sensitivity study, the distinct rows of its design (:func:`design_points`). A point's label
(:func:`point_label`) names its values exactly; it names the run files and seeds the runs.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flocklab.analysis.timeseries import ORDER_THRESHOLD
from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.core.seeds import derive_seed
from flocklab.core.time import RunControl, TimeGrid

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.analysis.sensitivity import Design
    from flocklab.config.design import DesignSpec

#: Decimal places kept when generating range values, so 0.1 * 3 is 0.3, not 0.30000000000000004.
RANGE_DECIMALS = 12


def format_value(value: Any) -> str:
    """Exact, stable text of a parameter value for file names and labels.

    Floats use the shortest repr that round-trips (``0.1`` → ``"0.1"``, ``7`` as a
    float → ``"7.0"``); ints and strings as they are.
    """
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def expand_values(spec: Any) -> list:
    """Values of a swept parameter from a list or a ``{start, stop, num|step}`` range.

    Parameters
    ----------
    spec : list or mapping
        A list of values, or a range ``{start, stop, num}`` (both ends included) or
        ``{start, stop, step}`` (stop included when reached).

    Returns
    -------
    list
        The values, range values rounded to :data:`RANGE_DECIMALS` decimals.
    """
    if isinstance(spec, list):
        return list(spec)
    start, stop = float(spec["start"]), float(spec["stop"])
    if "num" in spec:
        num = int(spec["num"])
        if num == 1:
            return [start]
        return [round(start + (stop - start) * k / (num - 1), RANGE_DECIMALS) for k in range(num)]
    step = float(spec["step"])
    count = math.floor((stop - start) / step + 1e-9) + 1
    return [round(start + k * step, RANGE_DECIMALS) for k in range(max(count, 0))]


def point_label(values: Mapping[str, Any]) -> str:
    """``name=value`` pairs joined by ``_`` (``"eta=2.0"``; ``"single"`` when nothing is swept)."""
    return "_".join(f"{name}={format_value(value)}" for name, value in values.items()) or "single"


@dataclass(frozen=True)
class Axis:
    """One axis of a study grid: a dimension and its (possibly paired) coordinates.

    A *nested* axis lists (entry, value) points: each entry of its paired parameters (e.g. a
    size) with its own list of values of the ``nested`` one (e.g. the noise, refined around
    that size's transition); its dimension ``<first>_<nested>`` is then not a coordinate.
    """

    dim: str
    coords: dict[str, list]
    nested: str | None = None

    def __len__(self) -> int:
        return len(next(iter(self.coords.values())))


@dataclass(frozen=True)
class Point:
    """One parameter point: its label, grid index and swept values."""

    label: str
    index: tuple[int, ...]
    values: dict[str, Any]


@dataclass(frozen=True)
class Study:
    """A validated, expanded study.

    Its parameter points are the Cartesian product of ``axes`` or, for a sensitivity
    study, the distinct rows of its ``design`` (see :mod:`flocklab.analysis.sensitivity`).
    """

    name: str
    model: str
    description: str
    fixed: dict[str, Any]
    axes: tuple[Axis, ...]
    replicates: int
    time: dict[str, Any]
    burn_in: float
    snapshot_every: float
    snapshot_start: float
    base_seed: int
    order_threshold: float = ORDER_THRESHOLD
    sensitivity: DesignSpec | None = None
    checkpoint_every: int = 0

    @property
    def axis_of(self) -> dict[str, Axis]:
        """Each swept parameter name and the axis that sweeps it (paired names share one)."""
        return {name: axis for axis in self.axes for name in axis.coords}

    @property
    def swept(self) -> list[str]:
        """Names of the swept parameters, in axis order."""
        return list(self.axis_of)

    @functools.cached_property
    def design(self) -> Design | None:
        """The sensitivity design, generated on first use (SALib is imported only then)."""
        return None if self.sensitivity is None else self.sensitivity.generate()

    @functools.cached_property
    def design_points(self) -> tuple[Point, ...]:
        """The point of every design row (rows repeat where the design repeats a point)."""
        if self.sensitivity is None:
            return ()
        return design_points(self.model, self.fixed, self.design,
                             f"studies.{self.name}.sensitivity.factors")

    def summary_record(self) -> dict[str, Any]:
        """What the study's summary depends on: the ``study`` mapping of
        :func:`flocklab.analysis.summary.summary_dataset` (the pipeline passes it through the
        summary rule's params, so that a change reruns the summary)."""
        return {"name": self.name, "model": self.model, "description": self.description,
                "fixed": self.fixed, "replicates": self.replicates, "time": self.time,
                "burn_in": self.burn_in, "order_threshold": self.order_threshold,
                "labels": [point.label for point in self.points()],
                "design": self.sensitivity is not None,
                "axes": [{"dim": axis.dim, "coords": axis.coords} for axis in self.axes]}

    def points(self) -> Iterator[Point]:
        """The distinct parameter points: grid points in axis order, or design rows."""
        if self.sensitivity is not None:
            seen: set[str] = set()
            for point in self.design_points:
                if point.label not in seen:
                    seen.add(point.label)
                    yield point
            return
        for index in itertools.product(*(range(len(axis)) for axis in self.axes)):
            values = {name: axis.coords[name][i]
                      for axis, i in zip(self.axes, index, strict=True) for name in axis.coords}
            yield Point(point_label(values), index, values)

    def find_point(self, values: Mapping[str, Any]) -> Point:
        """The point whose swept values match ``values`` (numbers compared as floats)."""
        model = get_model(self.model)
        factors = {factor.name for factor in model.derived_factors}
        wanted = {name: (float(value) if name in factors else model.spec(name).coerce(value))
                  if name in self.swept else value for name, value in values.items()}
        for point in self.points():
            if all(point.values.get(name) == value for name, value in wanted.items()):
                return point
        raise KeyError(f"study '{self.name}' has no parameter point with {dict(values)}")

    def params(self, point: Point) -> dict[str, Any]:
        """Full, resolved model parameters of a point; a swept derived factor (the Vicsek
        density) sets its parameter from the others (:meth:`Model.set_factor`)."""
        model = get_model(self.model)
        values = dict(point.values)
        factors = {name: values.pop(name) for name in list(values)
                   if model.factor_target(name) != name}
        params = model.resolve({**self.fixed, **values})
        for name, value in factors.items():
            model.set_factor(params, name, float(value))
        return model.resolve(params) if factors else params

    def control(self, point: Point, replicate: int) -> RunControl:
        """Run control (seed, run length, records, snapshots) of one run."""
        return RunControl(seed=self.seed(point, replicate), **self.time,
                          snapshot_every=self.snapshot_every, snapshot_start=self.snapshot_start)

    def grid(self, point: Point) -> TimeGrid:
        """The step schedule of the runs at ``point`` (the longest an adaptive run may
        take, :meth:`flocklab.core.time.RunControl.longest_grid`)."""
        return self.control(point, 0).longest_grid(get_model(self.model))

    def time_text(self) -> str:
        """Run length for captions and listings, e.g. ``"4000 steps"`` or ``"t_end = 30 s"``."""
        model = get_model(self.model)
        if "steps" in self.time:
            return f"{self.time['steps']} steps"
        unit = "" if model.time_units == "1" else f" {model.time_units}"  # dimensionless
        return f"t_end = {self.time['t_end']:g}{unit}"

    def seed(self, point: Point, replicate: int) -> int:
        """Seed of one run, from the base seed, the study, the point's label and replicate."""
        return derive_seed(self.base_seed, self.name, point.label, replicate)


def design_points(model_name: str, fixed: Mapping[str, Any], design: Design,
                  where: str = "sensitivity.factors") -> tuple[Point, ...]:
    """Parameter point of every row of a sensitivity design.

    The label names the factor values (``"eta=0.1_density=1.0"``), so a row repeated in
    the design, or kept when the design grows, is the same run with the same seed; the
    values are the model parameters the factors set (``density`` sets ``N``).

    Parameters
    ----------
    model_name : str
        Registered model.
    fixed : mapping
        The study's fixed parameters.
    design : Design
        The generated design.
    where : str
        Config key of the factors, for error messages.

    Returns
    -------
    tuple of Point
        One per design row, in row order.

    Raises
    ------
    ConfigError
        A row the model refuses (e.g. v0 >= L with both varied), naming ``where``.
    """
    model = get_model(model_name)
    base = model.resolve(fixed)
    derived_last = sorted(range(len(design.names)),
                          key=lambda i: model.factor_target(design.names[i]) != design.names[i])
    points = []
    for row in design.values:
        params = dict(base)
        for i in derived_last:
            model.set_factor(params, design.names[i], float(row[i]))
        factors = {name: float(value) for name, value in zip(design.names, row, strict=True)}
        try:
            model.resolve(params)
        except ParameterError as error:
            raise ConfigError(f"config key '{where}': {error.message} (at design row "
                              f"{len(points)}: {point_label(factors)})") from None
        values = {model.factor_target(name): params[model.factor_target(name)]
                  for name in design.names}
        points.append(Point(point_label(factors), (len(points),), values))
    return tuple(points)
