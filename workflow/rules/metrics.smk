# Stage 2: per-run statistics after burn-in, then one summary per study.


rule metrics:
    input:
        "results/{study}/runs/{point}/rep{replicate}.nc",
    output:
        "results/{study}/metrics/{point}/rep{replicate}.nc",
    params:
        burn_in=lambda wc: STUDIES[wc.study].burn_in,
        order_threshold=lambda wc: STUDIES[wc.study].order_threshold,
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: metrics_resources(STUDIES[wc.study].steps, attempt)["mem_mb"],
        runtime=lambda wc, attempt: metrics_resources(STUDIES[wc.study].steps, attempt)["runtime"],
    group:
        "runs"
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/metrics/{study}/{point}/rep{replicate}.log",
    script:
        "../scripts/metrics.py"


rule summarize:
    input:
        lambda wc: study_files(metrics_path, wc.study),
    output:
        "results/{study}/summary.nc",
    params:
        study=lambda wc: study_record(STUDIES[wc.study]),
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/summarize/{study}.log",
    localrule: True
    script:
        "../scripts/summarize.py"
