"""Figures: pure functions from datasets to matplotlib figures (no file I/O).

* :func:`draw_snapshot` — particles as arrows with trails (Vicsek et al. 1995, Fig. 1);
* :func:`curve_figure` — a replicate-averaged summary quantity against a coordinate,
  one line per value of another dimension, with error bars (Fig. 2);
* :func:`heatmap_figure` — a replicate-averaged summary quantity as a colour map over the two
  swept dimensions of a grid study, the value printed in each cell;
* :func:`animate_run` — an animation of a run's snapshots with trails.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.animation import FuncAnimation
from matplotlib.colors import LogNorm, Normalize
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import NullLocator

from flocklab.figures.drawing import Drawing, drawing_of

if TYPE_CHECKING:
    from flocklab.core.model import Model, Observable


def coordinate_label(summary: xr.Dataset, name: str) -> str:
    """Axis label of a summary coordinate from its model's declarations (parameter symbol
    and unit, or a derived quantity's long name), else the name."""
    from flocklab.core.registry import get_model

    model = get_model(str(summary.attrs["model"])) if "model" in summary.attrs else None
    if model is not None:
        try:
            return model.spec(name).label()
        except KeyError:
            pass
    attrs = summary[name].attrs if name in summary.variables else {}
    if "symbol" in attrs:
        return f"{attrs.get('long_name', name)} ${attrs['symbol']}$"
    return str(attrs.get("long_name", name))


def quantity_label(summary: xr.Dataset, name: str) -> str:
    """Axis label of a summary quantity: the primary observable's declared label, chi, G,
    or the variable's long name."""
    from flocklab.core.registry import get_model

    if "model" in summary.attrs:
        model = get_model(str(summary.attrs["model"]))
        if name in [obs.name for obs in model.observables]:
            return model.observable(name).label()
    fixed = {"susceptibility": r"susceptibility $\chi$", "binder_cumulant": r"Binder cumulant $G$"}
    if name in fixed:
        return fixed[name]
    variable = summary.get(name)
    return str(variable.attrs.get("long_name", name)) if variable is not None else name


def draw_snapshot(ax: plt.Axes, ds: xr.Dataset, frame: int, trail: int = 20,
                  label: str = "") -> None:
    """Draw frame ``frame`` of a run with its model's drawing
    (:mod:`flocklab.figures.drawing`)."""
    _drawing(ds).draw(ax, ds, frame, trail=trail, label=label)


def snapshot_projection(ds: xr.Dataset) -> str | None:
    """The axes projection the run's model's drawing asks for (``None``: ordinary 2-D
    axes)."""
    return _drawing(ds).projection(ds)


def _drawing(ds: xr.Dataset) -> Drawing:
    from flocklab.core.registry import get_model

    return drawing_of(get_model(str(ds.attrs["model"])))


def snapshot_figure(runs: Sequence[xr.Dataset], frames: Sequence[str], labels: Sequence[str],
                    trail: int = 20, columns: int = 2, title: str = "") -> plt.Figure:
    """Panels of particle configurations (one per run), as Fig. 1 of Vicsek et al. (1995)."""
    rows = -(-len(runs) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.3 * rows), squeeze=False)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for index, (ax, ds, which, label) in enumerate(
            zip(axes.flat, runs, frames, labels, strict=False)):
        projection = snapshot_projection(ds)
        if projection is not None:
            ax.remove()
            ax = fig.add_subplot(rows, columns, index + 1, projection=projection)
        frame = 0 if which == "first" else ds.sizes["frame"] - 1
        draw_snapshot(ax, ds, frame, trail=trail if which == "last" else 0, label=label)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def curve_figure(summary: xr.Dataset, x: str, y: str, hue: str | None = None,
                 xlabel: str | None = None, ylabel: str | None = None, logx: bool = False,
                 logy: bool = False, title: str = "") -> plt.Figure:
    """Replicate-averaged ``y`` against coordinate ``x`` with error bars, one line per ``hue``
    (log axes on request)."""
    values = summary[f"replicate_{y}"]
    errors = summary[f"replicate_{y}_err"]
    fig, ax = plt.subplots(figsize=(4.8, 3.6))
    groups: list[tuple[str, Any]] = [("", {})]
    if hue is not None:
        groups = [(f"{hue} = {value:g}" if isinstance(value, int | float) else f"{hue} = {value}",
                   {hue: i}) for i, value in enumerate(summary[hue].values.tolist())]
    markers = "osD^v<>ph*"
    for number, (label, selection) in enumerate(groups):
        line = values.isel(selection)
        line_err = errors.isel(selection)
        xs = line[x].values if x in line.coords else summary[x].values
        if line.ndim != 1 or np.ndim(xs) != 1:
            raise ValueError(f"'{y}' against '{x}' is not one curve per '{hue}': "
                             f"remaining dimensions {line.dims}")
        order = np.argsort(xs)
        ax.errorbar(xs[order], line.values[order], yerr=line_err.values[order],
                    marker=markers[number % len(markers)], markersize=4, capsize=2,
                    linewidth=1, label=label or None)
    ax.set_xlabel(xlabel or coordinate_label(summary, x))
    ax.set_ylabel(wrap_label(ylabel or quantity_label(summary, y), 45))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if hue is not None:
        ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(wrap_label(title, 60), fontsize=10)
    fig.tight_layout()
    return fig


