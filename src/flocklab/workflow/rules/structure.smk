# Stage 3: spatial structure of a study's snapshot frames after its burn-in (number
# fluctuations, correlations, bands), per point with replicates pooled.


rule structure:
    input:
        lambda wc: study_runs(wc.study),
    output:
        nc=paths.study_file("{study}", "structure.nc"),
        json=paths.study_file("{study}", "structure.json"),
    params:
        study=lambda wc: study_record(wc.study),
        settings=lambda wc: config["studies"][wc.study]["structure"],
        seed=config["base_seed"],
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("structure", "{study}"),
    localrule: True
    script:
        "../scripts/structure.py"
