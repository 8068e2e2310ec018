"""Workflow configuration: validation, study expansion and config files.

A config is checked in two passes before any job runs:

1. against the JSON schema (:mod:`flocklab.config.schema`; package data, linked from
   ``workflow/schemas/``): structure, types, defaults filled in;
2. against the models (:mod:`flocklab.config.checks`): every parameter point of every study
   is resolved by its model (:mod:`flocklab.config.study`), sensitivity sections checked
   (:mod:`flocklab.config.design`), and tasks and figures must name what exists.

Either pass raises :class:`ConfigError` with one message that names the key.
:func:`load_config` reads a file and its includes (:mod:`flocklab.config.loading`).
"""

from flocklab.config.checks import validate_config
from flocklab.config.design import DesignSpec, design_seed, design_spec, sensitivity_design
from flocklab.config.loading import load_config, merge_includes
from flocklab.config.schema import DEFAULT_SCHEMA, ConfigError, load_schema, validate_schema
from flocklab.config.study import (
    Axis,
    Point,
    Study,
    design_points,
    expand_values,
    format_value,
    point_label,
)

__all__ = [
    "DEFAULT_SCHEMA",
    "Axis",
    "ConfigError",
    "DesignSpec",
    "Point",
    "Study",
    "design_points",
    "design_seed",
    "design_spec",
    "expand_values",
    "format_value",
    "load_config",
    "load_schema",
    "merge_includes",
    "point_label",
    "sensitivity_design",
    "validate_config",
    "validate_schema",
]
