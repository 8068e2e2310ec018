# Stage 3b: sensitivity analysis. The design's points run as ordinary simulate jobs (their
# labels come from flocklab.config.design_points) and are summarised like any study; these
# two rules write the design and the indices.


rule sample:
    output:
        "results/{study}/design.nc",
    params:
        record=lambda wc: design_record(wc.study),
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/sample/{study}.log",
    localrule: True
    script:
        "../scripts/sample.py"


rule analyse_sensitivity:
    input:
        design="results/{study}/design.nc",
        summary="results/{study}/summary.nc",
    output:
        nc="results/{study}/sensitivity.nc",
        json="results/{study}/sensitivity.json",
    params:
        settings=lambda wc: sensitivity_slice(wc.study, ANALYSIS_KEYS),
        replicates=lambda wc: STUDIES[wc.study].replicates,
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/analyse_sensitivity/{study}.log",
    localrule: True
    script:
        "../scripts/analyse_sensitivity.py"
