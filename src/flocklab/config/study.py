"""Workflow configuration: schema validation, model checks and study expansion.

A config is checked in two passes before any job runs:

1. against the JSON schema ``flocklab/config.schema.yaml`` (package data; linked from
   ``workflow/schemas/``): structure, types, defaults filled in;
2. against the models: every parameter point of every study is resolved by its
   model (names, types, ranges, cross-rules such as the noise-dependent range
   of ``eta``), and figures must name existing studies, points and coordinates.

Either pass raises :class:`ConfigError` with one message that names the key.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import yaml

from flocklab.analysis.sensitivity import METHODS, Design, Factor, check_sample_size
from flocklab.analysis.timeseries import ORDER_THRESHOLD, run_variables, summary_quantities
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model
from flocklab.core.seeds import derive_seed
from flocklab.core.time import RunControl, TimeGrid

#: The config schema, shipped as package data (so a wheel install can validate a config).
DEFAULT_SCHEMA = Path(__file__).resolve().parent / "schema.yaml"
#: Config keys of a study that are run controls (model time units).
TIME_KEYS = ("steps", "t_end", "dt", "record_every")
#: Decimal places kept when generating range values, so 0.1 * 3 is 0.3, not 0.30000000000000004.
RANGE_DECIMALS = 12
#: Figure kinds drawn from sensitivity.nc and the methods they accept.
SENSITIVITY_FIGURES = {"oat": ("oat",), "morris": ("morris",), "sobol": ("sobol",),
                       "sensitivity_convergence": ("morris", "sobol")}


class ConfigError(ValueError):
    """The configuration is invalid; the message names the key and what is allowed."""


# --------------------------------------------------------------------------- schema pass


def _with_defaults(validator_class: type) -> type:
    set_properties = validator_class.VALIDATORS["properties"]

    def properties_with_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if isinstance(subschema, dict) and "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from set_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": properties_with_defaults})


def _key_path(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def load_schema(path: str | Path | None = None) -> dict:
    with open(path or DEFAULT_SCHEMA, encoding="utf-8") as stream:
        return yaml.safe_load(stream)


def _describe(schema: Mapping[str, Any]) -> str:
    return f" ({schema['description'].strip()})" if "description" in schema else ""


def validate_schema(config: dict, schema: Mapping[str, Any]) -> dict:
    """Validate ``config`` in place against ``schema`` and fill defaults."""
    validator_class = _with_defaults(jsonschema.Draft202012Validator)
    validator = validator_class(schema)
    errors = list(validator.iter_errors(config))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        key = _key_path(error.absolute_path)
        if error.validator in ("oneOf", "anyOf"):
            raise ConfigError(f"config key '{key}': {error.instance!r} matches none of the "
                              f"allowed forms{_describe(error.schema)}")
        if error.validator == "additionalProperties":
            raise ConfigError(f"config key '{key}': {error.message}; allowed keys: "
                              f"{', '.join(error.schema.get('properties', {})) or 'none'}")
        raise ConfigError(f"config key '{key}': {error.message}{_describe(error.schema)}")
    return config


# --------------------------------------------------------------------------- values and labels


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
    """Values of a swept parameter from a list or a ``{start, stop, num|step}`` range."""
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


@dataclass(frozen=True)
class Axis:
    """One axis of a study grid: a dimension and its (possibly paired) coordinates."""

    dim: str
    coords: dict[str, list]

    def __len__(self) -> int:
        return len(self.coords[self.dim])


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

    def points(self) -> Iterator[Point]:
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
        wanted = {name: model.spec(name).coerce(value) if name in self.swept else value
                  for name, value in values.items()}
        for point in self.points():
            if all(point.values.get(name) == value for name, value in wanted.items()):
                return point
        raise KeyError(f"study '{self.name}' has no parameter point with {dict(values)}")

    def params(self, point: Point) -> dict[str, Any]:
        """Full, resolved model parameters of a point."""
        return get_model(self.model).resolve({**self.fixed, **point.values})

    def control(self, point: Point, replicate: int) -> RunControl:
        return RunControl(seed=self.seed(point, replicate), **self.time,
                          snapshot_every=self.snapshot_every, snapshot_start=self.snapshot_start)

    def grid(self, point: Point) -> TimeGrid:
        """The step schedule of the runs at ``point``."""
        return self.control(point, 0).grid(get_model(self.model))

    def time_text(self) -> str:
        """Run length for captions and listings, e.g. ``"4000 steps"`` or ``"t_end = 30 s"``."""
        model = get_model(self.model)
        if "steps" in self.time:
            return f"{self.time['steps']} steps"
        return f"t_end = {self.time['t_end']:g} {model.time_units}"

    def seed(self, point: Point, replicate: int) -> int:
        return derive_seed(self.base_seed, self.name, point.label, replicate)


def design_points(model_name: str, fixed: Mapping[str, Any], design: Design,
                  where: str = "sensitivity.factors") -> tuple[Point, ...]:
    """Parameter point of every row of a sensitivity design.

    The label names the factor values (``"eta=0.1_density=1.0"``), so a row repeated in
    the design, or kept when the design grows, is the same run with the same seed; the
    values are the model parameters the factors set (``density`` sets ``N``). A row the
    model refuses (e.g. v0 >= L with both varied) raises ConfigError naming ``where``.
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


