r"""Figures of the springs model's task results (figure kind ``task``).

* :func:`stability_figure` — the ``stability`` task's table: for each integrator, the
  measured (sweep + bisection on runs) and linear-theory :math:`\Delta t_{max}` of every
  configuration on a log axis. Limits that are not numbers are drawn in two bands apart from
  the axis, never as values: the top band for "stable at every step" (theory
  :math:`\rho(G(h)) \le 1` for all :math:`h`, i.e. :math:`\infty`; measured: stable up to the
  sweep's largest step, a lower bound), the bottom band for "unstable at every step" (theory
  0; measured: unstable already at the sweep's smallest step, an upper bound).
* :func:`accuracy_figure` — the ``accuracy`` task's global error against :math:`\Delta t` per
  integrator on log–log axes, the fitted order in the legend.
* :class:`SpringsDrawing` — one frame of a run: springs as lines, points as dots, fixed
  points as black squares; a 3-D structure (the cloth) on 3-D axes
  (:func:`draw_structure_3d`).

The task documents are strict JSON (:func:`flocklab.core.io.json_ready`: NaN and
:math:`\pm\infty` are ``null``). In a stability row, ``dt_measured`` is never NaN
(:func:`flocklab.models.springs.stability.measured_dt_max` returns a number, 0 or inf), so ``null``
is :math:`\infty`; ``dt_theory`` is NaN only for ``scipy_*`` methods (no fixed-step
amplification matrix, :func:`flocklab.models.springs.stability.theory_dt_max`), so ``null`` is
:math:`\infty` for every other method.
"""

from __future__ import annotations

import functools
import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model
from flocklab.figures.drawing import Drawing, Glyph, segments_as_lines, time_text
from flocklab.models.springs.integrators import INTEGRATORS, method_label

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.models.springs.structure import SpringSystem

#: Markers of the accuracy lines (identical methods, e.g. two names of one update, stay visible).
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">")
#: Axes fraction of the top and bottom bands (outside the numeric data).
BAND = 0.12


#: Names of the integrators on a figure.
def _select(available: Sequence[str], chosen: Sequence[str] | None, option: str) -> list[str]:
    """``chosen`` (all of ``available`` if None), each checked to be in the result."""
    if not chosen:
        return list(dict.fromkeys(available))
    missing = [name for name in chosen if name not in available]
    if missing:
        raise ParameterError(option, f"option '{option}': '{missing[0]}' is not in the task "
                                     f"result; available: {', '.join(dict.fromkeys(available))}")
    return list(chosen)


def classify_limit(value: float | None, method: str, theory: bool) -> str:
    """``"number"``, ``"stable"`` (infinite / lower bound), ``"unstable"`` (0) or ``"none"``
    (no linear theory: the registry's ``linear_theory`` false, the ``scipy_*`` references)
    for one stored limit (see the module docstring)."""
    if value is None:
        no_theory = method in INTEGRATORS and not INTEGRATORS[method].linear_theory
        return "none" if theory and no_theory else "stable"
    return "unstable" if value == 0 else "number"


def _log_limits(values: Sequence[float]) -> tuple[float, float]:
    """y limits of a log axis that put ``values`` (at least half a decade around their
    centre) between the two bands, with a margin of ``BAND / 5`` each side."""
    if not values:
        return 1e-3, 1.0
    low, high = np.log10(min(values)), np.log10(max(values))
    total = max(high - low, 0.5) / (1.0 - 2.4 * BAND)
    bottom = (low + high) / 2.0 - total / 2.0
    return 10.0 ** bottom, 10.0 ** (bottom + total)


def _bands(ax: Any) -> None:
    """Grey bands for the non-numeric limits, labelled at their outer edges; the log axis's
    ticks only between them (no value is read off a band)."""
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import NullLocator

    for y, text, align in ((1.0 - BAND, "stable at every step (∞ / ≥ largest tried)", "top"),
                           (0.0, "unstable at every step (0 / < smallest tried)", "bottom")):
        ax.add_patch(Rectangle((0.0, y), 1.0, BAND, transform=ax.transAxes, color="0.92",
                               zorder=0, lw=0))
        ax.text(0.005, 0.99 if align == "top" else 0.01, text, transform=ax.transAxes,
                fontsize=6.5, va=align, color="0.35")
    low, high = np.log10(ax.get_ylim())
    inner = (low + BAND * (high - low), high - BAND * (high - low))
    decades = range(math.floor(inner[0]), math.ceil(inner[1]) + 1)
    for subs in ((1.0,), (1.0, 2.0, 5.0), tuple(range(1, 10))):
        ticks = [m * 10.0**k for k in decades for m in subs
                 if inner[0] <= math.log10(m * 10.0**k) <= inner[1]]
        if len(ticks) >= 2:
            break
    ax.set_yticks(ticks, [f"{tick:g}" for tick in ticks])
    ax.yaxis.set_minor_locator(NullLocator())


