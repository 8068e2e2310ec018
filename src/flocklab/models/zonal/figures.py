"""Drawing of zonal runs: agents as arrows with trails, obstacles, predators and food."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing, time_text

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


class ZonalDrawing(Drawing):
    """Agents as arrows (informed ones orange), trails, obstacles, predators and food."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Captured agents are hidden; obstacles are grey discs with their influence circles
        dotted, predators red triangles, food a green star. 3-D runs are drawn projected on
        the xy plane."""
        import matplotlib.patches as patches

        alive = run["alive"].values[frame].astype(bool)
        x, y = run["x"].values[frame], run["y"].values[frame]
        informed = _informed(run, alive)
        for start in range(max(0, frame - trail), frame):
            ax.plot(np.c_[run["x"].values[start], run["x"].values[start + 1]].T[:, alive],
                    np.c_[run["y"].values[start], run["y"].values[start + 1]].T[:, alive],
                    color="0.8", lw=0.5)
        for mask, colour in ((alive & ~informed, "tab:blue"), (alive & informed, "tab:orange")):
            ax.quiver(x[mask], y[mask], run["ex"].values[frame][mask],
                      run["ey"].values[frame][mask], color=colour, angles="xy", scale=40,
                      width=0.004)
        for cx, cy, _, radius, influence, _ in _obstacles(run):
            ax.add_patch(patches.Circle((cx, cy), radius, color="0.5"))
            ax.add_patch(patches.Circle((cx, cy), influence, fill=False, ls=":", color="0.5"))
        if "predator_position" in run:
            pred = run["predator_position"].values[frame]
            ax.plot(pred[:, 0], pred[:, 1], "^", color="tab:red", ms=7)
        food = _food(run)
        if food is not None:
            ax.plot(food[0], food[1], "*", color="tab:green", ms=11)
        ax.set_xlabel("$x$")
        ax.set_ylabel("$y$")
        ax.set_title(f"{label} {time_text(run, frame)}".strip())

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float] | None:
        """Every agent of every frame, the predators, obstacles and food, with a margin."""
        alive = run["alive"].values.astype(bool)
        xs, ys = [run["x"].values[alive]], [run["y"].values[alive]]
        if "predator_position" in run:
            xs.append(run["predator_position"].values[..., 0].ravel())
            ys.append(run["predator_position"].values[..., 1].ravel())
        for cx, cy, _, radius, influence, _ in _obstacles(run):
            reach = max(radius, influence)
            xs.append(np.array([cx - reach, cx + reach]))
            ys.append(np.array([cy - reach, cy + reach]))
        food = _food(run)
        if food is not None:
            xs.append(np.array([food[0]]))
            ys.append(np.array([food[1]]))
        x, y = np.concatenate(xs), np.concatenate(ys)
        if not x.size:
            return None
        pad = 0.05 * max(np.ptp(x), np.ptp(y), 1.0)
        return x.min() - pad, x.max() + pad, y.min() - pad, y.max() + pad

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        """Agents, informed agents, predators, obstacles and food, those the run has."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles = [Line2D([], [], marker=">", ls="none", color="tab:blue", label="agent")]
        if _informed(run, np.ones(run.sizes["agent"], bool)).any():
            handles.append(Line2D([], [], marker=">", ls="none", color="tab:orange",
                                  label="informed agent"))
        if "predator_position" in run:
            handles.append(Line2D([], [], marker="^", ls="none", color="tab:red",
                                  label="predator"))
        if len(_obstacles(run)):
            handles.append(Patch(color="0.5", label="obstacle"))
        if _food(run) is not None:
            handles.append(Line2D([], [], marker="*", ls="none", color="tab:green", ms=9,
                                  label="food"))
        return handles


def _informed(run: xr.Dataset, alive: np.ndarray) -> np.ndarray:
    return run["informed"].values >= 0 if "informed" in run else np.zeros_like(alive)


def _obstacles(run: xr.Dataset) -> np.ndarray:
    return run["obstacle_geometry"].values if "obstacle_geometry" in run else np.empty((0, 6))


def _food(run: xr.Dataset) -> list[float] | None:
    food = run.attrs.get("food", "none")
    if isinstance(food, str) and food not in ("none", "null"):
        return json.loads(food)["position"]
    return None
