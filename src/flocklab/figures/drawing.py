"""How a model's runs are drawn: the optional drawing protocol.

A model names its drawing in :attr:`flocklab.core.model.Model.drawing`, either a
:class:`Drawing` subclass or its ``"module:Class"`` path, so that looking the model up
imports no matplotlib. Snapshot figures and animations call :func:`drawing_of` and then
:meth:`Drawing.projection` (the axes a run needs), :meth:`Drawing.draw` (one frame),
:meth:`Drawing.fix_limits` (the same limits for every frame of the run) and
:meth:`Drawing.legend_handles` (what the marks mean, one legend per figure).

Subclass contract: override :meth:`draw`; override :meth:`limits` where the run's frames
do not hold ``x`` and ``y`` (or a box fixes the view), :meth:`projection` for 3-D runs and
:meth:`legend_handles` where the drawing marks more than one kind of thing. A drawing
imports matplotlib inside its methods (captions read its docstring without it).

Live views (``flocklab explore``) redraw many frames a second, faster than matplotlib can:
they ask :meth:`Drawing.glyphs` for the frame as plain arrays (:class:`Glyph`: points,
arrows, polylines, a field on a grid) and update their plot in place. A drawing overrides
:meth:`glyphs` next to :meth:`draw`, marking the same things with the same colours; the
default gives the entities' ``x``, ``y`` as points, and ``None`` (nothing to offer) makes a
live view fall back to :meth:`draw`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.model import Model


def time_text(run: xr.Dataset, frame: int) -> str:
    """``t = 2.5 s`` for the time of ``frame`` (``step 50`` for a stepped model)."""
    value = float(run["frame"].values[frame])
    units = str(run["frame"].attrs.get("units", "1"))
    return f"step {value:g}" if units in ("1", "") else f"t = {value:g} {units}"


@dataclass(frozen=True)
class Glyph:
    """One kind of mark of a frame, as plain arrays (for live views).

    Parameters
    ----------
    kind : {"points", "arrows", "lines", "image"}
        ``points``: markers at (``x``, ``y``); ``arrows``: from (``x``, ``y``) along
        (``u``, ``v``), drawn at that length in data units; ``lines``: polylines through
        (``x``, ``y``), separate lines split by NaN; ``image``: ``field`` on a regular grid
        covering ``x[0]..x[1]`` by ``y[0]..y[1]``, drawn beneath the other marks.
    name : str
        What the mark is (legend label and the key a live view keeps it under).
    x, y : ndarray, shape (M,)
        Positions in the drawing's data units (``image``: shape (2,), the grid's edges).
    u, v : ndarray, shape (M,), optional
        Arrow components (``arrows`` only).
    colour : str
        A matplotlib / CSS colour name or ``#rrggbb`` (``image``: a matplotlib colormap).
    size : float
        Marker size in screen pixels, or line width.
    marker : str
        ``circle``, ``square``, ``triangle``, ``x`` or ``star`` (``points`` only).
    field : ndarray, shape (ny, nx), optional
        Values on the grid, row 0 at ``y[0]`` (``image`` only).
    high : float
        The value at the top of the colormap; the bottom is 0 (``image`` only).
    """

    kind: str
    name: str
    x: np.ndarray
    y: np.ndarray
    u: np.ndarray | None = None
    v: np.ndarray | None = None
    colour: str = "tab:blue"
    size: float = 4.0
    marker: str = "circle"
    field: np.ndarray | None = None
    high: float = 1.0


def segments_as_lines(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segments from ``start`` to ``end`` (shape (S, 2) each) as one NaN-separated polyline:
    ``(x, y)``, shape (3 S,), for a :class:`Glyph` of kind ``lines``."""
    x = np.column_stack([start[:, 0], end[:, 0], np.full(len(start), np.nan)]).ravel()
    y = np.column_stack([start[:, 1], end[:, 1], np.full(len(start), np.nan)]).ravel()
    return x, y


def trail_lines(x: np.ndarray, y: np.ndarray, jump: float = np.inf
                ) -> tuple[np.ndarray, np.ndarray]:
    """Trajectories over F frames (``x``, ``y`` of shape (F, N)) as one NaN-separated
    polyline, broken where a step is longer than ``jump`` (a periodic wrap-around)."""
    if x.shape[0] < 2:
        return np.empty(0), np.empty(0)
    start = np.stack([x[:-1], y[:-1]], axis=-1).reshape(-1, 2)
    end = np.stack([x[1:], y[1:]], axis=-1).reshape(-1, 2)
    keep = np.abs(end - start).max(axis=-1) <= jump
    return segments_as_lines(start[keep], end[keep])


