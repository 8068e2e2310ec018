"""Figure kinds (config ``figures.<name>.kind``), one class each, in one registry.

:data:`KINDS` maps each kind's name to an instance of its :class:`FigureKind` subclass, in
the manner of :data:`scipy.integrate._ivp.ivp.METHODS`: the config schema's figure section is
assembled from the kinds (:func:`figure_schema`, called by
:func:`flocklab.config.load_schema`), and the config checks, the Snakemake rules (through
:class:`FigureContext`), the figures stage and the report captions all go through
``KINDS[kind]``. A new kind is one subclass (the contract is :class:`FigureKind`'s docstring);
defining it registers it.

Modules: :mod:`~flocklab.figures.kinds.base` (the contract, :class:`StudyKind`, the context
and the schema), :mod:`~flocklab.figures.kinds.basic` (snapshots, curve, heatmap, state_map,
series, animation), :mod:`~flocklab.figures.kinds.analysis` (critical fit, finite-size
scaling and sensitivity kinds) and :mod:`~flocklab.figures.kinds.task` (a task's result).
Importing this package imports no matplotlib: the Snakefile imports it to parse its rules.
"""

# The kinds register as their modules are imported; this order is their order in the schema.
# isort: off
from flocklab.figures.kinds import basic, analysis, task  # noqa: F401
# isort: on
from flocklab.figures.kinds.base import (
    KINDS,
    FigureContext,
    FigureKind,
    StudyKind,
    figure_schema,
    open_inputs,
    require_grid_study,
)

__all__ = ["KINDS", "FigureContext", "FigureKind", "StudyKind", "figure_schema", "open_inputs",
           "require_grid_study"]
