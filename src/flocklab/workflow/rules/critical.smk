# Stage 3: critical points and exponents from a study's summary.


rule fit_critical:
    input:
        "results/{study}/summary.nc",
    output:
        nc="results/{study}/critical.nc",
        json="results/{study}/critical.json",
    params:
        settings=lambda wc: config["studies"][wc.study]["critical"],
        seed=config["base_seed"],
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/fit_critical/{study}.log",
    localrule: True
    script:
        "../scripts/fit_critical.py"


rule fss:
    input:
        summary="results/{study}/summary.nc",
        # the study's rounded fits, compared with the susceptibility maxima
        critical=lambda wc: (["results/{}/critical.nc".format(wc.study)]
                             if config["studies"][wc.study].get("critical") else []),
    output:
        nc="results/{study}/fss.nc",
        json="results/{study}/fss.json",
    params:
        settings=lambda wc: config["studies"][wc.study]["fss"],
        seed=config["base_seed"],
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/fss/{study}.log",
    localrule: True
    script:
        "../scripts/fss.py"
