"""Typed, range-checked model parameters.

Every model declares its parameters as :class:`ParameterSpec` objects. The same
specifications drive the command line (one option per parameter, with unit and
default in ``--help``), the config validation of the pipeline, and the
attributes written into every output file, so there is one place that says what
a parameter is and which values it may take.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class ParameterError(ValueError):
    """A parameter value is missing, unknown, of the wrong type or out of range.

    Attributes
    ----------
    name : str
        The offending parameter (or ``None`` for a problem not tied to one).
    """

    def __init__(self, name: str | None, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


class ConfigError(ValueError):
    """A workflow configuration (or a command-line option standing for one) is invalid; the
    message names the key and what is allowed, one line per problem."""


@dataclass(frozen=True)
class ParameterSpec:
    """Declaration of one model parameter.

    Parameters
    ----------
    name : str
        Identifier used in configs, on the command line and in file attributes.
    kind : {"int", "float", "choice", "bool", "json"}
        Value type. ``int`` accepts integral floats such as ``400.0``. ``json`` is a
        structured value (lists, mappings: obstacles, a path specification, gain
        distributions) checked against :attr:`schema`.
    default : object
        Value used when the parameter is not given.
    description : str
        One-line meaning, shown in ``--help`` and in file attributes.
    unit : str
        Physical unit (``"1"`` for dimensionless).
    low, high : float, optional
        Allowed range; ``None`` means unbounded on that side.
    low_inclusive, high_inclusive : bool
        Whether the bounds themselves are allowed.
    choices : tuple of str
        Allowed values for ``kind="choice"``.
    schema : dict, optional
        JSON-schema fragment of a ``kind="json"`` value; errors name the element, e.g.
        ``obstacles[1].radius``. Cross-element rules belong in the model's ``check``.
    symbol : str
        LaTeX symbol for axis labels (without dollars), e.g. ``"\\eta"``.
    """

    name: str
    kind: str
    default: Any
    description: str
    unit: str = "1"
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[str, ...] = field(default_factory=tuple)
    schema: dict[str, Any] | None = field(default=None, hash=False, compare=False)
    symbol: str = ""

    def label(self) -> str:
        """Axis label: the symbol (LaTeX) or name, with the unit, e.g. ``$\\eta$ [rad]``."""
        text = f"${self.symbol}$" if self.symbol else self.name
        return text if self.unit in ("1", "") else f"{text} [{self.unit}]"

    def range_text(self) -> str:
        """Human-readable allowed range, e.g. ``"> 0"`` or ``"one of angular, vectorial"``."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.kind == "json":
            return (self.schema or {}).get("description", "a structured value (JSON)")
        parts = []
        if self.low is not None:
            parts.append(f"{'>=' if self.low_inclusive else '>'} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<=' if self.high_inclusive else '<'} {self.high:g}")
        kind = "an integer" if self.kind == "int" else "a number"
        return kind + (" " + " and ".join(parts) if parts else "")

    def coerce(self, value: Any) -> Any:
        """Return ``value`` converted to this parameter's type, or raise ParameterError."""
        name = self.name
        if self.kind == "json":
            return check_structured(name, value, self.schema or {})
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise ParameterError(
                    name, f"parameter '{name}' = {value!r} is not allowed: {self.range_text()}"
                )
            return value
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise ParameterError(name, f"parameter '{name}' = {value!r} must be true or false")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParameterError(
                name, f"parameter '{name}' = {value!r} must be {self.range_text()}"
            )
        if not math.isfinite(value):
            raise ParameterError(name, f"parameter '{name}' = {value!r} must be finite")
        if self.kind == "int":
            if float(value) != int(value):
                raise ParameterError(
                    name, f"parameter '{name}' = {value!r} must be {self.range_text()}"
                )
            value = int(value)
        else:
            value = float(value)
        self.check_range(value)
        return value

    def check_range(self, value: float, low: float | None = None, high: float | None = None,
                    why: str = "") -> None:
        """Raise ParameterError unless ``value`` lies in the declared (or given) range."""
        low = self.low if low is None else low
        high = self.high if high is None else high
        too_low = low is not None and (value < low if self.low_inclusive else value <= low)
        too_high = high is not None and (value > high if self.high_inclusive else value >= high)
        if too_low or too_high:
            spec = ParameterSpec(self.name, self.kind, self.default, self.description, self.unit,
                                 low, high, self.low_inclusive, self.high_inclusive)
            raise ParameterError(
                self.name,
                f"parameter '{self.name}' = {value!r} is out of range: allowed is "
                f"{spec.range_text()}{why}",
            )


def check_structured(name: str, value: Any, schema: Mapping[str, Any]) -> Any:
    """Validate a structured parameter against its JSON-schema fragment; returns a deep copy
    with plain Python types (tuples as lists), so it round-trips through JSON.

    Raises
    ------
    ParameterError
        Naming the element, e.g. ``parameter 'obstacles[1].radius' = -2.0: ...``.
    """
    import json

    try:
        plain = json.loads(json.dumps(value))
    except (TypeError, ValueError):
        raise ParameterError(name, f"parameter '{name}' = {value!r} is not a JSON value") \
            from None
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(dict(schema)).iter_errors(plain),
                    key=lambda error: list(error.absolute_path))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        where = name
        for part in error.absolute_path:
            where += f"[{part}]" if isinstance(part, int) else f".{part}"
        description = f" ({schema['description']})" if "description" in schema else ""
        raise ParameterError(name, f"parameter '{where}' = {error.instance!r}: "
                                   f"{error.message}{description}")
    return copy.deepcopy(plain)


def resolve_parameters(specs: Sequence[ParameterSpec], given: Mapping[str, Any]) -> dict:
    """Fill defaults, reject unknown names and coerce every value.

    Parameters
    ----------
    specs : sequence of ParameterSpec
        The model's declared parameters.
    given : mapping
        User-supplied values (any subset of the declared names).

    Returns
    -------
    dict
        One entry per spec, in declaration order.
    """
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ParameterError(
            unknown[0],
            f"unknown parameter '{unknown[0]}'; allowed: {', '.join(known)}",
        )
    return {
        name: spec.coerce(given[name]) if name in given else copy.deepcopy(spec.default)
        for name, spec in known.items()
    }