def with_units(label: str, units: str) -> str:
    """``label [units]``, or ``label`` alone for a dimensionless quantity (units "1" or "")."""
    return label if units in ("1", "") else f"{label} [{units}]"


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


def _print_cells(ax: plt.Axes, mesh: Any, z: np.ndarray, xc: np.ndarray, yc: np.ndarray
                 ) -> None:
    """Each finite value of ``z[i, j]`` (format .2g) at its cell centre (xc[j], yc[i]), in
    black on light cells and white on dark ones."""
    colours = mesh.to_rgba(np.ma.masked_invalid(z))
    for i, j in np.argwhere(np.isfinite(z)):
        red, green, blue, alpha = colours[i, j]
        light = alpha == 0 or 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
        ax.text(xc[j], yc[i], f"{z[i, j]:.2g}", ha="center", va="center", fontsize=6,
                color="black" if light else "white")


def _hatch_missing(fig: plt.Figure, ax: plt.Axes, missing: np.ndarray, xe: np.ndarray,
                   ye: np.ndarray, label: str) -> None:
    """Hatched grey cells where ``missing[i, j]``, and a legend entry ``label`` for them."""
    style = {"facecolor": "0.85", "edgecolor": "0.45", "hatch": "///", "linewidth": 0.0}
    for i, j in np.argwhere(missing):
        ax.add_patch(Rectangle((xe[j], ye[i]), xe[j + 1] - xe[j], ye[i + 1] - ye[i], **style))
    if missing.any():
        fig.legend(handles=[Patch(label=label, **style)], loc="outside lower center",
                   fontsize=7, frameon=False)


def heatmap_figure(summary: xr.Dataset, x: str, y: str, z: str, logx: bool = False,
                   logy: bool = False, logz: bool = False, mark_missing: str = "no value",
                   xlabel: str | None = None, ylabel: str | None = None,
                   zlabel: str | None = None, title: str = "") -> plt.Figure:
    """Replicate-averaged ``z`` as a colour map over the swept coordinates ``x`` (horizontal)
    and ``y`` (vertical).

    One cell per point, centred on its swept values, with edges at the arithmetic (linear
    axis) or geometric (log axis) midpoints between neighbouring values (:func:`cell_edges`);
    ticks at the swept values; the value printed in each cell (.2g). Cells without a finite
    value (NaN, e.g. runs that blew up) are hatched grey with the legend entry
    ``mark_missing``. With ``logz`` the colour scale is logarithmic over the positive values
    (a cell <= 0 is left white, its value printed). Colour-bar label: the quantity's label and
    units unless ``zlabel`` is given.
    """
    grid = heatmap_grid(summary, x, y, z)
    x_order, xc, xe, x_ticks = _heatmap_axis(summary[x].values, logx)
    y_order, yc, ye, y_ticks = _heatmap_axis(summary[y].values, logy)
    z_values = grid.values[np.ix_(y_order, x_order)].astype(float)
    missing = ~np.isfinite(z_values)
    shown = z_values[~missing & (z_values > 0)] if logz else z_values[~missing]
    norm = ((LogNorm if logz else Normalize)(shown.min(), shown.max()) if shown.size
            else Normalize(0.0, 1.0))
    fig, ax = plt.subplots(figsize=(float(np.clip(2.4 + 0.6 * xc.size, 4.8, 10.0)),
                                    float(np.clip(1.8 + 0.4 * yc.size, 3.4, 8.0))),
                           layout="constrained")
    cmap = plt.get_cmap("viridis").with_extremes(bad="white")
    mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z_values), norm=norm, cmap=cmap)
    _print_cells(ax, mesh, z_values, xc, yc)
    _hatch_missing(fig, ax, missing, xe, ye, mark_missing)
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    for axis, centres, ticks in ((ax.xaxis, xc, x_ticks), (ax.yaxis, yc, y_ticks)):
        axis.set_ticks(centres, ticks)
        axis.set_minor_locator(NullLocator())
    ax.set_xlabel(xlabel or coordinate_label(summary, x))
    ax.set_ylabel(ylabel or coordinate_label(summary, y))
    units_of = summary[z] if z in summary.variables else summary[f"replicate_{z}"]
    bar = fig.colorbar(mesh, ax=ax)
    bar.set_label(zlabel or wrap_label(with_units(
        quantity_label(summary, z), str(units_of.attrs.get("units", ""))), 40), fontsize=9)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def wrap_label(label: str, width: int) -> str:
    """``label`` wrapped to lines of about ``width`` characters, never inside ``$...$`` math."""
    parts = label.split("$")
    protected = "$".join(part.replace(" ", "\0") if number % 2 else part
                         for number, part in enumerate(parts))
    return textwrap.fill(protected, width, break_long_words=False,
                         break_on_hyphens=False).replace("\0", " ")


