"""Result tables in the contest's layout (result1, result2, result4) and the paper tables.

A :class:`Table` is pure data (title, column labels, row labels, values); :func:`to_csv`
formats it with six decimals; :func:`write_tables` writes CSV files atomically and, when
openpyxl is installed (an optional extra), one ``.xlsx`` workbook with a sheet per table.

Layouts (2024 CUMCM problem A, result1.xlsx / result2.xlsx / result4.xlsx):

* result1, result4 — sheet 位置: rows ``龙头x (m)``, ``龙头y (m)``, ``第1节龙身x (m)``, ...,
  ``龙尾（后）y (m)``; columns ``0 s``, ``1 s``, ...; sheet 速度: rows ``龙头 (m/s)``, ...;
* result2 — rows per handle, columns ``横坐标x (m)``, ``纵坐标y (m)``, ``速度 (m/s)``;
* paper tables — the same layouts restricted to the head, body benches 1, 51, 101, 151, 201,
  the tail front and the tail rear, at 0, 60, ..., 300 s (Q1) or -100, -50, ..., 100 s (Q4).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from flocklab.core.io import atomic_output, write_text
from flocklab.models.dragon_chain.geometry import PAPER_HANDLES, handle_labels

DECIMALS = 6


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
    rows = [f"{labels[h]} (m/s)" for h in handles]
    return Table(title, "", [_time_label(t) for t in np.asarray(times)], rows,
                 speed[:, handles].T.copy(), "speeds")


def state_table(xy: ArrayLike, speed: ArrayLike, title: str = "result2") -> Table:
    """One instant: rows per handle, columns x, y, speed; ``xy`` (H, 2), ``speed`` (H,)."""
    xy, speed = np.asarray(xy, dtype=float), np.asarray(speed, dtype=float)
    values = np.column_stack([xy, speed])
    return Table(title, "", ["横坐标x (m)", "纵坐标y (m)", "速度 (m/s)"],
                 handle_labels(xy.shape[0]), values)


def paper_state_table(xy: ArrayLike, speed: ArrayLike, title: str = "result2 (论文)") -> Table:
    """:func:`state_table` restricted to the handles of :data:`PAPER_HANDLES`."""
    full = state_table(xy, speed, title)
    return Table(title, "", full.columns, [full.rows[h] for h in PAPER_HANDLES],
                 full.values[list(PAPER_HANDLES)])


def contest_tables(times: ArrayLike, xy: ArrayLike, speed: ArrayLike) -> list[Table]:
    """result1 / result4 layout: the position sheet and the speed sheet."""
    return [position_table(times, xy), speed_table(times, speed)]


def paper_tables(times: ArrayLike, xy: ArrayLike, speed: ArrayLike,
                 every: float) -> list[Table]:
    """Paper tables: handles of :data:`PAPER_HANDLES` at times that are multiples of ``every``."""
    times = np.asarray(times, dtype=float)
    keep = np.nonzero(np.isclose(np.mod(times / every + 0.5, 1.0), 0.5, atol=1e-9))[0]
    xy, speed = np.asarray(xy)[keep], np.asarray(speed)[keep]
    return [position_table(times[keep], xy, PAPER_HANDLES, "位置 (论文)"),
            speed_table(times[keep], speed, PAPER_HANDLES, "速度 (论文)")]


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


def _write_xlsx(tables: Sequence[Table], path: Path, decimals: int) -> None:
    import openpyxl  # optional extra

    book = openpyxl.Workbook()
    book.remove(book.active)
    for table in tables:
        sheet = book.create_sheet(table.title[:31])
        sheet.append([table.corner, *table.columns])
        for label, row in zip(table.rows, table.values, strict=True):
            sheet.append([label, *(round(float(v), decimals) + 0.0 for v in row)])
    with atomic_output(path, suffix=".xlsx") as temporary:
        book.save(temporary)


def write_tables(tables: Sequence[Table], stem: str | os.PathLike, csv_files: bool = True,
                 xlsx: bool = True, decimals: int = DECIMALS) -> list[Path]:
    """Write ``<stem>_<name>.csv`` per table and ``<stem>.xlsx`` (one sheet per table).

    A single table goes to ``<stem>.csv``; tables without a name are numbered.

    Returns the written paths. Without openpyxl the workbook is skipped with a message on
    stderr naming the extra to install; the CSV files are still written.
    """
    stem = Path(stem)
    written: list[Path] = []
    if csv_files:
        for k, table in enumerate(tables):
            suffix = f"_{table.name or k + 1}" if len(tables) > 1 else ""
            target = stem.with_name(f"{stem.name}{suffix}.csv")
            text = to_csv(table, decimals)
            write_text(text, target)
            written.append(target)
    if xlsx:
        try:
            _write_xlsx(tables, stem.with_suffix(".xlsx"), decimals)
            written.append(stem.with_suffix(".xlsx"))
        except ModuleNotFoundError:
            import sys

            print(f"openpyxl is not installed: skipped {stem.with_suffix('.xlsx')} "
                  "(install the optional extra, e.g. `pip install openpyxl`)", file=sys.stderr)
    return written
