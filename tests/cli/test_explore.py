"""The live explorer without a browser: controls generated from every model's declarations,
the live run's parameter changes (next step or restart), presets, glyphs, and Save (the
snippet validates against the schema, the run file opens with its provenance)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.registry import available_models, get_model
from flocklab.explore.controls import (
    TableColumn,
    control_of,
    controls_of,
    nice_step,
    parse_json_value,
    rows_of,
    table_columns,
    value_of_rows,
)
from flocklab.explore.live import LiveRun
from flocklab.figures.drawing import Glyph, drawing_of

KINDS = {"int": "slider", "float": "slider", "choice": "menu", "bool": "switch",
         "json": ("table", "json")}


@pytest.mark.parametrize("name", available_models())
def test_every_parameter_has_a_control_showing_its_default(name: str) -> None:
    model = get_model(name)
    controls = controls_of(model)
    assert [c.name for c in controls] == [spec.name for spec in model.parameters]
    for spec, control in zip(model.parameters, controls, strict=True):
        assert control.widget in KINDS[spec.kind], spec.name
        if spec.unit not in ("1", ""):
            assert f"[{spec.unit}]" in control.label
        if control.widget == "slider":
            assert control.start <= spec.default <= control.end, spec.name
            assert (control.hard_start, control.hard_end) == (spec.low, spec.high)
            assert control.step > 0
            spec.coerce(control.start)  # a slider's ends are allowed values
            spec.coerce(control.end)
        elif control.widget == "menu":
            assert control.options == spec.choices and control.value == spec.default
        elif control.widget == "json":
            assert parse_json_value(spec, control.value) == spec.default
        elif control.widget == "table":
            assert value_of_rows(spec, control.columns, control.value) == spec.default


def test_lists_of_flat_records_get_a_table_and_other_structures_json() -> None:
    zonal, forces, foraging = (get_model(n) for n in ("zonal", "forces", "foraging"))
    predators = table_columns(zonal.spec("predators").schema)
    assert predators[0] == TableColumn("position", "vector", required=True)
    target = next(c for c in predators if c.name == "target")
    assert target.kind == "choice" and target.options == ("nearest", "optimal")
    food = table_columns(foraging.spec("food").schema)  # oneOf rectangles and discs
    assert [c.name for c in food] == ["rect", "density", "centre", "radius"]
    assert [c.name for c in food if c.required] == ["density"]
    assert table_columns(forces.spec("predators").schema) is None  # nested potential
    assert table_columns(foraging.spec("obstacles").schema) is None  # vertex lists
    assert table_columns(zonal.spec("food").schema) is None  # one object or null
    assert control_of(zonal.spec("food")).widget == "json"


def test_a_table_round_trips_its_records_and_names_a_bad_cell() -> None:
    spec = get_model("zonal").spec("obstacles")
    columns = table_columns(spec.schema)
    value = [{"centre": [1.5, -2.0], "radius": 0.5}, {"centre": [0.0, 3.0], "radius": 2.0,
                                                        "k": 10.0}]
    rows = rows_of(columns, value)
    assert rows[0] == {"centre": "1.5, -2", "radius": "0.5", "influence": "", "k": ""}
    blank = {c.name: "" for c in columns}
    assert value_of_rows(spec, columns, [*rows, blank]) == value  # empty rows left out
    assert value_of_rows(spec, columns, [{"centre": "1 2", "radius": float("nan"),
                                          "k": None} | {"radius": "3"}]) == \
        [{"centre": [1.0, 2.0], "radius": 3.0}]
    with pytest.raises(ParameterError, match=r"obstacles.*row 2, radius: 'big'"):
        value_of_rows(spec, columns, [rows[0], {"centre": "0, 0", "radius": "big"}])
    with pytest.raises(ParameterError, match="obstacles"):  # required centre missing
        value_of_rows(spec, columns, [{"radius": "1"}])
    with pytest.raises(ParameterError, match="obstacles"):  # negative radius
        value_of_rows(spec, columns, [{"centre": "0, 0", "radius": "-1"}])


def test_the_explorer_applies_an_edited_table_to_the_live_run() -> None:
    pytest.importorskip("panel")
    from flocklab.explore.app import Explorer

    explorer = Explorer(get_model("zonal"))
    table = explorer.parameter_widgets["obstacles"]
    assert list(table.value.columns) == ["centre", "radius", "influence", "k"]
    frame = table.value.copy()
    frame.loc[0] = ["20, 3, 0", "1.5", "", ""]  # 3-D, outside the start region
    table.value = frame
    explorer.apply_table("obstacles")
    assert explorer.live.params["obstacles"] == [{"centre": [20.0, 3.0, 0.0], "radius": 1.5}]
    assert "obstacles" in explorer.live.message
    frame.loc[0, "radius"] = "-1"
    table.value = frame
    explorer.apply_table("obstacles")
    assert explorer.live.message.startswith("not applied")
    assert explorer.live.params["obstacles"] == [{"centre": [20.0, 3.0, 0.0], "radius": 1.5}]


def test_slider_ranges_follow_the_declared_bounds() -> None:
    eta = control_of(get_model("vicsek").spec("eta"))
    assert (eta.start, eta.end) == (0.0, pytest.approx(2 * math.pi))
    assert eta.label == "eta [rad]" and eta.value == 2.0
    box = control_of(ParameterSpec("L", "float", 7.0, "box", low=0.0, low_inclusive=False))
    assert 0.0 < box.start < 0.5 and box.end == 70.0  # open side: ten times the default
    count = control_of(ParameterSpec("N", "int", 300, "count", low=1))
    assert (count.start, count.end, count.step) == (1, 3000, 1)
    free = control_of(ParameterSpec("angle", "float", 0.0, "angle", "degree"))
    assert free.start == -10.0 and free.end == 10.0
    assert nice_step(0.0314) == 0.02 and nice_step(7.0) == 5.0


def test_a_bad_json_value_names_the_parameter() -> None:
    spec = get_model("zonal").spec("obstacles")
    with pytest.raises(ParameterError, match="obstacles"):
        parse_json_value(spec, "[{")
    with pytest.raises(ParameterError, match="obstacles"):
        parse_json_value(spec, '[{"radius": -1}]')


def test_a_change_takes_effect_at_the_next_step_and_a_shape_change_restarts() -> None:
    model = get_model("vicsek")
    live = LiveRun(model, {"N": 200, "L": 5.0, "eta": 0.1}, seed=1)
    for _ in range(30):
        live.advance()
    positions = live.state["state"].copy()
    message = live.set_parameters({"eta": 6.0})
    assert live.step == 30 and "eta changed at step 30" in message
    assert np.array_equal(live.state["state"], positions)  # the state carried over
    ordered = live.series["order_parameter"][-1]
    for _ in range(150):
        live.advance()
    assert ordered > 0.8 and live.series["order_parameter"][-1] < 0.4  # noise now rules
    message = live.set_parameters({"N": 300})
    assert "restarted" in message and live.step == 0
    assert live.view().sizes["particle"] == 300
    with pytest.raises(ParameterError, match="eta"):
        live.set_parameters({"eta": 7.0})
    assert live.params["eta"] == 6.0


def test_the_live_run_equals_the_driver_run() -> None:
    from flocklab.core.driver import run

    model = get_model("vicsek")
    live = LiveRun(model, {"N": 100, "L": 5.0}, seed=4, steps_per_frame=3)
    for _ in range(10):
        live.advance()
    record = run(model, live.params, live.control())
    assert np.array_equal(record.series["order_parameter"], live.series["order_parameter"])


def test_the_explicit_euler_preset_blows_up_and_stops() -> None:
    model = get_model("springs")
    live = LiveRun(model, seed=0, steps_per_frame=10)
    preset = next(p for p in model.presets if p.name == "tongue, explicit Euler")
    live.apply_preset(preset)
    assert live.dt == 0.01 and live.params["integrator"] == "explicit_euler"
    frames = 0
    while live.advance():
        frames += 1
        assert frames < 2000, "explicit Euler did not blow up"
    assert live.message.startswith("stopped") and "blew up" in live.message
    assert not live.advance()


@pytest.mark.parametrize("name", available_models())
def test_every_preset_resolves_and_every_model_gives_glyphs_or_a_fallback(name: str) -> None:
    model = get_model(name)
    for preset in model.presets:
        model.resolve(preset.params)
    live = LiveRun(model, seed=2, steps_per_frame=2)
    live.advance()
    live.advance()
    view = live.view()
    glyphs = drawing_of(model).glyphs(view, view.sizes["frame"] - 1, trail=4)
    if glyphs is None:  # the live view draws it with matplotlib instead
        assert "x" not in view or "y" not in view
        return
    assert glyphs and all(isinstance(glyph, Glyph) for glyph in glyphs)
    for glyph in glyphs:
        assert glyph.kind in ("points", "arrows", "lines", "image")
        assert glyph.x.shape == glyph.y.shape
        if glyph.kind == "image":
            assert glyph.x.shape == (2,) and glyph.field.ndim == 2 and glyph.high > 0
        if glyph.kind == "arrows":
            assert glyph.u.shape == glyph.x.shape == glyph.v.shape


def test_vicsek_glyphs_are_the_arrows_of_the_frame() -> None:
    live = LiveRun(get_model("vicsek"), {"N": 50, "L": 4.0}, seed=3)
    live.advance()
    view = live.view()
    trail, arrows = drawing_of(live.model).glyphs(view, 1, trail=1)
    assert arrows.kind == "arrows" and np.array_equal(arrows.x, view["x"].values[1])
    assert np.allclose(np.hypot(arrows.u, arrows.v), 0.04 * 4.0)
    assert np.allclose(np.arctan2(arrows.v, arrows.u), view["theta"].values[1])
    assert trail.kind == "lines" and np.isnan(trail.x[2::3]).all()


def test_the_foraging_food_field_is_drawn_live_and_shrinks_where_agents_eat() -> None:
    model = get_model("foraging")
    live = LiveRun(model, seed=2, steps_per_frame=20)
    for _ in range(10):
        live.advance()
    view = live.view()
    first, last = (drawing_of(model).glyphs(view, frame)[0] for frame in (0, -1))
    food = view["food"].values
    assert first.kind == "image" and first.name == "food"
    assert first.field.size == food.shape[-1] and first.field.shape[0] > 1
    assert np.array_equal(last.field.ravel(), food[-1])
    assert (first.x[1], first.y[1]) == (view.attrs["Lx"], view.attrs["Ly"])
    assert last.field.sum() < first.field.sum()  # eaten


@pytest.mark.parametrize("name", ["vicsek", "springs"])
def test_save_writes_a_valid_study_and_a_run_file_with_provenance(name: str, tmp_path) -> None:
    import xarray as xr

    from flocklab.explore.save import save
    from flocklab.pipeline import validate_config

    model = get_model(name)
    live = LiveRun(model, seed=5, steps_per_frame=2)
    changed = {"eta": 1.0} if name == "vicsek" else {"stiffness": 40.0}
    live.set_parameters(changed)
    for _ in range(6):
        live.advance()
    config, run_file = save(live, tmp_path)
    document = yaml.safe_load(config.read_text())
    studies = validate_config(document)
    (study,) = studies.values()
    assert study.model == name and study.fixed == changed
    with xr.open_dataset(run_file) as run:
        assert run.attrs["seed"] == 5 and run.attrs["model"] == name
        assert "git_commit" in run.attrs and "flocklab_version" in run.attrs
        assert run.attrs["source"] == "flocklab explore"
        assert float(run["time"].values[-1]) == pytest.approx(live.step * live.dt)
        primary = run[model.primary_observable].values
        assert np.allclose(primary, live.series[model.primary_observable], equal_nan=True)
    assert not list(tmp_path.glob("*.tmp*"))
