"""Workflow configuration: the schema, study expansion and config files.

A config is checked before any job runs:

1. against the JSON schema (:mod:`flocklab.config.schema`; package data, linked from
   ``workflow/schemas/``): structure, types, defaults filled in;
2. against the models (:mod:`flocklab.config.checks`): every parameter point of every study
   is resolved by its model (:mod:`flocklab.config.study`), sensitivity sections checked
   (:mod:`flocklab.config.design`), and tasks must name what exists;
3. the figures, by their kinds, above this package (:func:`flocklab.pipeline.validate_config`,
   which runs all three and reports every problem at once).

:func:`merge_includes` merges a file's includes (:mod:`flocklab.config.loading`);
:func:`flocklab.pipeline.load_config` reads, merges and validates.
"""

from flocklab.config.design import DesignSpec, design_seed, design_spec, sensitivity_design
from flocklab.config.loading import merge_includes, read_yaml
from flocklab.config.schema import DEFAULT_SCHEMA, load_schema, validate_schema
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
    "DesignSpec",
    "Point",
    "Study",
    "design_points",
    "design_seed",
    "design_spec",
    "expand_values",
    "format_value",
    "load_schema",
    "merge_includes",
    "point_label",
    "read_yaml",
    "sensitivity_design",
    "validate_schema",
]
