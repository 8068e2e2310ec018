"""The figure-kind contract, the registry :data:`KINDS` and what a kind sees of the config."""

from __future__ import annotations

import copy
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import yaml

from flocklab.core import paths
from flocklab.core.names import nearest_names
from flocklab.core.parameters import ConfigError
from flocklab.core.registry import get_model

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from flocklab.config.study import Study

#: Every figure kind by name (config ``figures.<name>.kind``), in the order defined; a
#: :class:`FigureKind` subclass with a ``name`` adds itself.
KINDS: dict[str, FigureKind] = {}


class FigureKind:
    """Base class of a figure kind (config ``figures.<name>.kind``).

    A kind is one subclass: defining a subclass with a ``name`` registers an instance in
    :data:`KINDS`, and from there the kind is in the config schema (:func:`figure_schema`), the
    config checks, the Snakemake rules (their inputs, figure or animation), the figures stage
    (:mod:`flocklab.stages.figures`) and the report captions. Nothing else is edited.

    Notes
    -----
    The subclass contract. Class attributes:

    ``name`` : str
        The value of ``kind`` in the config.
    ``description`` : str
        What the kind draws, one phrase for the schema's description of ``kind``.
    ``keys`` : str
        YAML text of a JSON-schema ``properties`` mapping: the keys the kind takes besides
        ``kind``, ``title`` (and ``study``), each with its type, description and default.
        Any other key is an error; defaults are filled in before :meth:`check` sees the
        figure, and ``$ref`` may name the schema's ``$defs`` (``"#/$defs/value"``).
    ``required`` : tuple of str
        Keys of ``keys`` the figure must give.
    ``needs_study`` : bool
        The figure names a study (key ``study``, required); default True.
    ``animation`` : bool
        :meth:`draw` returns a :class:`matplotlib.animation.Animation`, written as a GIF
        (and an MP4 where ffmpeg exists) by rule ``animation``; default False (a figure,
        written in every ``plot.formats`` by rule ``figure``).

    Methods (all required):

    ``check(where, figure, context)``
        Check a schema-valid figure (config key ``where``, e.g. ``"figures.fig1"``) against
        what it draws from: the studies, points, coordinates and tasks of ``context`` (a
        :class:`FigureContext`). Raise :class:`~flocklab.core.parameters.ConfigError` whose one-line
        message starts ``config key '<where>.<key>':``.
    ``inputs(figure, context)``
        The files the figure reads (paths from ``context``), in the order :meth:`draw` takes
        them.
    ``draw(figure, inputs)``
        The drawn figure (:class:`matplotlib.figure.Figure`; an animation for ``animation``
        kinds) from ``inputs``, opened here; the caller saves and closes it. Import
        matplotlib and :mod:`flocklab.figures.plotting` inside: the Snakefile imports the
        kinds to parse its rules.
    ``caption(name, figure, context)``
        The report caption (reStructuredText) of figure ``name``.

    :class:`StudyKind` implements ``check`` and ``caption`` for kinds drawn from one study.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    keys: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    needs_study: ClassVar[bool] = True
    animation: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            if cls.name in KINDS:
                raise ValueError(f"figure kind '{cls.name}' is defined twice")
            KINDS[cls.name] = cls()

    def schema(self) -> dict[str, Any]:
        """The kind's branch of the figure schema: if ``kind`` is this kind, then only these
        keys (with their defaults)."""
        common = ["kind", "study", "title"] if self.needs_study else ["kind", "title"]
        properties = yaml.safe_load(textwrap.dedent(self.keys)) or {}
        return {"if": {"properties": {"kind": {"const": self.name}}},
                "then": {"additionalProperties": False,
                         "required": [*common[:-1], *self.required],
                         "properties": {**dict.fromkeys(common, True), **properties}}}

    def check(self, where: str, figure: Mapping[str, Any], context: FigureContext) -> None:
        """Check the figure against the config; raise ConfigError naming the key."""
        raise NotImplementedError

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        """The files the figure reads, in the order :meth:`draw` takes them."""
        raise NotImplementedError

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        """The figure drawn from ``inputs`` (an animation for ``animation`` kinds)."""
        raise NotImplementedError

    def caption(self, name: str, figure: Mapping[str, Any], context: FigureContext) -> str:
        """Report caption (reStructuredText) of figure ``name``."""
        raise NotImplementedError


class StudyKind(FigureKind):
    """A kind drawn from one study (key ``study``).

    :meth:`check` looks the study up (an unknown one is an error naming ``study``) and hands
    it to :meth:`check_study`; :meth:`caption` frames the lines of :meth:`describe` with the
    study's parameters, model and run length (:func:`flocklab.figures.captions.study_caption`).
    Subclasses implement :meth:`check_study`, :meth:`describe`, ``inputs`` and ``draw``.
    """

    def check(self, where: str, figure: Mapping[str, Any], context: FigureContext) -> None:
        """Check the study exists, then the rest (:meth:`check_study`)."""
        self.check_study(where, figure, context.study(where, figure), context)

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        """Check the figure against its ``study``; raise ConfigError naming the key."""
        raise NotImplementedError

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        """Caption lines saying what the figure draws."""
        raise NotImplementedError

    def caption(self, name: str, figure: Mapping[str, Any], context: FigureContext) -> str:
        """The study caption around :meth:`describe`."""
        from flocklab.figures.captions import study_caption

        study = context.studies[figure["study"]]
        return study_caption(name, figure, study, self.describe(figure, study))


def require_grid_study(where: str, kind: str, study: Study) -> None:
    """A kind drawn from a grid (its summary over swept axes) refuses a sensitivity study."""
    if study.sensitivity is not None:
        raise ConfigError(f"config key '{where}.kind': '{kind}' needs a grid study; "
                          f"'{study.name}' is a sensitivity study")


def open_inputs(paths: Sequence[Any]) -> list:
    """The datasets of ``paths`` (run, summary or analysis files), opened."""
    from flocklab.core.io import open_dataset

    return [open_dataset(path) for path in paths]


@dataclass(frozen=True)
class FigureContext:
    """What a figure kind sees of a validated config: its sections, the expanded studies and
    where the pipeline writes its results (the layout of the Snakemake rules).

    Parameters
    ----------
    config : mapping
        The config with defaults filled in (``figures``, ``studies``, ``tasks``).
    studies : mapping of str to Study
        The expanded studies (:func:`flocklab.pipeline.validate_config`).

    Files are located by :mod:`flocklab.core.paths`.
    """

    config: Mapping[str, Any]
    studies: Mapping[str, Study]

    def kind(self, name: str) -> FigureKind:
        """The kind of figure ``name``."""
        return KINDS[self.config["figures"][name]["kind"]]

    def check(self, name: str) -> None:
        """Check figure ``name`` (:meth:`FigureKind.check`)."""
        self.kind(name).check(f"figures.{name}", self.config["figures"][name], self)

    def inputs(self, name: str) -> list[str]:
        """The files figure ``name`` reads (:meth:`FigureKind.inputs`)."""
        return self.kind(name).inputs(self.config["figures"][name], self)

    def caption(self, name: str) -> str:
        """The report caption of figure ``name`` (:meth:`FigureKind.caption`)."""
        return self.kind(name).caption(name, self.config["figures"][name], self)

    def report_group(self, name: str) -> tuple[str, str]:
        """Where figure ``name`` goes in the report: its model's title (the category) and
        its study's heading, or ``"Tasks"`` for a figure drawn from a task."""
        from flocklab.figures.captions import study_heading

        figure = self.config["figures"][name]
        if "study" in figure:
            study = self.studies[figure["study"]]
            return get_model(study.model).title, study_heading(study)
        return get_model(self.config["tasks"][figure["task"]]["model"]).title, "Tasks"

    def study(self, where: str, figure: Mapping[str, Any]) -> Study:
        """The study the figure names; ConfigError naming ``<where>.study`` if none."""
        if figure["study"] not in self.studies:
            defined = list(self.config.get("studies", {})) or list(self.studies)
            raise ConfigError(f"config key '{where}.study': unknown study '{figure['study']}'"
                              f"{nearest_names(figure['study'], defined)}")
        return self.studies[figure["study"]]

    def task(self, where: str, figure: Mapping[str, Any]) -> Mapping[str, Any]:
        """The ``tasks`` entry the figure names; ConfigError naming ``<where>.task`` if none."""
        tasks = self.config["tasks"]
        if figure["task"] not in tasks:
            raise ConfigError(f"config key '{where}.task': unknown task '{figure['task']}'; "
                              f"defined: {', '.join(tasks) or 'none'}")
        return tasks[figure["task"]]

    def run_file(self, figure: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
        """Run file of an entry (a panel, a run, an animation) with ``point`` and
        ``replicate`` in the figure's study."""
        study = self.studies[figure["study"]]
        point = study.find_point(entry["point"])
        return paths.run_file(study.name, point.label, entry.get("replicate", 0))


def figure_schema(common: Mapping[str, Any]) -> dict[str, Any]:
    """The schema of a figure: ``common`` completed from :data:`KINDS`.

    Parameters
    ----------
    common : mapping
        The ``$defs.figure`` section of the config schema: what every figure shares
        (``type``, ``required``, and the keys ``study`` and ``title`` under ``properties``).

    Returns
    -------
    dict
        ``common`` with the ``kind`` key (an enum of the kinds, described by each kind's
        ``description``) first under ``properties``, and ``allOf`` holding each kind's branch
        (:meth:`FigureKind.schema`): its own keys and defaults, nothing else.
    """
    schema = copy.deepcopy(dict(common))
    described = "; ".join(f"{name} = {kind.description}" for name, kind in KINDS.items())
    kind_key = {"enum": list(KINDS), "description": f"What the figure draws: {described}."}
    schema["properties"] = {"kind": kind_key, **schema.get("properties", {})}
    schema["allOf"] = [kind.schema() for kind in KINDS.values()]
    return schema
