"""Model registry: ``get_model(name)`` returns a model.

Models register through the entry-point group ``flocklab.models`` (``pyproject.toml``), so
a package outside flocklab adds a model without editing it; a model module is imported
only when its model is first asked for.
"""

from flocklab.models.base import (
    MODELS,
    CriticalControl,
    Metric,
    Model,
    Observable,
    Resources,
    RunControl,
    SimulationError,
    SnapshotVariable,
    TimeGrid,
    available_models,
    get_model,
    register,
)

__all__ = ["MODELS", "CriticalControl", "Metric", "Model", "Observable", "Resources",
           "RunControl", "SimulationError", "SnapshotVariable", "TimeGrid",
           "available_models", "get_model", "register"]