def point_label(values: Mapping[str, Any]) -> str:
    """``name=value`` pairs joined by ``_`` (``"eta=2.0"``; ``"single"`` when nothing is swept)."""
    return "_".join(f"{name}={format_value(value)}" for name, value in values.items()) or "single"


# --------------------------------------------------------------------------- model pass


def _build_study(name: str, raw: Mapping[str, Any], base_seed: int) -> Study:
    where = f"studies.{name}"
    try:
        model = get_model(raw["model"])
    except ParameterError as error:
        raise ConfigError(f"config key '{where}.model': {error.message}") from None
    known = [spec.name for spec in model.parameters]
    fixed = dict(raw["params"])
    for key in fixed:
        if key not in known:
            raise ConfigError(f"config key '{where}.params.{key}': unknown parameter of model "
                              f"'{model.name}'; allowed: {', '.join(known)}")
    axes = _build_axes(where, raw["sweep"], model, known, fixed)
    time = {key: raw[key] for key in TIME_KEYS if key in raw}
    snapshots = raw["snapshots"]
    _check_time(where, model, fixed, time, raw["burn_in"], snapshots)
    _check_analysis(where, raw, axes)
    spec = None
    if "sensitivity" in raw:
        spec = _build_design(f"{where}.sensitivity", raw, model.name, fixed,
                             design_seed(base_seed, name))
    study = Study(name=name, model=model.name, description=raw["description"], fixed=fixed,
                  axes=tuple(axes), replicates=raw["replicates"], time=time,
                  burn_in=raw["burn_in"], snapshot_every=snapshots["every"],
                  snapshot_start=snapshots["start"],
                  base_seed=base_seed, order_threshold=raw["order_threshold"], sensitivity=spec,
                  checkpoint_every=raw["checkpoint_every"])
    # Design rows are checked when the design is generated (design_points), not here, so
    # that parsing the Snakefile does not import SALib.
    if spec is None:
        _check_points(where, study, model)
    return study


