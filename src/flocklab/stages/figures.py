"""Stage *figures*: stage files → ``results/figures/<name>.<format>`` and animations.

Figure kinds (config ``figures.<name>.kind``): ``snapshots`` and ``animation`` read run
files, ``curve`` and ``heatmap`` read a study's ``summary.nc``, the analysis kinds read
``critical.nc``, ``fss.nc`` or ``sensitivity.nc``, and ``task`` reads a task's
``result.json``, drawn by the task's model (:meth:`flocklab.models.Model.draw_task`).
Report captions: :mod:`flocklab.figures.captions`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.animation import FFMpegWriter, PillowWriter

from flocklab.core.io import atomic_output, open_dataset
from flocklab.core.registry import get_model
from flocklab.figures import plotting

FSS_FIGURES = {"collapse": plotting.collapse_figure, "fss_critical": plotting.fss_critical_figure,
               "distribution": plotting.distribution_figure}
SENSITIVITY_FIGURES = {"oat": plotting.oat_figure, "morris": plotting.morris_figure,
                       "sobol": plotting.sobol_figure,
                       "sensitivity_convergence": plotting.convergence_figure}


def _save(fig: plt.Figure, outputs: Sequence[str | os.PathLike], dpi: int) -> None:
    for path in outputs:
        with atomic_output(path) as temporary:
            fig.savefig(temporary, dpi=dpi, format=Path(path).suffix.lstrip("."),
                        metadata={"Software": None} if str(path).endswith(".png") else
                        {"Creator": None, "Producer": None, "CreationDate": None})
    plt.close(fig)


def task_figure(spec: Mapping[str, Any], result: str | os.PathLike) -> plt.Figure:
    """The figure of a task's ``result.json`` drawn by the task's model, titled."""
    with open(result, encoding="utf-8") as stream:
        document = json.load(stream)
    fig = plt.figure(figsize=(6.4, 4.4), layout="constrained")
    task = get_model(document["model"]).task(document["task"])
    task.draw(fig, document, task.resolve_figure(spec.get("options", {})))
    if spec.get("title"):
        fig.suptitle(spec["title"], fontsize=10)
    return fig


def make_figure(spec: Mapping[str, Any], inputs: Sequence[str | os.PathLike],
                outputs: Sequence[str | os.PathLike], dpi: int = 150) -> None:
    """Draw one figure of a stage file kind and save it in every output format.

    ``inputs`` are the run files of the panels in order (``snapshots``), the
    study's summary file (``curve``, ``heatmap``), the analysis files, or the task's ``result.json``
    (``task``).
    """
    if spec["kind"] == "task":
        fig = task_figure(spec, inputs[0])
    elif spec["kind"] == "snapshots":
        runs = [open_dataset(path) for path in inputs]
        fig = plotting.snapshot_figure(
            runs, [panel["frame"] for panel in spec["panels"]],
            [panel["label"] for panel in spec["panels"]], trail=spec["trail"],
            columns=spec["columns"], title=spec["title"])
    elif spec["kind"] == "series":
        runs = [open_dataset(path) for path in inputs]
        fig = plotting.series_figure(runs, spec["y"], [run["label"] for run in spec["runs"]],
                                     logy=spec["logy"], title=spec["title"], x=spec.get("x"))
    elif spec["kind"] == "curve":
        summary = open_dataset(inputs[0])
        fig = plotting.curve_figure(summary, spec["x"], spec["y"], hue=spec.get("hue"),
                                    xlabel=spec.get("xlabel"), ylabel=spec.get("ylabel"),
                                    logx=spec["logx"], logy=spec["logy"],
                                    title=spec["title"])
    elif spec["kind"] == "heatmap":
        fig = plotting.heatmap_figure(
            open_dataset(inputs[0]), spec["x"], spec["y"], spec["z"], logx=spec["logx"],
            logy=spec["logy"], logz=spec["logz"], mark_missing=spec["mark_missing"],
            xlabel=spec.get("xlabel"), ylabel=spec.get("ylabel"), zlabel=spec.get("zlabel"),
            title=spec["title"])
    elif spec["kind"] == "critical_loglog":
        fig = plotting.critical_loglog_figure(open_dataset(inputs[0]), open_dataset(inputs[1]),
                                              title=spec["title"])
    elif spec["kind"] in FSS_FIGURES:
        fig = FSS_FIGURES[spec["kind"]](open_dataset(inputs[0]), open_dataset(inputs[1]),
                                        title=spec["title"])
    elif spec["kind"] in SENSITIVITY_FIGURES:
        fig = SENSITIVITY_FIGURES[spec["kind"]](open_dataset(inputs[0]), title=spec["title"])
    else:
        raise ValueError(f"figure kind {spec['kind']!r} is not drawn by make_figure")
    _save(fig, outputs, dpi)


def make_animation(spec: Mapping[str, Any], run_path: str | os.PathLike, gif: str | os.PathLike,
                   mp4: str | os.PathLike | None = None, dpi: int = 100) -> None:
    """Write a GIF (and an MP4 when ``mp4`` is given and ffmpeg exists) of one run."""
    ds = open_dataset(run_path)
    animation = plotting.animate_run(ds, trail=spec["trail"], stride=spec["stride"],
                                     fps=spec["fps"], title=spec["title"])
    targets = [(gif, PillowWriter(fps=spec["fps"]))]
    if mp4 is not None:
        if shutil.which("ffmpeg") is None:
            raise RuntimeError("MP4 requested but ffmpeg is not on PATH")
        targets.append((mp4, FFMpegWriter(fps=spec["fps"])))
    for path, writer in targets:
        with atomic_output(path, suffix=Path(path).suffix) as temporary:
            animation.save(temporary, writer=writer, dpi=dpi)
    plt.close(animation._fig)
