"""The pipeline's plan of a validated config: its simulation jobs (:mod:`.jobs`), the files
each named thing builds (:mod:`.targets`) and the cost estimate ``flocklab check-config``
prints (:mod:`.plan`). The results layout is :mod:`flocklab.core.paths`; the Snakemake rules
(``flocklab/workflow/``) call these functions and nothing else of the planning."""
