# Stage 2: per-run statistics of every run of a study and their replicate averages, in one
# process per study (results/<study>/summary.nc). A burn_in change reruns this, no simulation.


rule summarize:
    input:
        lambda wc: study_runs(wc.study),
    output:
        paths.study_file("{study}", "summary.nc"),
    params:
        study=lambda wc: study_record(wc.study),
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("summarize", "{study}"),
    localrule: True
    script:
        "../scripts/summarize.py"
