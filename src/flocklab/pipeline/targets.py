"""What the pipeline writes for each named thing of a config: the files of a study's
analyses, of a figure or animation, of a task (the results layout of the Snakemake rules,
which call these functions) and the targets of ``flocklab run --only NAME``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flocklab.core import paths
from flocklab.core.names import nearest_names
from flocklab.core.parameters import ConfigError
from flocklab.figures.kinds import KINDS, FigureContext


def study_outputs(context: FigureContext, study: str) -> list[str]:
    """The summary of study ``study`` and the outputs of the critical, fss, structure and
    sensitivity stages its config asks for."""
    settings = context.config["studies"][study]
    files = [paths.study_file(study, "summary.nc")]
    if "sensitivity" in settings:
        return files + [paths.study_file(study, name) for name in
                        ("design.nc", "sensitivity.nc", "sensitivity.json")]
    for stage in ("critical", "fss", "structure"):
        if stage in settings:
            files += [paths.study_file(study, f"{stage}.{ext}") for ext in ("nc", "json")]
    return files


def figure_outputs(context: FigureContext, name: str, ffmpeg: bool) -> list[str]:
    """The files of figure ``name``: one per format of ``plot.formats`` for a figure; a GIF,
    and an MP4 when ``ffmpeg`` is there, for an animation."""
    if KINDS[context.config["figures"][name]["kind"]].animation:
        return [paths.figure_file(name, ext) for ext in ("gif", "mp4")[:1 + ffmpeg]]
    return [paths.figure_file(name, ext) for ext in context.config["plot"]["formats"]]


def only_targets(config: Mapping[str, Any], context: FigureContext, names: Iterable[str],
                 ffmpeg: bool) -> list[str]:
    """The files that build each of ``names`` — a study (its analyses), a figure (its files)
    or a task (its result document) of ``config`` — and nothing else.

    A name may be qualified by its section (``study:fig2b``, ``figure:fig2b``,
    ``task:NAME``); an unqualified name builds everything of that name, so a figure named
    like its study is built with it.

    Raises
    ------
    ConfigError
        For every name the config does not define, with the nearest names.
    """
    sections = {"study": "studies", "figure": "figures", "task": "tasks"}
    builders = {"study": lambda name: study_outputs(context, name),
                "figure": lambda name: figure_outputs(context, name, ffmpeg),
                "task": lambda name: [paths.task_file(name)]}
    targets: list[str] = []
    unknown = []
    for given in names:
        section, _, name = given.rpartition(":") if ":" in given else ("", "", given)
        wanted = [section] if section in builders else [*builders]
        found = [kind for kind in wanted if name in config[sections[kind]]]
        for kind in found:
            targets += builders[kind](name)
        if not found:
            known = [f"{kind}:{item}" if section else item for kind in wanted
                     for item in config[sections[kind]]]
            what = f"no {section}" if section in builders else "no study, figure or task"
            unknown.append(f"--only {given!r}: {what} of that name"
                           f"{nearest_names(given, known)}")
    if unknown:
        raise ConfigError("\n".join(unknown))
    return list(dict.fromkeys(targets))
