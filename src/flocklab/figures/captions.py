"""Text of report captions (reStructuredText), shared by the figure kinds.

Each kind writes its caption (:meth:`flocklab.figures.kinds.FigureKind.caption`); a kind drawn
from a study puts what it draws into the frame :func:`study_caption` gives every such figure
(title, study, fixed parameters, model, replicates, run length). Kept free of matplotlib, as
are the kinds' captions, so that the Snakefile, which needs the captions at parse time, does
not import it (every cluster job parses the Snakefile).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flocklab.core import paths
from flocklab.core.registry import get_model

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.config import Study


#: Markup a caption writes on purpose: math roles, bold stretches, escaped spaces.
_MARKUP = r"(:math:`[^`]*`|\*\*(?:\\.|[^*\\])+\*\*|\\ )"


def rst_escape(text: str) -> str:
    r"""Plain text made literal in reStructuredText: backslashes, ``*``, `````, ``|`` and an
    underscore that ends a word (a reference) escaped.

    >>> rst_escape("|<r x v>| of agent_ 2*3")
    '\\|<r x v>\\| of agent\\_ 2\\*3'
    """
    import re

    return re.sub(r"_(?=\W|$)", r"\\_", re.sub(r"([\\*`|])", r"\\\1", text))


def rst_caption(text: str) -> str:
    """A caption with everything outside its own markup (:data:`_MARKUP`) escaped
    (:func:`rst_escape`): long names and descriptions print as written."""
    import re

    parts = re.split(_MARKUP, text)
    return "".join(part if k % 2 else rst_escape(part) for k, part in enumerate(parts))


def rst_bold(text: str) -> str:
    r"""A figure title in bold for a caption, its mathtext as RST math.

    Inline markup does not nest in reStructuredText, so ``**... :math:`x` ...**`` would print
    the role as text; the plain stretches are made bold one by one instead, with an escaped
    space (``\ ``, which RST drops) where a stretch touches the math.

    >>> rst_bold(r"noise $\eta$ = 2 ($L$)")
    '**noise** :math:`\\eta` **= 2 (**\\ :math:`L`\\ **)**'
    """
    import re

    parts = re.split(r"(\$[^$]+\$)", text)       # plain, math, plain, ..., plain
    out = []
    for k, part in enumerate(parts):
        core = part.strip()
        if k % 2:
            out.append(f":math:`{part[1:-1]}`")
        elif not core:
            out.append(part)
        else:
            lead = part[: len(part) - len(part.lstrip())] or ("\\ " if k > 0 else "")
            trail = part[len(part.rstrip()):] or ("\\ " if k < len(parts) - 1 else "")
            out.append(f"{lead}**{rst_escape(core)}**{trail}")
    return "".join(out)


#: A source with authors: initials first (``A. B. Smith, ... and C. Jones, "Title", venue``).
_AUTHORS = re.compile(r'^(?P<authors>(?:[A-Z][a-z]?\.[ -]?)+[^"]+?),? "[^"]+",? (?P<venue>.+)$')
#: A source without authors: its title in quotes up to its gloss in parentheses.
_TITLE = re.compile(r'^("[^"]+"[^(;]*(?:\([^)]*\))?)')


def short_citations(references: str) -> str:
    """A model's sources (``"; "``-separated, as :mod:`flocklab.references` writes them) cited
    the way a figure caption cites them: the first author (*et al.* from three authors on),
    venue and year, without the title; a source without authors keeps its title up to its
    gloss (the model page lists every source in full).

    Examples
    --------
    >>> text = short_citations(
    ...     'A. B. Smith, C. Jones and D. Lee, "A title", Phys. Rev. E 77, 1 (2008); '
    ...     'D. Baraff and A. Witkin, "Cloth", Proc. SIGGRAPH 98, 43 (1998); '
    ...     '"标题" (a gloss): unsigned, undated; a contest, problem A')
    >>> for part in text.split("; "):
    ...     print(part)
    A. B. Smith et al., Phys. Rev. E 77, 1 (2008)
    D. Baraff and A. Witkin, Proc. SIGGRAPH 98, 43 (1998)
    "标题" (a gloss)
    a contest, problem A
    """
    out = []
    for reference in references.split("; "):
        match = _AUTHORS.match(reference)
        title = _TITLE.match(reference)
        if match:
            authors = match["authors"]
            if "," in authors:
                authors = f"{authors.split(',')[0]} et al."
            out.append(f"{authors}, {match['venue']}")
        else:
            out.append(title.group(1).rstrip() if title else reference)
    return "; ".join(out)


def name_text(model: Any, name: str) -> str:
    """What ``name`` (a parameter, observable, metric, ...) is called in a caption: its long
    name from the declarations (:func:`flocklab.figures.labels.quantity`)."""
    from flocklab.figures.labels import quantity

    return quantity(model, name).long_name


