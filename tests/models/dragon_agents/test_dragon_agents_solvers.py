"""The integrator comparison as the penalty stiffens (flocklab.models.dragon_agents.solvers and
the model's ``solvers`` task): exact self-reference, error ordering, the step-count
scaling, the verdict rules and option checks."""

from __future__ import annotations

import numpy as np
import pytest

from flocklab.core.parameters import ParameterError
from flocklab.models.dragon_agents import DragonAgents
from flocklab.models.dragon_agents.solvers import compare_solvers, growth_exponents
from flocklab.models.dragon_agents.tasks import stiffness_verdicts

SMALL = {"N": 4, "start": "behind", "cross_track_gain": 1.0}


def test_a_method_against_itself_has_zero_error():
    rows = compare_solvers(SMALL, (1e3,), ("RK45",), t_end=0.5, records=11,
                           reference=("RK45", 1e-6, 1e-9))
    assert rows[0]["error_m"] == 0.0
    assert rows[0]["steps"] > 0 and rows[0]["nfev"] >= 6 * rows[0]["steps"]


def test_error_against_the_reference_falls_with_the_tolerance():
    """Radau at rtol 1e-4 / 1e-6 / 1e-8: each error is positive, within a few hundred
    tolerances of the motion's 20 m scale, and falls as the tolerance is tightened."""
    errors = [compare_solvers(SMALL, (1e4,), ("Radau",), rtol=rtol, atol=rtol * 1e-3,
                              t_end=0.5, records=11)[0]["error_m"]
              for rtol in (1e-4, 1e-6, 1e-8)]
    assert 0 < errors[2] < errors[1] < errors[0] < 1e-4 * 20.0 * 100


def test_explicit_steps_grow_between_accuracy_and_stability_scaling():
    r"""The link frequency is :math:`\omega \propto k_\mathrm{pen}^{1/2}`. A step limited by
    the explicit stability region, :math:`h \propto 1/\omega`, gives steps :math:`\propto
    k^{0.5}`; an accuracy-limited step on a link mode of amplitude :math:`\propto 1/k`
    (RK45, error :math:`\propto A (\omega h)^5`) gives :math:`k^{0.3}`. RK45 must lie in
    between (with a small margin), never flat and never faster than stability allows."""
    rows = compare_solvers(SMALL, (1e4, 1e5, 1e6), ("RK45",), t_end=0.5, records=11)
    steps = [row["steps"] for row in rows]
    assert steps[0] < steps[1] < steps[2]
    assert 0.25 < growth_exponents(rows, "steps")["RK45"] < 0.55


def test_growth_exponent_of_a_power_law():
    rows = [{"method": m, "k_penalty": k, "steps": c * k**b}
            for m, c, b in (("A", 3.0, 0.5), ("B", 0.1, 1.25)) for k in (1e2, 1e4, 1e6)]
    slopes = growth_exponents(rows, "steps")
    assert slopes["A"] == pytest.approx(0.5, abs=1e-12)
    assert slopes["B"] == pytest.approx(1.25, abs=1e-12)
    assert np.isnan(growth_exponents(rows[:1], "steps")["A"])


def _row(method, k, steps, cpu):
    return {"method": method, "k_penalty": k, "steps": steps, "cpu_s": cpu,
            "error_m": 1e-7}


@pytest.mark.parametrize(("radau_cpu", "expected"), [(0.5, "holds"), (2.0, "fails"),
                                                      (1.1, "inconclusive")])
def test_verdict_rules(radau_cpu, expected):
    rows = [_row("RK45", 1e2, 10, 0.1), _row("RK45", 1e6, 30, 1.0),
            _row("DOP853", 1e2, 9, 0.1), _row("DOP853", 1e6, 9, 1.0),
            _row("Radau", 1e2, 5, 0.1), _row("Radau", 1e6, 6, radau_cpu)]
    verdicts = stiffness_verdicts(rows, {"RK45": 0.08, "DOP853": 0.0, "Radau": 0.01})
    explicit = [v["verdict"] for v in verdicts if "explicit" in v["claim"]]
    copes = [v["verdict"] for v in verdicts if "copes" in v["claim"]]
    assert explicit == ["holds", "fails"]  # RK45's steps rise, DOP853's stay flat
    assert copes == [expected]


@pytest.mark.parametrize(("options", "name"), [
    ({"methods": ["RK45", "Euler"]}, "methods"),
    ({"k_penalty": [100.0, -1.0]}, "k_penalty"),
    ({"k_penalty": [100.0]}, "k_penalty"),
    ({"rtol": 0.0}, "rtol"),
    ({"records": 2}, "records"),
    ({"steps": 3}, "steps"),
])
def test_bad_options_are_named(options, name):
    with pytest.raises(ParameterError) as info:
        model = DragonAgents()
        model.task("solvers").resolve(model.resolve({}), options)
    assert info.value.name == name
