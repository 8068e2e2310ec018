"""Snakemake wrapper of flocklab.stages.sensitivity.write_design."""

from flocklab.core.logs import log_to
from flocklab.stages.sensitivity import write_design

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    write_design(snakemake.params.record, snakemake.output[0])
