"""One conformance suite for every model: ``check_model(name)``.

In the manner of scikit-learn's ``check_estimator``: the checks any registered model must
pass, whoever wrote it. Each check is a function ``check_*(name, params, control)`` in
:data:`CHECKS`; :func:`check_model` runs them all (or a subset) and raises
:class:`AssertionError` naming the check and what failed.

* declarations are coherent (names unique, the primary observable, size parameter (a
  parameter or a derived quantity), critical controls, snapshot variables, metrics, derived
  quantities and factors, tasks and drawing refer to things that exist; every default and
  every preset is a valid value);
* the model imports light (in a fresh interpreter, looking it up imports neither numba nor
  scipy.integrate);
* the same seed gives the same bytes, and a run's file carries every parameter;
* a run resolves and checks its parameters once, and its file records the declared part
  of the dict every hook received;
* chunking the time loop differently and resuming from a checkpoint give the same bytes
  (stepped models; a model that solves the whole interval at once is exempt);
* the drawing draws the first and last frames of a short run.

Runs use the model's defaults with a short run: 20 steps (``t_end = 20 dt`` for
continuous time), a record every step and a snapshot at the end, unless ``params`` or
``control`` say otherwise.

Examples
--------
>>> from flocklab.testing import check_model
>>> check_model("vicsek", params={"N": 50, "L": 4.0})[-1]
'check_drawing'
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from flocklab.core.model import IntervalModel, Model
from flocklab.core.parameters import ParameterSpec
from flocklab.core.registry import get_model
from flocklab.core.time import RunControl

#: Steps of the conformance runs.
STEPS = 20


def _control(model: Model, given: Mapping[str, Any] | None) -> RunControl:
    base: dict[str, Any] = {"seed": 12345}
    if model.time_mode == "steps":
        base.update(steps=STEPS, snapshot_every=STEPS)
    else:
        dt = model.default_dt
        base.update(t_end=STEPS * dt, dt=dt, snapshot_every=STEPS * dt)
    base.update(given or {})
    return RunControl(**base)


def _write(model: Model, params: Mapping[str, Any], control: RunControl, path: Path,
           **run: Any) -> bytes:
    from flocklab.core.driver import run as run_model

    run_model(model, params, control, **run).write(path)
    return path.read_bytes()


def check_declarations(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """Names unique; every declaration refers to something declared; defaults valid."""
    model = get_model(name)
    specs = {spec.name: spec for spec in model.parameters}
    assert len(specs) == len(model.parameters), "parameter names repeat"
    assert all(isinstance(spec, ParameterSpec) for spec in model.parameters)
    for spec in model.parameters:
        spec.coerce(spec.default)  # raises if a default is not an allowed value
    observables = [obs.name for obs in model.observables]
    assert len(set(observables)) == len(observables), "observable names repeat"
    assert model.primary_observable in observables, "primary_observable is not an observable"
    assert model.time_mode in ("steps", "continuous"), f"time_mode {model.time_mode!r}"
    coordinates = {*specs, *(q.name for q in model.derived_quantities)}
    assert model.size_parameter in (None, *coordinates), \
        "size_parameter is neither a parameter nor a derived quantity"
    primary = model.observable(model.primary_observable)
    assert not model.primary_is_order_parameter or (primary.low, primary.high) == (0.0, 1.0), \
        "an order parameter's declared range is [0, 1]"
    assert model.primary_is_order_parameter or not model.critical_controls, \
        "critical controls need primary_is_order_parameter"
    for control_ in model.critical_controls:
        assert control_.coordinate in coordinates, f"control {control_.key}: no coordinate"
        assert set(control_.needs) <= set(specs), f"control {control_.key}: needs unknown"
    for factor in model.derived_factors:
        assert factor.target in specs, f"factor {factor.name}: target is not a parameter"
    metrics = [metric.name for metric in model.run_metrics]
    assert len(set(metrics)) == len(metrics), "run metric names repeat"
    for metric in model.run_metrics:  # a censored time's indicator is a metric of the model
        assert not metric.event or metric.event in metrics, \
            f"metric {metric.name}: event {metric.event!r} is not a run metric"
        assert not (metric.event and metric.censored_at_end), \
            f"metric {metric.name}: censored by an indicator or at the end, not both"
    tasks = [task.name for task in model.tasks]
    assert len(set(tasks)) == len(tasks), "task names repeat"
    presets = [preset.name for preset in model.presets]
    assert len(set(presets)) == len(presets), "preset names repeat"
    for preset in model.presets:
        model.resolve(preset.params)  # raises if a preset is not a valid parameter set
        assert preset.dt is None or model.time_mode == "continuous", \
            f"preset {preset.name}: dt of a stepped model"
    resolved = model.resolve(params)
    for task in model.tasks:
        task.resolve(resolved, {})
        if task.figure:
            task.resolve_figure({})
    from flocklab.figures.drawing import drawing_of

    drawing_of(model)


def check_light_import(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """Looking the model up in a fresh interpreter imports neither numba nor scipy.integrate."""
    code = (f"import sys, flocklab; flocklab.get_model({name!r}); "
            "print(' '.join(m for m in ('numba', 'scipy.integrate') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    heavy = result.stdout.strip()
    assert not heavy, f"looking up model {name!r} imports {heavy}"


def check_reproducible(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """The same seed gives the same bytes; the file records every parameter; another seed
    gives other data exactly when :meth:`~flocklab.core.model.Model.uses_seed` says so."""
    model = get_model(name)
    with tempfile.TemporaryDirectory() as tmp:
        first = _write(model, params, control, Path(tmp) / "a.nc")
        second = _write(model, params, control, Path(tmp) / "b.nc")
        assert first == second, "two runs with the same seed differ"
        import xarray as xr

        with xr.open_dataset(Path(tmp) / "a.nc") as ds:
            missing = [spec.name for spec in model.parameters if spec.name not in ds.attrs]
            assert not missing, f"run file lacks the parameters {missing}"
            assert ds.attrs["seed"] == control.seed
            _write(model, params, replace(control, seed=control.seed + 1),
                   Path(tmp) / "c.nc")
            with xr.open_dataset(Path(tmp) / "c.nc") as other:
                same = ds.drop_attrs().identical(other.drop_attrs())
        uses_seed = model.uses_seed(model.resolve(params))
        assert same != uses_seed, ("two seeds give the same data, but uses_seed is True"
                                   if same else
                                   "two seeds give different data, but uses_seed is False")


def check_chunking(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """A time loop cut into chunks of two steps gives the bytes of one chunk."""
    model = get_model(name)
    if isinstance(model, IntervalModel):
        return
    resolved = model.resolve(params)
    small = get_model(name)
    small.chunk_updates = 2 * max(1, small.entity_count(resolved))
    large = get_model(name)
    large.chunk_updates = 1 << 40
    with tempfile.TemporaryDirectory() as tmp:
        assert _write(small, params, control, Path(tmp) / "a.nc") == \
            _write(large, params, control, Path(tmp) / "b.nc"), "chunking changes the run"


def check_checkpoint_resume(name: str, params: Mapping[str, Any], control: RunControl
                            ) -> None:
    """A run resumed from its last checkpoint gives the bytes of an uninterrupted run."""
    from flocklab.core.checkpoint import Checkpoint, fingerprint

    model = get_model(name)
    if isinstance(model, IntervalModel):
        return
    resolved = model.resolve(params)
    with tempfile.TemporaryDirectory() as tmp:
        plain = _write(model, params, control, Path(tmp) / "plain.nc")
        checkpoint = Checkpoint(Path(tmp) / "state.npz", 3,
                                fingerprint(model.name, resolved, control.as_attrs()))
        _write(model, params, control, Path(tmp) / "first.nc", checkpoint=checkpoint)
        saved = checkpoint.load()
        assert saved is not None and saved[0] > 0, "no checkpoint was saved"
        resumed = _write(model, params, control, Path(tmp) / "resumed.nc",
                         checkpoint=checkpoint)
        assert resumed == plain, "a resumed run differs from an uninterrupted one"


def check_prepared_once(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """A run of the pipeline's simulate stage (checkpointing on) resolves and checks its
    parameters exactly once, and its file records the declared part of the dict the hooks
    received (:meth:`~flocklab.core.model.Model.prepare`,
    :meth:`~flocklab.core.model.Model.public`).

    Counts every call of :func:`flocklab.core.parameters.resolve_parameters` (wherever
    imported) and of the model's :meth:`~flocklab.core.model.Model.check`.
    """
    import json
    from unittest import mock

    from flocklab.core import parameters
    from flocklab.stages.simulate import run_simulation

    model = get_model(name)
    counts = {"resolve_parameters": 0, "check": 0}
    seen: list[dict[str, Any]] = []
    resolve, check, initial = (parameters.resolve_parameters, type(model).check,
                               type(model).initial_state)

    def counting_resolve(specs: Any, given: Any) -> dict:
        counts["resolve_parameters"] += 1
        return resolve(specs, given)

    def counting_check(self: Model, params_: dict, grid: Any = None) -> None:
        counts["check"] += 1
        check(self, params_, grid)

    def seeing_initial_state(self: Model, params_: Any, rng: Any) -> dict:
        seen.append(params_)
        return initial(self, params_, rng)

    holders = [module for module in list(sys.modules.values())
               if getattr(module, "resolve_parameters", None) is resolve]
    with tempfile.TemporaryDirectory() as tmp:
        with contextlib.ExitStack() as spies:
            for module in holders:
                spies.enter_context(mock.patch.object(module, "resolve_parameters",
                                                      counting_resolve))
            spies.enter_context(mock.patch.object(type(model), "check", counting_check))
            spies.enter_context(mock.patch.object(type(model), "initial_state",
                                                  seeing_initial_state))
            run_simulation(name, params, control, Path(tmp) / "run.nc", progress=False,
                           checkpoint_every=max(1, control.grid(model).steps // 2))
        assert counts == {"resolve_parameters": 1, "check": 1}, (
            f"a run resolved its parameters {counts['resolve_parameters']} times and "
            f"checked them {counts['check']} times (once each expected)")
        import xarray as xr

        with xr.open_dataset(Path(tmp) / "run.nc") as ds:
            recorded = json.loads(ds.attrs["parameters"])
    hooks = json.loads(json.dumps(model.public(seen[0]), default=str))
    assert recorded == hooks, "the run file records other parameters than the hooks received"


def check_drawing(name: str, params: Mapping[str, Any], control: RunControl) -> None:
    """The model's drawing draws the first and the last frame of a short run in a snapshot
    figure and an animation frame, with no text off the canvas or over another text."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flocklab.core.driver import simulate
    from flocklab.figures import plotting
    from flocklab.figures.layout import layout_problems

    run = simulate(get_model(name), params, control)
    fig = plotting.snapshot_figure([run, run], ["first", "last"], ["(a)", "(b)"], trail=1,
                                   title=f"conformance check of {name}")
    problems = layout_problems(fig)
    plt.close(fig)
    animation = plotting.animate_run(run, trail=1, title=f"conformance check of {name}")
    animation._func(run.sizes["frame"] - 1)
    problems += layout_problems(animation._fig)
    plt.close(animation._fig)
    assert not problems, f"the drawing's layout: {problems[:3]}"


