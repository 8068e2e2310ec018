"""Drawing of zonal runs: agents as arrows with trails, obstacles, predators and food."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


class ZonalDrawing(Drawing):
    """Agents, obstacles, predators and food on the xy plane."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Agents as arrows (informed ones orange, captured ones hidden), trails, obstacles
        (grey discs with their influence circles), predators (red triangles), food (star).
        3-D runs are drawn projected on the xy plane."""
        import matplotlib.patches as patches

        alive = run["alive"].values[frame].astype(bool)
        x, y = run["x"].values[frame], run["y"].values[frame]
        informed = run["informed"].values >= 0 if "informed" in run else np.zeros_like(alive)
        for start in range(max(0, frame - trail), frame):
            ax.plot(np.c_[run["x"].values[start], run["x"].values[start + 1]].T[:, alive],
                    np.c_[run["y"].values[start], run["y"].values[start + 1]].T[:, alive],
                    color="0.8", lw=0.5)
        for mask, colour in ((alive & ~informed, "tab:blue"), (alive & informed, "tab:orange")):
            ax.quiver(x[mask], y[mask], run["ex"].values[frame][mask],
                      run["ey"].values[frame][mask], color=colour, angles="xy", scale=40,
                      width=0.004)
        if "obstacle_geometry" in run:
            for cx, cy, _, radius, influence, _ in run["obstacle_geometry"].values:
                ax.add_patch(patches.Circle((cx, cy), radius, color="0.5"))
                ax.add_patch(patches.Circle((cx, cy), influence, fill=False, ls=":",
                                            color="0.5"))
        time = run["frame"].values[frame]
        if "predator_position" in run:
            pred = run["predator_position"].values[frame]
            ax.plot(pred[:, 0], pred[:, 1], "^", color="tab:red", ms=8)
        food = run.attrs.get("food", "none")
        if isinstance(food, str) and food not in ("none", "null"):
            position = json.loads(food)["position"]
            ax.plot(position[0], position[1], "*", color="tab:green", ms=12)
        ax.set_aspect("equal")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_title(f"{label} t = {time:g} s".strip(), fontsize=9)
