"""Snakemake wrapper of flocklab.stages.figures.make_figure."""

import matplotlib

matplotlib.use("Agg")  # entry point: no display on cluster nodes

from flocklab.core.logs import log_to
from flocklab.stages.figures import make_figure

snakemake = globals()["snakemake"]
with log_to(snakemake.log[0]):
    make_figure(snakemake.params.spec, list(snakemake.input), list(snakemake.output),
                dpi=snakemake.params.dpi)
