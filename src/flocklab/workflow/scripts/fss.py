"""Snakemake wrapper of flocklab.stages.critical.run_fss."""

from flocklab.core.logs import log_to
from flocklab.stages.critical import run_fss

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    critical = snakemake.input.get("critical", [])  # a path, or a list of none or one
    critical = [critical] if isinstance(critical, str) else list(critical)
    run_fss(snakemake.input.summary, snakemake.params.settings, snakemake.output.nc,
            snakemake.output.json, snakemake.params.seed, critical[0] if critical else None)
