r"""Tasks: a model's named computations besides time runs.

A task answers a question that is not one run of the time loop: the contest questions of
the bench dragon, the stability table of every integrator, a solver comparison. A model
declares its tasks as instances in :attr:`flocklab.core.model.Model.tasks`; the pipeline
runs them as ``tasks:`` entries of the config (``results/tasks/<name>/result.json`` and
the tables beside it), the command line as ``flocklab task MODEL TASK``.

Subclass contract
-----------------
Declarations (class attributes):

``name, description``
    Task name (unique within its model) and a one-line description.
``options``
    :class:`~flocklab.core.parameters.ParameterSpec` tuple: the task's options, checked
    like model parameters before any job runs (the one way to declare them).
``figure, figure_options``
    What :meth:`draw` shows (one line; empty when the task draws nothing) and the options
    a ``task`` figure of the config may pass to it.
``tests_claims``
    ``True`` when :meth:`run` returns ``verdicts`` (claims tested, each with ``claim``,
    ``verdict`` and ``evidence``), listed in the model's claims table of the report.

Methods:

:meth:`check` (override)
    Rules across options and parameters (e.g. ``low < high``); raise
    :class:`~flocklab.core.parameters.ParameterError` naming the option.
:meth:`run` (required)
    The computation: a JSON-ready document; tables go into ``out_dir``.
:meth:`draw` (with ``figure``)
    The task's figure from its written document.

:meth:`resolve` and :meth:`resolve_figure` are the lookups built on them. Task modules
import their kernels inside :meth:`run`, so that declaring a task costs no numba or scipy.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from flocklab.core.parameters import ParameterError, ParameterSpec, resolve_parameters

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model


class Task:
    """Base class of a model's named computation (contract in the module docstring)."""

    name: ClassVar[str]
    description: ClassVar[str]
    options: ClassVar[tuple[ParameterSpec, ...]] = ()
    figure: ClassVar[str] = ""
    figure_options: ClassVar[tuple[ParameterSpec, ...]] = ()
    #: ``True``: :meth:`run` returns ``verdicts`` (``claim``, ``verdict``, ``evidence``),
    #: which the model's claims table in the report lists.
    tests_claims: ClassVar[bool] = False

    def resolve(self, params: Mapping[str, Any], options: Mapping[str, Any]
                ) -> dict[str, Any]:
        """Options with defaults filled and every rule checked.

        Raises
        ------
        ParameterError
            Naming the option (unknown name, bad value, or a cross-option rule).
        """
        resolved = _resolve(self.options, options, f"task '{self.name}'")
        self.check(params, resolved)
        return resolved

    def resolve_figure(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options of this task's figure with defaults filled (ParameterError if the task
        draws no figure or an option is bad)."""
        if not self.figure:
            raise ParameterError("task", f"task '{self.name}' draws no figure")
        return _resolve(self.figure_options, options, f"figures of task '{self.name}'")

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        """Rules across options and model parameters (override)."""

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        """Run the task on resolved ``params`` and ``options``; return its JSON-ready
        document and write any tables into ``out_dir``."""
        raise NotImplementedError

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        """Draw the task's written document (keys ``task``, ``parameters``, ``options``,
        ``result``) on the empty matplotlib figure ``fig`` (override with ``figure``); the
        caller sets the title and saves."""
        raise NotImplementedError(f"task '{self.name}' draws no figure")


def _resolve(specs: tuple[ParameterSpec, ...], given: Mapping[str, Any], owner: str
             ) -> dict[str, Any]:
    """:func:`resolve_parameters` with messages that call the entries options."""
    unknown = sorted(set(given) - {spec.name for spec in specs})
    if unknown:
        allowed = ", ".join(spec.name for spec in specs) or "none"
        raise ParameterError(unknown[0], f"{owner} takes no option '{unknown[0]}'; "
                                         f"allowed: {allowed}")
    try:
        return resolve_parameters(specs, given)
    except ParameterError as error:
        message = error.message
        if message.startswith("parameter '"):
            message = "option '" + message.removeprefix("parameter '")
        raise ParameterError(error.name, message) from None


def list_option(name: str, default: Any, description: str, items: Mapping[str, Any],
                unit: str = "1", nullable: bool = False) -> ParameterSpec:
    """A task option holding a non-empty list whose items match the JSON-schema fragment
    ``items``; with ``nullable``, ``None`` (the task's default choice) is allowed too.

    Examples
    --------
    >>> list_option("steps", [0.02, 0.01], "time steps", {"type": "number"}, "s").kind
    'json'
    """
    schema = {"description": description, "type": ["array", "null"] if nullable else "array",
              "items": dict(items), "minItems": 1}
    return ParameterSpec(name, "json", default, description, unit, schema=schema)
