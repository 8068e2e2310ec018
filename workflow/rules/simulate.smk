# Stage 1: one simulation per (study, parameter point, replicate). Memory and run time are
# requested from the model's resource hook, growing with each retry (flocklab.core.resources); on
# a cluster, simulate jobs are grouped (group "runs", --group-components). The job runs
# `python -m flocklab.job SPEC` (not `script:`), so it does not import Snakemake; its spec is
# built by simulate_spec in common.smk.

rule simulate:
    output:
        "results/{study}/runs/{point}/rep{replicate}.nc",
    params:
        model=lambda wc: STUDIES[wc.study].model,
        parameters=lambda wc: STUDIES[wc.study].params(point_of(wc)),
        control=lambda wc: STUDIES[wc.study].control(point_of(wc), int(wc.replicate)).as_attrs(),
        checkpoint_every=lambda wc: STUDIES[wc.study].checkpoint_every,
        spec=lambda wc, output, threads: simulate_spec(wc, output, threads),
    threads: config["threads"]
    resources:
        mem_mb=lambda wc, attempt: run_resources(wc, attempt)["mem_mb"],
        runtime=lambda wc, attempt: run_resources(wc, attempt)["runtime"],
    group:
        "runs"
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/simulate/{study}/{point}/rep{replicate}.log",
    benchmark:
        "results/benchmarks/simulate/{study}/{point}/rep{replicate}.tsv"
    shell:
        f"{PYTHON} -m flocklab.job {{params.spec}} 2>> {{log}}"
