"""Drawing of agent-dragon runs (the chain, the head's trace, the desired path) and the
figure of the solver-comparison task."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


class DragonAgentsDrawing(Drawing):
    """The chain (head marked red), the head's trace so far and the desired path (dashed)."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """The record nearest the frame's time is drawn (the trajectory is on ``time``)."""
        params = json.loads(run.attrs["parameters"])
        when = float(run["frame"].values[frame])
        k = int(np.argmin(np.abs(run["time"].values - when)))
        x, y = run["x"].values, run["y"].values
        curve = _path_curve(params, x, y)
        ax.plot(curve[:, 0], curve[:, 1], "--", color="0.6", lw=0.8)
        ax.plot(x[:k + 1, 0], y[:k + 1, 0], "-", color="tab:red", lw=0.8, alpha=0.6)
        ax.plot(x[k], y[k], "o-", color="tab:blue", ms=2.5, lw=1.0)
        ax.plot(x[k, 0], y[k, 0], "o", color="tab:red", ms=5)
        ax.set_xlabel("$x$ (m)")
        ax.set_ylabel("$y$ (m)")
        ax.set_title(f"{label} t = {run['time'].values[k]:g} s".strip())

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float] | None:
        """Every unit at every record and the part of the path near them."""
        x, y = run["x"].values, run["y"].values
        finite = np.isfinite(x) & np.isfinite(y)
        if not finite.any():
            return None
        x0, x1, y0, y1 = x[finite].min(), x[finite].max(), y[finite].min(), y[finite].max()
        pad = 0.08 * max(x1 - x0, y1 - y0, 1.0)
        return x0 - pad, x1 + pad, y0 - pad, y1 + pad

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        from matplotlib.lines import Line2D

        return [Line2D([], [], ls="--", color="0.6", label="desired path"),
                Line2D([], [], color="tab:red", alpha=0.6, label="head trace"),
                Line2D([], [], marker="o", color="tab:blue", ms=2.5, label="units"),
                Line2D([], [], marker="o", ls="none", color="tab:red", ms=5, label="head")]


def _path_curve(params: Mapping[str, Any], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from flocklab.models.dragon_agents.guidance import make_guide

    path = make_guide(params["path"]).path
    extent = max(np.nanmax(np.abs(x)), np.nanmax(np.abs(y)), 1.0)
    return path.position(np.linspace(0.0, min(path.length, 40 * extent), 2000))


def draw_solvers(fig: Any, document: Mapping[str, Any]) -> None:
    """(a) CPU time, (b) right-hand-side evaluations and (c) error against the penalty
    stiffness, one line per method, on log-log axes."""
    rows = document["result"]["rows"]
    panels = (("cpu_s", "(a) CPU time of one solve", "CPU time (s)"),
              ("nfev", "(b) work", "right-hand-side evaluations"),
              ("error_m", "(c) error against the reference", "largest position error (m)"))
    fig.set_size_inches(10.5, 3.6)
    axes = fig.subplots(1, len(panels))
    markers = "osD^v"
    for number, method in enumerate(dict.fromkeys(row["method"] for row in rows)):
        mine = sorted((row for row in rows if row["method"] == method),
                      key=lambda row: row["k_penalty"])
        k = np.array([row["k_penalty"] for row in mine])
        for ax, (key, _, _) in zip(axes, panels, strict=True):
            ax.plot(k, [row[key] for row in mine], marker=markers[number % len(markers)],
                    markersize=4, linewidth=1, label=method)
    for ax, (_, title, label) in zip(axes, panels, strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(r"penalty stiffness $k_{\mathrm{pen}}$ (N m$^{-1}$)")
        ax.set_ylabel(label)
        ax.set_title(title)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper",
               title="solver")
