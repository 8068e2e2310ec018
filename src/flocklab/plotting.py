"""Figures: pure functions from datasets to matplotlib figures (no file I/O).

* :func:`draw_snapshot` — particles as arrows with trails (Vicsek et al. 1995, Fig. 1);
* :func:`curve_figure` — a replicate-averaged summary quantity against a coordinate,
  one line per value of another dimension, with error bars (Fig. 2);
* :func:`animate_run` — an animation of a run's snapshots with trails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.animation import FuncAnimation
from matplotlib.collections import LineCollection

QUANTITY_LABELS = {
    "order_parameter": r"order parameter $v_a$",
    "susceptibility": r"susceptibility $\chi$",
    "binder_cumulant": r"Binder cumulant $G$",
}
COORDINATE_LABELS = {"eta": r"noise $\eta$", "density": r"density $\rho$", "N": "$N$",
                     "L": "$L$", "r": "$r$", "v0": "$v_0$"}


def trail_segments(x: np.ndarray, y: np.ndarray, box: float) -> np.ndarray:
    """Line segments of trajectories, broken where a particle crosses the periodic edge.

    Parameters
    ----------
    x, y : ndarray, shape (F, N)
        Positions over F consecutive frames.
    box : float
        Box side; steps longer than ``box / 2`` are taken as wrap-arounds and not drawn.

    Returns
    -------
    ndarray, shape (S, 2, 2)
        Segments ``[[x0, y0], [x1, y1]]``.
    """
    if x.shape[0] < 2:
        return np.empty((0, 2, 2))
    start = np.stack([x[:-1], y[:-1]], axis=-1)
    end = np.stack([x[1:], y[1:]], axis=-1)
    jump = np.abs(end - start).max(axis=-1) > box / 2
    segments = np.stack([start, end], axis=-2)[~jump]
    return segments.reshape(-1, 2, 2)


def draw_snapshot(ax: plt.Axes, ds: xr.Dataset, frame: int, trail: int = 20,
                  label: str = "") -> None:
    """Draw frame ``frame`` of a run: arrows for headings and a trail of ``trail`` frames.

    The trail uses the preceding frames only if they are consecutive steps.
    """
    box = float(ds.attrs["L"])
    times = ds["frame"].values
    x = ds["x"].values
    y = ds["y"].values
    theta = ds["theta"].values
    first = frame
    while first > 0 and frame - first < trail and times[first] - times[first - 1] == 1:
        first -= 1
    segments = trail_segments(x[first:frame + 1], y[first:frame + 1], box)
    ax.add_collection(LineCollection(segments, colors="0.55", linewidths=0.6))
    arrow = 0.04 * box
    ax.quiver(x[frame], y[frame], np.cos(theta[frame]), np.sin(theta[frame]), angles="xy",
              scale_units="xy", scale=1 / arrow, width=0.004, headwidth=4, headlength=4,
              color="C0")
    ax.set_xlim(0, box)
    ax.set_ylim(0, box)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    eta = ds.attrs["eta"]
    title = (f"{label} L = {box:g}, η = {eta:g}, t = {int(times[frame])}").strip()
    ax.set_title(title, fontsize=9)


def snapshot_figure(runs: Sequence[xr.Dataset], frames: Sequence[str], labels: Sequence[str],
                    trail: int = 20, columns: int = 2, title: str = "") -> plt.Figure:
    """Panels of particle configurations (one per run), as Fig. 1 of Vicsek et al. (1995)."""
    rows = -(-len(runs) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.3 * rows), squeeze=False)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax, ds, which, label in zip(axes.flat, runs, frames, labels, strict=False):
        frame = 0 if which == "first" else ds.sizes["frame"] - 1
        draw_snapshot(ax, ds, frame, trail=trail if which == "last" else 0, label=label)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def curve_figure(summary: xr.Dataset, x: str, y: str, hue: str | None = None,
                 xlabel: str | None = None, ylabel: str | None = None, logy: bool = False,
                 title: str = "") -> plt.Figure:
    """Replicate-averaged ``y`` against coordinate ``x`` with error bars, one line per ``hue``."""
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
    ax.set_xlabel(xlabel or COORDINATE_LABELS.get(x, x))
    ax.set_ylabel(ylabel or QUANTITY_LABELS.get(y, y))
    if logy:
        ax.set_yscale("log")
    elif y == "order_parameter":
        ax.set_ylim(0, 1.02)
    if hue is not None:
        ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def animate_run(ds: xr.Dataset, trail: int = 20, stride: int = 1, fps: int = 20,
                title: str = "") -> FuncAnimation:
    """Animation of a run's snapshot frames (arrows and trails)."""
    fig, ax = plt.subplots(figsize=(4.2, 4.4))
    frames = list(range(0, ds.sizes["frame"], stride))

    def draw(frame: int) -> list:
        ax.clear()
        draw_snapshot(ax, ds, frame, trail=trail)
        if title:
            ax.set_title(f"{title}\nt = {int(ds['frame'].values[frame])}", fontsize=9)
        return []

    return FuncAnimation(fig, draw, frames=frames, interval=1000 / fps, blit=False)
