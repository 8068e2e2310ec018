"""The interface every model implements, and the model registry.

A model is a small object that knows its parameters (:class:`ParameterSpec`),
checks a parameter set, and turns (parameters, run controls, seed) into an
:class:`xarray.Dataset`. Stages never look inside a model: they call
:func:`get_model` with the name from the config, so a new model plugs into the
simulate → metrics → fit → figures pipeline by registering itself here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import xarray as xr

from flocklab.checkpoint import Checkpoint
from flocklab.parameters import ParameterError, ParameterSpec, resolve_parameters


class SimulationError(RuntimeError):
    """A simulation produced non-finite values; nothing is written."""


@dataclass(frozen=True)
class RunControl:
    """Run length and recording options, common to all time-stepping models.

    Parameters
    ----------
    steps : int
        Number of time steps after the initial state (``>= 1``).
    seed : int
        Seed of the run's random stream (``0 <= seed < 2**63``).
    snapshot_every : int
        Record the particle state every this many steps (0: only the order
        parameter time series). Frame 0 is always the initial state.
    snapshot_start : int
        First step recorded after the initial frame: frames are
        ``t = 0`` and ``t = snapshot_start + k * snapshot_every <= steps``.
    """

    steps: int
    seed: int
    snapshot_every: int = 0
    snapshot_start: int = 0

    def __post_init__(self) -> None:
        checks = [
            ("steps", self.steps, 1, None),
            ("seed", self.seed, 0, 2**63 - 1),
            ("snapshot_every", self.snapshot_every, 0, None),
            ("snapshot_start", self.snapshot_start, 0, self.steps),
        ]
        for name, value, low, high in checks:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParameterError(name, f"'{name}' = {value!r} must be an integer")
            if value < low or (high is not None and value > high):
                allowed = f">= {low}" + (f" and <= {high}" if high is not None else "")
                raise ParameterError(name, f"'{name}' = {value!r} is out of range: allowed is "
                                           f"an integer {allowed}")

    def frame_times(self) -> list[int]:
        """Steps at which a snapshot frame is recorded (always includes 0)."""
        if self.snapshot_every == 0:
            return [0]
        times = range(self.snapshot_start, self.steps + 1, self.snapshot_every)
        return [0, *[t for t in times if t > 0]]

    def as_attrs(self) -> dict[str, int]:
        return {"steps": self.steps, "seed": self.seed, "snapshot_every": self.snapshot_every,
                "snapshot_start": self.snapshot_start}


class Model(ABC):
    """Base class of a registered model.

    Subclasses set :attr:`name`, :attr:`parameters` and :attr:`reference` and
    implement :meth:`simulate`; :meth:`check` adds cross-parameter rules.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    reference: ClassVar[str]
    parameters: ClassVar[tuple[ParameterSpec, ...]]

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled, types coerced, ranges and cross-rules checked."""
        params = resolve_parameters(self.parameters, given)
        self.check(params)
        return params

    def check(self, params: dict[str, Any]) -> None:  # noqa: B027  (optional hook)
        """Cross-parameter rules (override); raise ParameterError."""

    def spec(self, name: str) -> ParameterSpec:
        for spec in self.parameters:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def derived(self, params: Mapping[str, Any]) -> dict[str, tuple[float, dict[str, str]]]:
        """Derived scalars (value, attrs) such as the density; empty by default."""
        return {}

    #: Derived quantities that a sensitivity study may vary, with the parameter each sets
    #: (e.g. ``{"density": "N"}``); see :meth:`set_factor`.
    factor_targets: ClassVar[dict[str, str]] = {}

    def factor_names(self) -> list[str]:
        """Names a sensitivity study may vary: numeric parameters and derived factors."""
        numeric = [spec.name for spec in self.parameters if spec.kind in ("int", "float")]
        return [*numeric, *self.factor_targets]

    def factor_target(self, name: str) -> str:
        """The model parameter that factor ``name`` sets."""
        return self.factor_targets.get(name, name)

    def set_factor(self, params: dict[str, Any], name: str, value: float) -> None:
        """Set factor ``name`` to ``value`` in ``params`` (in place).

        A numeric parameter is set directly (integers rounded); a derived factor is
        mapped by :meth:`set_derived_factor` after the other factors are set.
        """
        if name in self.factor_targets:
            self.set_derived_factor(params, name, value)
            return
        spec = self.spec(name)
        params[name] = round(value) if spec.kind == "int" else float(value)

    def set_derived_factor(self, params: dict[str, Any], name: str,
                           value: float) -> None:
        """Map a derived factor onto the model parameters (override with factor_targets)."""
        raise ParameterError(name, f"model '{self.name}' cannot vary '{name}'")

    @abstractmethod
    def simulate(self, params: Mapping[str, Any], control: RunControl, *,
                 progress: bool = False, checkpoint: Checkpoint | None = None) -> xr.Dataset:
        """Run one simulation and return its dataset (in memory, not written).

        With ``checkpoint``, save the state every ``checkpoint.every`` steps and resume
        from a matching checkpoint; the result must equal an uninterrupted run's.
        """


MODELS: dict[str, type[Model]] = {}


def register(cls: type[Model]) -> type[Model]:
    """Class decorator adding a model to the registry under ``cls.name``."""
    MODELS[cls.name] = cls
    return cls


def get_model(name: str) -> Model:
    """Instance of the registered model ``name``.

    Raises
    ------
    ParameterError
        If no model of that name is registered.
    """
    try:
        return MODELS[name]()
    except KeyError:
        raise ParameterError("model", f"unknown model '{name}'; available: "
                                      f"{', '.join(sorted(MODELS))}") from None