def _observable_axis_label(observable: Observable) -> str:
    """Axis label of a declared observable: its label, and its units unless dimensionless."""
    return with_units(observable.label(), observable.units)


def series_figure(runs: Sequence[xr.Dataset], observables: Sequence[str],
                  labels: Sequence[str], logy: bool = False, title: str = "",
                  x: str | None = None) -> plt.Figure:
    """Observables of several runs against time, one panel per observable, one line per run;
    axis labels from the model's declarations.

    With ``x`` (a recorded observable of the same runs), each observable is drawn against
    ``x`` instead of time (a phase-plane path): a thin line per run in the run's colour and
    markers coloured by time (colour bar), so that a path travelled out and back (e.g. a
    parameter stepped up and then down) shows its two branches.
    """
    from flocklab.core.registry import get_model

    model = get_model(str(runs[0].attrs["model"]))
    if x is not None:
        return _phase_figure(runs, observables, labels, model, x, logy, title)
    fig, axes = plt.subplots(len(observables), 1, figsize=(5.2, 2.4 * len(observables) + 0.6),
                             sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], observables, strict=True):
        for run, label in zip(runs, labels, strict=True):
            ax.plot(run["time"].values, run[name].values, linewidth=1, label=label or None)
        ax.set_ylabel(_observable_axis_label(model.observable(name)), fontsize=9)
        if logy:
            ax.set_yscale("log")
    axes[-1, 0].set_xlabel(f"time [{runs[0]['time'].attrs.get('units', '')}]")
    if any(labels):
        axes[0, 0].legend(fontsize=7, frameon=False)
    if title:
        axes[0, 0].set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def _phase_figure(runs: Sequence[xr.Dataset], observables: Sequence[str],
                  labels: Sequence[str], model: Model, x: str, logy: bool,
                  title: str) -> plt.Figure:
    """Observables against the observable ``x`` of the same runs, markers coloured by time
    (shared colour scale over all runs), one marker shape and line colour per run."""
    fig, axes = plt.subplots(len(observables), 1, figsize=(5.6, 2.4 * len(observables) + 0.6),
                             sharex=True, squeeze=False, layout="constrained")
    t_max = max(float(np.nanmax(run["time"].values)) for run in runs)
    markers = "osD^v<>ph*"
    points = None
    for ax, name in zip(axes[:, 0], observables, strict=True):
        for number, (run, label) in enumerate(zip(runs, labels, strict=True)):
            xs, ys = run[x].values, run[name].values
            (line,) = ax.plot(xs, ys, linewidth=0.6, alpha=0.45, label=label or None)
            points = ax.scatter(xs, ys, c=run["time"].values, cmap="viridis", vmin=0.0,
                                vmax=t_max, s=9, marker=markers[number % len(markers)],
                                edgecolors=line.get_color(), linewidths=0.3, zorder=3)
        ax.set_ylabel(wrap_label(_observable_axis_label(model.observable(name)), 34),
                      fontsize=9)
        if logy:
            ax.set_yscale("log")
    axes[-1, 0].set_xlabel(_observable_axis_label(model.observable(x)))
    bar = fig.colorbar(points, ax=axes[:, 0].tolist(), fraction=0.05, pad=0.02)
    bar.set_label(f"time [{runs[0]['time'].attrs.get('units', '')}]", fontsize=9)
    if any(labels):
        axes[0, 0].legend(fontsize=7, frameon=False)
    if title:
        axes[0, 0].set_title(title, fontsize=10)
    return fig


