"""Snakemake wrapper of flocklab.stages.critical.run_fit_critical."""

from flocklab.core.logs import log_to
from flocklab.stages.critical import run_fit_critical

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_fit_critical(snakemake.input[0], snakemake.params.settings, snakemake.output.nc,
                     snakemake.output.json, snakemake.params.seed)
