"""Kinds drawn from a study's runs (snapshots, series, animation) or its summary (curve,
heatmap)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flocklab.analysis.timeseries import summary_quantities
from flocklab.core import paths
from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.figures.captions import name_text, snapshots_text, sweeps_text, values_text
from flocklab.figures.kinds.base import (
    FigureContext,
    StudyKind,
    open_inputs,
    require_grid_study,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from flocklab.config.study import Study


def check_points(entries: Sequence[tuple[str, Mapping[str, Any]]], study: Study) -> None:
    """Each ``(key, entry)`` names an existing point (``point``) and replicate of ``study``."""
    for key, entry in entries:
        try:
            study.find_point(entry["point"])
        except (KeyError, ParameterError) as error:
            raise ConfigError(f"config key '{key}.point': {error}") from None
        if entry.get("replicate", 0) >= study.replicates:
            raise ConfigError(f"config key '{key}.replicate': must be < replicates = "
                              f"{study.replicates}")


def check_snapshots(where: str, study: Study,
                    entries: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Entries drawing any frame but the first need the study's runs to record snapshots."""
    if study.snapshot_every == 0 and any(entry.get("frame") != "first" for _, entry in entries):
        raise ConfigError(f"config key 'studies.{study.name}.snapshots.every': figure "
                          f"'{where.rpartition('.')[2]}' needs snapshots; set every >= 1")


def check_summary_quantity(key: str, name: str, model: Any) -> None:
    """``name`` is a quantity whose replicate average a summary of ``model`` holds."""
    quantities = summary_quantities(model)
    if name not in quantities:
        raise ConfigError(f"config key '{key}': '{name}' is not one of {', '.join(quantities)}")


#: Schema keys of an entry naming one run of a study (a panel, a line), shared by the kinds.
RUN_ENTRY = """\
            required: [point]
            properties:
              point:
                type: object
                description: Swept parameter values identifying the run.
                additionalProperties: {$ref: "#/$defs/value"}
              replicate: {type: integer, minimum: 0, default: 0, description: replicate index}
"""