def _build_axes(where: str, raw_axes: list[Mapping[str, Any]], model: Any,
                known: list[str], fixed: Mapping[str, Any]) -> list[Axis]:
    """The sweep's axes: known, distinct parameters; values coerced; paired lists equal."""
    axes = []
    seen: set[str] = set()
    for number, raw_axis in enumerate(raw_axes):
        coords = {}
        for key, spec in raw_axis.items():
            axis_key = f"{where}.sweep[{number}].{key}"
            if key not in known:
                raise ConfigError(f"config key '{axis_key}': unknown parameter of model "
                                  f"'{model.name}'; allowed: {', '.join(known)}")
            if key in fixed or key in seen:
                raise ConfigError(f"config key '{axis_key}': '{key}' is set more than once "
                                  f"(in params or another sweep axis)")
            seen.add(key)
            coords[key] = _axis_values(axis_key, spec, model.spec(key))
        lengths = {key: len(values) for key, values in coords.items()}
        if len(set(lengths.values())) > 1:
            raise ConfigError(f"config key '{where}.sweep[{number}]': paired parameters need "
                              f"value lists of equal length, got {lengths}")
        dim = next(iter(coords))
        if len(set(coords[dim])) != len(coords[dim]):
            raise ConfigError(f"config key '{where}.sweep[{number}].{dim}': values must be "
                              f"distinct (it names the dimension)")
        axes.append(Axis(dim, coords))
    return axes


def _axis_values(axis_key: str, spec: Any, parameter: Any) -> list[Any]:
    values = expand_values(spec)
    if not values:
        raise ConfigError(f"config key '{axis_key}': the range is empty")
    coerced = []
    for position, value in enumerate(values):
        try:
            coerced.append(parameter.coerce(value))
        except ParameterError as error:
            raise ConfigError(f"config key '{axis_key}[{position}]': {error.message}") from None
    return coerced


def _check_points(where: str, study: Study, model: Any) -> None:
    """Every point's parameters pass the model's checks; errors name the config key."""
    for point in study.points():
        try:
            params = study.params(point)
            model.check(params, study.grid(point))
        except ParameterError as error:
            source = f"{where}.params" + (f".{error.name}" if error.name in study.fixed else "")
            for number, axis in enumerate(study.axes):
                if error.name in axis.coords:
                    source = f"{where}.sweep[{number}].{error.name}"
            raise ConfigError(f"config key '{source}': {error.message} (at point "
                              f"{point.label})") from None


def _check_time(where: str, model: Any, fixed: Mapping[str, Any], time: Mapping[str, Any],
                burn_in: float, snapshots: Mapping[str, Any]) -> None:
    """Run length, step and schedules form a whole-step grid; burn_in leaves records."""
    if model.time_mode == "steps" and ("t_end" in time or "dt" in time):
        key = "t_end" if "t_end" in time else "dt"
        raise ConfigError(f"config key '{where}.{key}': model '{model.name}' takes unit "
                          f"steps; give 'steps'")
    try:
        grid = RunControl(seed=0, **time, snapshot_every=snapshots["every"],
                          snapshot_start=snapshots["start"]).grid(model)
    except ParameterError as error:
        key = {"snapshot_every": "snapshots.every", "snapshot_start": "snapshots.start"}.get(
            error.name, error.name)
        raise ConfigError(f"config key '{where}.{key}': {error.message}") from None
    kept = int(np.sum(grid.times(grid.record_steps) > burn_in))
    if kept < 2:
        raise ConfigError(f"config key '{where}.burn_in': {burn_in} leaves {kept} recorded "
                          f"values of a run ending at {grid.t_end:g} {grid.units}; must be "
                          f"< the end with at least two records after it")


def design_seed(base_seed: int, study: str) -> int:
    """Seed of a study's sensitivity design (its bootstrap uses ``design_seed + 1``)."""
    return derive_seed(base_seed, study, "sensitivity-design", 0)