def value_text(model: Any, name: str, value: Any) -> str:
    r"""``name = value`` for a caption, ``name`` as its symbol in RST math where it has one
    (``:math:`\eta` = 0.4``), else its long name; a parameter is named as the parameter even
    where an output shares its name."""
    from flocklab.figures.labels import parameter

    label = parameter(model, name) if model is not None else None
    shown = (f":math:`{label.symbol}`" if label is not None and label.symbol else
             label.long_name if label is not None else name.replace("_", " "))
    number = (f"{value:g}" if isinstance(value, float) else
              value.replace("_", " ") if isinstance(value, str) else value)
    return f"{shown} = {number}"


def values_text(values: Mapping[str, Any], model: Any = None) -> str:
    """``name = value`` pairs joined by commas (named as :func:`value_text` does when
    ``model`` is given)."""
    return ", ".join(value_text(model, name, value) for name, value in values.items())


def sweeps_text(study: Study) -> str:
    """``Swept: η ∈ {...} paired with ...; ...`` of a grid study."""
    model = get_model(study.model)
    sweeps = "; ".join(
        " paired with ".join(f"{_symbol(model, k)} ∈ {{{', '.join(map(_number, v))}}}"
                             for k, v in axis.coords.items()) for axis in study.axes)
    return f"Swept: {sweeps}."


def _symbol(model: Any, name: str) -> str:
    return value_text(model, name, "").removesuffix(" = ")


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def study_heading(study: Study) -> str:
    """A study's heading in the report: its description up to the first ``:`` or ``;``
    (at most 80 characters), else its name."""
    import re
    import textwrap

    text = re.split(r"[:;]", study.description or "", maxsplit=1)[0].strip()
    return textwrap.shorten(text, 80, placeholder=" …") if text else \
        study.name.replace("_", " ")


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
    model = get_model(study.model)

    def panel_text(panel: Mapping[str, Any]) -> str:
        where = values_text(panel["point"], model) if panel.get("point") else ""
        when = f"{panel['frame']} frame" if "frame" in panel else "every frame"
        return f"{panel.get('label', '')} {', '.join(filter(None, (where, when)))}".strip()

    shown = "; ".join(panel_text(panel) for panel in panels)
    return (f"Snapshots ({shown}), drawn by the model: {drawing_summary(model)} "
            + (f"Trails: up to {trail} preceding frames." if trail else ""))


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
        Title and study, ``body``, the parameters the study sets away from the model's
        defaults (the swept ones are in ``body``), the model and its source, and the runs:
        seeds per point, run length and burn-in for a model whose runs use their seed, the
        run length alone for a deterministic one.
    """
    model = get_model(study.model)
    point = next(study.points())
    params = study.params(point)
    varied = {*study.swept, *(point.values if study.sensitivity else [])}
    defaults = model.resolve({})
    set_here = {key: value for key, value in params.items()
                if key not in varied and value != defaults.get(key)
                and not isinstance(value, list | dict)}
    lines = [f"{rst_bold(spec.get('title') or name)} — {study.description or study.name}",
             "", *body]
    if set_here:
        lines.append(f"Set by the study: {values_text(set_here, model)}; the other "
                     f"parameters at the model's defaults.")
    lines.append(f"{model.title} ({short_citations(model.reference)}).")
    if model.uses_seed(params):
        unit = "" if model.time_units == "1" else f" {model.time_units}"
        lines.append(f"{study.replicates} seed(s) per point, {study.time_text()}; records up "
                     f"to t = {study.burn_in:g}{unit} discarded as burn-in; base "
                     f"seed {study.base_seed}.")
    else:
        lines.append(f"Deterministic runs (no seed), {study.time_text()}.")
    return rst_caption("\n".join(lines))


def task_caption(name: str, spec: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    """Report caption (reStructuredText) of a ``task`` figure: what the task draws, the task
    it reads (``entry``, its config entry) with its parameters and options."""
    model = get_model(entry["model"])
    lines = [f"{rst_bold(spec.get('title') or name)} — "
             f"{entry.get('description') or spec['task']}",
             "", f"{model.task(entry['task']).figure}",
             f"Task '{spec['task']}' ({entry['task']}: "
             f"{model.task(entry['task']).description}) of the "
             f"{model.name} model ({short_citations(model.reference)}); numbers in "
             f"{paths.task_file(spec['task'])}."]
    if entry.get("params"):
        lines.append(f"Parameters: {values_text(entry['params'])}.")
    if entry.get("options"):
        lines.append(f"Task options: {values_text(entry['options'])}.")
    if spec.get("options"):
        lines.append(f"Figure options: {values_text(spec['options'])}.")
    return rst_caption("\n".join(lines))


def drawing_summary(model: Any) -> str:
    """First line of the docstring of the model's drawing (what a snapshot shows)."""
    from flocklab.figures.drawing import drawing_of

    doc = type(drawing_of(model)).__doc__ or ""
    return doc.strip().split("\n")[0].strip()