CHECKS: tuple[Callable[[str, Mapping[str, Any], RunControl], None], ...] = (
    check_declarations, check_light_import, check_reproducible, check_prepared_once,
    check_chunking, check_checkpoint_resume, check_drawing)


def check_model(name: str, params: Mapping[str, Any] | None = None,
                control: Mapping[str, Any] | None = None,
                checks: Sequence[str] | None = None) -> list[str]:
    """Run the conformance checks on registered model ``name``.

    Parameters
    ----------
    name : str
        A registered model (``flocklab.available_models()``).
    params : mapping, optional
        Model parameters of the check runs (default: the model's defaults).
    control : mapping, optional
        Run controls of the check runs (default: 20 steps, see the module docstring).
    checks : sequence of str, optional
        Names of the checks to run (default: all of :data:`CHECKS`).

    Returns
    -------
    list of str
        The checks that passed (all that ran).

    Raises
    ------
    AssertionError
        ``"<check>: <what failed>"`` for the first failing check.
    """
    model = get_model(name)
    params = dict(params or {})
    run_control = _control(model, control)
    passed = []
    for check in CHECKS:
        if checks is not None and check.__name__ not in checks:
            continue
        try:
            check(name, params, run_control)
        except AssertionError as error:
            raise AssertionError(f"{check.__name__}: {error}") from None
        passed.append(check.__name__)
    return passed
