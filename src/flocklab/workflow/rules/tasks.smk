# Stage 3c: a model's named computations (config `tasks:`), e.g. the bench-dragon contest
# questions: results/tasks/<name>/result.json plus the tables the task writes beside it.


rule task:
    output:
        report(
            paths.task_file("{task}"),
            caption="../report/task.rst",
            category=lambda wc: task_model_title(wc.task),
            subcategory="Tasks",
            labels=lambda wc: {"figure": f"answers of task {wc.task}"},
        ),
    params:
        entry=lambda wc: config["tasks"][wc.task],
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("tasks", "{task}"),
    localrule: True
    script:
        "../scripts/task.py"
