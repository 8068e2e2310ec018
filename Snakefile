# Flocklab: simulation -> summary (per-run metrics) -> critical fits / finite-size scaling, or
# design -> simulation -> summary -> sensitivity indices -> figures -> report.
#
#   snakemake --cores 2                                  # default config/config.yaml
#   snakemake --cores 2 --configfile config/test.yaml    # the tiny test configuration
#   snakemake --report results/report.html               # HTML report of the figures
#
# The config is validated (JSON schema, then every model parameter point) before any job runs.

from pathlib import Path

import yaml

from flocklab.config import merge_includes, validate_config

BASE = Path(workflow.basedir)

# A --configfile replaces the default config instead of being merged into it, so the studies
# of two configs never mix. `include:` lists files (relative to the config file) whose
# studies, figures and tasks are added: the default config keeps each model's in its own file.
if not config:
    CONFIG_DIR = BASE / "config"
    with open(CONFIG_DIR / "config.yaml", encoding="utf-8") as stream:
        config.update(yaml.safe_load(stream))
else:
    CONFIG_DIR = Path(workflow.configfiles[-1]).parent if workflow.configfiles else Path.cwd()
merge_includes(config, CONFIG_DIR)

STUDIES = validate_config(config)


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/critical.smk"
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/tasks.smk"
include: "workflow/rules/report.smk"


localrules:
    all,


rule all:
    input:
        [path for name in STUDIES for path in analysis_paths(name)],
        all_figure_outputs(),
        [f"results/tasks/{name}/result.json" for name in config["tasks"]],
        [f"results/claims/{model}.csv" for model in claim_models()],
    default_target: True