def _factors(where: str, settings: Mapping[str, Any], model_name: str) -> list[Factor]:
    model = get_model(model_name)
    allowed = model.factor_names()
    method = settings["method"]
    factors = []
    for name, spec in settings["factors"].items():
        key = f"{where}.factors.{name}"
        if name not in allowed:
            raise ConfigError(f"config key '{key}': unknown parameter of model '{model.name}' "
                              f"for a sensitivity study; allowed: {', '.join(allowed)}")
        target = model.factor_target(name)
        if target != name and target in settings["factors"]:
            raise ConfigError(f"config key '{key}': '{name}' sets '{target}', which is a "
                              f"factor too; vary one of them")
        if method == "oat":
            if "values" not in spec or {"low", "high", "mean", "sd"} & set(spec):
                raise ConfigError(f"config key '{key}': method 'oat' takes the factor's "
                                  f"levels as 'values' (a list or a range), not low/high")
            values = expand_values(spec["values"])
            if not values or len(set(values)) != len(values):
                raise ConfigError(f"config key '{key}.values': need one or more distinct "
                                  f"values")
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                raise ConfigError(f"config key '{key}.values': values must be numbers")
            factors.append(Factor(name, values=tuple(float(v) for v in values)))
            continue
        if "values" in spec or "low" not in spec or "high" not in spec:
            raise ConfigError(f"config key '{key}': method '{method}' needs a range "
                              f"{{low, high}} (and no 'values')")
        low, high = float(spec["low"]), float(spec["high"])
        if not low < high:
            raise ConfigError(f"config key '{key}.low': {low!r} must be < high = {high!r}")
        dist = spec.get("dist", "uniform")
        if dist == "truncnorm":
            if "mean" not in spec or "sd" not in spec or not spec["sd"] > 0:
                raise ConfigError(f"config key '{key}': dist 'truncnorm' needs mean and sd > 0")
            factors.append(Factor(name, low, high, dist, float(spec["mean"]),
                                  float(spec["sd"])))
        else:
            factors.append(Factor(name, low, high))
    return factors


def _build_design(where: str, raw: Mapping[str, Any], model_name: str,
                  fixed: Mapping[str, Any], seed: int) -> DesignSpec:
    """Validate a study's ``sensitivity`` section (the design is generated on first use)."""
    settings = raw["sensitivity"]
    study_key = where.rsplit(".", 1)[0]
    if raw["sweep"]:
        raise ConfigError(f"config key '{study_key}.sweep': a sensitivity study takes its "
                          f"points from the design; leave sweep empty")
    for section in ("critical", "fss"):
        if section in raw:
            raise ConfigError(f"config key '{study_key}.{section}': not available for a "
                              f"sensitivity study")
    return design_spec(model_name, fixed, settings, seed, where)


@dataclass(frozen=True)
class DesignSpec:
    """A validated sensitivity design, not yet generated: :meth:`generate` makes it."""

    method: str
    factors: tuple[Factor, ...]
    baseline: dict[str, float]
    samples: int
    levels: int
    seed: int

    def generate(self) -> Design:
        return METHODS[self.method].design(list(self.factors), baseline=self.baseline,
                                           samples=self.samples, seed=self.seed,
                                           levels=self.levels)


def sensitivity_design(model_name: str, fixed: Mapping[str, Any], settings: Mapping[str, Any],
                       seed: int, where: str = "sensitivity") -> Design:
    """Check a ``sensitivity`` section and generate its design (see :func:`design_spec`)."""
    return design_spec(model_name, fixed, settings, seed, where).generate()


