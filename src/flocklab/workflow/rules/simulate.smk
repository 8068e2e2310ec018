# Stage 1: simulations. Each job runs a block of pending runs of one study in one process
# (flocklab.config.blocks: runs already on disk with their current identity are inputs, not
# jobs); memory and run time are requested from the model's resource hook, growing with each
# retry (flocklab.core.resources). On a cluster, block jobs are grouped (group "runs",
# --group-components). The job runs `python -m flocklab.stages.simulate SPEC THREADS`, which
# imports no Snakemake.

for block in SIMULATION_BLOCKS:

    rule:
        name:
            block.name
        output:
            block.outputs,
        params:
            spec=block_command(block),
        threads: config["threads"]
        resources:
            mem_mb=lambda wc, attempt, block=block: block_resources(block, attempt)["mem_mb"],
            runtime=lambda wc, attempt, block=block: block_resources(block, attempt)["runtime"],
        group:
            "runs"
        conda:
            "../envs/flocklab.yaml"
        log:
            f"results/logs/simulate/{block.study}/block{block.index}.log",
        benchmark:
            f"results/benchmarks/simulate/{block.study}/block{block.index}.tsv"
        shell:
            f"{PYTHON} -m flocklab.stages.simulate {{params.spec}} {{threads}} 2>> {{log}}"
