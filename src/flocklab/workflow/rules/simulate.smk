# Stage 1: simulations. One job per parameter point writes the point's replicates in one
# process (flocklab.pipeline.jobs): `python -m flocklab.stages.simulate SPEC THREADS`, which
# imports no Snakemake. Snakemake alone decides what reruns, from the spec (params) and the
# command. Memory and run time come from the
# model's resource hook and grow with each retry (flocklab.core.resources). On a cluster,
# point jobs are grouped into submissions (group "runs", --group-components).
#
# Threads and checkpoint_every reach the job beside its spec: they never change a result, so
# they are not among the params whose change reruns a job.
#
# A rule's output files follow from its wildcards alone, so the points of R replicates are
# written by a rule of their own, simulate_R (one per replicate count of the config's
# studies); every run file is an output of one job.

for replicates in REPLICATE_COUNTS:

    rule:
        name:
            f"simulate_{replicates}"
        output:
            [paths.run_file("{study}", "{point}", k) for k in range(replicates)],
        wildcard_constraints:
            study=_alternatives(studies_with_replicates(replicates)),
        params:
            spec=point_job_spec,
        threads: config["threads"]
        resources:
            mem_mb=lambda wc, attempt: point_job_resources(wc, attempt)["mem_mb"],
            runtime=lambda wc, attempt: point_job_resources(wc, attempt)["runtime"],
            checkpoint_every=lambda wc: STUDIES[wc.study].checkpoint_every,
        group:
            "runs"
        conda:
            "../envs/flocklab.yaml"
        log:
            paths.log_file("simulate", "{study}/{point}"),
        benchmark:
            paths.benchmark_file("simulate", "{study}/{point}")
        shell:
            "$FLOCKLAB_PYTHON -m flocklab.stages.simulate {params.spec} {threads}"
            " {resources.checkpoint_every} 2>> {log}"
