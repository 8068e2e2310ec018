"""Flocklab: simulation and analysis pipeline for models of collective motion."""

from __future__ import annotations

from typing import Any

import xarray as xr

from flocklab.models import MODELS, RunControl, SimulationError, get_model
from flocklab.parameters import ParameterError
from flocklab.provenance import package_version

__version__ = package_version()

__all__ = ["MODELS", "ParameterError", "RunControl", "SimulationError", "__version__",
           "get_model", "simulate"]


def simulate(model: str, *, steps: int, seed: int, snapshot_every: int = 0,
             snapshot_start: int = 0, progress: bool | None = None, **params: Any) -> xr.Dataset:
    """Run one simulation of a registered model and return its dataset.

    Examples
    --------
    >>> import flocklab
    >>> ds = flocklab.simulate("vicsek", N=100, L=5.0, eta=0.1, steps=100, seed=1)
    >>> ds.order_parameter.sizes["time"]
    101
    """
    control = RunControl(steps=steps, seed=seed, snapshot_every=snapshot_every,
                         snapshot_start=snapshot_start)
    return get_model(model).simulate(params, control, progress=progress)
