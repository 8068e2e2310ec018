"""What the pipeline writes for each named thing of a config: the files of a study's
analyses, of a figure or animation, of a task (the results layout of the Snakemake rules,
which call these functions) and the targets of ``flocklab run --only NAME``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flocklab.config.schema import ConfigError
from flocklab.core.names import nearest_names
from flocklab.figures.kinds import KINDS, FigureContext


def study_outputs(context: FigureContext, study: str) -> list[str]:
    """The summary of study ``study`` and the outputs of the critical, fss and sensitivity
    stages its config asks for."""
    settings = context.config["studies"][study]
    paths = [context.study_path(study, "summary.nc")]
    if "sensitivity" in settings:
        return paths + [context.study_path(study, name) for name in
                        ("design.nc", "sensitivity.nc", "sensitivity.json")]
    for stage in ("critical", "fss"):
        if stage in settings:
            paths += [context.study_path(study, f"{stage}.{ext}") for ext in ("nc", "json")]
    return paths


def figure_outputs(context: FigureContext, name: str, ffmpeg: bool) -> list[str]:
    """The files of figure ``name``: one per format of ``plot.formats`` for a figure; a GIF,
    and an MP4 when ``ffmpeg`` is there, for an animation."""
    stem = f"{context.results}/figures/{name}"
    if KINDS[context.config["figures"][name]["kind"]].animation:
        return [f"{stem}.gif"] + ([f"{stem}.mp4"] if ffmpeg else [])
    return [f"{stem}.{ext}" for ext in context.config["plot"]["formats"]]


def only_targets(config: Mapping[str, Any], context: FigureContext, names: Iterable[str],
                 ffmpeg: bool) -> list[str]:
    """The files that build each of ``names`` — a study (its analyses), a figure (its files)
    or a task (its result document) of ``config`` — and nothing else.

    Raises
    ------
    ConfigError
        For every name the config does not define, with the nearest names.
    """
    targets: list[str] = []
    unknown = []
    for name in names:
        if name in config["studies"]:
            targets += study_outputs(context, name)
        elif name in config["figures"]:
            targets += figure_outputs(context, name, ffmpeg)
        elif name in config["tasks"]:
            targets.append(context.task_path(name))
        else:
            known = [*config["studies"], *config["figures"], *config["tasks"]]
            unknown.append(f"--only {name!r}: no study, figure or task of that name"
                           f"{nearest_names(name, known)}")
    if unknown:
        raise ConfigError("\n".join(unknown))
    return list(dict.fromkeys(targets))
