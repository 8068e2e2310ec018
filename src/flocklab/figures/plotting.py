"""Figures: pure functions from datasets to matplotlib figures (no file I/O).

Every function draws in the project's figure style (:mod:`flocklab.figures.style`: size per
panel count, constrained layout, wrapped titles, legends outside the data) with labels from
the models' declarations (:mod:`flocklab.figures.labels`). The figure kinds
(:mod:`flocklab.figures.kinds`) call them.

* :func:`snapshot_figure` — panels of configurations drawn by the model (Vicsek et al. 1995,
  Fig. 1);
* :func:`curve_figure` — a replicate-averaged summary quantity against a coordinate, one line
  per value of another dimension, with error bars (Fig. 2);
* :func:`heatmap_figure` — a summary quantity as a colour map over two swept dimensions;
* :func:`state_map_figure` — a per-run state code as the most frequent state of each cell
  over the same two dimensions; both may draw power laws :math:`y = a x^b` over the map
  (:func:`draw_power_lines`), e.g. a stability boundary;
* :func:`series_figure` — observables of runs against time (or against another observable);
* :func:`animate_run` — an animation of a run's frames;
* the analysis figures: single-size effective fits, sensitivity indices, and the
  finite-size scaling figures of :mod:`flocklab.figures.fss_plots` and the spatial
  structure figures of :mod:`flocklab.figures.structure_plots`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.animation import FuncAnimation
from matplotlib.colors import LogNorm, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import NullLocator

from flocklab.analysis.rounded import SHORT_SAMPLES
from flocklab.analysis.summary import flagged_points
from flocklab.figures import labels, style
from flocklab.figures.drawing import MIN_ASPECT, Drawing, drawing_of
from flocklab.figures.fss_plots import (  # noqa: F401 (the figure kinds find them here)
    collapse_figure,
    distribution_figure,
    fss_critical_figure,
    fss_curves_figure,
    fss_scaling_figure,
)
from flocklab.figures.structure_plots import (  # noqa: F401 (the figure kinds find them here)
    band_profiles_figure,
    correlation_length_figure,
    number_fluctuations_figure,
    velocity_correlation_figure,
)

if TYPE_CHECKING:
    from flocklab.core.model import Model

MARKERS = "osD^v<>ph*"


def _model(ds: xr.Dataset) -> Model | None:
    """The registered model a stage file names (``None`` if it names none)."""
    from flocklab.core.registry import get_model

    name = ds.attrs.get("model")
    return None if name is None else get_model(str(name))


def coordinate_label(ds: xr.Dataset, name: str) -> str:
    """Axis label of a coordinate or quantity of a stage file, from its model's
    declarations (long name, symbol, unit), else from the variable's attributes."""
    model = _model(ds)
    if model is not None:
        label = labels.quantity(model, name)
        if label.long_name != labels.readable(name) or label.symbol:
            return label.axis()
    attrs = ds[name].attrs if name in ds.variables else {}
    return labels.axis_label(str(attrs.get("long_name", labels.readable(name))),
                             str(attrs.get("symbol", "")), str(attrs.get("units", "1")))


def quantity_label(ds: xr.Dataset, name: str) -> str:
    """Axis label of a summary quantity (the replicate average ``replicate_<name>``)."""
    units, long_name = "", ""
    for key in (name, f"replicate_{name}"):
        if key in ds.variables:
            units = str(ds[key].attrs.get("units", ""))
            long_name = str(ds[key].attrs.get("long_name", ""))
            break
    model = _model(ds)
    if model is None:
        return labels.axis_label(long_name or labels.readable(name), "", units or "1")
    label = labels.quantity(model, name)
    return labels.axis_label(label.long_name, label.symbol, label.units or units or "1")


def _value_text(name: str, value: Any, model: Model | None) -> str:
    symbol = labels.quantity(model, name).short() if model is not None else name
    return f"{symbol} = {value:g}" if isinstance(value, int | float) else f"{symbol} = {value}"


def draw_snapshot(ax: plt.Axes, ds: xr.Dataset, frame: int, trail: int = 20,
                  label: str = "") -> None:
    """Frame ``frame`` of a run drawn by its model (:mod:`flocklab.figures.drawing`), on the
    whole run's limits."""
    drawing = _drawing(ds)
    drawing.draw(ax, ds, frame, trail=trail, label=label)
    drawing.fix_limits(ax, ds)


def snapshot_projection(ds: xr.Dataset) -> str | None:
    """The axes projection the run's model's drawing asks for (``None``: 2-D axes)."""
    return _drawing(ds).projection(ds)


def _drawing(ds: xr.Dataset) -> Drawing:
    return drawing_of(_model(ds))


