"""Text of report captions (reStructuredText), shared by the figure kinds.

Each kind writes its caption (:meth:`flocklab.figures.kinds.FigureKind.caption`); a kind drawn
from a study puts what it draws into the frame :func:`study_caption` gives every such figure
(title, study, fixed parameters, model, replicates, run length). Kept free of matplotlib, as
are the kinds' captions, so that the Snakefile, which needs the captions at parse time, does
not import it (every cluster job parses the Snakefile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flocklab.core.registry import get_model

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.config import Study


def values_text(values: Mapping[str, Any]) -> str:
    """``name = value`` pairs joined by commas."""
    return ", ".join(f"{name} = {value}" for name, value in values.items())


def sweeps_text(study: Study) -> str:
    """``Swept: k ∈ {...} paired with ...; ...`` of a grid study."""
    sweeps = "; ".join(
        " paired with ".join(f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in
                             axis.coords.items()) for axis in study.axes)
    return f"Swept: {sweeps}."


def design_text(study: Study) -> str:
    """Method, design rows, distinct points and factor ranges of a sensitivity study."""
    design = study.design
    ranges = "; ".join(
        f"{f.name} ∈ {{{', '.join(f'{v:g}' for v in f.values)}}}" if f.values else
        f"{f.name} ∈ [{f.low:g}, {f.high:g}]" + (f" (truncated normal, mean "
                                                 f"{f.mean:g}, sd {f.sd:g})"
                                                 if f.dist == "truncnorm" else "")
        for f in design.factors)
    return (f"Method {design.method}: {design.values.shape[0]} design rows, "
            f"{len(list(study.points()))} distinct points. Factors: {ranges}.")


def snapshots_text(study: Study, panels: Sequence[Mapping[str, Any]], trail: int) -> str:
    """What snapshot panels (or an animation, one entry without a frame) show."""
    shown = "; ".join(f"{panel.get('label', '')} {values_text(panel['point'])}, "
                      f"{panel.get('frame', 'all')} frame".strip() for panel in panels)
    return (f"Snapshots of the {study.model} model ({shown}), drawn by the model: "
            f"{drawing_summary(get_model(study.model))} "
            f"Trails: up to {trail} preceding frames.")


def study_caption(name: str, spec: Mapping[str, Any], study: Study, body: Sequence[str]
                  ) -> str:
    """Report caption of a figure drawn from ``study``.

    Parameters
    ----------
    name : str
        The figure's name (its title when it has none).
    spec : mapping
        The figure's config entry.
    study : Study
        The study it is drawn from.
    body : sequence of str
        Lines saying what the figure draws (from its kind).

    Returns
    -------
    str
        Title and study, ``body``, fixed parameters, then model, replicates, run length,
        burn-in and base seed.
    """
    fixed = study.params(next(study.points()))
    for swept in [*study.swept, *(next(study.points()).values if study.sensitivity else [])]:
        fixed.pop(swept, None)
    lines = [f"**{spec.get('title') or name}** — {study.description or study.name}", "",
             *body, f"Fixed parameters: {values_text(fixed)}."]
    model = get_model(study.model)
    lines.append(f"Model {study.model} ({model.reference}); {study.replicates} replicate(s) "
                 f"per point, {study.time_text()}, records up to t = {study.burn_in:g} "
                 f"{model.time_units} discarded as burn-in; base seed {study.base_seed}.")
    return "\n".join(lines)


def task_caption(name: str, spec: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    """Report caption (reStructuredText) of a ``task`` figure: what the task draws, the task
    it reads (``entry``, its config entry) with its parameters and options."""
    model = get_model(entry["model"])
    lines = [f"**{spec.get('title') or name}** — {entry.get('description') or spec['task']}",
             "", f"{model.task(entry['task']).figure}",
             f"Task '{spec['task']}' ({entry['task']}: "
             f"{model.task(entry['task']).description}) of the "
             f"{model.name} model ({model.reference}); numbers in "
             f"results/tasks/{spec['task']}/result.json."]
    if entry.get("params"):
        lines.append(f"Parameters: {values_text(entry['params'])}.")
    if entry.get("options"):
        lines.append(f"Task options: {values_text(entry['options'])}.")
    if spec.get("options"):
        lines.append(f"Figure options: {values_text(spec['options'])}.")
    return "\n".join(lines)


def drawing_summary(model: Any) -> str:
    """First line of the docstring of the model's drawing (what a snapshot shows)."""
    from flocklab.figures.drawing import drawing_of

    doc = type(drawing_of(model)).__doc__ or ""
    return doc.strip().split("\n")[0].strip()
