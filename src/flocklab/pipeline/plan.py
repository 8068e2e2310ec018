"""What a validated config asks the pipeline to do, and what that costs: the plan that
``flocklab check-config`` prints (studies, runs, tasks, figures, CPU time and the peak memory
of one run, from the models' :meth:`~flocklab.core.model.Model.resources` hooks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flocklab.config.study import Study
from flocklab.core.registry import get_model
from flocklab.core.resources import BASE_MEMORY_MB

#: Total estimated CPU time above which the plan warns (s): a day of one core.
CPU_WARNING_SECONDS = 86400.0
#: Number of runs above which the plan warns (one file each).
RUNS_WARNING = 100_000


@dataclass(frozen=True)
class StudyPlan:
    """One study's runs: count, estimated CPU seconds in total, and the largest memory of
    one run in bytes (the model's estimate plus the job process's own footprint)."""

    name: str
    model: str
    runs: int
    length: str
    cpu_seconds: float
    peak_bytes: int


@dataclass(frozen=True)
class Plan:
    """The plan of a config: its studies, tasks and figures with the cost estimates."""

    studies: list[StudyPlan]
    tasks: list[str]
    figures: list[str]
    warnings: list[str] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return sum(study.runs for study in self.studies)

    @property
    def cpu_seconds(self) -> float:
        return sum(study.cpu_seconds for study in self.studies)

    @property
    def peak_bytes(self) -> int:
        return max((study.peak_bytes for study in self.studies), default=0)


def study_plan(study: Study) -> StudyPlan:
    """Runs and cost of ``study``: the resource hook at each of its points."""
    model = get_model(study.model)
    seconds, peak, runs = 0.0, 0, 0
    for point in study.points():
        need = model.resources(study.params(point), study.grid(point))
        seconds += need.seconds * study.replicates
        peak = max(peak, need.memory_bytes)
        runs += study.replicates
    return StudyPlan(study.name, study.model, runs, study.time_text(), seconds,
                     peak + BASE_MEMORY_MB * 2**20)


def make_plan(config: Mapping[str, Any], studies: Mapping[str, Study],
              available_bytes: int | None) -> Plan:
    """The plan of a validated ``config``, with warnings for totals out of proportion
    (more than :data:`CPU_WARNING_SECONDS` of CPU or :data:`RUNS_WARNING` runs).

    Raises
    ------
    MemoryError
        If one run needs more than ``available_bytes`` (``None``: unknown, not checked).
    """
    plans = [study_plan(study) for study in studies.values()]
    plan = Plan(plans, list(config.get("tasks") or {}), list(config.get("figures") or {}))
    for study in plans:
        if available_bytes is not None and study.peak_bytes > available_bytes:
            raise MemoryError(f"config key 'studies.{study.name}': one run needs about "
                              f"{format_bytes(study.peak_bytes)} of memory, more than the "
                              f"{format_bytes(available_bytes)} available; reduce the size or "
                              f"the number of records and frames")
    if plan.cpu_seconds > CPU_WARNING_SECONDS:
        plan.warnings.append(f"the runs need about {format_seconds(plan.cpu_seconds)} of CPU "
                             f"time in total; is that intended?")
    if plan.runs > RUNS_WARNING:
        plan.warnings.append(f"{plan.runs} runs, one file each; is that intended?")
    return plan


def format_seconds(seconds: float) -> str:
    """``"42 s"``, ``"3.5 min"``, ``"2.1 h"`` or ``"4.2 d"``."""
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.2g} {unit}"
    return f"{seconds:.2g} s"


def format_bytes(count: float) -> str:
    """``"512 MiB"`` or ``"3.2 GiB"``."""
    return f"{count / 2**30:.3g} GiB" if count >= 2**30 else f"{count / 2**20:.3g} MiB"


def plan_lines(plan: Plan) -> list[str]:
    """The plan as the lines ``flocklab check-config`` prints."""
    lines = [f"{study.name}: model {study.model}, {study.runs} runs of {study.length}"
             for study in plan.studies]
    lines.append(f"plan: {len(plan.studies)} studies, {plan.runs} runs, {len(plan.tasks)} "
                 f"tasks ({', '.join(plan.tasks) or 'none'}), {len(plan.figures)} figures")
    lines.append(f"estimate: about {format_seconds(plan.cpu_seconds)} of CPU time for the "
                 f"runs; peak memory of one run about {format_bytes(plan.peak_bytes)}")
    return lines
