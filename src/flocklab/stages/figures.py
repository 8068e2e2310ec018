"""Stage *figures*: stage files → ``results/figures/<name>.<format>`` and animations.

Each figure is drawn by its kind (config ``figures.<name>.kind``, one of
:data:`flocklab.figures.kinds.KINDS`) from the files the kind reads
(:meth:`~flocklab.figures.kinds.FigureKind.inputs`); this stage only writes what the kind
draws. Report captions: the kinds' :meth:`~flocklab.figures.kinds.FigureKind.caption`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.animation import FFMpegWriter, PillowWriter

from flocklab.core.io import atomic_output
from flocklab.figures.kinds import KINDS, FigureKind


def _save(fig: plt.Figure, outputs: Sequence[str | os.PathLike], dpi: int) -> None:
    for path in outputs:
        with atomic_output(path) as temporary:
            fig.savefig(temporary, dpi=dpi, format=Path(path).suffix.lstrip("."),
                        metadata={"Software": None} if str(path).endswith(".png") else
                        {"Creator": None, "Producer": None, "CreationDate": None})
    plt.close(fig)


def _kind(spec: Mapping[str, Any], animation: bool, caller: str) -> FigureKind:
    kind = KINDS.get(spec["kind"])
    if kind is None or kind.animation != animation:
        raise ValueError(f"figure kind {spec['kind']!r} is not drawn by {caller}")
    return kind


def make_figure(spec: Mapping[str, Any], inputs: Sequence[str | os.PathLike],
                outputs: Sequence[str | os.PathLike], dpi: int = 150) -> None:
    """Draw one figure with its kind and save it in every output format.

    Parameters
    ----------
    spec : mapping
        The figure's config entry, defaults filled in.
    inputs : sequence of path
        The files its kind reads, in the kind's order (:meth:`FigureKind.inputs`).
    outputs : sequence of path
        One file per format (the suffix names it).
    dpi : int
        Resolution of raster formats.

    Raises
    ------
    ValueError
        For an unknown kind or an animation kind (:func:`make_animation`).
    """
    _save(_kind(spec, False, "make_figure").draw(spec, inputs), outputs, dpi)


def make_animation(spec: Mapping[str, Any], run_path: str | os.PathLike, gif: str | os.PathLike,
                   mp4: str | os.PathLike | None = None, dpi: int = 100) -> None:
    """Write a GIF (and an MP4 when ``mp4`` is given and ffmpeg exists) of one run, drawn by
    the figure's (animation) kind."""
    animation = _kind(spec, True, "make_animation").draw(spec, [run_path])
    targets = [(gif, PillowWriter(fps=spec["fps"]))]
    if mp4 is not None:
        if shutil.which("ffmpeg") is None:
            raise RuntimeError("MP4 requested but ffmpeg is not on PATH")
        targets.append((mp4, FFMpegWriter(fps=spec["fps"])))
    for path, writer in targets:
        with atomic_output(path, suffix=Path(path).suffix) as temporary:
            animation.save(temporary, writer=writer, dpi=dpi)
    plt.close(animation._fig)