def snapshot_figure(runs: Sequence[xr.Dataset], frames: Sequence[str], panel_labels: Sequence[str],
                    trail: int = 20, columns: int = 2, title: str = "") -> plt.Figure:
    """Panels of configurations (one per run), as Fig. 1 of Vicsek et al. (1995), with one
    legend for what the drawings mark."""
    columns = max(1, min(columns, len(runs)))
    rows = -(-len(runs) // columns)
    drawing = _drawing(runs[0])
    legend_width = 1.3 if drawing.legend_handles(runs[0]) else 0.0
    fig, axes = style.new_figure(rows, columns, aspect=_view_aspect(drawing, runs[0]),
                                 extra=(legend_width, 0.0))
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax, ds, which, label in zip(axes.flat, runs, frames, panel_labels, strict=False):
        projection = snapshot_projection(ds)
        if projection is not None:  # this panel's run is drawn on other axes (3-D)
            spec, parent = ax.get_subplotspec(), ax.figure
            ax.remove()
            ax = parent.add_subplot(spec, projection=projection)
        frame = 0 if which == "first" else ds.sizes["frame"] - 1
        draw_snapshot(ax, ds, frame, trail=trail if which == "last" else 0, label=label)
    _drawing_legend(fig, runs[0])
    style.title(fig, title)
    return fig


def _view_aspect(drawing: Drawing, run: xr.Dataset) -> float:
    """Height over width of the drawing's fixed view of ``run`` (1 where it has none or draws
    in 3-D), so that panels of a wide arena are not square boxes around a strip."""
    box = drawing.limits(run) if drawing.projection(run) is None else None
    if box is None or not np.all(np.isfinite(box)) or box[1] <= box[0]:
        return 1.0
    return max((box[3] - box[2]) / (box[1] - box[0]), MIN_ASPECT)


def _drawing_legend(fig: plt.Figure, run: xr.Dataset) -> None:
    handles = _drawing(run).legend_handles(run)
    if handles:
        style.legend(fig, handles=handles, labels=[h.get_label() for h in handles])


def curve_figure(summary: xr.Dataset, x: str, y: str | Sequence[str], hue: str | None = None,
                 xlabel: str | None = None, ylabel: str | None = None, logx: bool = False,
                 logy: bool = False, title: str = "") -> plt.Figure:
    """Replicate-averaged ``y`` against coordinate ``x`` with error bars, one line per ``hue``
    (log axes on request). Points whose runs are short of independent samples or drift
    after burn-in (the summary's ``short_runs``/``drifting_runs``) are drawn open, with a
    legend entry saying so.

    ``y`` may be a list of quantities sharing a unit, drawn as lines of one panel (without
    ``hue``); a derived quantity among them (a coordinate of the summary, e.g. a closed
    form) is drawn as a dashed reference line without error bars.
    """
    names = [y] if isinstance(y, str) else list(y)
    model = _model(summary)
    several = len(names) > 1
    flagged = flagged_points(summary)
    flags = flagged is not None and bool(flagged.any())
    # room for the outside legend: the curves' entries, and the open-marker entry
    fig, axes = style.new_figure(extra=((1.5 if hue or several else 0.0) + (1.2 if flags else 0.0),
                                        0.0))
    ax = axes[0, 0]
    groups: list[tuple[str, Any]] = [("", {})]
    if hue is not None:
        groups = [(_value_text(hue, value, model), {hue: i})
                  for i, value in enumerate(summary[hue].values.tolist())]
    number, any_open = 0, False
    for name in names:
        if f"replicate_{name}" not in summary:
            _reference_line(ax, summary, x, name, model)
            continue
        for label, selection in groups:
            text = label or (_quantity_text(name, model) if several else "")
            any_open |= _errorbar_line(ax, summary, x, name, selection, text, number, hue)
            number += 1
    ax.set_xlabel(style.wrap(xlabel or coordinate_label(summary, x), 45))
    ax.set_ylabel(style.wrap(ylabel or quantity_label(summary, names[0]), 38))
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    if not logy:
        anchor_at_zero(ax)
    if hue is not None or several or any_open:
        handles, texts = ax.get_legend_handles_labels()
        if any_open:
            handles = [*handles, _open_marker_handle()]
            texts = [*texts, style.wrap(OPEN_MARKER_TEXT, 16)]
        style.legend(fig, handles=handles, labels=texts)
    style.title(fig, title)
    return fig


def _errorbar_line(ax: plt.Axes, summary: xr.Dataset, x: str, y: str, selection: Any,
                   label: str, number: int, hue: str | None) -> bool:
    """One curve with error bars; points the summary flags (:func:`flagged_points`) drawn
    with open markers. Returns whether any point was drawn open."""
    line = summary[f"replicate_{y}"].isel(selection)
    line_err = summary[f"replicate_{y}_err"].isel(selection)
    xs = line[x].values if x in line.coords else summary[x].values
    if line.ndim != 1 or np.ndim(xs) != 1:
        raise ValueError(f"'{y}' against '{x}' is not one curve per '{hue}': "
                         f"remaining dimensions {line.dims}")
    order = np.argsort(xs)
    marker = MARKERS[number % len(MARKERS)]
    # an outcome that is 0 or 1 in every run (stable or not, turned or not) is drawn as
    # markers: joining the shares would suggest values between the levels
    drawn = ax.errorbar(xs[order], line.values[order], yerr=line_err.values[order],
                        marker=marker, markersize=3.5, capsize=2,
                        linewidth=0 if binary_outcome(summary, y) else 1, label=label or None)
    flagged = flagged_points(summary)
    if flagged is None:
        return False
    open_points = flagged.isel(selection).values.astype(bool)[order]
    ax.plot(xs[order][open_points], line.values[order][open_points], marker, linestyle="none",
            markersize=3.5, markerfacecolor="white", color=drawn[0].get_color(), zorder=3)
    return bool(open_points.any())


def anchor_at_zero(ax: plt.Axes) -> None:
    """Start the vertical axis at 0 for non-negative data whose drawn values differ by less
    than a tenth of their size: autoscaling would spread a difference of a few percent over
    the whole panel (error bars and the lines' points are what is compared)."""
    values = [np.asarray(line.get_ydata(), float) for line in ax.get_lines()]
    values = np.concatenate(values) if values else np.empty(0)
    values = values[np.isfinite(values)]
    if values.size and values.min() >= 0.0 and np.ptp(values) < 0.1 * values.max():
        ax.set_ylim(bottom=0.0, top=max(ax.get_ylim()[1], 1.05 * values.max()))


def binary_outcome(summary: xr.Dataset, name: str) -> bool:
    """Whether the per-run values of ``name`` in ``summary`` are all 0 or 1 (a yes/no
    outcome of each run); False where the summary has no per-run values of it."""
    if name not in summary:
        return False
    values = np.asarray(summary[name].values, dtype=float)
    values = values[np.isfinite(values)]
    return bool(values.size and np.all((values == 0.0) | (values == 1.0)))


#: Legend entry of :func:`curve_figure` for points drawn open.
OPEN_MARKER_TEXT = f"open: runs with < {SHORT_SAMPLES} independent samples, or drifting"


def _open_marker_handle() -> Line2D:
    return Line2D([], [], marker="o", linestyle="none", markersize=3.5, color="0.3",
                  markerfacecolor="white", label=OPEN_MARKER_TEXT)


def _reference_line(ax: plt.Axes, summary: xr.Dataset, x: str, name: str,
                    model: Model | None) -> None:
    """A derived quantity of the summary (its value at each point, joined) as a dashed
    line."""
    values = summary[name]
    xs = values[x].values if x in values.coords else summary[x].values
    values = values.squeeze(drop=True)
    if values.ndim != 1 or np.ndim(xs) != 1:
        raise ValueError(f"reference '{name}' is not one value per '{x}'")
    order = np.argsort(xs)
    ax.plot(xs[order], values.values[order], "--", color="0.3", linewidth=1,
            label=_quantity_text(name, model), zorder=1)


def _quantity_text(name: str, model: Model | None) -> str:
    """A quantity's legend entry: its long name and symbol (``polarisation $P$``)."""
    if model is None:
        return labels.readable(name)
    label = labels.quantity(model, name)
    return labels.axis_label(label.long_name, label.symbol)


def cell_edges(centres: np.ndarray, log: bool = False) -> np.ndarray:
    r"""Edges of cells centred on ascending values: the midpoints of neighbours.

    On a linear axis the arithmetic midpoints :math:`(v_i + v_{i+1})/2`, on a log axis the
    geometric ones :math:`\sqrt{v_i v_{i+1}}`; each outer cell extends as far beyond its value
    as to its inner edge (in :math:`\ln v` on a log axis), so every value is its cell's centre.

    Parameters
    ----------
    centres : ndarray, shape (n,), n >= 2
        Ascending values (positive if ``log``).
    log : bool
        Logarithmic axis.

    Returns
    -------
    ndarray, shape (n + 1,)
    """
    v = np.log(centres) if log else np.asarray(centres, dtype=float)
    middle = 0.5 * (v[1:] + v[:-1])
    edges = np.concatenate([[2.0 * v[0] - middle[0]], middle, [2.0 * v[-1] - middle[-1]]])
    return np.exp(edges) if log else edges


def _heatmap_axis(values: np.ndarray, log: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                          list[str]]:
    """(order, centres, edges, tick labels) of one heatmap axis: numbers ascending, centred
    on their values; anything else (e.g. method names) in sweep order at 0, 1, 2, ..."""
    if np.issubdtype(values.dtype, np.number):
        order = np.argsort(values, kind="stable")
        centres = values[order].astype(float)
        return order, centres, cell_edges(centres, log), [f"{v:g}" for v in centres]
    centres = np.arange(values.size, dtype=float)
    return np.arange(values.size), centres, cell_edges(centres), [str(v) for v in values]


def heatmap_grid(summary: xr.Dataset, x: str, y: str, z: str) -> xr.DataArray:
    """``replicate_<z>`` on (dimension of ``y``, dimension of ``x``); any other dimension of
    the summary must have length 1 (ValueError otherwise)."""
    for name in (x, y):
        if summary[name].ndim != 1:
            raise ValueError(f"heatmap coordinate '{name}' is not one swept dimension: "
                             f"{summary[name].dims}")
    x_dim, y_dim = summary[x].dims[0], summary[y].dims[0]
    values = summary[f"replicate_{z}"]
    others = [dim for dim in values.dims if dim not in (x_dim, y_dim)]
    if x_dim == y_dim or any(values.sizes[dim] > 1 for dim in others):
        raise ValueError(f"'{z}' over '{x}' and '{y}' is not one map: dimensions "
                         f"{dict(values.sizes)}")
    return values.isel({dim: 0 for dim in others}).transpose(y_dim, x_dim)


def cell_text(value: float) -> str:
    """A cell's value in at most five characters (``0.41``, ``12``, ``5e-07`` → ``5e-7``)."""
    text = f"{value:.2g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def _print_cells(ax: plt.Axes, mesh: Any, z: np.ndarray, xe: np.ndarray, ye: np.ndarray,
                 xc: np.ndarray, yc: np.ndarray) -> None:
    """Each finite value of ``z[i, j]`` at its cell centre, in black on light cells and white
    on dark ones, in a font that fits the narrowest cell (left out where none fits)."""
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_window_extent()
    to_pixels = ax.transData.transform
    widths = [abs(to_pixels((xe[j + 1], yc[0]))[0] - to_pixels((xe[j], yc[0]))[0])
              for j in range(len(xc))]
    longest = max((len(cell_text(v)) for v in z[np.isfinite(z)]), default=1)
    points = min(7.0, 0.9 * min(widths) / max(longest * 0.6, 1) * 72 / fig.dpi)
    if points < 4.5 or box.height / len(yc) < 8:
        return
    colours = mesh.to_rgba(np.ma.masked_invalid(z))
    for i, j in np.argwhere(np.isfinite(z)):
        red, green, blue, alpha = colours[i, j]
        light = alpha == 0 or 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
        ax.text(xc[j], yc[i], cell_text(z[i, j]), ha="center", va="center", fontsize=points,
                color="black" if light else "white")


