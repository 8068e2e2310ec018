# Paths and parameter look-ups shared by the rules. STUDIES comes from the Snakefile
# (flocklab.config.validate_config); nothing here does physics or I/O.

import functools
import json
import shlex
import shutil
import sys

from snakemake.settings.types import DeploymentMethod

from flocklab.config import design_seed
from flocklab.core.registry import get_model
from flocklab.config.blocks import block_spec, existing_fingerprints, pending_blocks, study_runs
from flocklab.core.model import Resources as RunResources
from flocklab.core.resources import job_resources
from flocklab.figures.captions import study_heading
from flocklab.figures.kinds import KINDS, FigureContext

RESULTS = "results"
# What the figure kinds see of the config (their inputs, captions) and the results layout.
FIGURE_CONTEXT = FigureContext(config, STUDIES, RESULTS)
FIGURES = {name: spec for name, spec in config["figures"].items()
           if not KINDS[spec["kind"]].animation}
ANIMATIONS = {name: spec for name, spec in config["figures"].items()
              if KINDS[spec["kind"]].animation}
HAVE_FFMPEG = shutil.which("ffmpeg") is not None


def _alternatives(names):
    return "|".join(names) if names else "^$"


wildcard_constraints:
    study=_alternatives(STUDIES),
    task=_alternatives(config["tasks"]),
    point=r"[^/]+",
    replicate=r"\d+",
    figure=_alternatives(FIGURES),
    animation=_alternatives(ANIMATIONS),


def run_path(study, label, replicate):
    return FIGURE_CONTEXT.run_path(study, label, replicate)


def summary_path(study):
    return FIGURE_CONTEXT.study_path(study, "summary.nc")


@functools.cache
def study_points(study):
    """Label -> point of a study; a sensitivity design is generated on first use only."""
    return {point.label: point for point in STUDIES[study].points()}


def study_files(path_of, study):
    """Per-run files of a study, point-major then replicate (the order summarize expects)."""
    return [path_of(study, label, replicate) for label in study_points(study)
            for replicate in range(STUDIES[study].replicates)]


def point_of(wildcards):
    return study_points(wildcards.study)[wildcards.point]


def study_record(name):
    """The slice of a study that its summary depends on (passed through params)."""
    study = STUDIES[name]
    return {"name": study.name, "model": study.model, "description": study.description,
            "fixed": study.fixed, "replicates": study.replicates, "time": study.time,
            "burn_in": study.burn_in, "order_threshold": study.order_threshold,
            "labels": list(study_points(name)), "design": study.sensitivity is not None,
            "axes": [{"dim": axis.dim, "coords": axis.coords} for axis in study.axes]}


DESIGN_KEYS = ("method", "factors", "samples", "levels")
ANALYSIS_KEYS = ("outputs", "resamples", "confidence", "levels", "claims")


def sensitivity_slice(study, keys):
    settings = config["studies"][study]["sensitivity"]
    return {key: settings[key] for key in keys}


def design_record(study):
    """What a study's design depends on (passed through params of rule sample)."""
    return {"name": study, "model": STUDIES[study].model, "fixed": STUDIES[study].fixed,
            "sensitivity": sensitivity_slice(study, DESIGN_KEYS),
            "seed": design_seed(config["base_seed"], study)}


def analysis_paths(study):
    """Outputs of the critical, fss and sensitivity stages a study's config asks for
    (and its summary, for a grid study)."""
    settings = config["studies"][study]
    if "sensitivity" in settings:
        return [summary_path(study)] + [f"{RESULTS}/{study}/{name}" for name in
                                        ("design.nc", "sensitivity.nc", "sensitivity.json")]
    paths = [summary_path(study)]
    if "critical" in settings:
        paths += [f"{RESULTS}/{study}/critical.nc", f"{RESULTS}/{study}/critical.json"]
    if "fss" in settings:
        paths += [f"{RESULTS}/{study}/fss.nc", f"{RESULTS}/{study}/fss.json"]
    return paths


def figure_inputs(wildcards):
    """Files a figure reads, in the order its kind draws them."""
    return FIGURE_CONTEXT.inputs(wildcards.figure)


def animation_inputs(wildcards):
    """The run an animation draws."""
    return FIGURE_CONTEXT.inputs(wildcards.animation)


def figure_outputs(name):
    return [f"{RESULTS}/figures/{name}.{ext}" for ext in config["plot"]["formats"]]


def animation_outputs(name):
    outputs = [f"{RESULTS}/figures/{name}.gif"]
    if HAVE_FFMPEG:
        outputs.append(f"{RESULTS}/figures/{name}.mp4")
    return outputs


def figure_caption(name):
    """The report caption of figure or animation ``name``, written by its kind."""
    return FIGURE_CONTEXT.caption(name)


def report_group(name):
    """Report category (the model) and subcategory (the study, or Tasks) of a figure."""
    return FIGURE_CONTEXT.report_group(name)


def figure_title(name):
    return config["figures"][name].get("title") or name.replace("_", " ")


def task_model_title(task):
    return get_model(config["tasks"][task]["model"]).title


def claim_sources(model):
    """``(heading, JSON path)`` of every study (one at a time, with claims) and task of
    ``model`` whose claims the model's claims table lists."""
    sources = [(study_heading(STUDIES[name]), f"{RESULTS}/{name}/sensitivity.json")
               for name, settings in config["studies"].items()
               if STUDIES[name].model == model
               and (settings.get("sensitivity") or {}).get("claims")]
    sources += [(f"task {name}", FIGURE_CONTEXT.task_path(name))
                for name, entry in config["tasks"].items() if entry["model"] == model
                and get_model(model).task(entry["task"]).tests_claims]
    return sources


def claim_models():
    """Models whose studies or tasks test claims (one claims table each)."""
    models = {STUDIES[name].model for name in STUDIES}
    models |= {entry["model"] for entry in config["tasks"].values()}
    return sorted(model for model in models if claim_sources(model))


def all_figure_outputs():
    outputs = [path for name in FIGURES for path in figure_outputs(name)]
    return outputs + [path for name in ANIMATIONS for path in animation_outputs(name)]


# --------------------------------------------------------------------------- simulate jobs

# The interpreter running Snakemake (its environment has flocklab), or the rule's conda
# environment's `python` under --sdm conda.
PYTHON = ("python" if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
          else shlex.quote(sys.executable))

# Runs already on disk with their current identity are inputs; the others are grouped into
# blocks, one job each (flocklab.config.blocks).
STUDY_RUNS = {name: study_runs(study, run_path) for name, study in STUDIES.items()}
DONE_RUNS = existing_fingerprints(run.path for runs in STUDY_RUNS.values() for run in runs)
SIMULATION_BLOCKS = [block for name, runs in STUDY_RUNS.items()
                     for block in pending_blocks(name, runs, DONE_RUNS, config["job_seconds"])]


def block_command(block):
    """The block job's command: its spec as one shell-quoted JSON argument."""
    spec = block_spec(block, STUDIES[block.study].model, STUDIES[block.study].checkpoint_every)
    return shlex.quote(json.dumps(spec, sort_keys=True))


def block_resources(block, attempt):
    """mem_mb and runtime of a block job from the model's resource hook."""
    return job_resources(RunResources(block.memory_bytes, block.seconds), attempt)
