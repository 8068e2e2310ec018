"""The live explorer's web page (Panel on a Bokeh server).

One :class:`Explorer` per browser session: the controls generated from the model's
declarations (:mod:`flocklab.explore.controls`), the run buttons, the presets the model
declares, the scene and the observables plotted against time. Every frame the scene's
Bokeh glyphs (canvas backend; headless WebGL is slower) are fed in place from the arrays
the model's own drawing gives (:meth:`flocklab.figures.drawing.Drawing.glyphs`), all
changes of a frame in one message; a drawing that gives none is drawn with
its matplotlib :meth:`~flocklab.figures.drawing.Drawing.draw` instead (slower).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Range1d
from bokeh.plotting import figure

from flocklab.core.model import Model
from flocklab.core.parameters import ParameterError
from flocklab.explore.controls import (
    Control,
    TableColumn,
    controls_of,
    parse_json_value,
    rows_of,
    value_of_rows,
)
from flocklab.explore.live import LiveRun
from flocklab.explore.structure import (
    FLUCTUATIONS,
    MEASURES,
    REFERENCE_SLOPES,
    LiveStructure,
    StructureData,
    default_measure,
)
from flocklab.figures.drawing import Glyph, drawing_of

#: Period of the frame callback (ms): 25 frames a second when a frame takes less.
FRAME_PERIOD_MS = 40
#: Preceding frames drawn as trails.
TRAIL = 3
#: Observables plotted besides the primary one.
OTHER_OBSERVABLES = 2
#: Shortest interval between two matplotlib frames of a drawing without glyphs (s).
FALLBACK_PERIOD = 0.5
#: Side of the scene (pixels).
SCENE_SIZE = 560


def _hex(colour: str) -> str:
    from matplotlib.colors import to_hex

    return to_hex(colour)


def _arrow_data(glyph: Glyph) -> dict[str, np.ndarray]:
    """Shaft ends of each arrow (its head is drawn as a dot at ``x1``, ``y1``: rotated
    markers cost a browser several times more)."""
    u = np.asarray(glyph.u, dtype=float)
    v = np.asarray(glyph.v, dtype=float)
    return {"x0": glyph.x, "y0": glyph.y, "x1": glyph.x + u, "y1": glyph.y + v}


def _table_frame(columns: tuple[TableColumn, ...], rows: list[dict[str, Any]]) -> Any:
    """The rows of a table editor as the text frame its widget shows."""
    import pandas as pd

    names = [c.name for c in columns]
    frame = pd.DataFrame(rows, columns=names, dtype=object)
    return frame.where(frame.notna(), "")


class Explorer:
    """The page of one session: a :class:`LiveRun` of ``model`` and its views.

    Parameters
    ----------
    model : Model
        A registered model instance.
    out_dir : path
        Where "Save" writes the study snippet and the run file.
    seed : int
        Initial seed.
    structure : bool
        Show the structure plot (:mod:`flocklab.explore.structure`) of a model that
        declares kinematics.
    """

    def __init__(self, model: Model, out_dir: str | Path = "explore", seed: int = 0,
                 structure: bool = True) -> None:
        self.model = model
        self.out_dir = Path(out_dir)
        speed = 1 if model.time_mode == "steps" else 5
        self.live = LiveRun(model, seed=seed, steps_per_frame=speed)
        self.drawing = drawing_of(model)
        self.primary = model.observable(model.primary_observable)
        self.others = [o for o in model.observables if o.name != self.primary.name]
        self.others = self.others[:OTHER_OBSERVABLES]
        self.running = False
        self._syncing = False
        self._sent = 0
        self._ticks: list[float] = []
        self.status = pn.pane.Markdown("", name="status", css_classes=["explore-status"],
                                       sizing_mode="stretch_width")
        controls = controls_of(model, self.live.params)
        self.table_columns = {c.name: c.columns for c in controls if c.widget == "table"}
        self.parameter_widgets = {c.name: self._parameter_widget(c) for c in controls}
        self._build_scene()
        self._build_series()
        self.structure = (LiveStructure(model) if structure and model.kinematics is not None
                          else None)
        if self.structure is not None:
            self._build_structure()
        self._render(full=True)

    # ----------------------------------------------------------------- controls

    def _parameter_widget(self, control: Control) -> Any:
        common = {"name": control.label}
        if control.widget == "table":
            return self._table_widget(control)
        if control.widget == "menu":
            widget = pn.widgets.Select(options=list(control.options), value=control.value,
                                       **common)
        elif control.widget == "switch":
            widget = pn.widgets.Checkbox(value=control.value, **common)
        elif control.widget == "json":
            widget = pn.widgets.TextAreaInput(value=control.value, height=70, **common)
        else:
            kind = pn.widgets.EditableIntSlider if control.kind == "int" \
                else pn.widgets.EditableFloatSlider
            widget = kind(start=control.start, end=control.end, step=control.step,
                          value=control.value, fixed_start=control.hard_start,
                          fixed_end=control.hard_end, **common)
        watched = "value_throttled" if control.kind == "int" else "value"
        widget.param.watch(lambda event, name=control.name: self._on_parameter(name, event.new),
                           watched)
        widget.css_classes = [f"param-{control.name}"]
        return widget

    def _table_widget(self, control: Control) -> Any:
        """A table of records, a column per field; an edited cell applies the table."""
        editors = {c.name: {"type": "list", "values": ["", *c.options]} if c.kind == "choice"
                   else {"type": "input"} for c in control.columns}
        table = pn.widgets.Tabulator(_table_frame(control.columns, control.value),
                                     name=control.label, show_index=False, editors=editors,
                                     selectable="checkbox", layout="fit_data_fill",
                                     sizing_mode="stretch_width", max_height=200,
                                     css_classes=[f"param-{control.name}"])
        table.on_edit(lambda _event: self.apply_table(control.name))
        return table

    def _table_panel(self, name: str, table: Any) -> Any:
        """The table with its label, help and buttons to add an empty row and to remove
        the ticked rows (the last one where none is ticked)."""
        columns = self.table_columns[name]

        def add(_: Any) -> None:
            blank = {c.name: "" for c in columns}
            table.value = _table_frame(columns, [*table.value.to_dict("records"), blank])

        def remove(_: Any) -> None:
            rows = table.value.to_dict("records")
            drop = set(table.selection) or {len(rows) - 1}
            table.value = _table_frame(columns, [r for i, r in enumerate(rows)
                                                 if i not in drop])
            table.selection = []
            self.apply_table(name)
        add_button = pn.widgets.Button(name="add row", css_classes=[f"add-{name}"])
        add_button.on_click(add)
        remove_button = pn.widgets.Button(name="remove row", css_classes=[f"remove-{name}"])
        remove_button.on_click(remove)
        required = ", ".join(c.name for c in columns if c.required)
        note = f"vectors as `x, y`; required: {required}" if required else "vectors as `x, y`"
        return pn.Column(pn.pane.Markdown(f"{table.name} ({note})", margin=(0, 5)), table,
                         pn.Row(add_button, remove_button))

    def apply_table(self, name: str) -> None:
        """Apply the records the table of parameter ``name`` holds (empty rows skipped)."""
        self._on_parameter(name, self.parameter_widgets[name].value.to_dict("records"))

    def _on_parameter(self, name: str, value: Any) -> None:
        if self._syncing:
            return
        spec = self.model.spec(name)
        try:
            if name in self.table_columns:
                value = value_of_rows(spec, self.table_columns[name], value)
            elif spec.kind == "json":
                value = parse_json_value(spec, value)
            message = self.live.set_parameters({name: value})
        except ParameterError as error:
            message = f"not applied: {error.message}"
        self.live.message = message
        self._render(full=True)

    def _sync_widgets(self) -> None:
        """Show the live run's parameter values (after a preset) without applying them."""
        import json

        self._syncing = True
        try:
            for name, widget in self.parameter_widgets.items():
                value = self.live.params[name]
                if name in self.table_columns:
                    columns = self.table_columns[name]
                    widget.value = _table_frame(columns, rows_of(columns, value))
                elif self.model.spec(name).kind == "json":
                    widget.value = json.dumps(value)
                else:
                    widget.value = value
        finally:
            self._syncing = False

    def _run_controls(self) -> list[Any]:
        play = pn.widgets.Button(name="Start", button_type="primary", css_classes=["run-start"])

        def toggle(_: Any) -> None:
            self.running = not self.running
            play.name = "Pause" if self.running else "Start"
        play.on_click(toggle)
        step = pn.widgets.Button(name="Step", css_classes=["run-step"])
        step.on_click(lambda _: self._advance())
        reset = pn.widgets.Button(name="Reset", css_classes=["run-reset"])
        reset.on_click(lambda _: self._reset())
        speed = pn.widgets.IntSlider(name=f"speed [steps per frame, dt = {self.live.dt:g}]",
                                     start=1, end=200, value=self.live.steps_per_frame)
        speed.param.watch(lambda e: setattr(self.live, "steps_per_frame", int(e.new)), "value")
        seed = pn.widgets.IntInput(name="seed (reset to use it)", value=self.live.seed,
                                   start=0, css_classes=["run-seed"])
        seed.param.watch(lambda e: self._reset(int(e.new)), "value")
        save = pn.widgets.Button(name="Save", button_type="success", css_classes=["run-save"])
        save.on_click(lambda _: self._save())
        out = [pn.Row(play, step, reset, save), speed, seed]
        if self.model.time_mode == "continuous":
            dt = pn.widgets.FloatInput(name=f"dt [{self.model.time_units}] (restarts)",
                                       value=self.live.dt, css_classes=["run-dt"])
            dt.param.watch(lambda e: self._apply(lambda: self.live.set_dt(e.new)), "value")
            out.append(dt)
        return out

    def _preset_buttons(self) -> list[Any]:
        buttons = []
        for preset in self.model.presets:
            button = pn.widgets.Button(name=preset.name, description=preset.description,
                                       css_classes=["preset"])
            button.on_click(lambda _, p=preset: self._apply(lambda: self.live.apply_preset(p)))
            buttons.append(button)
        return buttons

    def _apply(self, change: Callable[[], str]) -> None:
        try:
            self.live.message = change()
        except ParameterError as error:
            self.live.message = f"not applied: {error.message}"
        self._sync_widgets()
        self._render(full=True)

    # ----------------------------------------------------------------- views

    def _build_scene(self) -> None:
        self.scene = figure(width=SCENE_SIZE, height=SCENE_SIZE, x_range=Range1d(0, 1),
                            y_range=Range1d(0, 1), tools="pan,wheel_zoom,reset",
                            toolbar_location="above", output_backend="canvas")
        self.scene.xgrid.visible = self.scene.ygrid.visible = False
        self.glyph_sources: dict[str, ColumnDataSource] = {}
        self._limits: tuple[float, float, float, float] | None = None
        self.scene_pane = pn.pane.Bokeh(self.scene)
        self.fallback = None
        self._fallback_drawn = -math.inf

    def _add_glyph(self, glyph: Glyph) -> ColumnDataSource:
        name = glyph.name
        if glyph.kind == "image":
            return self._add_image(glyph)
        colour = _hex(glyph.colour)
        if glyph.kind == "arrows":
            source = ColumnDataSource(_arrow_data(glyph), name=f"glyph-{name}")
            self.scene.segment("x0", "y0", "x1", "y1", source=source, color=colour,
                               line_width=glyph.size, legend_label=name)
            self.scene.scatter("x1", "y1", marker="dot", size=9, source=source,
                               color=colour)
        elif glyph.kind == "lines":
            source = ColumnDataSource({"x": glyph.x, "y": glyph.y}, name=f"glyph-{name}")
            self.scene.line("x", "y", source=source, color=colour, line_width=glyph.size,
                            legend_label=name)
        else:
            source = ColumnDataSource({"x": glyph.x, "y": glyph.y}, name=f"glyph-{name}")
            self.scene.scatter("x", "y", marker=glyph.marker, size=glyph.size, color=colour,
                               source=source, legend_label=name)
        self.scene.legend.location = "top_left"
        self.scene.legend.background_fill_alpha = 0.6
        return source

    def _add_image(self, glyph: Glyph) -> ColumnDataSource:
        """A field on a grid beneath the other marks, coloured by ``glyph.colour`` from 0
        to ``glyph.high``, the lowest values transparent."""
        from bokeh.models import LinearColorMapper
        from matplotlib import colormaps
        from matplotlib.colors import to_hex

        colours = colormaps[glyph.colour](np.linspace(0.0, 1.0, 64))
        mapper = LinearColorMapper(palette=[to_hex(c) for c in colours], low=0.0,
                                   high=glyph.high, low_color="#00000000")
        source = ColumnDataSource({"image": [glyph.field]}, name=f"glyph-{glyph.name}")
        renderer = self.scene.image(image="image", x=glyph.x[0], y=glyph.y[0],
                                    dw=glyph.x[1] - glyph.x[0], dh=glyph.y[1] - glyph.y[0],
                                    color_mapper=mapper, source=source, global_alpha=0.8,
                                    level="image")
        renderer.name = f"image-{glyph.name}"
        return source

    @staticmethod
    def _glyph_data(glyph: Glyph) -> dict[str, Any]:
        """The data of ``glyph``'s source."""
        if glyph.kind == "arrows":
            return _arrow_data(glyph)
        if glyph.kind == "image":
            return {"image": [glyph.field]}
        return {"x": glyph.x, "y": glyph.y}

    def _draw_scene(self, full: bool = False) -> None:
        view = self.live.view()
        frame = view.sizes["frame"] - 1
        glyphs = self.drawing.glyphs(view, frame, trail=TRAIL)
        if glyphs is None:
            now = time.perf_counter()
            if full or now - self._fallback_drawn >= FALLBACK_PERIOD:
                self._draw_fallback(view, frame)
                self._fallback_drawn = now
            return
        seen = set()
        for glyph in glyphs:
            seen.add(glyph.name)
            source = self.glyph_sources.get(glyph.name)
            if source is None:
                self.glyph_sources[glyph.name] = self._add_glyph(glyph)
            else:
                source.data = self._glyph_data(glyph)
        for name, source in self.glyph_sources.items():
            if name not in seen and any(len(column) for column in source.data.values()):
                source.data = {key: [] for key in source.data}
        self._fit(self.drawing.limits(view))

    def _fit(self, box: tuple[float, float, float, float] | None) -> None:
        """Widen the scene's ranges to ``box`` (never shrink them within a run), square."""
        if box is None or not all(np.isfinite(box)):
            return
        if self._limits is not None:
            old = self._limits
            box = (min(box[0], old[0]), max(box[1], old[1]), min(box[2], old[2]),
                   max(box[3], old[3]))
            if box == old:
                return
        self._limits = box
        half = max(box[1] - box[0], box[3] - box[2], 1e-9) / 2
        cx, cy = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
        self.scene.x_range.update(start=cx - half, end=cx + half)
        self.scene.y_range.update(start=cy - half, end=cy + half)

    def _draw_fallback(self, view: Any, frame: int) -> None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(5.6, 5.6), dpi=64)
        ax = fig.add_subplot(projection=self.drawing.projection(view))
        self.drawing.draw(ax, view, frame, trail=TRAIL)
        self.drawing.fix_limits(ax, view)
        if self.fallback is None:
            self.fallback = pn.pane.Matplotlib(fig, tight=True, interactive=False)
            self.scene_pane.object = None
            self.scene_pane.visible = False
        else:
            self.fallback.object = fig

    def _build_series(self) -> None:
        time_label = "step" if self.model.time_mode == "steps" \
            else f"t [{self.model.time_units}]"
        self.series = ColumnDataSource({"t": [], **{o.name: [] for o in
                                                    (self.primary, *self.others)}},
                                       name="series")
        self.primary_plot = figure(height=230, width=460, x_axis_label=time_label,
                                   y_axis_label=self.primary.long_name, tools="",
                                   toolbar_location=None)
        self.primary_plot.line("t", self.primary.name, source=self.series, line_width=2)
        if self.primary.bounded:
            self.primary_plot.y_range = Range1d(self.primary.low, self.primary.high)
        self.other_plot = None
        if self.others:
            self.other_plot = figure(height=230, width=460, x_axis_label=time_label,
                                     tools="", toolbar_location=None)
            for observable, colour in zip(self.others, ("#ff7f0e", "#2ca02c"), strict=False):
                unit = "" if observable.units in ("1", "") else f" [{observable.units}]"
                self.other_plot.line("t", observable.name, source=self.series, color=colour,
                                     line_width=2, legend_label=observable.long_name + unit)
            self.other_plot.legend.location = "top_left"
            self.other_plot.legend.label_text_font_size = "8pt"

    def _update_series(self, full: bool) -> None:
        names = [self.primary.name, *(o.name for o in self.others)]
        times = self.live.times
        if full or self._sent > len(times):
            self.series.data = {"t": list(times),
                                **{n: list(self.live.series[n]) for n in names}}
        elif len(times) > self._sent:
            self.series.stream({"t": times[self._sent:],
                                **{n: self.live.series[n][self._sent:] for n in names}})
        self._sent = len(times)

    def _build_structure(self) -> None:
        """The structure plot: number fluctuations (log-log) and the density profile, one
        shown at a time, and the selector between them."""
        style = {"height": 250, "width": 460, "tools": "", "toolbar_location": None}
        self.fluctuation_plot = figure(x_axis_type="log", y_axis_type="log",
                                       x_axis_label="mean box count <n>",
                                       y_axis_label="ΔN", **style)
        self.profile_plot = figure(x_axis_label="position along the mean heading / length "
                                                "(rear to front)",
                                   y_axis_label="density / mean density", **style)
        self.structure_sources = {name: ColumnDataSource({"x": [], "y": []},
                                                         name=f"structure-{name}")
                                  for name in ("frame", "mean", *map(str, REFERENCE_SLOPES))}
        sources = self.structure_sources
        for slope, dash in zip(REFERENCE_SLOPES, ("dashed", "dotted"), strict=True):
            self.fluctuation_plot.line("x", "y", source=sources[str(slope)], color="grey",
                                       line_dash=dash, legend_label=f"slope {slope:g}")
        for plot in (self.fluctuation_plot, self.profile_plot):
            plot.title.text_font_size = "9pt"
            plot.line("x", "y", source=sources["mean"], color="#d62728", line_width=2,
                      legend_label="running mean")
            plot.scatter("x", "y", source=sources["frame"], size=4, color="#1f77b4",
                         legend_label="this frame")
            plot.legend.location = "top_left"
            plot.legend.label_text_font_size = "8pt"
            plot.legend.background_fill_alpha = 0.6
        self.structure_measure = pn.widgets.RadioButtonGroup(
            options=list(MEASURES), value=default_measure(self.model, self.live.prepared),
            css_classes=["structure-measure"])
        self.structure.measure = self.structure_measure.value
        self.structure_measure.param.watch(self._on_measure, "value")
        self._show_measure()

    def _show_measure(self) -> None:
        fluctuations = self.structure.measure == FLUCTUATIONS
        self.fluctuation_plot.visible = fluctuations
        self.profile_plot.visible = not fluctuations

    def _on_measure(self, event: Any) -> None:
        self.structure.measure = event.new
        self._show_measure()
        with pn.io.hold():
            self._update_structure(full=True)

    def _update_structure(self, full: bool) -> None:
        """Send the structure measure when it is due (every frame it is computed)."""
        data = self.structure.update(self.live, force=full)
        if data is None:
            if full:  # nothing measurable (fewer than two entities): an empty plot
                for source in self.structure_sources.values():
                    source.data = {"x": [], "y": []}
            return
        self._show_structure(data)

    def _show_structure(self, data: StructureData) -> None:
        sources = self.structure_sources
        sources["frame"].data = {"x": data.x, "y": data.y}
        sources["mean"].data = {"x": data.mean_x, "y": data.mean_y}
        for slope in REFERENCE_SLOPES:
            x, y = data.references.get(slope, ((), ()))
            sources[str(slope)].data = {"x": x, "y": y}
        plot = self.fluctuation_plot if data.measure == FLUCTUATIONS else self.profile_plot
        plural = "s" if data.frames != 1 else ""
        plot.title.text = (f"{data.measure}: mean of {data.frames} frame{plural} "
                           f"(1 in {self.structure.every})")

    def _status_text(self) -> str:
        values = self.live.series[self.primary.name]
        value = values[-1] if values else math.nan
        now = time.perf_counter()
        self._ticks = [t for t in self._ticks if now - t < 2.0]
        rate = len(self._ticks) / 2.0 if self.running else 0.0
        text = (f"**{self.primary.long_name}** = <span class='order-value'>{value:.4f}</span>"
                f" &nbsp; · &nbsp; {self.live.time_text()} &nbsp; · &nbsp; "
                f"<span class='frame-rate'>{rate:.1f}</span> frames/s")
        if self.live.message:
            text += f"\n\n<span class='explore-message'>{self.live.message}</span>"
        return text

    def _render(self, full: bool = False) -> None:
        """Redraw the scene, the plots and the status, sent to the page as one message."""
        if full:
            self._limits = None
        with pn.io.hold():
            self._draw_scene(full)
            self._update_series(full)
            if self.structure is not None:
                self._update_structure(full)
            self.status.object = self._status_text()

    # ----------------------------------------------------------------- actions

    def _advance(self) -> None:
        try:
            going = self.live.advance()
        except Exception as error:  # a model's failure is shown, never a silent stall
            going = self.live.stop(f"{type(error).__name__}: {error}")
        if going:
            self._render()
        else:
            self.running = False
            self.status.object = self._status_text()

    def tick(self) -> None:
        """The frame callback: one frame when running."""
        if self.running:
            self._ticks.append(time.perf_counter())
            self._advance()

    def _reset(self, seed: int | None = None) -> None:
        self.live.reset(seed)
        self.live.message = f"reset (seed {self.live.seed})"
        self._render(full=True)

    def _save(self) -> None:
        from flocklab.explore.save import save

        try:
            config, run_file = save(self.live, self.out_dir)
            self.live.message = f"saved {config} and {run_file}"
        except Exception as error:  # shown to the user, never a traceback
            self.live.message = f"not saved: {error}"
        self.status.object = self._status_text()

    def layout(self) -> Any:
        """The page: title, run controls, presets, parameters | scene | plots."""
        presets = self._preset_buttons()
        side = [pn.pane.Markdown(f"### {self.model.title or self.model.name}\n"
                                 f"{self.model.description}"),
                *self._run_controls()]
        if presets:
            side += [pn.pane.Markdown("**Presets**"), pn.FlexBox(*presets)]
        side += [pn.pane.Markdown("**Parameters**"),
                 *(self._table_panel(name, widget) if name in self.table_columns else widget
                   for name, widget in self.parameter_widgets.items())]
        scene = pn.Column(self.scene_pane, *([self.fallback] if self.fallback else []))
        plots = [self.status, self.primary_plot,
                 *([self.other_plot] if self.other_plot is not None else [])]
        if self.structure is not None:
            plots += [self.structure_measure, self.fluctuation_plot, self.profile_plot]
        plots = pn.Column(*plots)
        page = pn.Row(pn.Column(*side, width=330, scroll=True, height=900), scene, plots)
        pn.state.add_periodic_callback(self.tick, period=FRAME_PERIOD_MS)
        return page


def serve(model: Model, port: int = 0, show: bool = True, out_dir: str | Path = "explore",
          seed: int = 0, structure: bool = True) -> None:
    """Serve the explorer of ``model`` on ``localhost:port`` until interrupted
    (``structure=False``: without the structure plot)."""
    pn.extension(notifications=False)
    pn.serve({"/": lambda: Explorer(model, out_dir, seed, structure).layout()}, port=port,
             show=show,
             title=f"flocklab explore {model.name}", address="localhost",
             websocket_origin=[f"localhost:{port}", f"127.0.0.1:{port}"] if port else None,
             threaded=False, verbose=True)