def circle_lines(centres: np.ndarray, radii: np.ndarray, points: int = 48
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Circles (centres of shape (C, 2 or more), radii (C,)) as one NaN-separated polyline
    in the xy plane, ``points`` vertices each."""
    angle = np.linspace(0.0, 2.0 * np.pi, points)
    x = centres[:, :1] + radii[:, None] * np.cos(angle)
    y = centres[:, 1:2] + radii[:, None] * np.sin(angle)
    gap = np.full((len(radii), 1), np.nan)
    return np.hstack([x, gap]).ravel(), np.hstack([y, gap]).ravel()


class Drawing:
    """Draws the frames of a model's runs (default: entity positions ``x``, ``y`` as points)."""

    def projection(self, run: xr.Dataset) -> str | None:
        """Matplotlib projection of the axes :meth:`draw` needs for ``run``; ``None`` for
        ordinary 2-D axes, ``"3d"`` for :class:`mpl_toolkits.mplot3d.axes3d.Axes3D`."""
        return None

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Draw frame ``frame`` of ``run`` on ``ax``; ``trail`` asks for up to that many
        preceding frames as trails, ``label`` is the panel's letter or name."""
        ax.plot(run["x"].values[frame], run["y"].values[frame], ".", ms=3)
        ax.set_title(f"{label} {time_text(run, frame)}".strip())

    def glyphs(self, run: xr.Dataset, frame: int, trail: int = 0) -> list[Glyph] | None:
        """Frame ``frame`` of ``run`` as :class:`Glyph` arrays for a live view (what
        :meth:`draw` marks, with up to ``trail`` preceding frames as trails); ``None`` when
        the drawing offers none (a live view then calls :meth:`draw`). Default: the entities'
        ``x``, ``y`` as points."""
        if "x" not in run or "y" not in run:
            return None
        return [Glyph("points", "entity",
                      run["x"].values[frame], run["y"].values[frame])]

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float] | None:
        """``(x0, x1, y0, y1)`` showing every frame of the run (the entities' ``x``, ``y``
        over all frames with a 5 % margin), or ``None`` to leave the drawing's own."""
        if "x" not in run or "y" not in run or "frame" not in run["x"].dims:
            return None
        x, y = run["x"].values, run["y"].values
        if not (np.isfinite(x).any() and np.isfinite(y).any()):
            return None
        x0, x1, y0, y1 = np.nanmin(x), np.nanmax(x), np.nanmin(y), np.nanmax(y)
        pad = 0.05 * max(x1 - x0, y1 - y0, 1e-9)
        return x0 - pad, x1 + pad, y0 - pad, y1 + pad

    def fix_limits(self, ax: Any, run: xr.Dataset) -> None:
        """Apply :meth:`limits` (equal scales) so that every frame shares one view; a box
        narrower than :data:`MIN_ASPECT` of its length is widened about its centre, so a
        straight chain does not squeeze its panel into a sliver."""
        box = self.limits(run)
        if box is None or self.projection(run) is not None:
            return
        (x0, x1), (y0, y1) = _widened(box[0], box[1], box[2], box[3])
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        """Artists explaining the drawing's marks (labelled), for one legend per figure."""
        return []


#: Smallest ratio of the short side to the long side of a drawing's view box.
MIN_ASPECT = 0.4


def _widened(x0: float, x1: float, y0: float, y1: float
             ) -> tuple[tuple[float, float], tuple[float, float]]:
    half = MIN_ASPECT * max(x1 - x0, y1 - y0) / 2
    xc, yc = (x0 + x1) / 2, (y0 + y1) / 2
    return ((min(x0, xc - half), max(x1, xc + half)),
            (min(y0, yc - half), max(y1, yc + half)))


def drawing_of(model: Model | None) -> Drawing:
    """The :class:`Drawing` of ``model`` (its declared one, or the default)."""
    declared = None if model is None else model.drawing
    if declared is None:
        return Drawing()
    if isinstance(declared, str):
        module, _, name = declared.partition(":")
        declared = getattr(importlib.import_module(module), name)
    return declared()
