"""The model pass of config validation: studies and tasks checked by their models.

After the schema pass (:mod:`flocklab.config.schema`), every study is expanded into a
:class:`~flocklab.config.study.Study` and every parameter point of it resolved by its model
(names, types, ranges, cross-rules such as the noise-dependent range of ``eta``), the time grid
checked, the analysis sections checked against the controls the model declares; every task
must be offered by its model with options it accepts. The figures are checked by their kinds
above this package (:func:`flocklab.pipeline.validate_config`, which reports every problem
at once: :class:`~flocklab.core.parameters.ConfigError` with one line per problem).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from flocklab.config.design import DesignSpec, design_seed, design_spec
from flocklab.config.schema import schema_problems
from flocklab.config.study import Axis, Study, expand_values
from flocklab.core.driver import adaptive_grid
from flocklab.core.names import nearest_names
from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.core.time import RunControl

#: Config keys of a study that are run controls (model time units).
TIME_KEYS = ("steps", "t_end", "dt", "record_every", "min_independent_samples", "max_steps")


@dataclass
class Checked:
    """What :func:`check_studies_and_tasks` found: the studies it built, every problem (one
    line each), and the ``(section, name)`` entries with a schema problem (not checked
    further)."""

    studies: dict[str, Study]
    problems: list[str]
    broken: set[tuple]


def check_studies_and_tasks(config: dict, schema: Mapping[str, Any]) -> Checked:
    """Validate a config against ``schema`` (in place, filling defaults), then check every
    study and task the schema accepted against its model and expand the studies.

    Parameters
    ----------
    config : dict
        Parsed YAML; modified in place (defaults added).
    schema : mapping
        The JSON schema (with the figure kinds' keys: :func:`flocklab.pipeline.config_schema`).

    Returns
    -------
    Checked

    Raises
    ------
    ConfigError
        At once, when a problem lies above the entries (a section, the top level): nothing
        below can be checked then.
    """
    found = schema_problems(config, schema)
    problems = list(found.values())
    # an entry with a schema problem is not checked further (its defaults may be missing);
    # a problem above the entries (a section, the top level) stops here
    broken = {path[:2] for path in found}
    if any(len(path) < 2 for path in found) or not all(
            isinstance(config.get(section), dict) for section in ("studies", "tasks", "figures")):
        raise ConfigError("\n".join(problems))
    studies = {}
    for name, raw in config["studies"].items():
        if ("studies", name) not in broken:
            with collect(problems):
                studies[name] = _build_study(name, raw, config["base_seed"])
    for name in config["tasks"]:
        if ("tasks", name) not in broken:
            with collect(problems):
                _check_task(config, name)
    return Checked(studies, problems, broken)


@contextlib.contextmanager
def collect(problems: list[str]) -> Iterator[None]:
    """Add the message of a :class:`ConfigError` raised in the block to ``problems``."""
    try:
        yield
    except ConfigError as error:
        problems.append(str(error))


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
                              f"'{model.name}'{nearest_names(key, known)}")
    axes = _build_axes(where, raw["sweep"], model, known, fixed)
    time = {key: raw[key] for key in TIME_KEYS if key in raw}
    snapshots = raw["snapshots"]
    _check_time(where, model, fixed, time, raw["burn_in"], snapshots)
    _check_analysis(where, raw, axes)
    if "structure" in raw:
        _check_structure(where, raw, model, time, snapshots)
        _check_structure_claims(f"{where}.structure", raw["structure"], axes)
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
    """The sweep's axes: known, distinct parameters; values coerced; paired lists equal; a
    nested parameter (``{each: [...]}``) expanded to its (entry, value) points."""
    axes = []
    seen: set[str] = set()
    derived = [factor.name for factor in model.derived_factors]
    for number, raw_axis in enumerate(raw_axes):
        coords, nested = {}, None
        for key, spec in raw_axis.items():
            axis_key = f"{where}.sweep[{number}].{key}"
            if key not in known and key not in derived:
                raise ConfigError(f"config key '{axis_key}': unknown parameter of model "
                                  f"'{model.name}'{nearest_names(key, [*known, *derived])}")
            target = model.factor_target(key)
            if {key, target} & (set(fixed) | seen):
                raise ConfigError(f"config key '{axis_key}': '{target}' is set more than once "
                                  f"(in params or another sweep axis)")
            seen |= {key, target}
            if isinstance(spec, Mapping) and "each" in spec:
                if nested is not None:
                    raise ConfigError(f"config key '{axis_key}': one parameter of an axis "
                                      f"may be nested ('{nested}' is already)")
                nested = key
            coords[key] = _spec_values(axis_key, spec, model, key in known)
        axes.append(_axis(f"{where}.sweep[{number}]", coords, nested))
    return axes


def _spec_values(axis_key: str, spec: Any, model: Any, parameter: bool) -> list[Any]:
    """Values of one swept name: a list or range, or for ``{each: [...]}`` one list per
    entry of the axis's other names."""
    def one(key: str, values: Any) -> list[Any]:
        return (_axis_values(key, values, model.spec(axis_key.rpartition(".")[2]))
                if parameter else _factor_values(key, values))

    if isinstance(spec, Mapping) and "each" in spec:
        return [one(f"{axis_key}.each[{k}]", values) for k, values in enumerate(spec["each"])]
    return one(axis_key, spec)


def _axis(axis_key: str, coords: dict[str, list], nested: str | None) -> Axis:
    """An :class:`Axis` from its names' values; with a nested name, every entry of the
    paired names is repeated once per value of its list (dimension ``<first>_<nested>``)."""
    outer = {key: values for key, values in coords.items() if key != nested}
    lengths = {key: len(values) for key, values in coords.items()}
    if len(set(lengths.values())) > 1 or (nested is not None and not outer):
        what = ("a nested parameter needs paired parameters with one list of values per "
                "entry" if nested is not None and not outer else "paired parameters need "
                "value lists of equal length")
        raise ConfigError(f"config key '{axis_key}': {what}, got {lengths}")
    if nested is None:
        dim = next(iter(coords))
        if len(set(coords[dim])) != len(coords[dim]):
            raise ConfigError(f"config key '{axis_key}.{dim}': values must be distinct (it "
                              f"names the dimension)")
        return Axis(dim, coords)
    expanded: dict[str, list] = {key: [] for key in coords}
    for entry, values in enumerate(coords[nested]):
        for value in values:
            for key in outer:
                expanded[key].append(outer[key][entry])
            expanded[nested].append(value)
    rows = list(zip(*expanded.values(), strict=True))
    if len(set(rows)) != len(rows):
        raise ConfigError(f"config key '{axis_key}.{nested}': the values of each entry must "
                          f"be distinct")
    return Axis(f"{next(iter(outer))}_{nested}", expanded, nested=nested)


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


def _factor_values(axis_key: str, spec: Any) -> list[float]:
    """Values of a swept derived factor (e.g. the Vicsek density, which sets N): numbers."""
    values = expand_values(spec)
    if not values:
        raise ConfigError(f"config key '{axis_key}': the range is empty")
    for position, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"config key '{axis_key}[{position}]': {value!r} is not a number")
    return [float(value) for value in values]


