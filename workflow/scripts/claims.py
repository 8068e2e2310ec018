"""Snakemake wrapper of flocklab.stages.claims.write_claims_table."""

from flocklab.core.logs import log_to
from flocklab.stages.claims import write_claims_table

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    write_claims_table(snakemake.params.sources, snakemake.output[0])