def design_spec(model_name: str, fixed: Mapping[str, Any], settings: Mapping[str, Any],
                seed: int, where: str = "sensitivity") -> DesignSpec:
    """Check a (schema-validated) ``sensitivity`` section; return what generates its design.

    Parameters
    ----------
    model_name : str
        Registered model.
    fixed : mapping
        The study's fixed parameters (the baseline of ``oat``).
    settings : mapping
        The ``sensitivity`` section with schema defaults filled in (``outputs`` and
        ``claims`` are checked when present; the design needs only ``method``,
        ``factors``, ``samples`` and ``levels``).
    seed : int
        Seed of the design's random numbers (:func:`design_seed`).
    where : str
        Config key of the section, for error messages.

    Raises
    ------
    ConfigError
        Naming the key and what is allowed.
    """
    method = settings["method"]
    study_key = where.rsplit(".", 1)[0]
    allowed_outputs = run_variables(get_model(model_name))
    for position, output in enumerate(settings.get("outputs", [])):
        if output not in allowed_outputs:
            raise ConfigError(f"config key '{where}.outputs[{position}]': '{output}' is not a "
                              f"per-run metric of model '{model_name}'; allowed: "
                              f"{', '.join(allowed_outputs)}")
    problem = check_sample_size(method, settings["samples"], settings["levels"])
    if problem:
        key, reason = problem
        raise ConfigError(f"config key '{where}.{key}': {settings[key]} cannot be used: "
                          f"{reason}")
    factors = _factors(where, settings, model_name)
    model = get_model(model_name)
    try:
        base = model.resolve(fixed)
    except ParameterError as error:
        raise ConfigError(f"config key '{study_key}.params': {error.message}") from None
    baseline = {}
    for factor in factors:
        target = model.factor_target(factor.name)
        baseline[factor.name] = (model.derived(base)[factor.name] if target != factor.name
                                 else base[factor.name])
    # Every level or range end must be a valid parameter value at the baseline.
    for factor in factors:
        ends = (factor.values if method == "oat" else (factor.low, factor.high))
        for position, value in enumerate(ends):
            key = (f"{where}.factors.{factor.name}." +
                   (f"values[{position}]" if method == "oat" else ("low", "high")[position]))
            params = dict(base)
            model.set_factor(params, factor.name, value)
            try:
                model.resolve(params)
            except ParameterError as error:
                raise ConfigError(f"config key '{key}': {error.message}") from None
    _check_claims(where, settings, factors)
    return DesignSpec(method, tuple(factors), baseline, settings["samples"], settings["levels"],
                      seed)


def _check_claims(where: str, settings: Mapping[str, Any], factors: list[Factor]) -> None:
    levels = {factor.name: factor.values for factor in factors}
    for position, claim in enumerate(settings.get("claims", [])):
        key = f"{where}.claims[{position}]"
        if settings["method"] != "oat":
            raise ConfigError(f"config key '{key}': claims are tested on 'oat' studies only")
        if claim["parameter"] not in levels:
            raise ConfigError(f"config key '{key}.parameter': '{claim['parameter']}' is not a "
                              f"factor; factors: {', '.join(levels)}")
        if claim["output"] not in settings["outputs"]:
            raise ConfigError(f"config key '{key}.output': '{claim['output']}' is not one of "
                              f"the outputs: {', '.join(settings['outputs'])}")
        bound = "below" in claim or "above" in claim
        if ("trend" in claim) == bound:
            raise ConfigError(f"config key '{key}': give either 'trend' or a bound "
                              f"('below' and/or 'above' with 'at')")
        if bound and not any(np.isclose(claim.get("at", math.nan), v)
                             for v in levels[claim["parameter"]]):
            raise ConfigError(f"config key '{key}.at': must be one of the levels of "
                              f"'{claim['parameter']}': {list(levels[claim['parameter']])}")


def _check_control(key: str, model: Any, control: str, dim_of: Mapping[str, str]) -> str:
    """The model declares the control and one of its parameters is swept; its dimension."""
    try:
        declared = model.critical_control(control)
    except ParameterError as error:
        raise ConfigError(f"config key '{key}': {error.message}") from None
    swept = [name for name in declared.needs if name in dim_of]
    if not swept:
        raise ConfigError(f"config key '{key}': '{control}' needs "
                          f"{' or '.join(declared.needs)} swept in this study")
    return dim_of[swept[0]]