def check_log_axis(key: str, name: str, values: list) -> None:
    """A logarithmic axis over the swept ``values`` of ``name`` needs positive numbers."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
               for v in values):
        raise ConfigError(f"config key '{key}': '{name}' takes values {values}; a "
                          f"logarithmic axis needs positive numbers")


class Snapshots(StudyKind):
    """Panels of particle configurations, each a frame of one run drawn by the model."""

    name = "snapshots"
    description = "panels of configurations drawn by the model"
    required = ("panels",)
    keys = """
        panels:
          type: array
          minItems: 1
          description: One panel per entry, in reading order.
          items:
            type: object
            additionalProperties: false
{run_entry}              frame:
                enum: [first, last]
                default: last
                description: first = the initial state; last = the final state.
              label: {type: string, default: "", description: "panel label, e.g. (a)"}
        trail:
          type: integer
          minimum: 0
          default: 20
          description: Steps of trajectory drawn behind each particle (needs snapshots every step).
        columns: {type: integer, minimum: 1, default: 2, description: panels per row}
    """.replace("{run_entry}", RUN_ENTRY)

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        entries = [(f"{where}.panels[{k}]", panel) for k, panel in enumerate(figure["panels"])]
        check_points(entries, study)
        check_snapshots(where, study, entries)

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [context.run_file(figure, panel) for panel in figure["panels"]]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        return plotting.snapshot_figure(
            open_inputs(inputs), [panel["frame"] for panel in figure["panels"]],
            [panel["label"] for panel in figure["panels"]], trail=figure["trail"],
            columns=figure["columns"], title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        return [snapshots_text(study, figure["panels"], figure.get("trail", 0))]


class Curve(StudyKind):
    """A replicate-averaged summary quantity against a coordinate, one line per ``hue``."""

    name = "curve"
    description = ("a summary variable against a swept coordinate, one line per value of "
                   "another")
    required = ("x", "y")
    keys = """
        x: {type: string, description: "coordinate on the horizontal axis (e.g. eta, density)"}
        y:
          oneOf:
            - {type: string}
            - {type: array, items: {type: string}, minItems: 1}
          description: >
            summary quantity averaged over replicates (error bars from its _err variable):
            the model's primary observable (Vicsek: order_parameter), susceptibility,
            binder_cumulant, or any other per-run metric of the model; or a list of them
            sharing one unit, drawn in one panel (no hue), where a derived quantity of the
            model (e.g. a closed form) is drawn as a dashed reference line.
        hue: {type: string, description: "dimension drawn as separate lines (e.g. N)"}
        xlabel: {type: string, description: axis label}
        ylabel: {type: string, description: axis label}
        logx:
          type: boolean
          default: false
          description: "logarithmic horizontal axis (positive x only)"
        logy: {type: boolean, default: false, description: logarithmic vertical axis}
    """

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        require_grid_study(where, self.name, study)
        model = get_model(study.model)
        coordinates = [*study.swept, *(q.name for q in model.derived_quantities)]
        if figure["x"] not in coordinates:
            raise ConfigError(f"config key '{where}.x': '{figure['x']}' is not a coordinate "
                              f"of study '{study.name}'; available: {', '.join(coordinates)}")
        axis_of = study.axis_of
        if figure.get("logx") and figure["x"] in axis_of:
            check_log_axis(f"{where}.logx", figure["x"],
                           axis_of[figure["x"]].coords[figure["x"]])
        if "hue" in figure and figure["hue"] not in [axis.dim for axis in study.axes]:
            raise ConfigError(f"config key '{where}.hue': '{figure['hue']}' is not a swept "
                              f"dimension of study '{study.name}'")
        if isinstance(figure["y"], str):
            check_summary_quantity(f"{where}.y", figure["y"], model)
            return
        if "hue" in figure:
            raise ConfigError(f"config key '{where}.hue': a list of quantities in 'y' is "
                              f"drawn in one panel without hue; give one y or drop hue")
        derived = [quantity.name for quantity in model.derived_quantities]
        for k, name in enumerate(figure["y"]):
            if name not in derived:
                check_summary_quantity(f"{where}.y[{k}]", name, model)

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [paths.study_file(figure["study"], "summary.nc")]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        return plotting.curve_figure(
            open_inputs(inputs)[0], figure["x"], figure["y"], hue=figure.get("hue"),
            xlabel=figure.get("xlabel"), ylabel=figure.get("ylabel"), logx=figure["logx"],
            logy=figure["logy"], title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        model = get_model(study.model)
        names = [figure["y"]] if isinstance(figure["y"], str) else figure["y"]
        derived = {quantity.name for quantity in model.derived_quantities}
        measured = [name_text(model, name) for name in names if name not in derived]
        reference = [name_text(model, name) for name in names if name in derived]
        if not model.uses_seed(study.params(next(study.points()))):
            errors = ". Deterministic runs: one run per point, no error bars."
        elif study.replicates == 1:
            errors = (". One seed per point; error bars: the run's autocorrelation-corrected "
                      "standard error.")
        else:
            errors = f". Error bars: jackknife over the {study.replicates} seeds per point."
        text = (f"{'Replicate-averaged ' if study.replicates > 1 else ''}"
                f"{' and '.join(measured)} against {name_text(model, figure['x'])}"
                + (f", one line per {name_text(model, figure['hue'])}"
                   if figure.get("hue") else "") + errors)
        text = text[0].upper() + text[1:]
        if reference:
            text += f" Dashed: {' and '.join(reference)} (closed form)."
        return [text, sweeps_text(study)]


#: Schema keys of power laws drawn over a map (heatmap, state_map).
LINES = """\
        lines:
          type: array
          default: []
          description: >
            power laws y = coefficient * x^exponent drawn over the map in the swept
            coordinates (e.g. a stability boundary), black dashed, with their labels
          items:
            type: object
            additionalProperties: false
            required: [coefficient, exponent]
            properties:
              coefficient: {type: number, description: "a in y = a x^b"}
              exponent: {type: number, description: "b in y = a x^b"}
              label: {type: string, default: "", description: legend entry}
"""


#: Schema key of the lines of constant value drawn over a heatmap.
CONTOURS = """\
        contours:
          type: array
          default: []
          description: >
            lines where the mapped quantity crosses a level (e.g. a state threshold),
            interpolated linearly between the cell centres, black, with their labels
          items:
            type: object
            additionalProperties: false
            required: [level]
            properties:
              level: {type: number, description: "value of z along the line"}
              label: {type: string, default: "", description: legend entry}
