"""Model registry: ``get_model(name)`` returns a model; importing this package registers all."""

from flocklab.models import vicsek  # noqa: F401  (registers the model)
from flocklab.models.base import MODELS, Model, RunControl, SimulationError, get_model, register

__all__ = ["MODELS", "Model", "RunControl", "SimulationError", "get_model", "register"]
