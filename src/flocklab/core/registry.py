"""The model registry: names to model classes.

Models register through the entry-point group ``flocklab.models`` (``pyproject.toml``), so a
package outside flocklab adds a model without editing it; a model module is imported only
when its model is first asked for. :func:`register` adds a class defined in the running
process (a notebook, a test).
"""

from __future__ import annotations

import functools
import importlib

from flocklab.core.model import Model
from flocklab.core.parameters import ParameterError

MODELS: dict[str, type[Model]] = {}
ENTRY_POINT_GROUP = "flocklab.models"


def register(cls: type[Model]) -> type[Model]:
    """Add a model class to the registry under ``cls.name``: a model defined in a script or
    a notebook then runs with :func:`flocklab.simulate`, :func:`flocklab.sweep` and the
    checks of :func:`flocklab.testing.check_model` (an installed package registers its
    models through the ``flocklab.models`` entry-point group instead, which also makes them
    visible to the command line and the pipeline). Usable as a class decorator.

    Parameters
    ----------
    cls : type
        A :class:`flocklab.core.model.Model` subclass (the contract is in
        :mod:`flocklab.core.model`).

    Returns
    -------
    type
        ``cls``.

    Examples
    --------
    >>> import numpy as np
    >>> import flocklab
    >>> from flocklab.core.model import Model, Observable
    >>> from flocklab.core.parameters import ParameterSpec
    >>> @flocklab.register
    ... class Decay(Model):
    ...     name = "decay"
    ...     description = "relaxation x(t+1) = (1 - a) x(t) of N values"
    ...     reference = "none"
    ...     parameters = (ParameterSpec("N", "int", 10, "number of values", low=1),
    ...                   ParameterSpec("a", "float", 0.1, "decay rate", low=0.0, high=1.0))
    ...     observables = (Observable("mean", "mean value", "1", 0.0, 1.0, "m"),)
    ...     primary_observable = "mean"
    ...     def initial_state(self, params, rng):
    ...         return {"x": rng.uniform(0.0, 1.0, params["N"])}
    ...     def step(self, state, params, first_step, k):
    ...         state["x"] *= (1.0 - params["a"]) ** k
    ...     def observe(self, state, params):
    ...         return {"mean": float(state["x"].mean())}
    ...     def snapshot(self, state, params):
    ...         return {}
    >>> run = flocklab.simulate("decay", a=0.5, steps=3, seed=1)
    >>> bool(run["mean"][-1] < run["mean"][0])
    True

    Raises
    ------
    ValueError
        If another class is registered under the same name.
    """
    existing = MODELS.get(cls.name)
    if existing is not None and existing is not cls and \
            (existing.__module__, existing.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"model name '{cls.name}' is registered twice: by "
                         f"{existing.__module__}.{existing.__qualname__} and "
                         f"{cls.__module__}.{cls.__qualname__}")
    MODELS[cls.name] = cls
    return cls


@functools.cache
def entry_point_models() -> dict[str, str]:
    """``name -> "module:Class"`` of the ``flocklab.models`` entry-point group.

    Read once per process; nothing is imported until a model is asked for.

    Raises
    ------
    ValueError
        If two installed packages register different classes under one name.
    """
    from importlib.metadata import entry_points

    found: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found and found[point.name] != point.value:
            raise ValueError(f"model name '{point.name}' is registered twice: by "
                             f"{found[point.name]} and {point.value}")
        found[point.name] = point.value
    return found


def _load(name: str) -> None:
    value = entry_point_models().get(name)
    if value is None:
        return
    module, _, attr = value.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if cls.name != name:
        raise ValueError(f"entry point '{name}' = {value} names a model called '{cls.name}'")
    register(cls)


def get_model(name: str) -> Model:
    """Instance of the registered model ``name`` (its module imported on first use).

    Raises
    ------
    ParameterError
        If no model of that name is registered.
    """
    if name not in MODELS:
        _load(name)
    try:
        return MODELS[name]()
    except KeyError:
        from flocklab.core.names import nearest_names

        raise ParameterError("model", f"unknown model '{name}'"
                                      f"{nearest_names(name, available_models())}") from None


def available_models() -> list[str]:
    """Names of all registered models (entry points included)."""
    return sorted({*MODELS, *entry_point_models()})