def _plot_configuration(ax: Any, edge: Any, colour: str, offset: float, config: str,
                        rows: Sequence[Mapping[str, Any] | None]) -> list[float]:
    """Measured and theory limits of one configuration (``rows`` in method order, None where
    missing) at x = method index + ``offset``, and its sqrt(m/k) as a dotted line; returns
    the numeric values drawn (for the axis range)."""
    numbers = []
    for key, theory in (("dt_measured", False), ("dt_theory", True)):
        style = {"color": colour, "ls": "none", "marker": "D" if theory else "o",
                 "mfc": "none" if theory else colour, "ms": 6 if theory else 4.5}
        points: dict[str, list[tuple[float, float]]] = {"number": [], "stable": [],
                                                       "unstable": [], "none": []}
        for m, row in enumerate(rows):
            if row is not None:
                kind = classify_limit(row[key], row["method"], theory)
                points[kind].append((m + offset, row[key]))
        ys = [float(y) for _, y in points["number"]]
        numbers += ys
        ax.plot([x for x, _ in points["number"]], ys,
                label=f"{config}: {'theory' if theory else 'measured'}", **style)
        for kind, y in (("stable", 1.0 - BAND / 2), ("unstable", BAND / 2)):
            xs = [x for x, _ in points[kind]]
            ax.plot(xs, [y] * len(xs), transform=edge, label=f"_{config} {key} {kind}",
                    **style)
    bound = next(row["sqrt_m_over_k"] for row in rows if row is not None)
    ax.axhline(bound, color=colour, ls=":", lw=1.0, label=f"_{config} sqrt(m/k)")
    _mark_departures(ax, edge, colour, offset, rows)
    return [*numbers, float(bound)]


#: Letters beside a measured limit that linear theory does not predict (figure legend).
DEPARTURE_MARKS = {
    "nonlinear": ("n", "n: fails for a nonlinear reason (Newton jumps to another root "
                       "or fails to converge), where linear theory says stable"),
    "saturated": ("s", "s: above its linear limit the growth saturates at a fixed "
                       "amplitude"),
    "below": ("b", "b: unstable at the sweep's smallest step, its linear limit lies below "
                   "the sweep"),
}


def departure(row: Mapping[str, Any]) -> str | None:
    """Why a measured limit differs from what the figure shows for theory: the row's
    ``agreement`` (``nonlinear``, ``saturated``) or ``below`` (measured 0, theory a positive
    number smaller than the sweep reaches); None where they agree."""
    if row.get("agreement") in ("nonlinear", "saturated"):
        return str(row["agreement"])
    theory, measured = row.get("dt_theory"), row.get("dt_measured")
    if measured == 0 and isinstance(theory, int | float) and theory > 0:
        return "below"
    return None


def _mark_departures(ax: Any, edge: Any, colour: str, offset: float,
                     rows: Sequence[Mapping[str, Any] | None]) -> None:
    """A letter (:data:`DEPARTURE_MARKS`) beside each measured limit theory does not predict:
    at the number, or in the band where the measured limit sits."""
    for m, row in enumerate(rows):
        why = departure(row) if row is not None else None
        if why is None:
            continue
        value = row["dt_measured"]
        where = {"xy": (m + offset, value)} if classify_limit(value, row["method"], False) \
            == "number" else {"xy": (m + offset, BAND / 2 if value == 0 else 1 - BAND / 2),
                              "xycoords": edge}
        ax.annotate(DEPARTURE_MARKS[why][0], **where, xytext=(4, 3),
                    textcoords="offset points", color=colour, fontsize=8,
                    fontweight="bold")


