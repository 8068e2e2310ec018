# Flocklab's workflow ships inside the package (src/flocklab/workflow/Snakefile, where it is
# described); this file lets `snakemake` and `make run` run it from the repository's root,
# with config/config.yaml as the default config.
#
#   snakemake --cores 2
#   snakemake --cores 2 --configfile config/test.yaml

# What `include:` does, keeping the included file's default target (rule all).
workflow.include("src/flocklab/workflow/Snakefile", overwrite_default_target=True)