def _check_analysis(where: str, raw: Mapping[str, Any], axes: list[Axis]) -> None:
    """The critical and fss sections must name declared controls swept on their own axis."""
    dim_of = {name: axis.dim for axis in axes for name in axis.coords}
    model = get_model(raw["model"])
    if "critical" in raw:
        settings = raw["critical"]
        key = f"{where}.critical"
        if settings["reduced_min"] >= settings["reduced_max"]:
            raise ConfigError(f"config key '{key}.reduced_min': {settings['reduced_min']} must "
                              f"be < reduced_max = {settings['reduced_max']}")
        _check_control(f"{key}.control", model, settings["control"], dim_of)
        for name in settings["select"]:
            if name not in [axis.dim for axis in axes]:
                raise ConfigError(f"config key '{key}.select.{name}': not a swept dimension; "
                                  f"allowed: {', '.join(axis.dim for axis in axes)}")
    if "fss" in raw:
        settings = raw["fss"]
        key = f"{where}.fss"
        if settings["size"] not in dim_of:
            raise ConfigError(f"config key '{key}.size': '{settings['size']}' is not swept")
        control_dim = _check_control(f"{key}.control", model, settings["control"], dim_of)
        if control_dim == dim_of[settings["size"]]:
            raise ConfigError(f"config key '{key}.control': '{settings['control']}' must be "
                              f"swept on an axis of its own, not with the size")


def _check_task_figure(where: str, figure: Mapping[str, Any],
                       tasks: Mapping[str, Any]) -> None:
    """A ``task`` figure names a configured task whose model draws it, with options the
    model accepts."""
    if figure["task"] not in tasks:
        raise ConfigError(f"config key '{where}.task': unknown task '{figure['task']}'; "
                          f"defined: {', '.join(tasks) or 'none'}")
    entry = tasks[figure["task"]]
    model = get_model(entry["model"])
    try:
        model.task(entry["task"]).resolve_figure(figure["options"])
    except ParameterError as error:
        key = f"options.{error.name}" if error.name in figure["options"] else "task"
        raise ConfigError(f"config key '{where}.{key}': {error.message}") from None


def _check_figures(config: Mapping[str, Any], studies: Mapping[str, Study]) -> None:
    """Every figure names an existing study (or task), points, observables and coordinates
    it can draw; errors name the figure's key."""
    for name, figure in config["figures"].items():
        where = f"figures.{name}"
        if figure["kind"] == "task":
            _check_task_figure(where, figure, config["tasks"])
            continue
        if figure["study"] not in studies:
            raise ConfigError(f"config key '{where}.study': unknown study '{figure['study']}'; "
                              f"defined: {', '.join(studies)}")
        study = studies[figure["study"]]
        if figure["kind"] == "series":
            _check_series_figure(where, figure, study)
        _check_figure_points(where, name, figure, study)
        _check_figure_kind(where, figure, study, config["studies"][study.name])
        if figure["kind"] == "curve":
            _check_curve_figure(where, figure, study)
        if figure["kind"] == "heatmap":
            _check_heatmap_figure(where, figure, study)


def _check_series_figure(where: str, figure: Mapping[str, Any], study: Study) -> None:
    observables = [obs.name for obs in get_model(study.model).observables]
    named = [(f"{where}.y[{k}]", name) for k, name in enumerate(figure["y"])]
    if "x" in figure:
        named.append((f"{where}.x", figure["x"]))
    for key, name in named:
        if name not in observables:
            raise ConfigError(f"config key '{key}': '{name}' is not an observable of model "
                              f"'{study.model}'; allowed: {', '.join(observables)}")


def _check_figure_points(where: str, name: str, figure: Mapping[str, Any],
                         study: Study) -> None:
    """Panels, runs and animations name existing points, replicates and snapshots."""
    points = [(f"{where}.panels[{k}]", panel) for k, panel in
              enumerate(figure.get("panels", []))]
    points += [(f"{where}.runs[{k}]", run) for k, run in enumerate(figure.get("runs", []))]
    if figure["kind"] == "animation":
        points.append((where, figure))
    for key, entry in points:
        try:
            study.find_point(entry["point"])
        except (KeyError, ParameterError) as error:
            raise ConfigError(f"config key '{key}.point': {error}") from None
        if entry.get("replicate", 0) >= study.replicates:
            raise ConfigError(f"config key '{key}.replicate': must be < replicates = "
                              f"{study.replicates}")
    if figure["kind"] in ("snapshots", "animation") and study.snapshot_every == 0 \
            and any(entry.get("frame") != "first" for _, entry in points):
        raise ConfigError(f"config key 'studies.{study.name}.snapshots.every': figure "
                          f"'{name}' needs snapshots; set every >= 1")


