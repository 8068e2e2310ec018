"""Where the pipeline keeps each thing: the one description of the results layout.

Every path the workflow rules, the stages, the figure kinds and the command line name is
made here, relative to the work directory. Each function takes the names of what it
locates; given Snakemake wildcards (``"{study}"``) it returns the rule's pattern, given
names it returns the file::

    results/
      <study>/runs/<point>/rep<k>.nc     one run (a point's runs: one simulation job)
      <study>/summary.nc                 per-run statistics of the study
      <study>/design.nc                  a sensitivity study's design
      <study>/<stage>.nc, <stage>.json   critical, fss, sensitivity
      figures/<name>.<format>            figures and animations
      tasks/<name>/result.json           a task's result document
      claims/<model>.csv                 a model's claims table
      report.html                        the HTML report
      logs/<rule>/<job>.log              one log per job
      benchmarks/<rule>/<job>.tsv        Snakemake's measurements of a job
"""

from __future__ import annotations

#: The results directory (relative to the work directory).
RESULTS = "results"


def run_file(study: str, point: str, replicate: int | str) -> str:
    """The file of replicate ``replicate`` at the point labelled ``point``."""
    return f"{RESULTS}/{study}/runs/{point}/rep{replicate}.nc"


def study_file(study: str, filename: str) -> str:
    """A file of a study's analyses (``summary.nc``, ``design.nc``, ``critical.json``, ...)."""
    return f"{RESULTS}/{study}/{filename}"


def figure_file(name: str, extension: str) -> str:
    """Figure or animation ``name`` in one format (``"png"``, ``"gif"``, ...)."""
    return f"{RESULTS}/figures/{name}.{extension}"


def task_file(task: str) -> str:
    """The result document of a ``tasks`` entry."""
    return f"{RESULTS}/tasks/{task}/result.json"


def claims_file(model: str) -> str:
    """The claims table of a model."""
    return f"{RESULTS}/claims/{model}.csv"


def report_file() -> str:
    """The HTML report."""
    return f"{RESULTS}/report.html"


def log_file(rule: str, job: str) -> str:
    """The log of one job of ``rule`` (``job``: its wildcards joined by ``/``)."""
    return f"{RESULTS}/logs/{rule}/{job}.log"


def benchmark_file(rule: str, job: str) -> str:
    """Snakemake's run-time measurements of one job of ``rule``."""
    return f"{RESULTS}/benchmarks/{rule}/{job}.tsv"
