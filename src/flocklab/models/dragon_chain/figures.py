"""Drawing of bench-dragon runs: the boards on their path, touching boards in red."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing, Glyph

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

        model, params, geometry, xy, rects, touching = _boards(run, frame)
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
        ax.set_title(f"{label} pitch {params['pitch']:g} m, contest time {t:.4g} s".strip())

    def glyphs(self, run: xr.Dataset, frame: int, trail: int = 0) -> list[Glyph]:
        """The boards of :meth:`draw` as outlines (touching ones red) and the head handle."""
        _, _, _, xy, rects, touching = _boards(run, frame)
        out = []
        for mask, name, colour in ((~touching, "bench", "tab:blue"),
                                   (touching, "touching bench", "tab:red")):
            corners = rects.corners()[mask]
            closed = np.concatenate([corners, corners[:, :1],
                                     np.full((len(corners), 1, 2), np.nan)], axis=1)
            out.append(Glyph("lines", name, closed[..., 0].ravel(), closed[..., 1].ravel(),
                             colour=colour, size=1.0))
        out.append(Glyph("points", "head handle", xy[:1, 0], xy[:1, 1], colour="tab:orange",
                         size=7))
        return out

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


def _boards(run: xr.Dataset, frame: int) -> tuple[Any, dict, Any, np.ndarray, Any, np.ndarray]:
    """The model, parameters, bench geometry, handle positions (shape (H, 2)), the boards'
    rectangles and which boards touch another (shape (B,)) at ``frame``."""
    from flocklab.core.registry import get_model
    from flocklab.models.dragon_chain.collision import all_pairs, bench_rectangles, separation

    model = get_model("dragon_chain")
    params = {spec.name: run.attrs.get(spec.name, spec.default) for spec in model.parameters}
    geometry = model.geometry(params)
    xy = np.stack([run["x"].values[frame], run["y"].values[frame]], axis=-1)
    rects = bench_rectangles(xy, geometry)
    j, k = all_pairs(geometry.n_benches)
    gap = separation(rects, j, k)
    touching = np.zeros(geometry.n_benches, dtype=bool)
    hits = gap < TOUCH_DRAW_TOLERANCE
    touching[j[hits]] = touching[k[hits]] = True
    return model, params, geometry, xy, rects, touching