def stability_figure(fig: Any, result: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Measured and theory dt_max per integrator and configuration (see module docstring),
    with each configuration's :math:`\\sqrt{m/k}` (the tongue article's bound) as a dotted line.

    One ``Line2D`` per configuration and kind holds the numeric limits in method order
    (labels ``"<configuration>: measured"`` / ``": theory"``); the band markers and the
    bound are separate lines labelled with a leading underscore.
    """
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    rows = result["table"]
    configs = _select([r["configuration"] for r in rows], options.get("configurations"),
                      "configurations")
    methods = _select([r["method"] for r in rows], options.get("methods"), "methods")
    by = {(r["configuration"], r["method"]): r for r in rows}
    fig.set_size_inches(max(6.4, 0.8 * len(methods) + 3.5), 4.6)
    ax = fig.add_subplot()
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    offsets = np.linspace(-0.3, 0.3, len(configs)) if len(configs) > 1 else np.zeros(1)
    numbers = []
    for c, config in enumerate(configs):
        numbers += _plot_configuration(ax, edge, f"C{c}", float(offsets[c]), config,
                                       [by.get((config, method)) for method in methods])
    ax.set_yscale("log")
    ax.set_ylim(*_log_limits(numbers))
    ax.set_xlim(-0.6, len(methods) - 0.4)
    _bands(ax)
    ax.set_xticks(range(len(methods)), [textwrap.fill(method_label(m), 12) for m in methods])
    ax.set_ylabel(r"largest stable time step $\Delta t_{\max}$ (s)")
    handles = [Line2D([], [], color=f"C{c}", ls="none", marker="o", label=config)
               for c, config in enumerate(configs)]
    handles += [Line2D([], [], color="k", ls="none", marker="o", label="measured (runs)"),
                Line2D([], [], color="k", ls="none", marker="D", mfc="none",
                       label="linear theory"),
                Line2D([], [], color="k", ls=":", lw=1.0,
                       label=r"$\sqrt{m/k}$, the tongue article's bound")]
    shown = {departure(row) for row in rows if row["configuration"] in configs
             and row["method"] in methods} - {None}
    handles += [Line2D([], [], ls="none", label=textwrap.fill(text, 34))
                for key, (_, text) in DEPARTURE_MARKS.items() if key in shown]
    fig.legend(handles=handles, loc="outside right upper")


def accuracy_figure(fig: Any, result: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Global error against dt per integrator (log-log), the fitted order in each label
    (``"<method> (order p)"``); points whose error is not a positive number are left out."""
    data = result["methods"]
    methods = _select(list(data), options.get("methods"), "methods")
    ax = fig.add_subplot()
    steps: set[float] = set()
    for k, method in enumerate(methods):
        pairs = [(dt, error) for dt, error in zip(data[method]["dt"], data[method]["error"],
                                                  strict=True)
                 if error is not None and error > 0]
        order = data[method].get("order")
        text = f"{order:.2f}" if order is not None else "n/a"
        steps.update(dt for dt, _ in pairs)
        ax.loglog([dt for dt, _ in pairs], [error for _, error in pairs],
                  marker=MARKERS[k % len(MARKERS)], ls=("-", "--", ":")[k % 3], ms=5,
                  mfc="none", label=f"{method_label(method)} (order {text})")
    ax.set_xticks(sorted(steps), [f"{dt:g}" for dt in sorted(steps)])
    ax.minorticks_off()
    ax.set_xlabel(r"time step $\Delta t$ (s)")
    ax.set_ylabel(r"global error $|u - u_{\mathrm{exact}}|$ at $t_{\mathrm{end}}$ (m)")
    if result.get("problem"):
        ax.set_title(result["problem"])
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside right upper")
    fig.set_size_inches(7.6, 4.4)


def draw_structure_3d(ax: Any, positions: np.ndarray, frame: int, springs: np.ndarray,
                      fixed: np.ndarray, pad: float) -> None:
    """Frame ``frame`` of a 3-D mass–spring structure on :class:`~mpl_toolkits.mplot3d.axes3d.
    Axes3D` ``ax``: springs as segments, free points as dots, fixed points as black squares.

    The axis limits are those of the whole run (every frame, padded by ``pad``), so an
    animation does not jump, and the box aspect is the data's (equal scales on x, y, z).

    Parameters
    ----------
    ax : Axes3D
        Axes with ``projection="3d"``.
    positions : ndarray, shape (frames, n, 3)
        Point positions of every frame (m).
    frame : int
        The frame to draw.
    springs : ndarray of int, shape (s, 2)
        Point indices of each spring.
    fixed : ndarray of bool, shape (n,)
        Fixed (pinned) points.
    pad : float
        Margin around the run's bounding box (m), e.g. the mean rest length.
    """
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    p = positions[frame]
    ax.add_collection3d(Line3DCollection(p[springs], colors="0.5", linewidths=0.6))
    ax.plot(*p[~fixed].T, "o", ms=2.5, color="C0")
    ax.plot(*p[fixed].T, "s", ms=5, color="k")
    low = np.nanmin(positions.reshape(-1, 3), axis=0) - pad
    high = np.nanmax(positions.reshape(-1, 3), axis=0) + pad
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_zlim(low[2], high[2])
    ax.set_box_aspect(tuple(high - low), zoom=0.8)
    ax.locator_params(nbins=4)
    ax.set_xlabel("$x$ (m)", labelpad=9)
    ax.set_ylabel("$y$ (m)", labelpad=9)
    ax.set_zlabel("$z$ (m)", labelpad=6)