def _hatch_missing(ax: plt.Axes, missing: np.ndarray, xe: np.ndarray, ye: np.ndarray,
                   label: str) -> list[Any]:
    """Hatched grey cells where ``missing[i, j]``; the legend handle for them (if any)."""
    patch = {"facecolor": "0.85", "edgecolor": "0.45", "hatch": "///", "linewidth": 0.0}
    for i, j in np.argwhere(missing):
        ax.add_patch(Rectangle((xe[j], ye[i]), xe[j + 1] - xe[j], ye[i + 1] - ye[i], **patch))
    return [Patch(label=label, **patch)] if missing.any() else []


def draw_power_lines(ax: plt.Axes, lines: Sequence[dict[str, Any]], x_edges: np.ndarray,
                     y_edges: np.ndarray, log_x: bool) -> list[Any]:
    """Each ``{coefficient a, exponent b, label}`` of ``lines`` as the curve :math:`y = a x^b`
    across the map (x from the first to the last cell edge), black, dashed then dotted; the
    axes stay on the map's cells. Returns the labelled lines (legend handles)."""
    lo, hi = float(x_edges[0]), float(x_edges[-1])
    xs = np.geomspace(lo, hi, 256) if log_x and lo > 0 else np.linspace(lo, hi, 256)
    handles = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for number, line in enumerate(lines):
            ys = float(line["coefficient"]) * xs ** float(line["exponent"])
            (drawn,) = ax.plot(xs, ys, ls=("--", ":", "-.")[number % 3], color="black",
                               lw=1.6, label=line.get("label") or None)
            if line.get("label"):
                handles.append(drawn)
    ax.set_xlim(lo, hi)
    ax.set_ylim(float(y_edges[0]), float(y_edges[-1]))
    return handles


def draw_contours(ax: plt.Axes, values: np.ndarray, x_centres: np.ndarray,
                  y_centres: np.ndarray, contours: Sequence[dict[str, Any]]) -> list[Any]:
    """Each ``{level, label}`` of ``contours`` as the line where the map's value crosses the
    level, interpolated linearly between the cell centres (matplotlib's marching squares; NaN
    cells break the line); black, dashed then dotted, on a white halo. ``values`` has shape
    (len(y_centres), len(x_centres)). Returns the legend handles of the labelled levels (a
    level the map never crosses still gets its entry)."""
    from matplotlib import patheffects

    halo = [patheffects.withStroke(linewidth=3.4, foreground="white")]
    masked = np.ma.masked_invalid(values)
    handles = []
    for number, contour in enumerate(contours):
        style_ = ("--", ":", "-.")[number % 3]
        level = float(contour["level"])
        if masked.count() and masked.min() < level < masked.max():
            drawn = ax.contour(x_centres, y_centres, masked, levels=[level], colors="black",
                               linestyles=style_, linewidths=1.6)
            drawn.set(path_effects=halo)
        if contour.get("label"):
            handles.append(Line2D([], [], color="black", ls=style_, lw=1.6,
                                  path_effects=halo, label=contour["label"]))
    return handles


def _map_legend(fig: plt.Figure, handles: Sequence[Any]) -> None:
    """One legend under the map (hatched cells, power lines, states), outside the data."""
    if handles:
        fig.legend(handles=list(handles), loc="outside lower center", frameon=False,
                   ncols=min(len(handles), 3))


def _map_axes(fig: plt.Figure, summary: xr.Dataset, x: str, y: str, logx: bool, logy: bool,
              xlabel: str | None, ylabel: str | None) -> tuple[plt.Axes, tuple, tuple]:
    """The axes of a map over ``x`` and ``y`` with ticks at the swept values; returns the
    axes and the ``(order, centres, edges, ticks)`` of each direction."""
    x_axis, y_axis = _heatmap_axis(summary[x].values, logx), _heatmap_axis(summary[y].values,
                                                                           logy)
    ax = fig.subplots()
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    for axis, (_, centres, _, ticks) in ((ax.xaxis, x_axis), (ax.yaxis, y_axis)):
        axis.set_ticks(centres, ticks)
        axis.set_minor_locator(NullLocator())
    if len(x_axis[1]) > 6:
        ax.tick_params(axis="x", labelrotation=45)
    ax.set_xlabel(xlabel or coordinate_label(summary, x))
    ax.set_ylabel(ylabel or coordinate_label(summary, y))
    return ax, x_axis, y_axis


