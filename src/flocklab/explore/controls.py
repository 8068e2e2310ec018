"""Controls of the live explorer, generated from a model's parameter declarations.

:func:`controls_of` turns each :class:`~flocklab.core.parameters.ParameterSpec` into a
:class:`Control`: the widget it needs, its label with the unit, its default and range. The
user interface (:mod:`flocklab.explore.app`) only renders these, so no model has UI code of
its own. A bounded number is a slider over its range; a number bounded on one side or not
at all gets an editable slider over a soft range around its default, into which any allowed
value can be typed (the declared bounds stay hard limits); a choice is a menu, a bool a
switch and a structured value a small JSON editor.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flocklab.core.parameters import ParameterSpec

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

#: Positions of a float slider between its ends.
SLIDER_POSITIONS = 200
#: An unbounded side of a slider reaches this multiple of the default's size.
SOFT_RANGE = 10.0


@dataclass(frozen=True)
class Control:
    """One generated control.

    Parameters
    ----------
    name : str
        The parameter it sets.
    widget : {"slider", "menu", "switch", "json"}
        What renders it.
    label : str
        Name and unit, e.g. ``"eta [rad]"``.
    value : object
        Initial value (the default, or a given value).
    kind : str
        The parameter's kind (``int``, ``float``, ``choice``, ``bool``, ``json``).
    start, end, step : float, optional
        Slider range and increment (``slider`` only).
    hard_start, hard_end : float, optional
        Declared bounds a typed value must respect (``None``: unbounded).
    options : tuple of str
        Menu entries (``menu`` only).
    help : str
        Meaning and allowed values.
    """

    name: str
    widget: str
    label: str
    value: Any
    kind: str
    start: float | None = None
    end: float | None = None
    step: float | None = None
    hard_start: float | None = None
    hard_end: float | None = None
    options: tuple[str, ...] = ()
    help: str = ""


def control_of(spec: ParameterSpec, value: Any = None) -> Control:
    """The control of one declared parameter, showing ``value`` (default: the default)."""
    value = spec.default if value is None else value
    label = spec.name if spec.unit in ("1", "") else f"{spec.name} [{spec.unit}]"
    help_text = f"{spec.description}; {spec.range_text()}"
    if spec.kind == "choice":
        return Control(spec.name, "menu", label, value, spec.kind, options=spec.choices,
                       help=help_text)
    if spec.kind == "bool":
        return Control(spec.name, "switch", label, bool(value), spec.kind, help=help_text)
    if spec.kind == "json":
        return Control(spec.name, "json", label, json.dumps(value), spec.kind, help=help_text)
    start, end = slider_range(spec, value)
    step = 1 if spec.kind == "int" else nice_step((end - start) / SLIDER_POSITIONS)
    if spec.kind == "int":
        start, end = math.floor(start), math.ceil(end)
    return Control(spec.name, "slider", label, value, spec.kind, start, end, step,
                   spec.low, spec.high, help=help_text)


def slider_range(spec: ParameterSpec, value: float) -> tuple[float, float]:
    """``(start, end)`` of a number's slider: the declared bounds where there are both;
    an open side reaches :data:`SOFT_RANGE` times the size of the default (or of
    ``value``; 1 where both are 0); an excluded bound is moved in by one slider position."""
    size = max(abs(float(value)), abs(float(spec.default))) or 1.0
    low = spec.low if spec.low is not None else \
        (-SOFT_RANGE * size if spec.high is None or spec.high > 0 else spec.high - size)
    high = spec.high if spec.high is not None else max(SOFT_RANGE * size, low + size)
    if spec.low is not None and not spec.low_inclusive:
        low += (high - low) / SLIDER_POSITIONS
    if spec.high is not None and not spec.high_inclusive:
        high -= (high - low) / SLIDER_POSITIONS
    return float(low), float(high)


def nice_step(step: float) -> float:
    """The 1-2-5 number nearest below ``step`` (> 0)."""
    if not step > 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(step))
    return max(m * power for m in (1.0, 2.0, 5.0) if m * power <= step * (1 + 1e-12))


def controls_of(model: Model, values: dict[str, Any] | None = None) -> list[Control]:
    """One :class:`Control` per declared parameter, in declaration order."""
    values = values or {}
    return [control_of(spec, values.get(spec.name)) for spec in model.parameters]


def parse_json_value(spec: ParameterSpec, text: str) -> Any:
    """The value a JSON editor holds, checked against the parameter's schema.

    Raises
    ------
    ParameterError
        Naming the parameter (not JSON, or not an allowed value).
    """
    from flocklab.core.parameters import ParameterError

    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParameterError(spec.name, f"parameter '{spec.name}': not JSON ({error.msg})") \
            from None
    return spec.coerce(value)
