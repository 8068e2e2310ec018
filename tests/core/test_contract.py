"""The model contract, tested through the two test-only models of tests/plugins.

They are found through the ``flocklab.models`` entry-point group (the plugin directory is on
``sys.path``, see conftest), and run on the shared driver with no model-specific code in
flocklab.
"""

from __future__ import annotations

import importlib.metadata

import numpy as np
import pytest
from flocklab_testmodels.noisy_phases import NoisyPhases
from flocklab_testmodels.oscillator import Oscillator, exact_solution

import flocklab
from flocklab.core import driver, registry
from flocklab.core import time as base
from flocklab.core.checkpoint import Checkpoint, fingerprint
from flocklab.core.model import Model
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.registry import get_model, register
from flocklab.core.time import RunControl


def test_plugin_models_are_found_through_the_entry_point_group():
    assert {"oscillator", "noisy_phases", "vicsek"} <= set(flocklab.available_models())
    assert isinstance(get_model("oscillator"), Oscillator)
    assert registry.entry_point_models()["noisy_phases"] == \
        "flocklab_testmodels.noisy_phases:NoisyPhases"


def _oscillator_run(method: str, dt: float):
    ds = flocklab.simulate("oscillator", N=3, omega=2.0, zeta=0.1, method=method, t_end=4.0,
                           dt=dt, record_every=0.2, snapshot_every=4.0, seed=5)
    x0, v0 = ds["x"].values[0], ds["v"].values[0]
    exact_x, _ = exact_solution(x0, v0, 2.0, 0.1, ds["time"].values)
    return np.abs(ds["x0"].values - exact_x[:, 0]).max()


def test_oscillator_matches_the_exact_solution_at_each_method_s_order():
    """RK4's global error is C dt^4 (here C ~ omega^5 t / 120 < 1, so < 1e-8 at dt = 0.01);
    semi-implicit Euler's is first order: halving dt halves it (ratio 2 within 10 %)."""
    assert _oscillator_run("rk4", 0.01) < 1e-8
    assert _oscillator_run("rk4", 0.04) / _oscillator_run("rk4", 0.02) == pytest.approx(16, 0.1)
    coarse, fine = _oscillator_run("semi_implicit_euler", 0.02), \
        _oscillator_run("semi_implicit_euler", 0.01)
    assert 1e-4 < fine < 0.05
    assert coarse / fine == pytest.approx(2.0, rel=0.1)


def test_time_coordinate_is_in_model_units_and_frames_follow_the_schedule():
    ds = flocklab.simulate("oscillator", t_end=1.0, dt=0.01, record_every=0.25,
                           snapshot_every=0.5, seed=1)
    np.testing.assert_allclose(ds["time"].values, [0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(ds["frame"].values, [0, 0.5, 1.0])
    assert ds["time"].attrs["units"] == "s" and ds.attrs["steps"] == 100


@pytest.mark.parametrize(("controls", "key"), [
    ({"t_end": 1.0, "dt": 0.3}, "t_end"), ({"t_end": 1.0, "record_every": 0.015}, "record_every"),
    ({"t_end": 1.0, "snapshot_every": 0.333}, "snapshot_every"), ({"t_end": -1.0}, "t_end"),
])
def test_continuous_time_controls_must_be_whole_steps(controls, key):
    with pytest.raises(ParameterError) as error:
        flocklab.simulate("oscillator", seed=1, **controls)
    assert error.value.name == key


def test_checkpointed_run_equals_an_uninterrupted_one(tmp_path):
    model = get_model("noisy_phases")
    params = model.resolve({"N": 30, "K": 2.0})
    control = RunControl(steps=90, seed=4, snapshot_every=30)
    plain = driver.simulate(model, params, control)
    checkpoint = Checkpoint(tmp_path / "c.npz", 20, fingerprint(model.name, params,
                                                                   control.as_attrs()))
    # saves at 20, 40, 60, 80
    first = driver.simulate(model, params, control, checkpoint=checkpoint)
    assert checkpoint.load()[0] == 80
    resumed = driver.simulate(model, params, control, checkpoint=checkpoint)  # resumes at 80
    for ds in (first, resumed):
        np.testing.assert_array_equal(ds["coherence"].values, plain["coherence"].values)
        np.testing.assert_array_equal(ds["theta"].values, plain["theta"].values)


def test_chunking_does_not_change_a_noisy_model(monkeypatch):
    control = RunControl(steps=50, seed=2, snapshot_every=50)
    whole = driver.simulate(get_model("noisy_phases"), {"N": 20}, control)
    monkeypatch.setattr(NoisyPhases, "chunk_updates", 20 * 3)
    chunked = driver.simulate(get_model("noisy_phases"), {"N": 20}, control)
    np.testing.assert_array_equal(whole["theta"].values, chunked["theta"].values)


def test_a_duplicate_model_name_is_an_error(monkeypatch):
    class Impostor(Oscillator):
        pass

    with pytest.raises(ValueError, match="registered twice"):
        register(Impostor)
    points = importlib.metadata.EntryPoints([
        importlib.metadata.EntryPoint("twin", "a.b:C", registry.ENTRY_POINT_GROUP),
        importlib.metadata.EntryPoint("twin", "d.e:F", registry.ENTRY_POINT_GROUP)])
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: points)
    registry.entry_point_models.cache_clear()
    try:
        with pytest.raises(ValueError, match="'twin' is registered twice"):
            registry.entry_point_models()
    finally:
        monkeypatch.undo()
        registry.entry_point_models.cache_clear()


def test_structured_parameters_are_checked_with_the_element_named():
    spec = ParameterSpec("obstacles", "json", [], "circular obstacles", schema={
        "type": "array", "items": {"type": "object", "required": ["radius"],
                                   "properties": {"radius": {"type": "number",
                                                             "exclusiveMinimum": 0}}}})
    assert spec.coerce([{"radius": 1.0}]) == [{"radius": 1.0}]
    with pytest.raises(ParameterError, match=r"'obstacles\[1\]\.radius' = -2"):
        spec.coerce([{"radius": 1.0}, {"radius": -2}])


def test_a_non_finite_state_stops_the_run_naming_model_time_and_seed(monkeypatch):
    class Exploding(Oscillator):
        name = "exploding_test_model"

        def step(self, state, params, first_step, k):
            state["x"][:] = np.inf if first_step + k >= 30 else 0.0

    monkeypatch.setattr(Exploding, "chunk_updates", 4 * 10)  # checks every 10 steps
    with pytest.raises(flocklab.SimulationError, match=r"exploding_test_model.*non-finite in "
                                                       r"t = \(0\.2, 0\.3\] s.*seed 9"):
        driver.simulate(Exploding(), {}, RunControl(t_end=1.0, dt=0.01, seed=9))


def test_models_declare_what_the_stages_read():
    for name in flocklab.available_models():
        model = get_model(name)
        assert isinstance(model, Model)
        assert model.primary_observable in [obs.name for obs in model.observables]
        assert model.time_mode in base.TIME_MODES
        for control in model.critical_controls:
            assert control.ordered_side in ("below", "above")
