"""Drawing of foraging runs (food field, obstacles, agents by energy) and the task figure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.analysis.verdicts import format_p
from flocklab.figures import style
from flocklab.figures.drawing import Drawing, Glyph, trail_lines
from flocklab.figures.labels import axis_label

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

#: Colour map of the agents' energy S = E/E_max (0 dark, 1 bright).
ENERGY_CMAP = "plasma"


def _polygons(run: xr.Dataset) -> list[np.ndarray]:
    """The obstacles' vertex rings from the run's edge list."""
    if "obstacle_edges" not in run:
        return []
    edges = run["obstacle_edges"].values
    owner = run["obstacle_polygon"].values
    return [edges[owner == k, :2] for k in np.unique(owner)]


class ForagingDrawing(Drawing):
    """The food field as an image, obstacles, agents coloured by energy, the dead marked."""

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Food density (green image, darker = more food, scaled to the start's maximum),
        obstacles (grey polygons), trails of the living (light grey), living agents as
        heading arrows coloured by energy S (``plasma``: dark empty, bright full), dead
        agents as grey crosses, predators as red triangles."""
        import matplotlib.patches as patches

        from flocklab.models.foraging.params import grid_shape

        attrs = run.attrs
        lx, ly = float(attrs["Lx"]), float(attrs["Ly"])
        ny, nx = grid_shape({"Lx": lx, "Ly": ly, "food_cell": float(attrs["food_cell"])})
        food = run["food"].values
        top = max(float(np.max(food[0])), 1e-12)
        ax.imshow(food[frame].reshape(ny, nx), origin="lower", extent=(0, lx, 0, ly),
                  cmap="Greens", vmin=0.0, vmax=top, interpolation="nearest", alpha=0.8)
        for ring in _polygons(run):
            ax.add_patch(patches.Polygon(ring, closed=True, color="0.45", zorder=2))
        alive = run["alive"].values[frame].astype(bool)
        x, y = run["x"].values[frame], run["y"].values[frame]
        for first in range(max(0, frame - trail), frame):
            ax.plot(np.c_[run["x"].values[first], run["x"].values[first + 1]].T[:, alive],
                    np.c_[run["y"].values[first], run["y"].values[first + 1]].T[:, alive],
                    color="0.6", lw=0.5, zorder=3)
        ax.quiver(x[alive], y[alive], run["ex"].values[frame][alive],
                  run["ey"].values[frame][alive], run["energy"].values[frame][alive],
                  cmap=ENERGY_CMAP, clim=(0.0, 1.0), angles="xy", scale=40, width=0.005,
                  zorder=4)
        ax.plot(x[~alive], y[~alive], "x", color="0.3", ms=4, zorder=4)
        if "predator_position" in run:
            predator = run["predator_position"].values[frame]
            ax.plot(predator[:, 0], predator[:, 1], "^", color="tab:red", ms=8, zorder=5)
        ax.set_xlim(0, lx)
        ax.set_ylim(0, ly)
        ax.set_aspect("equal")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        time = run["frame"].values[frame]
        ax.set_title(f"{label} t = {time:g} s, alive {int(alive.sum())}/{alive.size}".strip(),
                     fontsize=9)

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float]:
        """The whole arena, ``(0, Lx, 0, Ly)``, in every frame."""
        return 0.0, float(run.attrs["Lx"]), 0.0, float(run.attrs["Ly"])

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        """Agents (colour: energy), dead agents, food, obstacles and predators, those the
        run has."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles = [Line2D([], [], marker=">", ls="none", color="tab:orange",
                          label="agent (colour: energy S)"),
                   Line2D([], [], marker="x", ls="none", color="0.3", label="dead agent"),
                   Patch(color="tab:green", alpha=0.7, label="food (darker: more)")]
        if _polygons(run):
            handles.append(Patch(color="0.45", label="obstacle"))
        if "predator_position" in run:
            handles.append(Line2D([], [], marker="^", ls="none", color="tab:red",
                                  label="predator"))
        return handles

    def glyphs(self, run: xr.Dataset, frame: int, trail: int = 0) -> list[Glyph]:
        """The marks of :meth:`draw` as arrays: the food field (scaled to the start's
        maximum), obstacle outlines, trails, living agents as heading arrows, the dead as
        crosses, predators."""
        from flocklab.models.foraging.params import grid_shape

        lx, ly = float(run.attrs["Lx"]), float(run.attrs["Ly"])
        shape = grid_shape({"Lx": lx, "Ly": ly, "food_cell": float(run.attrs["food_cell"])})
        food = run["food"].values
        field = Glyph("image", "food", np.array([0.0, lx]), np.array([0.0, ly]),
                      colour="Greens", field=food[frame].reshape(shape),
                      high=max(float(np.max(food[0])), 1e-12))
        alive = run["alive"].values[frame].astype(bool)
        x, y = run["x"].values, run["y"].values
        first = max(0, frame - trail)
        length = 0.02 * max(float(run.attrs["Lx"]), float(run.attrs["Ly"]))
        rings = [np.vstack([ring, ring[:1], [[np.nan, np.nan]]]) for ring in _polygons(run)]
        outline = np.vstack(rings) if rings else np.empty((0, 2))
        out = [field,
               Glyph("lines", "obstacle", outline[:, 0], outline[:, 1], colour="#737373",
                     size=2.0),
               Glyph("lines", "trail", *trail_lines(x[first:frame + 1, alive],
                                                   y[first:frame + 1, alive]),
                     colour="#999999", size=0.5),
               Glyph("arrows", "agent", x[frame, alive], y[frame, alive],
                     length * run["ex"].values[frame][alive],
                     length * run["ey"].values[frame][alive], colour="#7e03a8", size=1.5),
               Glyph("points", "dead agent", x[frame, ~alive], y[frame, ~alive],
                     colour="#4d4d4d", size=7, marker="x")]
        if "predator_position" in run:
            predator = run["predator_position"].values[frame]
            out.append(Glyph("points", "predator", predator[:, 0], predator[:, 1],
                             colour="tab:red", size=10, marker="triangle"))
        return out


def grouping_figure(fig: Any, result: Mapping[str, Any]) -> None:
    """Left: share alive against time per condition; right: paired final survival."""
    left, right = fig.subplots(1, 2)
    time = np.asarray(result["time"])
    colours = {"solitary": "tab:orange", "grouped": "tab:blue"}
    for condition, colour in colours.items():
        mean = np.asarray(result["alive_fraction"][condition]["mean"])
        sem = np.asarray(result["alive_fraction"][condition]["sem"])
        left.plot(time, mean, color=colour, label=condition)
        left.fill_between(time, mean - sem, mean + sem, color=colour, alpha=0.25, lw=0)
    left.set_xlabel(axis_label("time", "t", "s"))
    left.set_ylabel(axis_label("share alive", "n/N"))
    left.set_ylim(-0.02, 1.02)
    style.legend(fig, left)
    solitary = np.asarray(result["survival"]["solitary"])
    grouped = np.asarray(result["survival"]["grouped"])
    for s, g in zip(solitary, grouped, strict=True):
        right.plot([0, 1], [s, g], "-", color="0.7", lw=0.8)
    right.plot(np.zeros_like(solitary), solitary, "o", color=colours["solitary"], ms=4)
    right.plot(np.ones_like(grouped), grouped, "o", color=colours["grouped"], ms=4)
    right.set_xticks([0, 1], ["solitary", "grouped"])
    right.set_xlim(-0.4, 1.4)
    right.set_ylabel(axis_label("survival at the end", "n/N"))
    marks = {"survival": "survival", "food_time": "time to food"}
    style.panel_title(right, "; ".join(f"{marks[c['output']]}: {c['verdict']} "
                                       f"({format_p(c['p'])}, {c['n']} seeds)"
                                       for c in result["verdicts"]))


def budget_figure(fig: Any, result: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """Left: death time against speed with E0/(k v + b); right: energy paths on uniform
    fields with their closed forms."""
    left, right = fig.subplots(1, 2)
    deaths = [row for row in result["rows"] if row["check"] == "death time"]
    speed = np.array([row["value"] for row in deaths])
    fine = np.linspace(0.0, speed.max() * 1.05, 200)
    left.plot(fine, params["E0"] / (params["k_metabolic"] * fine + params["b_metabolic"]),
              color="0.3", lw=1, label="$E_0/(kv+b)$")
    left.plot(speed, [row["measured"] for row in deaths], "o", color="tab:red", ms=5,
              label="simulation")
    left.set_xlabel(axis_label("speed", "v", "s-1"))
    left.set_ylabel(axis_label("time of death", "t_d", "s"))
    mu = params["k_metabolic"] * params["speed"] + params["b_metabolic"]
    for k, (density, path) in enumerate(result["paths"].items()):
        time = np.asarray(path["time"])
        colour = f"C{k}"
        right.plot(time, path["energy"], color=colour, lw=1.5, label=f"F = {density}")
        line = np.minimum(params["E_max"], params["E0"]
                          + (params["feeding_rate"] * float(density) - mu) * time)
        right.plot(time, line, "--", color="k", lw=0.8)
    right.set_xlabel(axis_label("time", "t", "s"))
    right.set_ylabel(axis_label("energy", "E"))
    style.legend(fig)
    style.panel_title(right, f"largest error against the closed form "
                             f"{result['largest_error']:.1e}")