def _map_figure(n_x: int, n_y: int, extra_width: float = 0.0) -> plt.Figure:
    """A constrained-layout figure sized for a map of ``n_x`` x ``n_y`` cells."""
    style.apply()
    return plt.figure(figsize=(float(np.clip(2.6 + 0.55 * n_x, 4.6, 9.5)) + extra_width,
                               float(np.clip(2.0 + 0.35 * n_y, 3.4, 7.5))),
                      layout="constrained")


def heatmap_figure(summary: xr.Dataset, x: str, y: str, z: str, logx: bool = False,
                   logy: bool = False, logz: bool = False, mark_missing: str = "no value",
                   xlabel: str | None = None, ylabel: str | None = None,
                   zlabel: str | None = None, title: str = "",
                   lines: Sequence[dict[str, Any]] = (),
                   contours: Sequence[dict[str, Any]] = ()) -> plt.Figure:
    """Replicate-averaged ``z`` as a colour map over the swept coordinates ``x`` (horizontal)
    and ``y`` (vertical).

    One cell per point, centred on its swept values, with edges at the arithmetic (linear
    axis) or geometric (log axis) midpoints between neighbouring values (:func:`cell_edges`);
    ticks at the swept values; the value printed in each cell where it fits
    (:func:`cell_text`). Cells without a finite value (NaN, e.g. runs that blew up) are
    hatched grey with the legend entry ``mark_missing``. With ``logz`` the colour scale is
    logarithmic over the positive values (a cell <= 0 is left white, its value printed).
    ``lines``: power laws drawn over the map (:func:`draw_power_lines`); ``contours``: lines
    of constant ``z`` (:func:`draw_contours`).
    """
    grid = heatmap_grid(summary, x, y, z)
    n_x, n_y = summary[x].size, summary[y].size
    fig = _map_figure(n_x, n_y)
    ax, (x_order, xc, xe, _), (y_order, yc, ye, _) = _map_axes(fig, summary, x, y, logx, logy,
                                                               xlabel, ylabel)
    z_values = grid.values[np.ix_(y_order, x_order)].astype(float)
    missing = ~np.isfinite(z_values)
    shown = z_values[~missing & (z_values > 0)] if logz else z_values[~missing]
    norm = ((LogNorm if logz else Normalize)(shown.min(), shown.max()) if shown.size
            else Normalize(0.0, 1.0))
    cmap = plt.get_cmap("viridis").with_extremes(bad="white")
    mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z_values), norm=norm, cmap=cmap)
    bar = fig.colorbar(mesh, ax=ax)
    bar.set_label(style.wrap(zlabel or quantity_label(summary, z), 38))
    handles = _hatch_missing(ax, missing, xe, ye, mark_missing)
    handles += draw_power_lines(ax, lines, xe, ye, logx) if lines else []
    handles += draw_contours(ax, z_values, xc, yc, contours) if contours else []
    _map_legend(fig, handles)
    style.title(fig, title)
    _print_cells(ax, mesh, z_values, xe, ye, xc, yc)
    return fig


def state_grid(summary: xr.Dataset, x: str, y: str, z: str) -> np.ndarray:
    """Per-run values of ``z`` as an array (n_y, n_x, replicates) in sweep order; any other
    dimension must have length 1 (ValueError otherwise)."""
    for name in (x, y):
        if summary[name].ndim != 1:
            raise ValueError(f"map coordinate '{name}' is not one swept dimension: "
                             f"{summary[name].dims}")
    x_dim, y_dim = summary[x].dims[0], summary[y].dims[0]
    values = summary[z]
    others = [dim for dim in values.dims if dim not in (x_dim, y_dim, "replicate")]
    if x_dim == y_dim or any(values.sizes[dim] > 1 for dim in others):
        raise ValueError(f"'{z}' over '{x}' and '{y}' is not one map: dimensions "
                         f"{dict(values.sizes)}")
    values = values.isel({dim: 0 for dim in others})
    if "replicate" not in values.dims:
        values = values.expand_dims("replicate", axis=-1)
    return values.transpose(y_dim, x_dim, "replicate").values.astype(float)


