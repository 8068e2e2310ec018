"""Snakemake wrapper of flocklab.stages.sensitivity.run_analysis."""

from flocklab.core.logs import log_to
from flocklab.stages.sensitivity import run_analysis

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_analysis(snakemake.input.design, snakemake.input.summary,
                 snakemake.params.settings, snakemake.params.replicates, snakemake.output.nc,
                 snakemake.output.json)