"""


def contours_text(figure: Mapping[str, Any], model: Any = None) -> list[str]:
    """Caption lines naming the levels drawn over a heatmap."""
    z = figure["z"] if model is None else name_text(model, figure["z"])
    return [f"Contour: {contour.get('label') or 'level'}, {z} = {contour['level']:g}."
            for contour in figure.get("contours", [])]


def lines_text(figure: Mapping[str, Any], model: Any = None) -> list[str]:
    """Caption lines naming the power laws drawn over a map."""
    x, y = (figure["x"], figure["y"]) if model is None else (
        name_text(model, figure["x"]), name_text(model, figure["y"]))
    return [f"Line: {line.get('label') or 'power law'}, {y} = "
            f"{line['coefficient']:g} ({x})^{line['exponent']:g}."
            for line in figure.get("lines", [])]


class Heatmap(StudyKind):
    """A replicate-averaged summary quantity as a colour map over two swept parameters."""

    name = "heatmap"
    description = ("a summary variable as a colour map over the two swept dimensions of a "
                   "grid study (x horizontal, y vertical; no other dimension may be swept)")
    required = ("x", "y", "z")
    keys = """
        x:
          type: string
          description: >
            swept parameter on the horizontal axis (e.g. k_a); it and y must be swept on
            two different axes of the study, the only axes with more than one value
        y: {type: string, description: "swept parameter on the vertical axis (e.g. delay)"}
        z:
          type: string
          description: >
            summary quantity averaged over replicates, drawn as the cell colour and printed
            in each cell (the names curve's y allows)
        logx: {type: boolean, default: false, description: logarithmic horizontal axis}
        logy: {type: boolean, default: false, description: logarithmic vertical axis}
        logz: {type: boolean, default: false, description: logarithmic colour scale}
        mark_missing:
          type: string
          default: no value
          description: >
            legend text of the hatched cells, whose value is not finite (NaN, e.g. runs
            that blew up), e.g. "unstable"
        xlabel: {type: string, description: axis label}
        ylabel: {type: string, description: axis label}
        zlabel: {type: string, description: "colour-bar label (default: the quantity's)"}
    """.rstrip(" ") + LINES + CONTOURS

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        """``x`` and ``y`` are swept on two different axes of the study, the only axes with
        more than one value; a log axis has positive numbers; ``z`` is a summary quantity."""
        require_grid_study(where, self.name, study)
        axis_of = study.axis_of
        for key in ("x", "y"):
            name = figure[key]
            if name not in axis_of:
                raise ConfigError(f"config key '{where}.{key}': '{name}' is not swept in study "
                                  f"'{study.name}'; allowed: {', '.join(axis_of) or 'none'}")
            if len(axis_of[name]) < 2:
                raise ConfigError(f"config key '{where}.{key}': '{name}' takes one value in "
                                  f"study '{study.name}'; a heatmap axis needs at least two")
            if figure.get(f"log{key}"):
                check_log_axis(f"{where}.log{key}", name, axis_of[name].coords[name])
        x_axis, y_axis = axis_of[figure["x"]], axis_of[figure["y"]]
        if y_axis is x_axis:
            allowed = [name for name, axis in axis_of.items() if axis is not x_axis]
            raise ConfigError(f"config key '{where}.y': '{figure['y']}' is swept on the same "
                              f"axis as x = '{figure['x']}'; allowed: "
                              f"{', '.join(allowed) or 'none'}")
        others = [f"{axis.dim} ({len(axis)} values)" for axis in study.axes if len(axis) > 1
                  and axis is not x_axis and axis is not y_axis]
        if others:
            raise ConfigError(f"config key '{where}.study': study '{study.name}' also sweeps "
                              f"{', '.join(others)}; a heatmap needs x and y as its only "
                              f"swept dimensions")
        check_summary_quantity(f"{where}.z", figure["z"], get_model(study.model))

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [paths.study_file(figure["study"], "summary.nc")]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        return plotting.heatmap_figure(
            open_inputs(inputs)[0], figure["x"], figure["y"], figure["z"], logx=figure["logx"],
            logy=figure["logy"], logz=figure["logz"], mark_missing=figure["mark_missing"],
            xlabel=figure.get("xlabel"), ylabel=figure.get("ylabel"),
            zlabel=figure.get("zlabel"), title=figure["title"], lines=figure.get("lines", ()),
            contours=figure.get("contours", ()))

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        model = get_model(study.model)
        return [f"{name_text(model, figure['z'])} averaged over the {study.replicates} "
                f"seed(s) per point, as colour{' (log scale)' if figure.get('logz') else ''}"
                f" over {name_text(model, figure['x'])} (horizontal) and "
                f"{name_text(model, figure['y'])} (vertical): one cell per "
                "point, centred on its swept values, with the value printed in it. "
                f"Hatched cells ({figure.get('mark_missing', 'no value')}): no finite value.",
                *lines_text(figure, model), *contours_text(figure, model), sweeps_text(study)]


class StateMap(Heatmap):
    """A per-run state code as the most frequent state of each cell over two swept
    parameters, with named states."""

    name = "state_map"
    description = ("the most frequent state (a per-run integer metric, named by `states`) of "
                   "each point over the two swept dimensions of a grid study")
    required = ("x", "y", "z", "states")
    keys = """
        x:
          type: string
          description: >
            swept parameter on the horizontal axis; it and y must be swept on two different
            axes of the study, the only axes with more than one value
        y: {type: string, description: "swept parameter on the vertical axis"}
        z:
          type: string
          description: >
            per-run metric holding an integer state code (negative or NaN: unknown); each
            cell shows the code most runs of the point have (ties: the smaller code), with
            the share of the runs when they disagree
        states:
          type: array
          minItems: 1
          items: {type: string}
          description: name of each state code (index = code), for the legend
        logx: {type: boolean, default: false, description: logarithmic horizontal axis}
        logy: {type: boolean, default: false, description: logarithmic vertical axis}
        xlabel: {type: string, description: axis label}
        ylabel: {type: string, description: axis label}
    """.rstrip(" ") + LINES

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        """As a heatmap's; ``z`` must be a per-run metric of the model."""
        super().check_study(where, figure, study, context)
        metrics = [metric.name for metric in get_model(study.model).run_metrics]
        if figure["z"] not in metrics:
            raise ConfigError(f"config key '{where}.z': '{figure['z']}' is not a per-run "
                              f"metric of model '{study.model}'; allowed: "
                              f"{', '.join(metrics) or 'none'}")

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        return plotting.state_map_figure(
            open_inputs(inputs)[0], figure["x"], figure["y"], figure["z"], figure["states"],
            logx=figure["logx"], logy=figure["logy"], lines=figure.get("lines", ()),
            xlabel=figure.get("xlabel"), ylabel=figure.get("ylabel"), title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        model = get_model(study.model)
        names = ", ".join(f"{code} {name}" for code, name in enumerate(figure["states"]))
        return [f"The state ({name_text(model, figure['z'])}: {names}) most of the "
                f"{study.replicates} seed(s) per point end in, over "
                f"{name_text(model, figure['x'])} (horizontal) and "
                f"{name_text(model, figure['y'])} (vertical), one cell per point; a number in "
                "a cell is the share of the seeds in that state where they disagree; hatched: "
                "no known state.", *lines_text(figure, model), sweeps_text(study)]


class Series(StudyKind):
    """Observables of chosen runs against time, or against another observable ``x``."""

    name = "series"
    description = "observables of chosen runs against time (or against another observable, x)"
    required = ("y", "runs")
    keys = """
        y:
          type: array
          minItems: 1
          items: {type: string}
          description: Observables of the model drawn against time (one panel each).
        x:
          type: string
          description: >
            an observable of the model recorded in the same runs, drawn on the horizontal
            axis instead of time (markers coloured by time, so that a path out and back
            shows both branches); default: time
        runs:
          type: array
          minItems: 1
          description: The runs drawn, one line each.
          items:
            type: object
            additionalProperties: false
{run_entry}              label: {type: string, default: "", description: legend entry}
        logy: {type: boolean, default: false, description: logarithmic vertical axes}
    """.replace("{run_entry}", RUN_ENTRY)

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        observables = [obs.name for obs in get_model(study.model).observables]
        named = [(f"{where}.y[{k}]", name) for k, name in enumerate(figure["y"])]
        if "x" in figure:
            named.append((f"{where}.x", figure["x"]))
        for key, name in named:
            if name not in observables:
                raise ConfigError(f"config key '{key}': '{name}' is not an observable of model "
                                  f"'{study.model}'; allowed: {', '.join(observables)}")
        check_points([(f"{where}.runs[{k}]", run) for k, run in enumerate(figure["runs"])],
                     study)

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [context.run_file(figure, run) for run in figure["runs"]]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        return plotting.series_figure(
            open_inputs(inputs), figure["y"], [run["label"] for run in figure["runs"]],
            logy=figure["logy"], title=figure["title"], x=figure.get("x"))

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        model = get_model(study.model)
        runs = "; ".join(f"{run.get('label', '')} {values_text(run['point'], model)}".strip()
                         for run in figure["runs"])
        against = (f"{name_text(model, figure['x'])} (markers coloured by time)"
                   if figure.get("x") else "time")
        names = ", ".join(name_text(model, name) for name in figure["y"])
        return [f"{names} against {against} for the runs {runs}."]


class Animation(StudyKind):
    """A GIF (and an MP4 where ffmpeg exists) of one run's snapshot frames."""

    name = "animation"
    description = "a GIF (and MP4 where ffmpeg exists) of one run"
    required = ("point",)
    animation = True
    keys = """
        point:
          type: object
          description: Swept parameter values identifying the run.
          additionalProperties: {$ref: "#/$defs/value"}
        replicate: {type: integer, minimum: 0, default: 0, description: replicate index}
        trail: {type: integer, minimum: 0, default: 20, description: trail length in frames}
        fps: {type: integer, minimum: 1, maximum: 60, default: 20, description: frames per second}
        stride: {type: integer, minimum: 1, default: 1, description: use every stride-th frame}
    """

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        check_points([(where, figure)], study)
        check_snapshots(where, study, [(where, figure)])

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [context.run_file(figure, figure)]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Any:
        """The run's :class:`matplotlib.animation.FuncAnimation`."""
        from flocklab.figures import plotting

        return plotting.animate_run(open_inputs(inputs)[0], trail=figure["trail"],
                                    stride=figure["stride"], fps=figure["fps"],
                                    title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        return [snapshots_text(study, [figure], figure.get("trail", 0))]