def modal_states(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Most frequent non-negative integer code along the last axis (ties: the smaller code)
    and the share of the known runs that have it; NaN where no run is known (NaN or a
    negative code)."""
    codes = np.asarray(codes, dtype=float)
    mode = np.full(codes.shape[:-1], np.nan)
    share = np.full(codes.shape[:-1], np.nan)
    for index in np.ndindex(*codes.shape[:-1]):
        known = codes[index][np.isfinite(codes[index]) & (codes[index] >= 0)].astype(int)
        if known.size:
            counts = np.bincount(known)
            mode[index] = int(np.argmax(counts))
            share[index] = counts.max() / known.size
    return mode, share


def state_map_figure(summary: xr.Dataset, x: str, y: str, z: str, states: Sequence[str],
                     logx: bool = False, logy: bool = False,
                     lines: Sequence[dict[str, Any]] = (), xlabel: str | None = None,
                     ylabel: str | None = None, title: str = "") -> plt.Figure:
    """The most frequent state (integer code ``z`` of each run, named by ``states[code]``) of
    every cell over the swept coordinates ``x`` and ``y`` (:func:`modal_states`), one colour
    per state with a legend; where the replicates disagree the modal share is printed in the
    cell; cells without a known state are hatched; ``lines`` drawn over the map."""
    from matplotlib.colors import BoundaryNorm, ListedColormap

    grid = state_grid(summary, x, y, z)
    fig = _map_figure(summary[x].size, summary[y].size)
    ax, (x_order, xc, xe, _), (y_order, yc, ye, _) = _map_axes(fig, summary, x, y, logx, logy,
                                                               xlabel, ylabel)
    mode, share = modal_states(grid[np.ix_(y_order, x_order)])
    count = max(len(states), int(np.nanmax(mode)) + 1 if np.isfinite(mode).any() else 1)
    colours = [plt.get_cmap("tab10")(k % 10) for k in range(count)]
    ax.pcolormesh(xe, ye, np.ma.masked_invalid(mode), cmap=ListedColormap(colours),
                  norm=BoundaryNorm(np.arange(count + 1) - 0.5, count))
    for i, j in np.argwhere(np.isfinite(share) & (share < 1.0)):
        ax.text(xc[j], yc[i], f"{share[i, j]:.2g}", ha="center", va="center", fontsize=6)
    present = sorted({int(code) for code in mode[np.isfinite(mode)]})
    handles = [Patch(facecolor=colours[code], label=states[code] if code < len(states)
                     else str(code)) for code in present]
    handles += _hatch_missing(ax, ~np.isfinite(mode), xe, ye, "no known state")
    handles += draw_power_lines(ax, lines, xe, ye, logx) if lines else []
    _map_legend(fig, handles)
    style.title(fig, title)
    return fig


def _observable_label(model: Model, name: str, width: int) -> str:
    return style.wrap(labels.quantity(model, name).axis(), width)


def _time_label(run: xr.Dataset) -> str:
    units = str(run["time"].attrs.get("units", "1"))
    return "time step" if units in ("1", "") else labels.axis_label("time", "t", units)


def series_figure(runs: Sequence[xr.Dataset], observables: Sequence[str],
                  run_labels: Sequence[str], logy: bool = False, title: str = "",
                  x: str | None = None) -> plt.Figure:
    """Observables of several runs against time, one panel per observable, one line per run;
    axis labels from the model's declarations, aligned, one legend outside the panels.

    With ``x`` (a recorded observable of the same runs), each observable is drawn against
    ``x`` instead of time (a phase-plane path): a thin line per run in the run's colour and
    markers coloured by time (colour bar), so that a path travelled out and back (e.g. a
    parameter stepped up and then down) shows its two branches.
    """
    model = _model(runs[0])
    if x is not None:
        return _phase_figure(runs, observables, run_labels, model, x, logy, title)
    fig, axes = style.new_figure(len(observables), 1, sharex=True,
                                 extra=(1.2 if any(run_labels) else 0.0, 0.0))
    for ax, name in zip(axes[:, 0], observables, strict=True):
        for run, label in zip(runs, run_labels, strict=True):
            ax.plot(run["time"].values, run[name].values, linewidth=1, label=label or None)
        ax.set_ylabel(_observable_label(model, name, 30))
        ax.set_yscale("log" if logy else "linear")
    axes[-1, 0].set_xlabel(_time_label(runs[0]))
    fig.align_ylabels(axes[:, 0])
    if any(run_labels):
        style.legend(fig, axes)
    style.title(fig, title)
    return fig


def _phase_figure(runs: Sequence[xr.Dataset], observables: Sequence[str],
                  run_labels: Sequence[str], model: Model, x: str, logy: bool,
                  title: str) -> plt.Figure:
    """Observables against the observable ``x`` of the same runs, markers coloured by time
    (shared colour scale over all runs), one marker shape and line colour per run."""
    fig, axes = style.new_figure(len(observables), 1, sharex=True, extra=(1.6, 0.0))
    t_max = max(float(np.nanmax(run["time"].values)) for run in runs)
    points = None
    for ax, name in zip(axes[:, 0], observables, strict=True):
        for number, (run, label) in enumerate(zip(runs, run_labels, strict=True)):
            xs, ys = run[x].values, run[name].values
            (line,) = ax.plot(xs, ys, linewidth=0.6, alpha=0.45, label=label or None)
            points = ax.scatter(xs, ys, c=run["time"].values, cmap="viridis", vmin=0.0,
                                vmax=t_max, s=9, marker=MARKERS[number % len(MARKERS)],
                                edgecolors=line.get_color(), linewidths=0.3, zorder=3)
        ax.set_ylabel(_observable_label(model, name, 30))
        ax.set_yscale("log" if logy else "linear")
    axes[-1, 0].set_xlabel(_observable_label(model, x, 50))
    fig.align_ylabels(axes[:, 0])
    bar = fig.colorbar(points, ax=axes[:, 0].tolist(), fraction=0.05, pad=0.02)
    bar.set_label(_time_label(runs[0]))
    if any(run_labels):
        style.legend(fig, axes)
    style.title(fig, title)
    return fig


def animate_run(ds: xr.Dataset, trail: int = 20, stride: int = 1, fps: int = 20,
                title: str = "") -> FuncAnimation:
    """Animation of a run's frames drawn by its model, on limits fixed over the whole run,
    with the model's legend and the time (with its unit) in each frame's title."""
    projection = snapshot_projection(ds)
    room = 1.0 if projection == "3d" else 0.0  # a 3-D box's labels reach past its panel
    fig, axes = style.new_figure(square=True, projection=projection,
                                 extra=((1.3 if _drawing(ds).legend_handles(ds) else 0.0)
                                        + room, 0.3 + room))
    ax = axes[0, 0]
    frames = list(range(0, ds.sizes["frame"], stride))
    _drawing_legend(fig, ds)
    style.title(fig, title)

    def draw(frame: int) -> list:
        ax.clear()
        draw_snapshot(ax, ds, frame, trail=trail)
        return []

    return FuncAnimation(fig, draw, frames=frames, interval=1000 / fps, blit=False)


def _curve_label(values: dict, model: Model | None) -> str:
    return ", ".join(_value_text(name, value, model) for name, value in values.items())


#: Legend words of what limits a single-size fit (flocklab.analysis.critical.LIMITS).
LIMIT_WORDS = {"misfit": "misfit", "halves": "halves disagree", "wide": "wide interval",
               "rounded": "rounding only", "bound": "at a bound", "refits": "failed refits"}


def critical_loglog_figure(summary: xr.Dataset, critical: xr.Dataset, title: str = ""
                           ) -> plt.Figure:
    """ln P against ln s (reduced distance) with the fitted power law, as Vicsek et al.
    (1995) Fig. 3: the *effective* exponent of each size (the fitted x_c is a shape
    parameter of that size's curve); filled markers entered the fit, open ones did not.
    Control, side, exponent and observable are read from ``critical``'s attributes."""
    attrs = critical.attrs
    control, coordinate, exponent = attrs["control"], attrs["coordinate"], attrs["exponent"]
    side, observable = attrs["side"], attrs["observable"]
    symbol, p_symbol = attrs["symbol"], attrs["observable_symbol"]
    critical_name = f"{control}_c"
    control_dim = summary[coordinate].dims[0]
    label_dims = list(critical[critical_name].dims)
    model = _model(summary)
    fig, axes = style.new_figure(extra=(1.9, 0.0))
    ax = axes[0, 0]
    if "refused" in attrs:
        return _no_data(fig, ax, f"no curve could be fitted: {attrs['refused']}", title)
    combos = [{}] if not label_dims else [
        dict(zip(label_dims, values, strict=True)) for values in
        np.array(np.meshgrid(*[critical[d].values for d in label_dims],
                             indexing="ij")).reshape(len(label_dims), -1).T.tolist()]
    greek = {"beta": r"\beta", "delta": r"\delta", "nu": r"\nu", "gamma": r"\gamma"}
    exponent_symbol = f"${greek.get(exponent, exponent)}_{{\\mathrm{{eff}}}}$"
    for number, selection in enumerate(combos):
        fit = critical.sel(selection) if selection else critical
        curve = summary.sel(selection) if selection else summary
        x = curve[coordinate].values.astype(float)
        v = curve[f"replicate_{observable}"].values
        err = curve[f"replicate_{observable}_err"].values
        value = float(fit[critical_name])
        if not np.isfinite(value):  # that curve could not be fitted (see critical.json)
            continue
        s = (value - x) / value if side == "below" else (x - value) / value
        used = fit["used"].values.astype(bool) if control_dim in fit["used"].dims else None
        keep = s > 0
        color = f"C{number % 10}"
        ax.errorbar(np.log(s[keep & used]), np.log(v[keep & used]),
                    yerr=(err / v)[keep & used], fmt="o", color=color, markersize=3.5,
                    capsize=2)
        ax.plot(np.log(s[keep & ~used]), np.log(v[keep & ~used]), "o", mfc="none", color=color,
                markersize=3.5)
        if "short" in fit:   # points short of 50 tau_int: crossed
            short = fit["short"].values.astype(bool) & keep
            ax.plot(np.log(s[short]), np.log(v[short]), "x", color=color, markersize=5)
        grid = np.linspace(np.log(s[keep & used]).min(), np.log(s[keep & used]).max(), 40)
        text = _fit_legend_text(fit, exponent, exponent_symbol)
        ax.plot(grid, np.log(_fitted_curve(fit, value, exponent, side, np.exp(grid))), "-",
                color=color,
                label=f"{_curve_label(selection, model)}: {text}" if selection else text)
    reduced = (rf"({symbol}_c - {symbol})/{symbol}_c" if side == "below"
               else rf"({symbol} - {symbol}_c)/{symbol}_c")
    ax.set_xlabel(rf"reduced distance $\ln[{reduced}]$")
    ax.set_ylabel(rf"$\ln {p_symbol}$")
    style.legend(fig, ax, title="effective exponents, 68 % intervals")
    style.title(fig, title)
    return fig


def _fit_legend_text(fit: xr.Dataset, exponent: str, exponent_symbol: str) -> str:
    """``β_eff = 0.49 [0.27, 0.70], halves 0.36/0.46; limits: misfit``: the effective
    exponent with its interval, the two halves' estimates and what limits the fit."""
    slope = float(fit[exponent])
    low, high = float(fit[f"{exponent}_ci_low"]), float(fit[f"{exponent}_ci_high"])
    text = f"{exponent_symbol} = {slope:.2f} [{low:.2f}, {high:.2f}]"
    if f"{exponent}_half1" in fit and np.isfinite(float(fit[f"{exponent}_half1"])):
        text += (f", halves {float(fit[f'{exponent}_half1']):.2f}/"
                 f"{float(fit[f'{exponent}_half2']):.2f}")
    limits = [LIMIT_WORDS[tag] for tag in LIMIT_WORDS if float(fit.get(f"limit_{tag}", 0))]
    if limits:
        text += f"; limits: {', '.join(limits)}"
    return text


def _fitted_curve(fit: xr.Dataset, critical: float, exponent: str, side: str,
                  s: np.ndarray) -> np.ndarray:
    """The fitted curve at reduced distances ``s``: the rounded power law where the fit
    has a rounding width, else the pure power law A s^e."""
    amplitude, slope = float(fit["amplitude"]), float(fit[exponent])
    if "rounding_width" not in fit:
        return amplitude * s**slope
    from flocklab.analysis.rounded import rounded_power_law

    x = critical * (1 - s) if side == "below" else critical * (1 + s)
    return rounded_power_law(x, amplitude, critical, slope, float(fit["rounding_width"]),
                             float(fit["floor"]), side)


def _no_data(fig: plt.Figure, ax: plt.Axes, text: str, title: str) -> plt.Figure:
    ax.text(0.5, 0.5, style.wrap(text, 40), ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    style.title(fig, title)
    return fig


# --------------------------------------------------------------------------- sensitivity


def output_label(model_name: str, output: str) -> str:
    """Label of a per-run output from the model's declarations (e.g. ``time average of
    polar order parameter <v_a>``)."""
    from flocklab.core.registry import get_model

    return labels.quantity(get_model(model_name), output).axis()


VERDICT_MARKS = {"holds": "holds", "fails": "FAILS", "inconclusive": "inconclusive",
                 "untestable": "untestable"}


def log_spaced(levels: np.ndarray) -> bool:
    """True for positive levels drawn best on a log axis: spanning two decades, or one
    decade with steps more even in ratio than in difference (coefficient of variation of
    the steps of ln v below that of the steps of v), as 0.005, 0.01, 0.1 are."""
    levels = np.sort(np.asarray(levels, float))
    if levels.size < 2 or not np.all(levels > 0) or levels[-1] < 10 * levels[0]:
        return False
    if levels[-1] >= 100 * levels[0] or levels.size == 2:
        return True

    def unevenness(steps: np.ndarray) -> float:
        return float(np.std(steps) / np.mean(steps))

    return unevenness(np.diff(np.log(levels))) < unevenness(np.diff(levels))


def _verdict_lines(sensitivity: xr.Dataset) -> list[str]:
    """``[verdict] claim — evidence`` per claim, the outputs and factors named by their
    symbols."""
    if "claim" not in sensitivity.dims:
        return []
    model = _model(sensitivity)
    names = [*sensitivity["output"].values.astype(str),
             *sensitivity["parameter"].values.astype(str)]
    lines = []
    for text, verdict, evidence in zip(sensitivity["claim_text"].values.astype(str),
                                       sensitivity["claim_verdict"].values.astype(str),
                                       sensitivity["claim_evidence"].values.astype(str),
                                       strict=True):
        for name in sorted(names, key=len, reverse=True):
            short = labels.quantity(model, name).short() if model else name
            evidence = re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])",
                              lambda _, text=short: text, evidence)
        lines.append(f"[{VERDICT_MARKS.get(verdict, verdict)}] {text} — {evidence}")
    return lines


