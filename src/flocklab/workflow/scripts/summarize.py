"""Snakemake wrapper of flocklab.stages.metrics.summarize."""

from flocklab.core.logs import log_to
from flocklab.stages.metrics import summarize

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    summarize(list(snakemake.input), snakemake.params.study, snakemake.output[0])
