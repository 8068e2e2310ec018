"""Drawing of Vicsek runs: headings as arrows with trails in the periodic box, as Fig. 1 of
T. Vicsek et al., "Novel type of phase transition in a system of self-driven particles",
Phys. Rev. Lett. 75, 1226 (1995)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.figures.drawing import Drawing, time_text

if TYPE_CHECKING:  # pragma: no cover
    import matplotlib.pyplot as plt
    import xarray as xr


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


def draw_periodic_arrows(ax: plt.Axes, ds: xr.Dataset, frame: int, box: float,
                         trail: int = 20) -> None:
    """Frame ``frame`` of a run in a periodic ``box``: arrows for the headings ``theta`` and
    a trail over up to ``trail`` preceding frames, if they are consecutive steps."""
    times = ds["frame"].values
    x = ds["x"].values
    y = ds["y"].values
    theta = ds["theta"].values
    first = frame
    while first > 0 and frame - first < trail and times[first] - times[first - 1] == 1:
        first -= 1
    from matplotlib.collections import LineCollection

    segments = trail_segments(x[first:frame + 1], y[first:frame + 1], box)
    ax.add_collection(LineCollection(segments, colors="0.55", linewidths=0.6))
    arrow = 0.04 * box
    ax.quiver(x[frame], y[frame], np.cos(theta[frame]), np.sin(theta[frame]), angles="xy",
              scale_units="xy", scale=1 / arrow, width=0.004, headwidth=4, headlength=4,
              color="C0")
    ax.set_xlim(0, box)
    ax.set_ylim(0, box)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xticks([])
    ax.set_yticks([])


class VicsekDrawing(Drawing):
    """Arrows for the headings, grey trails, the periodic box."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Trails join up to ``trail`` preceding frames if they are consecutive steps."""
        draw_periodic_arrows(ax, run, frame, float(run.attrs["L"]), trail=trail)
        title = rf"{label} $L$ = {run.attrs['L']:g}, $\eta$ = {run.attrs['eta']:g}, " \
                f"{time_text(run, frame)}"
        ax.set_title(title.strip())

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float]:
        """The periodic box."""
        box = float(run.attrs["L"])
        return 0.0, box, 0.0, box
