"""Snakemake wrapper of flocklab.stages.simulate.run_simulation."""

from flocklab.logs import log_to
from flocklab.stages.simulate import run_simulation

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    run_simulation(snakemake.params.model, snakemake.params.parameters, snakemake.params.control,
                   snakemake.output[0], threads=snakemake.threads,
                   extra_attrs=snakemake.params.attrs, progress=False,
                   checkpoint_every=snakemake.params.checkpoint_every)
