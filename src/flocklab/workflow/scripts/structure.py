"""Snakemake wrapper of flocklab.stages.structure.run_structure_stage."""

from flocklab.core.logs import log_to
from flocklab.stages.structure import run_structure_stage

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_structure_stage(list(snakemake.input), snakemake.params.study, snakemake.params.settings,
                        snakemake.params.seed, snakemake.output.nc, snakemake.output.json)