def _exponent_claims(sensitivity: xr.Dataset) -> dict[tuple[str, str], dict[str, float]]:
    """The bounds of each exponent claim by (output, factor)."""
    settings = json.loads(sensitivity.attrs.get("settings", "{}"))
    return {(claim["output"], claim["parameter"]): claim["exponent"]
            for claim in settings.get("claims", []) if "exponent" in claim}


def oat_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """One-at-a-time curves: each output (rows) against each factor (columns), replicate
    means with standard-error bars over the single runs; the claims and their verdicts in a
    band under the panels. A factor whose levels are positive and span two decades or more
    gets a logarithmic axis; a panel with an exponent claim is log-log, with the fitted power
    law (solid) and the claimed exponent (dashed: the middle of its bounds, or its bound)."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    model_name = str(sensitivity.attrs["model"])
    exponents = _exponent_claims(sensitivity)
    fig, axes = style.new_figure(len(outputs), len(factors), notes=_verdict_lines(sensitivity))
    for i, output in enumerate(outputs):
        for j, factor in enumerate(factors):
            _oat_panel(axes[i, j], sensitivity, output, factor,
                       zero_based=(output, factor) not in exponents)
            if (output, factor) in exponents:
                _power_law_lines(axes[i, j], sensitivity, output, factor,
                                 exponents[(output, factor)])
            if i == len(outputs) - 1:
                axes[i, j].set_xlabel(style.wrap(coordinate_label(sensitivity, factor), 30))
            if j == 0:
                axes[i, j].set_ylabel(style.wrap(output_label(model_name, output), 28))
    for j in range(len(factors)):
        fig.align_xlabels(axes[:, j])
    fig.align_ylabels(axes[:, 0])
    style.title(fig, title)
    return fig


def _censored_output(sensitivity: xr.Dataset, output: str) -> bool:
    """Whether ``output`` is a censored time with event indicators in the file."""
    return ("response_event" in sensitivity
            and bool(np.isfinite(sensitivity["response_event"].sel(output=output).values).any()))


def _oat_panel(ax: plt.Axes, sensitivity: xr.Dataset, output: str, factor: str,
               zero_based: bool = True) -> None:
    levels = sensitivity["level_value"].sel(parameter=factor).values
    keep = np.isfinite(levels)
    if _censored_output(sensitivity, output):
        _oat_censored_panel(ax, sensitivity, output, factor)
        if log_spaced(levels[keep]):
            ax.set_xscale("log")
        return
    mean = sensitivity["response_mean"].sel(output=output, parameter=factor).values
    sem = sensitivity["response_sem"].sel(output=output, parameter=factor).values
    runs = sensitivity["response"].sel(output=output, parameter=factor).values
    for k in np.flatnonzero(keep):
        ax.plot(np.full(runs.shape[-1], levels[k]), runs[k], ".", color="0.7", markersize=3,
                zorder=1)
    ax.errorbar(levels[keep], mean[keep], yerr=np.nan_to_num(sem[keep]), marker="o",
                markersize=3.5, capsize=2, linewidth=1, zorder=2)
    if zero_based:  # not on the log-log panel of an exponent claim
        anchor_at_zero(ax)
    if log_spaced(levels[keep]):
        ax.set_xscale("log")


def _oat_censored_panel(ax: plt.Axes, sensitivity: xr.Dataset, output: str,
                        factor: str) -> None:
    """A censored time against a factor: runs with the event as grey dots, censored runs as
    open upward triangles at their censoring time (the time lies beyond), and the
    Kaplan-Meier median with its Brookmeyer-Crowley interval per level (a caret at the top
    where the upper limit is not reached; an open marker at the largest censoring time where
    the median is not reached); nothing is averaged."""
    where = {"output": output, "parameter": factor}
    levels = sensitivity["level_value"].sel(parameter=factor).values
    runs = sensitivity["response"].sel(**where).values
    events = sensitivity["response_event"].sel(**where).values
    median, low, high = (sensitivity[f"response_{key}"].sel(**where).values
                         for key in ("median", "median_low", "median_high"))
    for k in np.flatnonzero(np.isfinite(levels)):
        x = np.full(runs.shape[-1], levels[k])
        ax.plot(x[events[k] == 1], runs[k][events[k] == 1], ".", color="0.6", markersize=3,
                zorder=1)
        ax.plot(x[events[k] == 0], runs[k][events[k] == 0], "^", markerfacecolor="none",
                color="0.45", markersize=4.5, zorder=1)
        top = float(np.nanmax(runs[k])) if np.isfinite(runs[k]).any() else np.nan
        if np.isfinite(median[k]):
            upper = (high[k] if np.isfinite(high[k]) else top) - median[k]
            ax.errorbar(levels[k], median[k], yerr=[[median[k] - low[k]], [upper]],
                        marker="o", markersize=3.5, capsize=2, color="C0", zorder=2)
            if not np.isfinite(high[k]):      # the upper limit lies beyond the runs
                ax.plot(levels[k], top, marker=6, color="C0", markersize=6, zorder=2)
        elif np.isfinite(top):
            ax.plot(levels[k], top, "o", markerfacecolor="none", color="C0", markersize=5,
                    zorder=2)
    ax.plot([], [], "^", markerfacecolor="none", color="0.45", label="censored run (beyond)")
    ax.plot([], [], "o", color="C0", label="Kaplan-Meier median, 95 % interval")
    ax.plot([], [], "o", markerfacecolor="none", color="C0", label="median not reached")
    ax.legend(fontsize=6, loc="best")


def survival_figure(sensitivity: xr.Dataset, output: str, parameter: str | None = None,
                    title: str = "") -> plt.Figure:
    """Kaplan-Meier curves of a censored time, one per level of a factor of an oat study:
    the share of runs without the event against time (steps), shaded pointwise 95 %
    log-log bands, ticks at the censoring times; the log-rank trend test over the levels
    (weights: the level values) and its permutation p head the legend
    (:mod:`flocklab.analysis.survival`)."""
    from flocklab.analysis.survival import kaplan_meier, logrank_trend
    from flocklab.analysis.verdicts import format_p

    factors = sensitivity["parameter"].values.astype(str).tolist()
    parameter = parameter or factors[0]
    fig, axes = style.new_figure(1, 1)
    ax = axes.flat[0]
    if not _censored_output(sensitivity, output):
        return _no_data(fig, ax, f"{output} is not a censored time of this study", title)
    where = {"output": output, "parameter": parameter}
    levels = sensitivity["level_value"].sel(parameter=parameter).values
    runs = sensitivity["response"].sel(**where).values
    events = sensitivity["response_event"].sel(**where).values
    model = _model(sensitivity)
    symbol = labels.quantity(model, parameter).short() if model else parameter
    pooled: list[tuple[float, float, float]] = []
    for k in np.flatnonzero(np.isfinite(levels)):
        keep = np.isfinite(runs[k]) & np.isfinite(events[k])
        if not keep.any():
            continue
        km = kaplan_meier(runs[k][keep], events[k][keep])
        pooled += [(levels[k], t, e) for t, e in zip(runs[k][keep], events[k][keep],
                                                      strict=True)]
        _km_curve(ax, km, float(runs[k][keep].max()), f"C{k % 10}",
                  f"{symbol} = {levels[k]:g} ({int(np.sum(events[k][keep] == 0))} of "
                  f"{int(keep.sum())} censored)")
    x, t, e = (np.array(column) for column in zip(*pooled, strict=True))
    test = logrank_trend(t, e, x) if e.any() and np.unique(x).size > 1 else None
    heading = ("log-rank trend test: " + format_p(test.p) if test is not None and
               np.isfinite(test.p) else "no log-rank test possible")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(left=0)
    ax.set_xlabel(style.wrap(output_label(str(sensitivity.attrs["model"]), output), 40))
    ax.set_ylabel("share of runs without the event yet")
    style.legend(fig, ax, title=heading)
    style.title(fig, title)
    return fig


def _km_curve(ax: plt.Axes, km: Any, end: float, colour: str, label: str) -> None:
    """One Kaplan-Meier step curve to ``end`` with its band and censoring ticks."""

    def steps(values: np.ndarray) -> np.ndarray:
        """1 at time 0, the values at the event times (NaN: 0), the last held to ``end``."""
        values = np.nan_to_num(values, nan=0.0)
        return np.r_[1.0, values, values[-1] if values.size else 1.0]

    x = np.r_[0.0, km.time, max(end, km.time[-1] if km.time.size else 0.0)]
    ax.step(x, steps(km.survival), where="post", color=colour, linewidth=1.2, label=label)
    ax.fill_between(x, steps(km.low), steps(km.high), step="post", color=colour, alpha=0.15,
                    linewidth=0)
    ax.plot(km.censored, km.at(km.censored), "|", color=colour, markersize=7,
            markeredgewidth=1.2)


def _power_law_lines(ax: plt.Axes, sensitivity: xr.Dataset, output: str, factor: str,
                     bounds: dict[str, float]) -> None:
    """Log-log axes, the power law fitted to every run and the claimed exponent through the
    geometric mean of the replicate means."""
    from flocklab.analysis.verdicts import power_law_fit

    levels = sensitivity["level_value"].sel(parameter=factor).values
    keep = np.isfinite(levels) & (levels > 0)
    runs = sensitivity["response"].sel(output=output, parameter=factor).values[keep]
    x = levels[keep]
    a, b, _, _, _ = power_law_fit(np.repeat(x, runs.shape[-1]), runs.ravel())
    from matplotlib.ticker import FormatStrFormatter, LogLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))
        axis.set_minor_locator(NullLocator())
    if not np.isfinite(b):
        return
    grid = np.geomspace(x.min(), x.max(), 50)
    ax.plot(grid, np.exp(a) * grid ** b, "-", color="C1", linewidth=1,
            label=f"fit: exponent {b:.2f}")
    claimed = [bounds[key] for key in ("above", "below") if key in bounds]
    slope = float(np.mean(claimed))
    means = sensitivity["response_mean"].sel(output=output, parameter=factor).values[keep]
    ok = np.isfinite(means) & (means > 0)
    if ok.any():
        log_x0, log_y0 = np.mean(np.log(x[ok])), np.mean(np.log(means[ok]))
        ax.plot(grid, np.exp(log_y0 + slope * (np.log(grid) - log_x0)), "--", color="k",
                linewidth=0.8, label=f"exponent {slope:g} ("
                + ("the claim's bound)" if len(claimed) == 1 else "middle of the claim)"))
    ax.legend(fontsize="small", frameon=False)


def _output_panels(sensitivity: xr.Dataset, extra: float = 1.4
                   ) -> tuple[plt.Figure, np.ndarray, list[str], list[str]]:
    """One panel per output, at most three to a row (unused cells hidden)."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    columns = min(len(outputs), 3)
    rows = -(-len(outputs) // columns)
    fig, grid = style.new_figure(rows, columns, extra=(extra, 0.0))
    for ax in grid.flat[len(outputs):]:
        ax.set_visible(False)
    axes = grid.flat[:len(outputs)]
    model_name = str(sensitivity.attrs["model"])
    for ax, output in zip(axes, outputs, strict=True):
        style.panel_title(ax, output_label(model_name, output))
    return fig, np.asarray(axes), outputs, factors


def morris_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """Morris screening: sigma against mu* per output, with mu*'s confidence interval; the
    dashed line sigma = mu* separates mostly linear effects (below) from non-linear or
    interacting ones (above)."""
    fig, axes, outputs, factors = _output_panels(sensitivity)
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        mu_star, sigma, conf = (ds[n].values for n in ("mu_star", "sigma", "mu_star_conf"))
        for k, factor in enumerate(factors):
            ax.errorbar(mu_star[k], sigma[k], xerr=conf[k], marker="o", markersize=4,
                        capsize=2, linestyle="none", color=f"C{k}",
                        label=coordinate_label(sensitivity, factor))
        top = np.nanmax(np.r_[mu_star + conf, sigma, 1e-12]) * 1.1
        ax.plot([0, top], [0, top], "--", color="0.6", linewidth=0.8)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_xlabel(r"mean absolute effect $\mu^*$")
        ax.set_ylabel(r"spread of effects $\sigma$")
    style.legend(fig, axes)
    style.title(fig, title)
    return fig


def sobol_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """First-order (S1) and total (ST) Sobol' indices per factor and output, with the
    bootstrap confidence intervals as error bars."""
    confidence = json.loads(sensitivity.attrs["settings"])["confidence"]
    fig, axes, outputs, factors = _output_panels(sensitivity, extra=1.0)
    positions = np.arange(len(factors))
    model = _model(sensitivity)
    names = [labels.quantity(model, f).short() if model else f for f in factors]
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        for shift, index, colour in ((-0.18, "S1", "C0"), (0.18, "ST", "C1")):
            ax.bar(positions + shift, ds[index].values, width=0.36, yerr=ds[f"{index}_conf"],
                   capsize=2, color=colour, label=f"$S_{{{index[1:]}}}$")
        ax.axhline(0, color="0.3", linewidth=0.6)
        ax.set_xticks(positions, [style.wrap(name, 11) for name in names], fontsize=7)
        ax.set_ylim(min(-0.05, float(np.nanmin(ds["S1"] - ds["S1_conf"]))), 1.05)
    columns = min(len(outputs), 3)
    for ax in axes[::columns]:
        ax.set_ylabel(f"Sobol' index ({confidence:.0%} interval)")
    style.legend(fig, axes)
    style.title(fig, title)
    return fig


#: Axis symbols of the sensitivity indices drawn against the sample size.
INDEX_SYMBOLS = {"S1": "$S_1$", "ST": "$S_T$", "mu_star": r"$\mu^*$"}


def convergence_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """Indices against the number of base samples (Sobol: S1 solid, ST dashed) or
    trajectories (Morris: mu*), with confidence bands."""
    from flocklab.analysis.sensitivity import METHODS

    method = METHODS[sensitivity.attrs["method"]]
    indices = list(zip(method.headline, ("-", "--"), strict=False))
    fig, axes, outputs, factors = _output_panels(sensitivity)
    sizes = sensitivity["sample_size"].values
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        for k, factor in enumerate(factors):
            for index, line in indices:
                values = ds[f"{index}_convergence"].isel(parameter=k).values
                conf = ds[f"{index}_conf_convergence"].isel(parameter=k).values
                ax.plot(sizes, values, line, marker="o", markersize=3, color=f"C{k}",
                        label=coordinate_label(sensitivity, factor) if line == "-" else None)
                ax.fill_between(sizes, values - conf, values + conf, color=f"C{k}", alpha=0.12,
                                linewidth=0)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(method.sample_name)
    symbols = [INDEX_SYMBOLS[index] for index, _ in indices]
    axes[0].set_ylabel(symbols[0] if len(symbols) == 1 else ", ".join(
        f"{symbol} ({style_name})" for symbol, style_name in zip(symbols, ("solid", "dashed"),
                                                                 strict=False)))
    style.legend(fig, axes)
    style.title(fig, title)
    return fig
