"""Snakemake wrapper of flocklab.stages.tasks.run_task."""

from flocklab.core.logs import log_to
from flocklab.stages.tasks import run_task

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_task(snakemake.params.entry, snakemake.output[0])
