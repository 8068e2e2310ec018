"""Every unit a model declares, and every unit its run files carry, is a UDUNITS-2 unit
(parsed by cf-units), so CF-aware tools (xarray with cf-xarray or pint, ncview, Panoply)
read them; dimensionless quantities say ``1``."""

from __future__ import annotations

import pytest

import flocklab
from flocklab.core.driver import simulate
from flocklab.core.registry import get_model
from flocklab.testing import _control

cf_units = pytest.importorskip("cf_units")


def _declared_units(model):
    yield from ((f"parameter {spec.name}", spec.unit) for spec in model.parameters)
    yield from ((f"observable {obs.name}", obs.units) for obs in model.observables)
    yield from ((f"metric {metric.name}", metric.units) for metric in model.run_metrics)
    yield from ((f"derived {q.name}", q.units) for q in model.derived_quantities)
    yield from ((f"snapshot {name}", var.units)
                for name, var in model.snapshot_variables.items())
    yield "time", model.time_units


@pytest.mark.parametrize("name", sorted(flocklab.available_models()))
def test_declared_units_are_udunits(name):
    model = get_model(name)
    bad = []
    for what, unit in _declared_units(model):
        try:
            cf_units.Unit(unit or "1")
        except ValueError:
            bad.append(f"{what}: {unit!r}")
    assert not bad, bad


@pytest.mark.parametrize("name", ["vicsek", "zonal", "springs", "dragon_agents"])
def test_run_file_units_are_udunits(name):
    model = get_model(name)
    run = simulate(model, {}, _control(model, None))
    bad = [f"{var}: {run[var].attrs['units']!r}" for var in run.variables
           if "units" in run[var].attrs and not _parses(run[var].attrs["units"])]
    assert not bad, bad


def _parses(unit: str) -> bool:
    try:
        cf_units.Unit(unit)
    except ValueError:
        return False
    return True