def _check_points(where: str, study: Study, model: Any) -> None:
    """Every point's parameters pass the model's checks; errors name the config key."""
    for point in study.points():
        try:
            model.prepare(study.params(point), study.grid(point))  # the run's own checks
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
        control = RunControl(seed=0, **time, snapshot_every=snapshots["every"],
                             snapshot_start=snapshots["start"])
        grid = control.grid(model)
        if control.adaptive:
            adaptive_grid(model, control, grid)
    except ParameterError as error:
        key = {"snapshot_every": "snapshots.every", "snapshot_start": "snapshots.start"}.get(
            error.name, error.name)
        raise ConfigError(f"config key '{where}.{key}': {error.message}") from None
    kept = int(np.sum(grid.times(grid.record_steps) > burn_in))
    if kept < 2:
        raise ConfigError(f"config key '{where}.burn_in': {burn_in} leaves {kept} recorded "
                          f"values of a run ending at {grid.t_end:g} {grid.units}; must be "
                          f"< the end with at least two records after it")


def _check_structure(where: str, raw: Mapping[str, Any], model: Any,
                     time: Mapping[str, Any], snapshots: Mapping[str, Any]) -> None:
    """A structure section needs a model with positions, a grid study and frames after the
    burn-in."""
    key = f"{where}.structure"
    if model.kinematics is None:
        raise ConfigError(f"config key '{key}': model '{model.name}' declares no positions "
                          f"for a spatial analysis")
    if "sensitivity" in raw:
        raise ConfigError(f"config key '{key}': not available for a sensitivity study")
    grid = RunControl(seed=0, **time, snapshot_every=snapshots["every"],
                      snapshot_start=snapshots["start"]).grid(model)
    frames = int(np.sum(grid.times(grid.frame_steps) > raw["burn_in"]))
    if frames < 2:
        raise ConfigError(f"config key '{where}.snapshots': {frames} snapshot frames after "
                          f"burn_in = {raw['burn_in']}; the structure section needs at least 2 "
                          f"(set snapshots.every and snapshots.start)")