def _check_figure_kind(where: str, figure: Mapping[str, Any], study: Study,
                       raw_study: Mapping[str, Any]) -> None:
    """Analysis figures need the study's analysis section; grid figures a grid study."""
    kind = figure["kind"]
    methods = SENSITIVITY_FIGURES.get(kind)
    method = study.sensitivity.method if study.sensitivity is not None else None
    if methods and method not in methods:
        raise ConfigError(f"config key '{where}.kind': '{kind}' needs a sensitivity section "
                          f"with method {' or '.join(methods)} in study '{study.name}'")
    if study.sensitivity is not None and kind not in (*SENSITIVITY_FIGURES, "snapshots",
                                                      "animation", "series"):
        raise ConfigError(f"config key '{where}.kind': '{kind}' needs a grid study; "
                          f"'{study.name}' is a sensitivity study")
    needs = {"critical_loglog": "critical", "collapse": "fss", "fss_critical": "fss",
             "distribution": "fss"}.get(kind)
    if needs and needs not in raw_study:
        raise ConfigError(f"config key '{where}.kind': '{kind}' needs a '{needs}' section "
                          f"in study '{study.name}'")


def _check_curve_figure(where: str, figure: Mapping[str, Any], study: Study) -> None:
    model = get_model(study.model)
    coordinates = [*study.swept, *model.derived(study.params(next(study.points())))]
    if figure["x"] not in coordinates:
        raise ConfigError(f"config key '{where}.x': '{figure['x']}' is not a coordinate "
                          f"of study '{study.name}'; available: {', '.join(coordinates)}")
    axis_of = study.axis_of
    if figure.get("logx") and figure["x"] in axis_of:
        _check_log_axis(f"{where}.logx", figure["x"], axis_of[figure["x"]].coords[figure["x"]])
    if "hue" in figure and figure["hue"] not in [axis.dim for axis in study.axes]:
        raise ConfigError(f"config key '{where}.hue': '{figure['hue']}' is not a swept "
                          f"dimension of study '{study.name}'")
    _check_summary_quantity(f"{where}.y", figure["y"], model)


def _check_summary_quantity(key: str, name: str, model: Any) -> None:
    """``name`` is a quantity whose replicate average a summary of ``model`` holds."""
    quantities = summary_quantities(model)
    if name not in quantities:
        raise ConfigError(f"config key '{key}': '{name}' is not one of {', '.join(quantities)}")


