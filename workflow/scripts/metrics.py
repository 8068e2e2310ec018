"""Snakemake wrapper of flocklab.stages.metrics.run_metrics."""

from flocklab.logs import log_to
from flocklab.stages.metrics import run_metrics

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_metrics(snakemake.input[0], snakemake.params.burn_in, snakemake.output[0],
                order_threshold=snakemake.params.order_threshold)
