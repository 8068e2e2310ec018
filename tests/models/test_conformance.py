"""Every registered model, the test-only plugins included, passes the conformance suite
(flocklab.testing.check_model), and looking models up or parsing the workflow stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import flocklab
from flocklab.core.model import Observable
from flocklab.testing import CHECKS, check_model

REPO = Path(__file__).resolve().parents[2]

#: Small settings per model (defaults where they are already small); several per model
#: where a variant keeps state of its own (predators, a cloth, a delay).
CASES = [
    ("vicsek", {"N": 60, "L": 4.0}, None),
    ("vicsek", {"N": 50, "L": 3.0, "noise": "vectorial", "eta": 0.4, "update": "backward"},
     None),
    ("zonal", {"N": 30}, None),
    ("zonal", {"N": 30, "predators": [{"position": [-5.0, 0.0, 0.0]}],
               "obstacles": [{"centre": [9.0, 0.0, 0.0], "radius": 1.0}]},
     {"snapshot_every": 0.5}),
    ("dragon_chain", {"n_benches": 20}, None),
    ("dragon_agents", {"N": 6}, None),
    ("dragon_agents", {"N": 5, "delay": 0.05}, None),
    ("springs", {}, None),
    ("springs", {"structure": "cloth", "nx": 4, "ny": 4, "initial": "perturbed",
                 "integrator": "implicit_euler"},
     {"dt": 0.005}),
    ("forces", {"N": 30}, None),
    ("forces", {"N": 30, "leaders": 2, "subleaders": 2, "w_alignment": 0.5, "turn_angle": 90.0,
                "turn_time": 0.5, "noise": 0.1, "escape_mix": 0.5,
                "predators": [{"position": [0.0, 0.0], "target": "densest",
                               "capture_radius": 1.0, "rest_time": 0.1,
                               "potential": {"C_r": 2.0, "l_r": 0.5, "C_a": 1.0, "l_a": 2.0}}]},
     {"snapshot_every": 0.25}),
    ("forces", {"N": 30, "dim": 3, "box": 12.0, "start_radius": 3.0, "form": "non_inertial",
                "w_alignment": 1.0, "noise": 0.2, "leaders": 3,
                "predators": [{"position": [6.0, 6.0, 6.0], "target": "nearest"}]}, None),
    ("foraging", {"N": 30}, None),
    ("foraging", {"N": 30, "Lx": 30.0, "Ly": 20.0, "obstacles": [{"rect": [10, 5, 14, 12]}],
                  "predators": [{"position": [25.0, 15.0]}], "regrowth": 0.05,
                  "food": [{"rect": [2, 2, 8, 8], "density": 3.0}]}, {"snapshot_every": 0.4}),
    ("oscillator", {}, None),
    ("noisy_phases", {"N": 20}, None),
    ("ising", {"L": 6, "T": 2.3}, None),
    ("potts", {"L": 5, "T": 1.0, "q": 4, "clusters": 2, "init": "ordered"}, None),
]


@pytest.mark.parametrize(("name", "params", "control"),
                         [pytest.param(*case, id=f"{case[0]}-{k}") for k, case in
                          enumerate(CASES)])
def test_model_passes_the_conformance_suite(name, params, control):
    assert len(check_model(name, params, control)) == len(CHECKS)


def test_every_registered_model_is_checked():
    assert set(flocklab.available_models()) == {name for name, _, _ in CASES}


def test_a_model_that_resolves_its_parameters_again_fails_the_count(monkeypatch):
    """A hook that resolves and checks the parameters again (here: initial_state, as the
    engines' constructors did) is caught."""
    from flocklab_testmodels.noisy_phases import NoisyPhases

    initial = NoisyPhases.initial_state

    def resolving(self, params, rng):
        return initial(self, self.resolve(self.public(params)), rng)

    monkeypatch.setattr(NoisyPhases, "initial_state", resolving)
    with pytest.raises(AssertionError, match="resolved its parameters 2 times and checked "
                                             "them 2 times"):
        check_model("noisy_phases", {"N": 20}, checks=["check_prepared_once"])


def test_a_broken_model_fails_the_suite_naming_the_check(monkeypatch):
    from flocklab_testmodels.noisy_phases import NoisyPhases

    monkeypatch.setattr(NoisyPhases, "primary_observable", "not_declared")
    with pytest.raises(AssertionError, match="check_declarations: primary_observable"):
        check_model("noisy_phases", checks=["check_declarations"])


@pytest.mark.parametrize(("attribute", "value", "words"), [
    ("primary_is_order_parameter", False, "critical controls need primary_is_order_parameter"),
    ("observables", (Observable("coherence", "phase coherence r", "1", 0.0, 2.0, "r"),),
     r"an order parameter's declared range is \[0, 1\]")])
def test_an_order_parameter_is_declared_with_its_range_and_its_critical_controls(
        monkeypatch, attribute, value, words):
    """Only an order parameter on [0, 1] gets the Binder cumulant, the time to order and the
    histogram, and a critical fit or finite-size scaling needs them."""
    from flocklab_testmodels.noisy_phases import NoisyPhases

    monkeypatch.setattr(NoisyPhases, attribute, value)
    with pytest.raises(AssertionError, match=words):
        check_model("noisy_phases", checks=["check_declarations"])


def test_a_censored_time_with_an_undeclared_indicator_fails_the_suite(monkeypatch):
    from flocklab_testmodels.noisy_phases import NoisyPhases

    from flocklab.core.model import Metric

    metrics = (*NoisyPhases.run_metrics, Metric("escape_time", "time to escape", "1",
                                                 event="escaped"))
    monkeypatch.setattr(NoisyPhases, "run_metrics", metrics)
    with pytest.raises(AssertionError, match="event 'escaped' is not a run metric"):
        check_model("noisy_phases", checks=["check_declarations"])


@pytest.mark.parametrize(("name", "claimed"), [("noisy_phases", False), ("oscillator", True)])
def test_a_wrong_uses_seed_fails_the_suite(monkeypatch, name, claimed):
    """A ``uses_seed`` that disagrees with the runs fails ``check_reproducible``: noisy_phases
    (noise from its seed) claiming False, and an oscillator made to ignore its seed (fixed
    phases) claiming True."""
    model = type(flocklab.get_model(name))
    monkeypatch.setattr(model, "uses_seed", lambda self, params: claimed)
    if claimed:  # make the oscillator ignore its seed while it claims to use it
        original = model.initial_state
        monkeypatch.setattr(model, "initial_state", lambda self, params, rng: original(
            self, params, __import__("numpy").random.default_rng(0)))
    with pytest.raises(AssertionError, match="check_reproducible: two seeds give"):
        check_model(name, checks=["check_reproducible"])


def test_model_lookup_and_a_workflow_dry_run_import_no_numba(tmp_path):
    """In a fresh interpreter, every registered model is looked up, then the Snakefile is
    dry-run on the default config: neither numba nor scipy.integrate is imported. (The first
    parse of a config with sensitivity studies samples their designs with SALib, which
    imports scipy.stats and with it scipy.integrate; the designs are then kept under
    .snakemake/flocklab/designs, so the parse measured here is the second.)"""
    code = f"""
import sys
import flocklab
from flocklab.core.model import Observable
for name in flocklab.available_models():
    flocklab.get_model(name)
heavy = [m for m in ("numba", "scipy.integrate") if m in sys.modules]
from snakemake.cli import main
try:
    main(["-s", {str(REPO / "Snakefile")!r}, "--directory", {str(tmp_path)!r}, "-n",
          "--cores", "1", "--quiet"])
except SystemExit as exit:
    assert not exit.code, exit.code
print(" ".join(heavy), "|", " ".join(m for m in ("numba", "scipy.integrate")
                                       if m in sys.modules))
"""
    for _ in range(2):  # the first parse samples the sensitivity designs
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
    assert list((tmp_path / ".snakemake" / "flocklab" / "designs").glob("*.npz"))
    lookup, dry_run = result.stdout.strip().splitlines()[-1].split("|")
    assert lookup.strip() == "", f"looking up models imports {lookup}"
    assert dry_run.strip() == "", f"a dry run of the workflow imports {dry_run}"
