"""Controls of the live explorer, generated from a model's parameter declarations.

:func:`controls_of` turns each :class:`~flocklab.core.parameters.ParameterSpec` into a
:class:`Control`: the widget it needs, its label with the unit, its default and range. The
user interface (:mod:`flocklab.explore.app`) only renders these, so no model has UI code of
its own. A bounded number is a slider over its range; a number bounded on one side or not
at all gets an editable slider over a soft range around its default, into which any allowed
value can be typed (the declared bounds stay hard limits); a choice is a menu, a bool a
switch. A structured value that its schema declares as a list of records of numbers, short
vectors and choices (predators, obstacles, informed subgroups, food patches) is a small table
with a column per field (:func:`table_columns`); any other structured value is a JSON
editor.
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
    widget : {"slider", "menu", "switch", "table", "json"}
        What renders it.
    label : str
        Name and unit, e.g. ``"eta [rad]"``.
    value : object
        Initial value (the default, or a given value); a table's rows as
        :func:`rows_of` gives them, a JSON editor's text.
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
    columns : tuple of TableColumn
        The table's columns (``table`` only).
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
    columns: tuple[TableColumn, ...] = ()


@dataclass(frozen=True)
class TableColumn:
    """One field of a table editor's records.

    Parameters
    ----------
    name : str
        The field's key.
    kind : {"number", "integer", "vector", "choice"}
        A number, an integer, a short list of numbers (typed ``"1, 2"``) or one of
        ``options``.
    options : tuple of str
        The allowed values of a ``choice``.
    required : bool
        Whether every record must have it.
    """

    name: str
    kind: str
    options: tuple[str, ...] = ()
    required: bool = False


def _column_kind(prop: dict[str, Any]) -> str | None:
    """The :class:`TableColumn` kind of one schema property, ``None`` where no cell fits."""
    if "enum" in prop:
        return "choice"
    if prop.get("type") in ("number", "integer"):
        return str(prop["type"])
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, dict) and \
            items.get("type") == "number":
        return "vector"
    return None


def table_columns(schema: dict[str, Any] | None) -> tuple[TableColumn, ...] | None:
    """The columns of a table editor for a structured value, or ``None`` where the schema
    is not a list of flat records.

    A list whose items are objects (or ``oneOf`` several kinds of objects: a column per field
    of any kind, a record fills those of its own) with number, integer, numeric-vector or
    enumerated fields becomes a table; nested lists, objects and free text do not.
    """
    schema = schema or {}
    items = schema.get("items") or {}
    if schema.get("type") != "array" or not isinstance(items, dict):
        return None
    branches = items.get("oneOf", [items])
    if not branches or any(b.get("type") != "object" or not b.get("properties")
                           for b in branches):
        return None
    required = set.intersection(*(set(b.get("required", ())) for b in branches))
    columns: dict[str, TableColumn] = {}
    for branch in branches:
        for name, prop in branch["properties"].items():
            kind = _column_kind(prop)
            if kind is None:
                return None
            options = tuple(str(o) for o in prop.get("enum", ()))
            columns.setdefault(name, TableColumn(name, kind, options, name in required))
    return tuple(columns.values())


def cell_text(value: Any) -> str:
    """A field's value as a table cell shows it: ``""`` when absent, ``"1, 2"`` for a
    vector, numbers with ``repr`` precision."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(cell_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value)


def rows_of(columns: tuple[TableColumn, ...], value: Any) -> list[dict[str, str]]:
    """The table rows of a structured value (a list of records): one dict of cell texts a
    record."""
    return [{c.name: cell_text(record.get(c.name)) for c in columns} for record in value or []]


def _parse_cell(column: TableColumn, text: str) -> Any:
    """The value a cell's text means (raises ``ValueError`` where it means none)."""
    if column.kind == "vector":
        return [float(part) for part in text.replace(",", " ").split()]
    if column.kind == "number":
        return float(text)
    if column.kind == "integer":
        number = float(text)
        if not number.is_integer():
            raise ValueError(text)
        return int(number)
    return text


def value_of_rows(spec: ParameterSpec, columns: tuple[TableColumn, ...],
                  rows: list[dict[str, Any]]) -> Any:
    """The structured value a table holds, checked against the parameter's schema: each
    row a record of its non-empty cells; rows with every cell empty are left out.

    Raises
    ------
    ParameterError
        Naming the parameter, the row and the field (a cell that is not a number or a
        vector of numbers, or a record the schema does not allow).
    """
    from flocklab.core.parameters import ParameterError

    records = []
    for number, row in enumerate(rows, start=1):
        record = {}
        for column in columns:
            cell = row.get(column.name)
            text = "" if cell is None or cell != cell else str(cell).strip()  # NaN: empty
            if not text:
                continue
            try:
                record[column.name] = _parse_cell(column, text)
            except ValueError:
                what = {"vector": "list of numbers", "integer": "whole number"}
                raise ParameterError(spec.name, f"parameter '{spec.name}': row {number}, "
                                     f"{column.name}: '{text}' is not a "
                                     f"{what.get(column.kind, column.kind)}") from None
        if record:
            records.append(record)
    return spec.coerce(records)


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
        columns = table_columns(spec.schema)
        if columns is not None and isinstance(value, list):
            return Control(spec.name, "table", label, rows_of(columns, value), spec.kind,
                           help=help_text, columns=columns)
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
