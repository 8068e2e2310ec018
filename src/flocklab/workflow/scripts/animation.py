"""Snakemake wrapper of flocklab.stages.figures.make_animation."""

import matplotlib

matplotlib.use("Agg")  # entry point: no display on cluster nodes

from flocklab.core.logs import log_to
from flocklab.stages.figures import make_animation

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    make_animation(snakemake.params.spec, snakemake.input[0], snakemake.output.gif,
                   mp4=snakemake.output.get("mp4"), dpi=snakemake.params.dpi)
