"""Workflow configuration: schema validation, model checks and study expansion.

A config is checked in two passes before any job runs:

1. against the JSON schema ``workflow/schemas/config.schema.yaml`` (structure,
   types, defaults filled in);
2. against the models: every parameter point of every study is resolved by its
   model (names, types, ranges, cross-rules such as the noise-dependent range
   of ``eta``), and figures must name existing studies, points and coordinates.

Either pass raises :class:`ConfigError` with one message that names the key.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from flocklab.models import get_model
from flocklab.models.base import RunControl
from flocklab.parameters import ParameterError
from flocklab.seeds import derive_seed

DEFAULT_SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / \
    "config.schema.yaml"
#: Decimal places kept when generating range values, so 0.1 * 3 is 0.3, not 0.30000000000000004.
RANGE_DECIMALS = 12
SUMMARY_QUANTITIES = ("order_parameter", "susceptibility", "binder_cumulant")


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
    """A validated, expanded study."""

    name: str
    model: str
    description: str
    fixed: dict[str, Any]
    axes: tuple[Axis, ...]
    replicates: int
    steps: int
    burn_in: int
    snapshot_every: int
    snapshot_start: int
    base_seed: int

    @property
    def swept(self) -> list[str]:
        return [name for axis in self.axes for name in axis.coords]

    def points(self) -> Iterator[Point]:
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
        return RunControl(steps=self.steps, seed=self.seed(point, replicate),
                          snapshot_every=self.snapshot_every, snapshot_start=self.snapshot_start)

    def seed(self, point: Point, replicate: int) -> int:
        return derive_seed(self.base_seed, self.name, point.label, replicate)


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
    axes = []
    seen: set[str] = set()
    for number, raw_axis in enumerate(raw["sweep"]):
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
            values = expand_values(spec)
            if not values:
                raise ConfigError(f"config key '{axis_key}': the range is empty")
            coerced = []
            for position, value in enumerate(values):
                try:
                    coerced.append(model.spec(key).coerce(value))
                except ParameterError as error:
                    raise ConfigError(f"config key '{axis_key}[{position}]': "
                                      f"{error.message}") from None
            coords[key] = coerced
        lengths = {key: len(values) for key, values in coords.items()}
        if len(set(lengths.values())) > 1:
            raise ConfigError(f"config key '{where}.sweep[{number}]': paired parameters need "
                              f"value lists of equal length, got {lengths}")
        dim = next(iter(coords))
        if len(set(coords[dim])) != len(coords[dim]):
            raise ConfigError(f"config key '{where}.sweep[{number}].{dim}': values must be "
                              f"distinct (it names the dimension)")
        axes.append(Axis(dim, coords))

    steps, burn_in = raw["steps"], raw["burn_in"]
    if burn_in >= steps:
        raise ConfigError(f"config key '{where}.burn_in': {burn_in} must be < steps = {steps}")
    snapshots = raw["snapshots"]
    if snapshots["start"] > steps:
        raise ConfigError(f"config key '{where}.snapshots.start': {snapshots['start']} must be "
                          f"<= steps = {steps}")
    _check_analysis(where, raw, axes)
    study = Study(name=name, model=model.name, description=raw["description"], fixed=fixed,
                  axes=tuple(axes), replicates=raw["replicates"], steps=steps, burn_in=burn_in,
                  snapshot_every=snapshots["every"], snapshot_start=snapshots["start"],
                  base_seed=base_seed)
    for point in study.points():
        try:
            study.params(point)
        except ParameterError as error:
            source = f"{where}.params" + (f".{error.name}" if error.name in fixed else "")
            for number, axis in enumerate(study.axes):
                if error.name in axis.coords:
                    source = f"{where}.sweep[{number}].{error.name}"
            raise ConfigError(f"config key '{source}': {error.message} (at point "
                              f"{point.label})") from None
    return study


def _check_analysis(where: str, raw: Mapping[str, Any], axes: list[Axis]) -> None:
    """The critical and fss sections must name swept coordinates on the right dimensions."""
    dim_of = {name: axis.dim for axis in axes for name in axis.coords}
    if "critical" in raw:
        settings = raw["critical"]
        key = f"{where}.critical"
        if settings["reduced_min"] >= settings["reduced_max"]:
            raise ConfigError(f"config key '{key}.reduced_min': {settings['reduced_min']} must "
                              f"be < reduced_max = {settings['reduced_max']}")
        needed = ["eta"] if settings["control"] == "eta" else ["N", "L"]
        if not any(name in dim_of for name in needed):
            raise ConfigError(f"config key '{key}.control': '{settings['control']}' needs "
                              f"{' or '.join(needed)} swept in this study")
        for name in settings["select"]:
            if name not in [axis.dim for axis in axes]:
                raise ConfigError(f"config key '{key}.select.{name}': not a swept dimension; "
                                  f"allowed: {', '.join(axis.dim for axis in axes)}")
    if "fss" in raw:
        settings = raw["fss"]
        key = f"{where}.fss"
        if settings["size"] not in dim_of:
            raise ConfigError(f"config key '{key}.size': '{settings['size']}' is not swept")
        if "eta" not in dim_of or dim_of["eta"] == dim_of[settings["size"]]:
            raise ConfigError(f"config key '{key}.control': eta must be swept on its own axis")


def _check_figures(config: Mapping[str, Any], studies: Mapping[str, Study]) -> None:
    for name, figure in config["figures"].items():
        where = f"figures.{name}"
        if figure["study"] not in studies:
            raise ConfigError(f"config key '{where}.study': unknown study '{figure['study']}'; "
                              f"defined: {', '.join(studies)}")
        study = studies[figure["study"]]
        points = [(f"{where}.panels[{k}]", panel) for k, panel in
                  enumerate(figure.get("panels", []))]
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
        needs = {"critical_loglog": "critical", "collapse": "fss", "fss_critical": "fss",
                 "distribution": "fss"}.get(figure["kind"])
        if needs and needs not in config["studies"][study.name]:
            raise ConfigError(f"config key '{where}.kind': '{figure['kind']}' needs a '{needs}' "
                              f"section in study '{study.name}'")
        if figure["kind"] == "curve":
            coordinates = [*study.swept, *get_model(study.model).derived(
                study.params(next(study.points())))]
            if figure["x"] not in coordinates:
                raise ConfigError(f"config key '{where}.x': '{figure['x']}' is not a coordinate "
                                  f"of study '{study.name}'; available: {', '.join(coordinates)}")
            if "hue" in figure and figure["hue"] not in [axis.dim for axis in study.axes]:
                raise ConfigError(f"config key '{where}.hue': '{figure['hue']}' is not a swept "
                                  f"dimension of study '{study.name}'")
            if figure["y"] not in SUMMARY_QUANTITIES:
                raise ConfigError(f"config key '{where}.y': '{figure['y']}' is not one of "
                                  f"{', '.join(SUMMARY_QUANTITIES)}")


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
    _check_figures(config, studies)
    return studies


def load_config(path: str | Path, schema_path: str | Path | None = None
                ) -> tuple[dict, dict[str, Study]]:
    """Read a YAML config file, validate it and expand its studies."""
    with open(path, encoding="utf-8") as stream:
        config = yaml.safe_load(stream) or {}
    return config, validate_config(config, schema_path)
