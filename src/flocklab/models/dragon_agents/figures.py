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
    """The chain (head marked), the head's trace so far and the desired path."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """The chain (head marked), the head's trace so far and the desired path."""
        params = json.loads(run.attrs["parameters"])
        when = float(run["frame"].values[frame])
        k = int(np.argmin(np.abs(run["time"].values - when)))
        x, y = run["x"].values, run["y"].values
        from flocklab.models.dragon_agents.guidance import make_guide

        path = make_guide(params["path"]).path
        extent = max(np.abs(x).max(), np.abs(y).max(), 1.0)
        s = np.linspace(0.0, min(path.length, 40 * extent), 2000)
        curve = path.position(s)
        ax.plot(curve[:, 0], curve[:, 1], "--", color="0.6", lw=0.8, label="desired path")
        ax.plot(x[:k + 1, 0], y[:k + 1, 0], "-", color="tab:red", lw=0.8, alpha=0.6,
                label="head trace")
        ax.plot(x[k], y[k], "o-", color="tab:blue", ms=2.5, lw=1.0, label="chain")
        ax.plot(x[k, 0], y[k, 0], "o", color="tab:red", ms=5)
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_title(f"{label} t = {run['time'].values[k]:g} s".strip(), fontsize=9)


def draw_solvers(fig: Any, document: Mapping[str, Any]) -> None:
    """CPU time, RHS evaluations and error against k_penalty, one line per method."""
    rows = document["result"]["rows"]
    panels = (("cpu_s", "CPU time of the solve [s]"), ("nfev", "RHS evaluations"),
              ("error_m", "largest position error [m]"))
    fig.set_size_inches(10.5, 3.6)
    axes = fig.subplots(1, len(panels))
    markers = "osD^v"
    for number, method in enumerate(dict.fromkeys(row["method"] for row in rows)):
        mine = sorted((row for row in rows if row["method"] == method),
                      key=lambda row: row["k_penalty"])
        k = np.array([row["k_penalty"] for row in mine])
        for ax, (key, _) in zip(axes, panels, strict=True):
            ax.plot(k, [row[key] for row in mine], marker=markers[number % len(markers)],
                    markersize=4, linewidth=1, label=method)
    for ax, (_, label) in zip(axes, panels, strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("k_penalty [N/m]")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=7, frameon=False)
