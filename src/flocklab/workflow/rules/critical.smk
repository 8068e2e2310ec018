# Stage 3: critical points and exponents from a study's summary.


rule fit_critical:
    input:
        paths.study_file("{study}", "summary.nc"),
    output:
        nc=paths.study_file("{study}", "critical.nc"),
        json=paths.study_file("{study}", "critical.json"),
    params:
        settings=lambda wc: config["studies"][wc.study]["critical"],
        seed=config["base_seed"],
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("fit_critical", "{study}"),
    localrule: True
    script:
        "../scripts/fit_critical.py"


rule fss:
    input:
        summary=paths.study_file("{study}", "summary.nc"),
        # the study's rounded fits, compared with the susceptibility maxima
        critical=lambda wc: ([paths.study_file(wc.study, "critical.nc")]
                             if config["studies"][wc.study].get("critical") else []),
    output:
        nc=paths.study_file("{study}", "fss.nc"),
        json=paths.study_file("{study}", "fss.json"),
    params:
        settings=lambda wc: config["studies"][wc.study]["fss"],
        seed=config["base_seed"],
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("fss", "{study}"),
    localrule: True
    script:
        "../scripts/fss.py"