def run_system(run: xr.Dataset) -> tuple[SpringSystem, dict[str, Any]]:
    """The structure a run was made with, rebuilt from its recorded parameters."""
    params = json.loads(run.attrs["parameters"]) if isinstance(
        run.attrs.get("parameters"), str) else dict(run.attrs)
    model = get_model("springs")
    return model.build({**{s.name: s.default for s in model.parameters}, **params}), params


@functools.lru_cache(maxsize=8)
def _system_of(parameters: str) -> SpringSystem:
    """The structure of a run's ``parameters`` attribute (JSON), cached for live views."""
    return get_model("springs").build({**{s.name: s.default for s in
                                          get_model("springs").parameters},
                                       **json.loads(parameters)})


class SpringsDrawing(Drawing):
    """Springs as grey lines, free points as dots, fixed (pinned) points as black squares."""

    def projection(self, run: xr.Dataset) -> str | None:
        """``"3d"`` for a 3-D structure (the cloth), ``None`` (ordinary axes) in 2-D."""
        return "3d" if run_system(run)[0].dim == 3 else None

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0,
             label: str = "") -> None:
        """A 2-D structure in the x–y plane on ordinary axes; a 3-D one (the cloth) on the
        :class:`~mpl_toolkits.mplot3d.axes3d.Axes3D` that :meth:`projection` asks for
        (:func:`draw_structure_3d`), both on the whole run's limits."""
        system, params = run_system(run)
        method = method_label(params.get("integrator", ""))
        title = f"{label} {method}, {time_text(run, frame)}".strip()
        if system.dim == 3:
            positions = np.stack([run[c].values for c in ("x", "y", "z")], axis=-1)
            draw_structure_3d(ax, positions, frame, system.springs, system.fixed,
                              pad=float(np.mean(system.rest_length)))
            ax.set_title(title)
            return
        x = run["x"].values[frame]
        vertical = run["y"].values[frame]
        i, j = system.springs.T
        segments = np.stack([np.column_stack([x[i], vertical[i]]),
                             np.column_stack([x[j], vertical[j]])], axis=1)
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(segments, colors="0.5", linewidths=0.6))
        fixed = system.fixed
        ax.plot(x[~fixed], vertical[~fixed], "o", ms=3, color="C0")
        ax.plot(x[fixed], vertical[fixed], "s", ms=5, color="k")
        ax.set_xlabel("$x$ (m)", labelpad=9)
        ax.set_ylabel("$y$ (m)", labelpad=9)
        ax.set_title(title)

    def glyphs(self, run: xr.Dataset, frame: int, trail: int = 0) -> list[Glyph]:
        """Springs, free and fixed points of :meth:`draw` as arrays; a 3-D structure is
        seen from the side (x against z, gravity pointing down)."""
        system = _system_of(run.attrs.get("parameters", ""))
        across = run["x"].values[frame]
        up = run["z" if system.dim == 3 else "y"].values[frame]
        i, j = system.springs.T
        points = np.column_stack([across, up])
        fixed = system.fixed
        return [Glyph("lines", "spring", *segments_as_lines(points[i], points[j]),
                      colour="#808080", size=1.0),
                Glyph("points", "point", across[~fixed], up[~fixed], colour="C0", size=6),
                Glyph("points", "fixed point", across[fixed], up[fixed], colour="black",
                      size=9, marker="square")]

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float] | None:
        """Every frame's points with a margin of one mean rest length."""
        box = super().limits(run)
        if box is None:
            return None
        pad = float(np.mean(run_system(run)[0].rest_length))
        return box[0] - pad, box[1] + pad, box[2] - pad, box[3] + pad

    def legend_handles(self, run: xr.Dataset) -> list[Any]:
        from matplotlib.lines import Line2D

        return [Line2D([], [], color="0.5", lw=0.8, label="spring"),
                Line2D([], [], marker="o", ls="none", ms=3, color="C0", label="point"),
                Line2D([], [], marker="s", ls="none", ms=5, color="k", label="fixed point")]
