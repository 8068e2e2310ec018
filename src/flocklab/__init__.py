"""Flocklab: simulation and analysis pipeline for models of collective motion.

The package imports lazily: ``import flocklab`` costs no numba, xarray or pandas; each
submodule pays for what it uses when it is first used.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs ~10 ms per job
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    import xarray as xr

    from flocklab.core.time import RunControl

__all__ = ["ParameterError", "RunControl", "SimulationError", "__version__",
           "available_models", "get_model", "open_study", "register", "simulate", "sweep"]

#: Subpackages and modules, imported on first access (``flocklab.analysis``).
SUBMODULES = ("analysis", "api", "cli", "config", "core", "figures", "geometry", "models",
              "pipeline", "references", "stages", "testing", "validation")

#: Keyword arguments of :func:`simulate` that are run controls, not model parameters.
CONTROL_NAMES = ("seed", "steps", "t_end", "dt", "record_every", "snapshot_every",
                 "snapshot_start")


# Names resolved on first use (PEP 562), so that ``import flocklab`` — paid by every
# pipeline job and by Snakemake's parse of the workflow — imports neither numpy nor numba.
_LAZY = {"RunControl": "flocklab.core.time", "SimulationError": "flocklab.core.model",
         "available_models": "flocklab.core.registry", "get_model": "flocklab.core.registry",
         "register": "flocklab.core.registry",
         "ParameterError": "flocklab.core.parameters",
         "sweep": "flocklab.api", "open_study": "flocklab.api"}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from flocklab.core.provenance import package_version

        return package_version()
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in SUBMODULES:
        return importlib.import_module(f"flocklab.{name}")
    raise AttributeError(f"module 'flocklab' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted({*__all__, *SUBMODULES})


def split_controls(arguments: dict[str, Any]) -> tuple[RunControl, dict[str, Any]]:
    """Split keyword arguments into a :class:`RunControl` and the model parameters."""
    from flocklab.core.parameters import ParameterError
    from flocklab.core.time import RunControl

    control = {name: arguments.pop(name) for name in CONTROL_NAMES if name in arguments}
    if "seed" not in control:
        raise ParameterError("seed", "'seed' is required")
    return RunControl(**control), arguments


def _seed_if_deterministic(model: Any, arguments: dict[str, Any]) -> None:
    """``seed=0`` for a run whose model draws no random numbers with these parameters
    (:meth:`~flocklab.core.model.Model.uses_seed`); a random run keeps needing one."""
    if "seed" in arguments:
        return
    params = {key: value for key, value in arguments.items() if key not in CONTROL_NAMES}
    if not model.uses_seed(model.resolve(params)):
        arguments["seed"] = 0


def simulate(model: str, *, progress: bool | None = None, threads: int | None = None,
             **arguments: Any) -> xr.Dataset:
    """Run one simulation of a registered model and return its dataset.

    Parameters
    ----------
    model : str
        Registered model name (:func:`available_models`).
    progress : bool or None
        Progress bar on stderr (``None``: only on a terminal).
    threads : int, optional
        Kernel threads (results do not depend on it); default: as they are.
    **arguments
        Model parameters and run controls: ``seed`` (optional for a deterministic run) and
        ``steps`` or ``t_end`` (with
        ``dt`` for continuous-time models), ``record_every``, ``snapshot_every``,
        ``snapshot_start`` (all in model time units).

    Examples
    --------
    >>> import flocklab
    >>> ds = flocklab.simulate("vicsek", N=100, L=5.0, eta=0.1, steps=100, seed=1)
    >>> ds.order_parameter.sizes["time"]
    101
    """
    from flocklab.api import kernel_threads
    from flocklab.core.driver import simulate as simulate_model
    from flocklab.core.registry import get_model

    instance = get_model(model)
    arguments = dict(arguments)
    _seed_if_deterministic(instance, arguments)
    control, params = split_controls(arguments)
    with kernel_threads(threads):
        return simulate_model(instance, params, control, progress=progress)