def _check_structure_claims(key: str, settings: Mapping[str, Any], axes: list[Axis]) -> None:
    """Each claim names a range, and an exponent claim a point of the study's grid."""
    swept = {name: list(axis.coords[name]) for axis in axes for name in axis.coords}
    for i, claim in enumerate(settings.get("claims", [])):
        where = f"{key}.claims[{i}]"
        if claim.get("above") is None and claim.get("below") is None:
            raise ConfigError(f"config key '{where}': give 'above', 'below' or both")
        if claim.get("above") is not None and claim.get("below") is not None \
                and not claim["above"] < claim["below"]:
            raise ConfigError(f"config key '{where}.above': must be < below")
        if claim["quantity"] == "correlation_length_exponent":
            continue
        point = claim.get("point")
        if not point:
            raise ConfigError(f"config key '{where}.point': '{claim['quantity']}' is a point's "
                              f"estimate; name the point's swept values")
        for name, value in point.items():
            values = swept.get(name)
            if values is None:
                raise ConfigError(f"config key '{where}.point.{name}': not a swept parameter; "
                                  f"allowed: {', '.join(swept) or 'none'}")
            if not any(_same_value(value, known) for known in values):
                raise ConfigError(f"config key '{where}.point.{name}': {value!r} is not one of "
                                  f"the swept values {values}")


def _same_value(a: Any, b: Any) -> bool:
    """Equal, numbers compared as floats."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b))
    return a == b


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


def _check_control(key: str, model: Any, control: str, dim_of: Mapping[str, str]) -> str:
    """The model declares the control and one of its parameters is swept; its dimension."""
    try:
        declared = model.critical_control(control)
    except ParameterError as error:
        raise ConfigError(f"config key '{key}': {error.message}") from None
    # a swept derived factor (the Vicsek density) counts as its target parameter (N)
    dim_of = {**{model.factor_target(name): dim for name, dim in dim_of.items()}, **dim_of}
    swept = [name for name in declared.needs if name in dim_of]
    if not swept:
        raise ConfigError(f"config key '{key}': '{control}' needs "
                          f"{' or '.join(declared.needs)} swept in this study")
    return dim_of[swept[0]]


def study_axis(axes: list[Axis], dim: str) -> Axis:
    """The axis whose dimension is ``dim``."""
    return next(axis for axis in axes if axis.dim == dim)


def _check_analysis(where: str, raw: Mapping[str, Any], axes: list[Axis]) -> None:
    """The critical and fss sections must name declared controls swept on their own axis."""
    dim_of = {name: axis.dim for axis in axes for name in axis.coords}
    model = get_model(raw["model"])
    for section in ("critical", "fss"):
        if section in raw and not model.primary_is_order_parameter:
            raise ConfigError(f"config key '{where}.{section}': needs an order parameter (its "
                              f"Binder cumulant and power law); the primary observable "
                              f"'{model.primary_observable}' of model '{model.name}' is none")
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
        _check_control(f"{key}.control", model, settings["control"], dim_of)
        dims = [axis.dim for axis in axes]
        for name in settings["select"]:
            if name not in dims:
                raise ConfigError(f"config key '{key}.select.{name}': not a swept dimension; "
                                  f"allowed: {', '.join(dims)}")
        starts = settings.get("starts")
        if starts is not None and (starts not in dims or len(study_axis(axes, starts)) != 2):
            raise ConfigError(f"config key '{key}.starts': '{starts}' must be a swept "
                              f"dimension with two values (e.g. init: [aligned, random])")
        sizes = {value for value in next(a for a in axes if settings["size"] in a.coords
                                         ).coords[settings["size"]]}
        if len(sizes) < 2:
            raise ConfigError(f"config key '{key}.size': finite-size scaling needs at least "
                              f"two values of '{settings['size']}', got {len(sizes)}")
        if raw["replicates"] < 2:
            raise ConfigError(f"config key '{where}.replicates': finite-size scaling resamples "
                              f"the replicates; needs at least 2, got {raw['replicates']}")


def _check_task(config: Mapping[str, Any], name: str) -> None:
    """Task ``name`` names a model that offers it, with parameters and options it accepts."""
    entry = config["tasks"][name]
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
