# Stage 1: one simulation per (study, parameter point, replicate). Memory and run time are
# requested from the model's resource hook, growing with each retry (flocklab.resources); on
# a cluster, simulate jobs are grouped (group "runs", --group-components). The job runs
# `python -m flocklab.job SPEC` (not `script:`), so it does not import Snakemake.

import json
import shlex
import sys

from snakemake.settings.types import DeploymentMethod

# The interpreter running Snakemake (its environment has flocklab), or the rule's conda
# environment's `python` under --sdm conda.
PYTHON = ("python" if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
          else shlex.quote(sys.executable))


def simulate_log(wildcards):
    return f"results/logs/simulate/{wildcards.study}/{wildcards.point}/rep{wildcards.replicate}.log"


def simulate_spec(wildcards, output, threads):
    """The job's whole input as one shell-quoted JSON argument."""
    study = STUDIES[wildcards.study]
    point = point_of(wildcards)
    spec = {"model": study.model, "params": study.params(point),
            "control": study.control(point, int(wildcards.replicate)).as_attrs(),
            "attrs": {"study": wildcards.study, "point": wildcards.point,
                      "replicate": int(wildcards.replicate)},
            "threads": threads, "checkpoint_every": study.checkpoint_every,
            "out": output[0], "log": simulate_log(wildcards)}
    return shlex.quote(json.dumps(spec, sort_keys=True))


rule simulate:
    output:
        "results/{study}/runs/{point}/rep{replicate}.nc",
    params:
        model=lambda wc: STUDIES[wc.study].model,
        parameters=lambda wc: STUDIES[wc.study].params(point_of(wc)),
        control=lambda wc: STUDIES[wc.study].control(point_of(wc), int(wc.replicate)).as_attrs(),
        checkpoint_every=lambda wc: STUDIES[wc.study].checkpoint_every,
        spec=lambda wc, output, threads: simulate_spec(wc, output, threads),
    threads: config["threads"]
    resources:
        mem_mb=lambda wc, attempt: run_resources(wc, attempt)["mem_mb"],
        runtime=lambda wc, attempt: run_resources(wc, attempt)["runtime"],
    group:
        "runs"
    conda:
        "../envs/flocklab.yaml"
    log:
        "results/logs/simulate/{study}/{point}/rep{replicate}.log",
    benchmark:
        "results/benchmarks/simulate/{study}/{point}/rep{replicate}.tsv"
    shell:
        f"{PYTHON} -m flocklab.job {{params.spec}} 2>> {{log}}"
