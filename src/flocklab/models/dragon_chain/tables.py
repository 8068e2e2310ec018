"""Result tables in the contest's layout (result1, result2, result4) and the paper tables.

A :class:`Table` is pure data (title, column labels, row labels, values); :func:`to_csv`
formats it with six decimals; :func:`write_tables` writes the CSV files (UTF-8 with a
byte-order mark, so that spreadsheet programs in a Chinese locale read the labels) and one
``.xlsx`` workbook with a sheet per table, all atomically.

Layouts (2024 CUMCM problem A, the templates result1.xlsx / result2.xlsx / result4.xlsx):

* result1, result4 — sheet 位置: rows ``龙头x (m)``, ``龙头y (m)``, ``第1节龙身x (m)``, ...,
  ``龙尾（后）y (m)``; columns ``0 s``, ``1 s``, ...; sheet 速度: rows ``龙头 (m/s)``,
  ``第1节龙身  (m/s)``, ..., ``龙尾  (m/s)``, ``龙尾（后） (m/s)`` (the body and tail-front
  labels have two spaces before the unit, as in the template);
* result2 — sheet ``Sheet1``: rows per handle, columns ``横坐标x (m)``, ``纵坐标y (m)``,
  ``速度 (m/s)``;
* paper tables — the same layouts restricted to the head, the fronts of body benches 1, 51,
  101, 151, 201 and the tail's rear handle, at 0, 60, ..., 300 s (Q1) or -100, -50, ..., 100 s
  (Q4).

Provenance: a workbook carries the parameters, options, package version and git commit as
custom document properties (File > Properties > Custom in a spreadsheet program); the CSV
files have theirs in the task's JSON document written beside them.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from flocklab.core.io import atomic_output, write_text
from flocklab.models.dragon_chain.geometry import handle_labels, paper_handles

DECIMALS = 6
#: Sheet name of the result2 template.
RESULT2_SHEET = "Sheet1"


@dataclass(frozen=True)
class Table:
    """A labelled 2-D table: ``values[r, c]`` for ``rows[r]`` and ``columns[c]``."""

    title: str
    corner: str
    columns: list[str]
    rows: list[str]
    values: NDArray[np.float64]
    name: str = ""


def _time_label(t: float) -> str:
    return f"{t:g} s"


def _speed_label(label: str) -> str:
    """Speed row label of the template: two spaces before the unit for the body benches and
    the tail front, one for the head and the tail rear."""
    gap = "  " if label.endswith("龙身") or label == "龙尾" else " "
    return f"{label}{gap}(m/s)"


def position_table(times: ArrayLike, xy: ArrayLike, handles: Sequence[int] | None = None,
                   title: str = "位置") -> Table:
    """Positions as x, y row pairs per handle and a column per time; ``xy`` is (T, H, 2)."""
    xy = np.asarray(xy, dtype=float)
    labels = handle_labels(xy.shape[1])
    handles = list(range(xy.shape[1])) if handles is None else list(handles)
    rows = [f"{labels[h]}{axis} (m)" for h in handles for axis in "xy"]
    values = np.transpose(xy[:, handles, :], (1, 2, 0)).reshape(2 * len(handles), -1)
    return Table(title, "", [_time_label(t) for t in np.asarray(times)], rows, values,
                 "positions")


def speed_table(times: ArrayLike, speed: ArrayLike, handles: Sequence[int] | None = None,
                title: str = "速度") -> Table:
    """Speeds, a row per handle and a column per time; ``speed`` is (T, H)."""
    speed = np.asarray(speed, dtype=float)
    labels = handle_labels(speed.shape[1])
    handles = list(range(speed.shape[1])) if handles is None else list(handles)
    rows = [_speed_label(labels[h]) for h in handles]
    return Table(title, "", [_time_label(t) for t in np.asarray(times)], rows,
                 speed[:, handles].T.copy(), "speeds")


def state_table(xy: ArrayLike, speed: ArrayLike, title: str = RESULT2_SHEET) -> Table:
    """One instant: rows per handle, columns x, y, speed; ``xy`` (H, 2), ``speed`` (H,)."""
    xy, speed = np.asarray(xy, dtype=float), np.asarray(speed, dtype=float)
    values = np.column_stack([xy, speed])
    return Table(title, "", ["横坐标x (m)", "纵坐标y (m)", "速度 (m/s)"],
                 handle_labels(xy.shape[0]), values)


def paper_state_table(xy: ArrayLike, speed: ArrayLike, title: str = "result2 (论文)") -> Table:
    """:func:`state_table` restricted to the handles of
    :func:`~flocklab.models.dragon_chain.geometry.paper_handles`."""
    full = state_table(xy, speed, title)
    handles = paper_handles(len(full.rows))
    return Table(title, "", full.columns, [full.rows[h] for h in handles],
                 full.values[handles])


def contest_tables(times: ArrayLike, xy: ArrayLike, speed: ArrayLike) -> list[Table]:
    """result1 / result4 layout: the position sheet and the speed sheet."""
    return [position_table(times, xy), speed_table(times, speed)]


def paper_tables(times: ArrayLike, xy: ArrayLike, speed: ArrayLike,
                 every: float) -> list[Table]:
    """Paper tables: the handles of
    :func:`~flocklab.models.dragon_chain.geometry.paper_handles` at times that are multiples
    of ``every``."""
    times = np.asarray(times, dtype=float)
    keep = np.nonzero(np.isclose(np.mod(times / every + 0.5, 1.0), 0.5, atol=1e-9))[0]
    xy, speed = np.asarray(xy)[keep], np.asarray(speed)[keep]
    handles = paper_handles(xy.shape[1])
    return [position_table(times[keep], xy, handles, "位置 (论文)"),
            speed_table(times[keep], speed, handles, "速度 (论文)")]


def to_csv(table: Table, decimals: int = DECIMALS) -> str:
    """CSV text: a header row, then a label and ``decimals``-decimal values per row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([table.corner, *table.columns])
    values = np.round(table.values, decimals) + 0.0  # no "-0.000000"
    form = f"{{:.{decimals}f}}".format
    for label, row in zip(table.rows, values.tolist(), strict=True):
        writer.writerow([label, *map(form, row)])
    return buffer.getvalue()