def _check_log_axis(key: str, name: str, values: list) -> None:
    """A logarithmic axis over the swept ``values`` of ``name`` needs positive numbers."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
               for v in values):
        raise ConfigError(f"config key '{key}': '{name}' takes values {values}; a "
                          f"logarithmic axis needs positive numbers")


def _check_heatmap_figure(where: str, figure: Mapping[str, Any], study: Study) -> None:
    """``x`` and ``y`` are swept on two different axes of the study, the only axes with more
    than one value; a log axis has positive numbers; ``z`` is a summary quantity."""
    axis_of = study.axis_of
    for key in ("x", "y"):
        name = figure[key]
        if name not in axis_of:
            raise ConfigError(f"config key '{where}.{key}': '{name}' is not swept in study "
                              f"'{study.name}'; allowed: {', '.join(axis_of) or 'none'}")
        if len(axis_of[name]) < 2:
            raise ConfigError(f"config key '{where}.{key}': '{name}' takes one value in study "
                              f"'{study.name}'; a heatmap axis needs at least two")
        if figure.get(f"log{key}"):
            _check_log_axis(f"{where}.log{key}", name, axis_of[name].coords[name])
    x_axis = axis_of[figure["x"]]
    if axis_of[figure["y"]] is x_axis:
        allowed = [name for name, axis in axis_of.items() if axis is not x_axis]
        raise ConfigError(f"config key '{where}.y': '{figure['y']}' is swept on the same axis "
                          f"as x = '{figure['x']}'; allowed: {', '.join(allowed) or 'none'}")
    others = [f"{axis.dim} ({len(axis)} values)" for axis in study.axes if len(axis) > 1
              and axis is not x_axis and axis is not axis_of[figure["y"]]]
    if others:
        raise ConfigError(f"config key '{where}.study': study '{study.name}' also sweeps "
                          f"{', '.join(others)}; a heatmap needs x and y as its only swept "
                          f"dimensions")
    _check_summary_quantity(f"{where}.z", figure["z"], get_model(study.model))


def _check_tasks(config: Mapping[str, Any]) -> None:
    """Every task names a model that offers it, with parameters and options it accepts."""
    for name, entry in config["tasks"].items():
        where = f"tasks.{name}"
        try:
            model = get_model(entry["model"])
        except ParameterError as error:
            raise ConfigError(f"config key '{where}.model': {error.message}") from None
        try:
            task = model.task(entry["task"])
        except ParameterError as error:
            raise ConfigError(f"config key '{where}.task': {error.message}") from None
        try:
            task.resolve(model.resolve(entry["params"]), entry["options"])
        except ParameterError as error:
            section = "options" if error.name in entry["options"] else "params"
            raise ConfigError(f"config key '{where}.{section}.{error.name}': "
                              f"{error.message}") from None


def validate_config(config: dict, schema_path: str | Path | None = None) -> dict[str, Study]:
    """Validate a config (in place, filling defaults) and expand its studies.

    Parameters
    ----------
    config : dict
        Parsed YAML; modified in place (defaults added).
    schema_path : path, optional
        JSON schema; defaults to the repository's ``workflow/schemas/config.schema.yaml``.

    Returns
    -------
    dict of str to Study

    Raises
    ------
    ConfigError
        On the first problem, naming the key and what is allowed.
    """
    validate_schema(config, load_schema(schema_path))
    studies = {name: _build_study(name, raw, config["base_seed"])
               for name, raw in config["studies"].items()}
    _check_tasks(config)
    _check_figures(config, studies)
    return studies


#: Config sections whose named entries an included file adds to.
MERGED_SECTIONS = ("studies", "figures", "tasks")


def merge_includes(config: dict, base_dir: str | Path) -> dict:
    """Merge the files listed under ``include`` (paths relative to ``base_dir``) into
    ``config``, in place: their studies, figures and tasks are added; a name defined twice,
    or any other top-level key in an included file, is an error naming the file.

    An included file may include others (relative to its own directory).
    """
    for position, name in enumerate(config.pop("include", None) or []):
        path = Path(base_dir) / name
        if not path.is_file():
            raise ConfigError(f"config key 'include[{position}]': no file {path}")
        with open(path, encoding="utf-8") as stream:
            part = yaml.safe_load(stream) or {}
        merge_includes(part, path.parent)
        for key, section in part.items():
            if key not in MERGED_SECTIONS:
                raise ConfigError(f"config key 'include[{position}]': {name} sets '{key}'; an "
                                  f"included file may set only {', '.join(MERGED_SECTIONS)}")
            target = config.setdefault(key, {})
            for entry, value in (section or {}).items():
                if entry in target:
                    raise ConfigError(f"config key '{key}.{entry}': defined twice (again in "
                                      f"{name})")
                target[entry] = value
    return config


def load_config(path: str | Path, schema_path: str | Path | None = None
                ) -> tuple[dict, dict[str, Study]]:
    """Read a YAML config file (and the files it includes), validate it and expand its
    studies."""
    with open(path, encoding="utf-8") as stream:
        config = yaml.safe_load(stream) or {}
    merge_includes(config, Path(path).parent)
    return config, validate_config(config, schema_path)