def animate_run(ds: xr.Dataset, trail: int = 20, stride: int = 1, fps: int = 20,
                title: str = "") -> FuncAnimation:
    """Animation of a run's snapshot frames (arrows and trails)."""
    projection = snapshot_projection(ds)
    fig, ax = plt.subplots(figsize=(4.2, 4.4), subplot_kw=None if projection is None
                           else {"projection": projection})
    frames = list(range(0, ds.sizes["frame"], stride))

    def draw(frame: int) -> list:
        ax.clear()
        draw_snapshot(ax, ds, frame, trail=trail)
        if title:
            ax.set_title(f"{title}\nt = {ds['frame'].values[frame]:g}", fontsize=9)
        return []

    return FuncAnimation(fig, draw, frames=frames, interval=1000 / fps, blit=False)


def _finish(fig: plt.Figure, ax: plt.Axes, title: str) -> plt.Figure:
    ax.legend(fontsize=7, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def _curve_label(labels: dict) -> str:
    return ", ".join(f"{name} = {value:g}" if isinstance(value, int | float) else
                     f"{name} = {value}" for name, value in labels.items())


def critical_loglog_figure(summary: xr.Dataset, critical: xr.Dataset, title: str = ""
                           ) -> plt.Figure:
    """ln P against ln s (reduced distance) with the fitted power law, as Vicsek et al.
    (1995) Fig. 3; filled markers entered the fit, open ones did not. Control, side,
    exponent and observable are read from ``critical``'s attributes."""
    attrs = critical.attrs
    control, coordinate, exponent = attrs["control"], attrs["coordinate"], attrs["exponent"]
    side, observable = attrs["side"], attrs["observable"]
    symbol, p_symbol = attrs["symbol"], attrs["observable_symbol"]
    critical_name = f"{control}_c"
    control_dim = summary[coordinate].dims[0]
    label_dims = list(critical[critical_name].dims)
    fig, ax = plt.subplots(figsize=(4.8, 3.8))
    combos = [{}] if not label_dims else [
        dict(zip(label_dims, values, strict=True)) for values in
        np.array(np.meshgrid(*[critical[d].values for d in label_dims],
                             indexing="ij")).reshape(len(label_dims), -1).T.tolist()]
    for number, labels in enumerate(combos):
        fit = critical.sel(labels) if labels else critical
        curve = summary.sel(labels) if labels else summary
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
                    yerr=(err / v)[keep & used], fmt="o", color=color, markersize=4, capsize=2)
        ax.plot(np.log(s[keep & ~used]), np.log(v[keep & ~used]), "o", mfc="none", color=color,
                markersize=4)
        if "short" in fit:   # points short of 50 tau_int: crossed
            short = fit["short"].values.astype(bool) & keep
            ax.plot(np.log(s[short]), np.log(v[short]), "x", color=color, markersize=6)
        grid = np.linspace(np.log(s[keep & used]).min(), np.log(s[keep & used]).max(), 40)
        slope = float(fit[exponent])
        low, high = float(fit[f"{exponent}_ci_low"]), float(fit[f"{exponent}_ci_high"])
        text = f"{exponent} = {slope:.2f} [{low:.2f}, {high:.2f}]"
        if f"{exponent}_half1" in fit and np.isfinite(float(fit[f"{exponent}_half1"])):
            text += (f", halves {float(fit[f'{exponent}_half1']):.2f}/"
                     f"{float(fit[f'{exponent}_half2']):.2f}")
        ax.plot(grid, np.log(_fitted_curve(fit, value, exponent, side, np.exp(grid))), "-",
                color=color, label=f"{_curve_label(labels)}: {text}" if labels else text)
    reduced = (rf"({symbol}_c - {symbol})/{symbol}_c" if side == "below"
               else rf"({symbol} - {symbol}_c)/{symbol}_c")
    ax.set_xlabel(rf"$\ln[{reduced}]$")
    ax.set_ylabel(rf"$\ln {p_symbol}$")
    return _finish(fig, ax, title)


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