def _write_xlsx(tables: Sequence[Table], path: Path, decimals: int,
                properties: Mapping[str, str]) -> None:
    import openpyxl
    from openpyxl.packaging.custom import StringProperty

    book = openpyxl.Workbook()
    book.remove(book.active)
    for table in tables:
        sheet = book.create_sheet(table.title[:31])
        sheet.append([table.corner or None, *table.columns])  # A1 empty, as in the template
        for label, row in zip(table.rows, table.values, strict=True):
            sheet.append([label, *(round(float(v), decimals) + 0.0 for v in row)])
    book.properties.creator = "flocklab"
    for name, value in properties.items():
        book.custom_doc_props.append(StringProperty(name=name, value=str(value)))
    with atomic_output(path, suffix=".xlsx") as temporary:
        book.save(temporary)


def write_tables(tables: Sequence[Table], stem: str | os.PathLike, csv_files: bool = True,
                 xlsx: bool = True, decimals: int = DECIMALS,
                 properties: Mapping[str, str] | None = None) -> list[Path]:
    """Write ``<stem>_<name>.csv`` per table and ``<stem>.xlsx`` (one sheet per table).

    A single table goes to ``<stem>.csv``; tables without a name are numbered. CSV files are
    UTF-8 with a byte-order mark; ``properties`` (name to text, e.g. the parameters as JSON
    and :func:`~flocklab.core.provenance.provenance_attrs`) become the workbook's custom
    document properties.

    Returns the written paths.
    """
    stem = Path(stem)
    written: list[Path] = []
    if csv_files:
        for k, table in enumerate(tables):
            suffix = f"_{table.name or k + 1}" if len(tables) > 1 else ""
            target = stem.with_name(f"{stem.name}{suffix}.csv")
            write_text(to_csv(table, decimals), target, encoding="utf-8-sig")
            written.append(target)
    if xlsx:
        _write_xlsx(tables, stem.with_suffix(".xlsx"), decimals, properties or {})
        written.append(stem.with_suffix(".xlsx"))
    return written
