# Paths and parameter look-ups shared by the rules. STUDIES comes from the Snakefile
# (flocklab.pipeline.validate_config); nothing here does physics or I/O.

import functools
import os
import shlex
import shutil
import sys

from snakemake.settings.types import DeploymentMethod

from flocklab.config import design_seed
from flocklab.core import paths
from flocklab.core.registry import get_model
from flocklab.core.resources import job_resources
from flocklab.figures.captions import study_heading
from flocklab.figures.kinds import KINDS, FigureContext
from flocklab.pipeline.jobs import point_resources, point_spec, spec_argument
from flocklab.pipeline.targets import figure_outputs as target_files, study_outputs

# What the figure kinds see of the config (their inputs, captions).
FIGURE_CONTEXT = FigureContext(config, STUDIES)
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


@functools.cache
def study_points(study):
    """Label -> point of a study; a sensitivity design is generated on first use only."""
    return {point.label: point for point in STUDIES[study].points()}


def study_runs(study):
    """Run files of a study, point-major then replicate (the order summarize expects)."""
    return [paths.run_file(study, label, replicate) for label in study_points(study)
            for replicate in range(STUDIES[study].replicates)]


def study_record(name):
    """The slice of a study that its summary depends on (passed through params)."""
    return STUDIES[name].summary_record()


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
    (and its summary)."""
    return study_outputs(FIGURE_CONTEXT, study)


def figure_files(name):
    """Files figure or animation ``name`` reads, in the order its kind draws them."""
    return FIGURE_CONTEXT.inputs(name)


def figure_outputs(name):
    return target_files(FIGURE_CONTEXT, name, HAVE_FFMPEG)


def animation_outputs(name):
    return target_files(FIGURE_CONTEXT, name, HAVE_FFMPEG)


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
    sources = [(study_heading(STUDIES[name]), paths.study_file(name, "sensitivity.json"))
               for name, settings in config["studies"].items()
               if STUDIES[name].model == model
               and (settings.get("sensitivity") or {}).get("claims")]
    sources += [(f"task {name}", paths.task_file(name))
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

# Jobs run the interpreter running Snakemake (its environment has flocklab), named through
# the environment so that the rule's command is the same text on every machine (Snakemake
# reruns a job whose command text changed); under --sdm conda, the rule's environment's.
if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method:
    os.environ["FLOCKLAB_PYTHON"] = "python"
else:
    os.environ.setdefault("FLOCKLAB_PYTHON", shlex.quote(sys.executable))


envvars:
    "FLOCKLAB_PYTHON",


def point_job_spec(wildcards):
    """The simulate job's input (flocklab.pipeline.jobs.point_spec) as one argument."""
    study = STUDIES[wildcards.study]
    return shlex.quote(spec_argument(point_spec(study, study_points(wildcards.study)[wildcards.point])))


@functools.cache
def point_need(study, point):
    """The model's estimate for a point's job (asked once, for mem_mb and runtime alike)."""
    return point_resources(STUDIES[study], study_points(study)[point])


def point_job_resources(wildcards, attempt):
    """mem_mb and runtime of a point's job from the model's resource hook."""
    return job_resources(point_need(wildcards.study, wildcards.point), attempt)


# The replicate counts of the studies: one simulate rule each (simulate.smk).
REPLICATE_COUNTS = sorted({study.replicates for study in STUDIES.values()})


def studies_with_replicates(replicates):
    return [name for name, study in STUDIES.items() if study.replicates == replicates]
