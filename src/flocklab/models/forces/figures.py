"""Drawing of force-swarm runs: agents as velocity arrows by role, trails, predators."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

#: Colour of each role (0 follower, 1 leader, 2 sub-leader).
ROLE_COLOURS = ("tab:blue", "tab:orange", "tab:green")


class ForcesDrawing(Drawing):
    """Agents on the xy plane (3-D runs projected), coloured by role."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Velocity arrows (followers blue, leaders orange, sub-leaders green; captured
        agents hidden), grey trails over the ``trail`` preceding frames, predators as red
        triangles with their trails."""
        alive = run["alive"].values[frame].astype(bool)
        x, y = run["x"].values, run["y"].values
        role = run["role"].values if "role" in run else np.zeros(alive.size, int)
        first = max(0, frame - trail)
        if frame > first:
            ax.plot(x[first:frame + 1, alive], y[first:frame + 1, alive], color="0.8",
                    lw=0.5)
        speed = np.hypot(run["vx"].values[frame], run["vy"].values[frame])
        scale = float(np.nanmax(speed[alive])) if alive.any() else 1.0
        for code, colour in enumerate(ROLE_COLOURS):
            mask = alive & (role == code)
            if mask.any():
                ax.quiver(x[frame, mask], y[frame, mask], run["vx"].values[frame][mask],
                          run["vy"].values[frame][mask], color=colour, angles="xy",
                          scale=40 * max(scale, 1e-12), width=0.004)
        if "predator_position" in run:
            pred = run["predator_position"].values
            if frame > first:
                ax.plot(pred[first:frame + 1, :, 0], pred[first:frame + 1, :, 1],
                        color="tab:red", lw=0.8, alpha=0.5)
            ax.plot(pred[frame, :, 0], pred[frame, :, 1], "^", color="tab:red", ms=8)
        ax.set_aspect("equal")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_title(f"{label} t = {run['frame'].values[frame]:g}".strip(), fontsize=9)
