# Stage 2: per-run statistics of every run of a study and their replicate averages, in one
# process per study (results/<study>/summary.nc). A burn_in change reruns this, no simulation.


rule summarize:
    input:
        lambda wc: study_files(run_path, wc.study),
    output:
        "results/{study}/summary.nc",
    params:
        study=lambda wc: study_record(wc.study),
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/summarize/{study}.log",
    localrule: True
    script:
        "../scripts/summarize.py"
