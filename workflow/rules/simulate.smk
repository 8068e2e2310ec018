# Stage 1: one simulation per (study, parameter point, replicate).


rule simulate:
    output:
        "results/{study}/runs/{point}/rep{replicate}.nc",
    params:
        model=lambda wc: STUDIES[wc.study].model,
        parameters=lambda wc: STUDIES[wc.study].params(point_of(wc)),
        control=lambda wc: STUDIES[wc.study].control(point_of(wc), int(wc.replicate)).as_attrs(),
        attrs=lambda wc: {"study": wc.study, "point": wc.point, "replicate": int(wc.replicate)},
    threads: config["threads"]
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/simulate/{study}/{point}/rep{replicate}.log",
    benchmark:
        "results/benchmarks/simulate/{study}/{point}/rep{replicate}.tsv"
    script:
        "../scripts/simulate.py"
