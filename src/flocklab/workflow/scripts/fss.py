"""Snakemake wrapper of flocklab.stages.critical.run_fss."""

from flocklab.core.logs import log_to
from flocklab.stages.critical import run_fss

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_fss(snakemake.input[0], snakemake.params.settings, snakemake.output.nc,
            snakemake.output.json, snakemake.params.seed)
