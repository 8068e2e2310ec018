"""Adaptive run lengths: a run extended until it holds K independent samples is the run of
that length, stops where the data say, resumes from a checkpoint to the same record, and is
configured and refused by key."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import yaml

from flocklab.core.autocorrelation import independent_samples
from flocklab.core.checkpoint import Checkpoint, fingerprint
from flocklab.core.driver import run
from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.core.time import RunControl, check_points
from flocklab.pipeline import validate_config


@pytest.fixture(autouse=True)
def one_thread():
    """The serial kernels: two threads on a machine whose cores are busy spin for nothing."""
    from flocklab.core.threads import set_threads

    previous = set_threads(1)
    yield
    set_threads(previous)


PARAMS = {"N": 60, "L": 4.0, "eta": 2.5, "v0": 0.03, "r": 1.0, "init": "aligned"}


def test_check_points_grow_by_half_and_end_at_the_cap():
    assert check_points(2000, 6000) == [2000, 3000, 4500, 6000]
    assert check_points(100, 100) == [100]
    points = check_points(30, 1000, record=4)
    assert all(p % 4 == 0 for p in points[1:]) and points[-1] == 1000
    assert all(b <= 1.5 * a + 4 for a, b in itertools.pairwise(points))


def test_an_extended_run_is_the_run_of_its_final_length():
    model = get_model("vicsek")
    adaptive = run(model, PARAMS, RunControl(seed=5, steps=100, min_independent_samples=150,
                                             max_steps=2000))
    final = adaptive.grid.steps
    assert final in check_points(100, 2000) and final > 100   # near the transition: extended
    fixed = run(model, PARAMS, RunControl(seed=5, steps=final))
    assert np.array_equal(adaptive.series["order_parameter"], fixed.series["order_parameter"])
    assert adaptive.attrs["steps"] == final and adaptive.attrs["max_steps"] == 2000
    # it stopped at the first check point where the second half held 150 samples
    series = adaptive.series["order_parameter"]
    for stop in check_points(100, 2000):
        half = series[stop // 2 + 1:stop + 1]
        if stop < final:
            assert independent_samples(half) < 150
        elif stop == final and final < 2000:
            assert independent_samples(half) >= 150


def test_an_easy_run_stops_at_its_first_length_and_a_hard_one_at_the_cap():
    model = get_model("vicsek")
    calm = run(model, {**PARAMS, "eta": 0.0}, RunControl(seed=1, steps=200,
                                                          min_independent_samples=10,
                                                          max_steps=3000))
    assert calm.grid.steps == 200   # v_a = 1 exactly: tau_int = 1
    hard = run(model, PARAMS, RunControl(seed=1, steps=100, min_independent_samples=10**6,
                                         max_steps=400))
    assert hard.grid.steps == 400 and np.isfinite(hard.series["order_parameter"]).all()


def test_an_adaptive_run_resumes_from_a_checkpoint_to_the_same_record(tmp_path):
    model = get_model("vicsek")
    control = RunControl(seed=9, steps=100, min_independent_samples=150, max_steps=2000)
    reference = run(model, PARAMS, control)
    identity = fingerprint("vicsek", model.resolve(PARAMS), control.as_attrs())
    path = tmp_path / "run.ckpt.npz"
    saving = Checkpoint(path, 70, identity)
    # a run stopped early by a checkpoint that is kept: save at 70, 140, ... then resume
    first = run(model, PARAMS, control, checkpoint=saving)
    assert path.exists()
    resumed = run(model, PARAMS, control, checkpoint=saving)
    for record in (first, resumed):
        assert record.grid.steps == reference.grid.steps
        assert np.array_equal(record.series["order_parameter"],
                              reference.series["order_parameter"])


@pytest.mark.parametrize(("change", "key"), [
    ({"min_independent_samples": 50}, "max_steps"),
    ({"min_independent_samples": 50, "max_steps": 50}, "max_steps"),
    ({"max_steps": 500}, "min_independent_samples"),
])
def test_adaptive_keys_are_checked_before_any_job(change, key):
    config = {"studies": {"s": {"model": "vicsek", "steps": 100, "burn_in": 10, **change}}}
    with pytest.raises(ConfigError, match=f"studies.s.{key}"):
        validate_config(config)


def test_the_run_identity_holds_the_adaptive_controls_but_not_burn_in():
    control = RunControl(seed=1, steps=10, min_independent_samples=5, max_steps=20)
    assert control.as_attrs()["min_independent_samples"] == 5
    with pytest.raises(ParameterError, match="max_steps"):
        RunControl(seed=1, steps=10, min_independent_samples=5)
    config = yaml.safe_load("""
studies:
  s: {model: vicsek, steps: 100, min_independent_samples: 5, max_steps: 300, burn_in: 10}
""")
    study = validate_config(config)["s"]
    point = next(study.points())
    assert study.grid(point).steps == 300   # resources are asked for the longest run
    assert "burn_in" not in study.control(point, 0).as_attrs()


def test_a_derived_factor_swept_as_an_axis_sets_its_parameter():
    config = yaml.safe_load("""
studies:
  d:
    model: vicsek
    params: {eta: 2.0}
    sweep: [{L: [5.0, 10.0]}, {density: [0.2, 1.0]}]
    replicates: 2            # finite-size scaling resamples them
    steps: 20
    burn_in: 5
    critical: {control: rho}
    fss: {control: rho, size: L}
""")
    study = validate_config(config)["d"]
    found = {point.label: study.params(point)["N"] for point in study.points()}
    assert found == {"L=5.0_density=0.2": 5, "L=5.0_density=1.0": 25,
                     "L=10.0_density=0.2": 20, "L=10.0_density=1.0": 100}
    config["studies"]["d"]["params"]["N"] = 10
    with pytest.raises(ConfigError, match=r"studies.d.sweep\[1\].density"):
        validate_config(config)