def _fss_arrays(summary: xr.Dataset, fss: xr.Dataset):
    """(size, control, symbol, observable symbol, sizes, x, P, P error) of an FSS result."""
    attrs = fss.attrs
    size, control, coordinate = attrs["size"], attrs["control"], attrs["coordinate"]
    observable = attrs["observable"]
    size_dim = summary[size].dims[0]
    data = summary.transpose(size_dim, summary[coordinate].dims[0], ...)
    return (size, control, attrs["symbol"], attrs["observable_symbol"],
            data[size].values.astype(float), data[coordinate].values.astype(float),
            data[f"replicate_{observable}"].values,
            data[f"replicate_{observable}_err"].values)


def collapse_figure(summary: xr.Dataset, fss: xr.Dataset, title: str = "") -> plt.Figure:
    """Data collapse P L^(beta/nu) against (x - x_c) L^(1/nu) with the fitted exponents."""
    size, control, symbol, p_symbol, lengths, x, v, err = _fss_arrays(summary, fss)
    fig, ax = plt.subplots(figsize=(4.8, 3.8))
    name = f"collapse_{control}_c"
    if name not in fss:
        ax.text(0.5, 0.5, "no collapse (see fss.json)", ha="center", transform=ax.transAxes)
        return fig
    critical = float(fss[name])
    beta_over_nu = float(fss["collapse_beta_over_nu"])
    inverse_nu = float(fss["collapse_inverse_nu"])
    for number, length in enumerate(lengths):
        scale = length**beta_over_nu
        ax.errorbar((x - critical) * length**inverse_nu, v[number] * scale,
                    yerr=err[number] * scale, marker="os^Dv"[number % 5], markersize=3,
                    linewidth=0.8, capsize=1.5, label=f"{size} = {length:g}")
    ax.set_xlabel(rf"$({symbol} - {symbol}_c)\,{size}^{{1/\nu}}$")
    ax.set_ylabel(rf"${p_symbol}\,{size}^{{\beta/\nu}}$")
    ax.set_title(title or f"{control}_c = {critical:.3f}, β/ν = {beta_over_nu:.3f}, "
                 f"1/ν = {inverse_nu:.3f}", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def fss_critical_figure(summary: xr.Dataset, fss: xr.Dataset, title: str = "") -> plt.Figure:
    """x_c(L) from the susceptibility peak against L^(-1/nu), with the extrapolation."""
    size, control, symbol, _, lengths, *_ = _fss_arrays(summary, fss)
    inverse_nu = float(fss["inverse_nu"]) if "inverse_nu" in fss else (
        float(fss["collapse_inverse_nu"]) if "collapse_inverse_nu" in fss else 1.0)
    name = f"{control}_c_chi"
    values = fss[name].values
    low, high = fss[f"{name}_ci_low"].values, fss[f"{name}_ci_high"].values
    fig, ax = plt.subplots(figsize=(4.8, 3.6))
    abscissa = lengths ** (-inverse_nu)
    yerr = np.array([np.nan_to_num(values - low), np.nan_to_num(high - values)])
    ax.errorbar(abscissa, values, yerr=np.clip(yerr, 0, None), fmt="o", capsize=2,
                label=r"$\chi$ maximum")
    if "binder_crossing" in fss and fss.sizes.get("size_pair", 0):
        pair_sizes = np.sqrt(lengths[:-1] * lengths[1:])
        ax.plot(pair_sizes ** (-inverse_nu), fss["binder_crossing"].values, "s", mfc="none",
                label="Binder crossing (consecutive sizes)")
    if f"{control}_c_inf" in fss:
        grid = np.linspace(0, abscissa.max() * 1.05, 50)
        ax.plot(grid, float(fss[f"{control}_c_inf"]) + float(fss["extrapolation_amplitude"])
                * grid, "-", label=rf"fit, ${symbol}_c(\infty)$ = "
                f"{float(fss[f'{control}_c_inf']):.3f}")
    ax.set_xlabel(rf"${size}^{{-1/\nu}}$ (1/ν = {inverse_nu:.2f})")
    ax.set_ylabel(rf"${symbol}_c({size})$")
    return _finish(fig, ax, title)


def distribution_figure(summary: xr.Dataset, fss: xr.Dataset, title: str = "") -> plt.Figure:
    """Histograms of P at the point nearest each size's susceptibility peak."""
    size, control, _, p_symbol, lengths, *_ = _fss_arrays(summary, fss)
    fig, ax = plt.subplots(figsize=(4.8, 3.6))
    if "histogram_near_peak" not in fss:
        ax.text(0.5, 0.5, f"no histogram: {fss.attrs['observable']} has no declared range",
                ha="center", transform=ax.transAxes)
        return fig
    centres = fss["bin"].values
    width = centres[1] - centres[0] if centres.size > 1 else 1.0
    histograms = fss["histogram_near_peak"].values
    peaks = fss[f"{control}_c_chi"].values
    flags = fss["bimodal"].values
    for number, length in enumerate(lengths):
        mark = " (bimodal)" if flags[number] else ""
        ax.step(centres, histograms[number] / width, where="mid",
                label=f"{size} = {length:g}, {control} ≈ {peaks[number]:.2f}{mark}")
    ax.set_xlabel(rf"${p_symbol}$")
    ax.set_ylabel("probability density")
    ax.legend(fontsize=7, frameon=False)
    ax.set_title(title or f"distribution of ${p_symbol}$ near the susceptibility peak",
                 fontsize=9)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- sensitivity



def output_label(model_name: str, output: str) -> str:
    """Label of a per-run metric from the model's declarations (e.g. ``<v_a> after burn-in``)."""
    from flocklab.analysis.timeseries import run_variables
    from flocklab.core.registry import get_model

    model = get_model(model_name)
    primary = model.observable(model.primary_observable)
    symbol = f"${primary.symbol}$" if primary.symbol else primary.name
    if output == f"{primary.name}_mean":
        return rf"$\langle${symbol}$\rangle$ after burn-in"
    if output == "time_to_order":
        return f"time to reach {symbol} ≥ threshold [{model.time_units}]"
    units, long_name = run_variables(model).get(output, ("1", output))
    return with_units(long_name, units)
VERDICT_MARKS = {"holds": "holds", "fails": "FAILS", "inconclusive": "inconclusive"}


def _output_grid(outputs: list[str], width: float = 3.6, height: float = 3.2
                 ) -> tuple[plt.Figure, np.ndarray]:
    fig, axes = plt.subplots(1, len(outputs), figsize=(width * len(outputs), height),
                             squeeze=False)
    return fig, axes[0]


def _finish_grid(fig: plt.Figure, axes: np.ndarray, title: str) -> plt.Figure:
    axes[0].legend(fontsize=7, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def log_spaced(levels: np.ndarray) -> bool:
    """True for positive levels spanning at least two decades (drawn on a log axis)."""
    return bool(levels.size > 1 and np.all(levels > 0) and levels.max() >= 100 * levels.min())


def oat_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """One-at-a-time curves: each output (rows) against each factor (columns), replicate
    means with standard-error bars; claim verdicts listed under the panels. A factor whose
    levels are positive and span two decades or more gets a logarithmic axis."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    verdict_lines = []
    if "claim" in sensitivity.dims:
        for text, verdict, evidence in zip(sensitivity["claim_text"].values.astype(str),
                                           sensitivity["claim_verdict"].values.astype(str),
                                           sensitivity["claim_evidence"].values.astype(str),
                                           strict=True):
            verdict_lines.append(f"[{VERDICT_MARKS.get(verdict, verdict)}] {text} — {evidence}")
    extra = 0.22 * len(verdict_lines)
    fig, axes = plt.subplots(len(outputs), len(factors),
                             figsize=(3.0 * len(factors), 2.5 * len(outputs) + extra),
                             squeeze=False)
    for i, output in enumerate(outputs):
        for j, factor in enumerate(factors):
            ax = axes[i, j]
            levels = sensitivity["level_value"].sel(parameter=factor).values
            keep = np.isfinite(levels)
            mean = sensitivity["response_mean"].sel(output=output, parameter=factor).values
            sem = sensitivity["response_sem"].sel(output=output, parameter=factor).values
            runs = sensitivity["response"].sel(output=output, parameter=factor).values
            for k in np.flatnonzero(keep):
                ax.plot(np.full(runs.shape[-1], levels[k]), runs[k], ".", color="0.7",
                        markersize=3, zorder=1)
            ax.errorbar(levels[keep], mean[keep], yerr=np.nan_to_num(sem[keep]), marker="o",
                        markersize=4, capsize=2, linewidth=1, zorder=2)
            if log_spaced(levels[keep]):
                ax.set_xscale("log")
            if i == len(outputs) - 1:
                ax.set_xlabel(coordinate_label(sensitivity, factor))
            if j == 0:
                ax.set_ylabel(output_label(str(sensitivity.attrs["model"]), output),
                              fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    bottom = extra / fig.get_figheight() if verdict_lines else 0.0
    fig.tight_layout(rect=(0, bottom, 1, 1))
    for number, line in enumerate(verdict_lines):
        fig.text(0.01, bottom - (number + 0.8) * 0.22 / fig.get_figheight(), line,
                 fontsize=6.5, ha="left", va="center")
    return fig


def morris_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """Morris screening: sigma against mu* per output, with mu*'s confidence interval; the
    dashed line sigma = mu* separates mostly linear effects (below) from non-linear or
    interacting ones (above)."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    fig, axes = _output_grid(outputs)
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        mu_star, sigma, conf = (ds[n].values for n in ("mu_star", "sigma", "mu_star_conf"))
        for k, factor in enumerate(factors):
            ax.errorbar(mu_star[k], sigma[k], xerr=conf[k], marker="o", markersize=5,
                        capsize=2, linestyle="none", color=f"C{k}",
                        label=coordinate_label(sensitivity, factor))
        top = np.nanmax(np.r_[mu_star + conf, sigma, 1e-12]) * 1.1
        ax.plot([0, top], [0, top], "--", color="0.6", linewidth=0.8)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_xlabel(r"$\mu^*$")
        ax.set_ylabel(r"$\sigma$")
        ax.set_title(output_label(str(sensitivity.attrs["model"]), output), fontsize=9)
    return _finish_grid(fig, axes, title)


def sobol_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """First-order (S1) and total (ST) Sobol' indices per factor and output, with the
    bootstrap confidence intervals as error bars."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    confidence = json.loads(sensitivity.attrs["settings"])["confidence"]
    fig, axes = _output_grid(outputs)
    positions = np.arange(len(factors))
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        for shift, index, colour in ((-0.18, "S1", "C0"), (0.18, "ST", "C1")):
            ax.bar(positions + shift, ds[index].values, width=0.36, yerr=ds[f"{index}_conf"],
                   capsize=2, color=colour, label=f"$S_{{{index[1:]}}}$")
        ax.axhline(0, color="0.3", linewidth=0.6)
        ax.set_xticks(positions, [coordinate_label(sensitivity, f) for f in factors])
        ax.set_ylim(min(-0.05, float(np.nanmin(ds["S1"] - ds["S1_conf"]))), 1.05)
        ax.set_title(output_label(str(sensitivity.attrs["model"]), output), fontsize=9)
    axes[0].set_ylabel(f"Sobol' index ({confidence:.0%} interval)")
    return _finish_grid(fig, axes, title)


def convergence_figure(sensitivity: xr.Dataset, title: str = "") -> plt.Figure:
    """Indices against the number of base samples (Sobol: S1 solid, ST dashed) or
    trajectories (Morris: mu*), with confidence bands."""
    outputs = sensitivity["output"].values.astype(str).tolist()
    factors = sensitivity["parameter"].values.astype(str).tolist()
    sobol = sensitivity.attrs["method"] == "sobol"
    indices = [("S1", "-"), ("ST", "--")] if sobol else [("mu_star", "-")]
    fig, axes = _output_grid(outputs)
    sizes = sensitivity["sample_size"].values
    for ax, output in zip(axes, outputs, strict=True):
        ds = sensitivity.sel(output=output)
        for k, factor in enumerate(factors):
            for index, style in indices:
                values = ds[f"{index}_convergence"].isel(parameter=k).values
                conf = ds[f"{index}_conf_convergence"].isel(parameter=k).values
                ax.plot(sizes, values, style, marker="o", markersize=3, color=f"C{k}",
                        label=coordinate_label(sensitivity, factor) if style == "-" else None)
                ax.fill_between(sizes, values - conf, values + conf, color=f"C{k}", alpha=0.12,
                                linewidth=0)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("base samples N" if sobol else "trajectories")
        ax.set_title(output_label(str(sensitivity.attrs["model"]), output), fontsize=9)
    axes[0].set_ylabel(r"$S_1$ (solid), $S_T$ (dashed)" if sobol else r"$\mu^*$")
    return _finish_grid(fig, axes, title)
