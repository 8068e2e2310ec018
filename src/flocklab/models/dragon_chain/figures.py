"""Drawing of bench-dragon runs: the boards on their path, touching boards in red."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

#: Boards closer than this are drawn as touching (m).
TOUCH_DRAW_TOLERANCE = 1e-3


class ChainDrawing(Drawing):
    """Boards as rectangles (touching ones red), the path in grey, the head marked; the
    clock is contest time."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        from matplotlib.collections import PolyCollection

        from flocklab.core.registry import get_model
        from flocklab.models.dragon_chain.collision import (
            all_pairs,
            bench_rectangles,
            separation,
        )

        model = get_model("dragon_chain")
        params = {spec.name: run.attrs.get(spec.name, spec.default)
                  for spec in model.parameters}
        geometry = model.geometry(params)
        xy = np.stack([run["x"].values[frame], run["y"].values[frame]], axis=-1)
        rects = bench_rectangles(xy, geometry)
        j, k = all_pairs(geometry.n_benches)
        gap = separation(rects, j, k)
        touching = np.zeros(geometry.n_benches, dtype=bool)
        hits = gap < TOUCH_DRAW_TOLERANCE
        touching[j[hits]] = touching[k[hits]] = True
        path, s_zero = model.path(params)
        s = np.linspace(s_zero - 1.05 * geometry.length + params["t0"], s_zero + 250.0, 4000)
        curve = path.position(s)
        ax.plot(curve[:, 0], curve[:, 1], color="0.85", lw=0.5, zorder=0)
        colours = np.where(touching, "tab:red", "tab:blue")
        ax.add_collection(PolyCollection(rects.corners(), facecolors="none",
                                         edgecolors=colours, linewidths=0.5))
        ax.plot(*xy[0], "o", color="tab:orange", ms=3)
        ax.set_xlabel("$x$ (m)")
        ax.set_ylabel("$y$ (m)")
        t = float(run["frame"].values[frame]) + params["t0"]
        ax.set_title(f"{label} pitch {params['pitch']:g} m, contest time {t:.10g} s".strip())

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float] | None:
        """Every handle of every frame with a margin of a board length."""
        box = super().limits(run)
        if box is None:
            return None
        return box[0] - 1.5, box[1] + 1.5, box[2] - 1.5, box[3] + 1.5

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        return [Patch(facecolor="none", edgecolor="tab:blue", label="bench"),
                Patch(facecolor="none", edgecolor="tab:red", label="touching bench"),
                Line2D([], [], color="0.85", label="path"),
                Line2D([], [], marker="o", ls="none", color="tab:orange", ms=3,
                       label="head handle")]
