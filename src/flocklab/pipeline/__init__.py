"""The pipeline's plan of a config: the config validated whole, figures included
(:mod:`.validate`), its simulation jobs (:mod:`.jobs`), the files each named thing builds
(:mod:`.targets`) and the cost estimate ``flocklab check-config`` prints (:mod:`.plan`). The
results layout is :mod:`flocklab.core.paths`; the Snakemake rules (``flocklab/workflow/``)
call these functions and nothing else of the planning."""

from flocklab.pipeline.validate import config_schema, load_config, validate_config

__all__ = ["config_schema", "load_config", "validate_config"]
