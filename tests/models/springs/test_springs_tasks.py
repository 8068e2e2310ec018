"""The springs model's tasks (flocklab.models.springs.tasks): options checked before any job
runs, their declarations, and one small task against closed forms."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.tasks import Task
from flocklab.models.springs import Springs
from flocklab.models.springs.tasks import TASKS


def run_task(model, name, params, options, out_dir):
    task = model.task(name)
    return task.run(model, params, task.resolve(params, options), Path(out_dir))


@pytest.mark.parametrize(("task", "options", "key"), [
    ("stability", {"masses": [0.1, -1.0]}, "masses"),
    ("stability", {"methods": ["leapfrog"]}, "methods"),
    ("stability", {"span": [10.0, 1.0]}, "span"),
    ("stability", {"points": 2}, "points"),
    ("stability", {"damping_kinds": ["viscous"]}, "damping_kinds"),
    ("stability", {"cloth_run_time": 0.0}, "cloth_run_time"),
    ("stability", {"rate": 0.0}, "rate"),
    ("stability", {"periods": -1.0}, "periods"),
    ("cloth_cost", {"t_end": 0.0}, "t_end"),
    ("cloth_cost", {"repeats": 3}, "repeats"),
    ("accuracy", {"zeta": 1.5}, "zeta"),
    ("accuracy", {"steps": []}, "steps"),
    ("orbit", {}, "task"),
])
def test_bad_options_name_the_key(task, options, key):
    model = Springs()
    with pytest.raises(ParameterError) as error:
        model.task(task).resolve(model.resolve({}), options)
    assert error.value.name == key


def test_tasks_are_declared_objects_with_parameter_spec_options():
    model = Springs()
    assert model.tasks is TASKS and [task.name for task in TASKS] == \
        ["stability", "cloth_cost", "accuracy"]
    for task in model.tasks:
        assert isinstance(task, Task)
        assert all(isinstance(spec, ParameterSpec) for spec in task.options)
    resolved = model.task("stability").resolve(model.resolve({}), {"masses": [0.1]})
    assert resolved["masses"] == [0.1] and resolved["span"] == [0.01, 100.0]
    assert model.task("accuracy").resolve_figure({}) == {"methods": None}


def test_stability_task_matches_the_closed_form_of_one_oscillator(tmp_path):
    """One free point on one spring with absolute damping c: semi-implicit Euler's theory
    limit is (-b + sqrt(b^2 + 4 w^2)) / w^2 with b = c/m, w^2 = k/m (module docstring of
    flocklab.models.springs.stability); the measured limit is within the sweep's resolution plus
    3 % (slow growth near the edge in short runs)."""
    model = Springs()
    params = model.resolve({"n_points": 2, "tip_force": [0.0, 0.0], "damping_kind": "absolute",
                            "damping": 0.2, "mass": 0.1, "stiffness": 50.0})
    result = run_task(model, "stability", params,
                      {"methods": ["semi_implicit_euler"], "run_time": 1.0, "min_steps": 100,
                       "points": 7, "refine": 5, "span": [0.1, 10.0]}, str(tmp_path))
    b, w2 = 0.2 / 0.1, 50.0 / 0.1
    closed = (-b + math.sqrt(b * b + 4.0 * w2)) / w2
    (row,) = result["table"]
    assert row["dt_theory"] == pytest.approx(closed, rel=1e-4)
    # the limit crosses rho = 1 steeply: at the rate threshold it moves by < 1e-4
    assert row["dt_theory_rate"] == pytest.approx(closed, rel=1e-4)
    assert row["dt_measured"] <= closed * (1 + 1e-4) < row["dt_unstable"]
    assert row["dt_unstable"] / row["dt_measured"] - 1.0 <= result["resolution"] + 1e-9
    # the edge run: unstable by growth, the theory's rho there above 1, rates as theory's
    assert row["reason"] in ("growth_rate", "energy_growth", "blow_up")
    assert row["rho_theory_unstable"] > 1.0 and row["agreement"] == "agree"
    assert row["growth_rate"] > result["rate_threshold"] == 1e-3
    # NaN when that run decayed below 1e-10 of its initial energy (no fit)
    assert not row["growth_rate_stable"] > 1e-3 and row["rate_threshold"] == 1e-3
    assert result["agreement"] == {"agree": 1, "nonlinear": 0, "saturated": 0,
                                   "missed_growth": 0}
    assert result["max_steps"] == 4000
    assert result["verdicts"] == [] and "explicit_euler" in result["verdicts_note"]
    assert (tmp_path / "stability.csv").read_text().startswith("configuration,method")
    json.dumps(result, allow_nan=True)


def test_cloth_run_time_applies_to_the_cloth_rows_only(tmp_path, monkeypatch):
    import flocklab.models.springs.claims as claims

    used = {}
    real = claims.stability_table

    def spy(configs, methods, **measure):
        used[configs[0][0]] = measure["run_time"]
        return real(configs, methods, **{**measure, "points": 3, "refine": 0})

    monkeypatch.setattr(claims, "stability_table", spy)
    model = Springs()
    run_task(model, "stability", model.resolve({"structure": "chain"}),
             {"masses": [0.1], "damping_kinds": ["absolute"], "methods": ["rk4"],
              "cloth_size": 2, "run_time": 0.2, "cloth_run_time": 0.05, "min_steps": 10},
             str(tmp_path))
    assert used == {"tongue absolute m=0.1": 0.2, "cloth 2x2": 0.05}
