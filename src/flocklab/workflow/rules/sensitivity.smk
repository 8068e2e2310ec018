# Stage 3b: sensitivity analysis. The design's points run as ordinary simulate jobs (their
# labels come from flocklab.config.design_points), which take their factor values from the
# design file, and are summarised like any study; these two rules write the design and the
# indices.


rule sample:
    output:
        paths.study_file("{study}", "design.nc"),
    params:
        record=lambda wc: design_record(wc.study),
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("sample", "{study}"),
    localrule: True
    script:
        "../scripts/sample.py"


rule analyse_sensitivity:
    input:
        design=paths.study_file("{study}", "design.nc"),
        summary=paths.study_file("{study}", "summary.nc"),
    output:
        nc=paths.study_file("{study}", "sensitivity.nc"),
        json=paths.study_file("{study}", "sensitivity.json"),
    params:
        settings=lambda wc: sensitivity_slice(wc.study, ANALYSIS_KEYS),
        replicates=lambda wc: STUDIES[wc.study].replicates,
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("analyse_sensitivity", "{study}"),
    localrule: True
    script:
        "../scripts/analyse_sensitivity.py"
