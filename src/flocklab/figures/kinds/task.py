"""The ``task`` kind: a task's result document drawn by the task (:meth:`Task.draw`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flocklab.core import paths
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import get_model
from flocklab.figures.captions import task_caption
from flocklab.figures.kinds.base import ConfigError, FigureContext, FigureKind

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


class TaskFigure(FigureKind):
    """The result of one entry of ``tasks`` drawn by the task itself
    (:meth:`flocklab.core.tasks.Task.draw`), with the figure options the task declares."""

    name = "task"
    description = ("the result of one entry of `tasks` (results/tasks/<name>/result.json) "
                   "drawn by the task's model (the task's draw method)")
    needs_study = False
    required = ("task",)
    keys = """
        task:
          type: string
          description: Name of an entry of `tasks` whose model draws that task's result.
        options:
          type: object
          default: {}
          description: Options of the drawing (checked by the model before any job runs).
    """

    def check(self, where: str, figure: Mapping[str, Any], context: FigureContext) -> None:
        """The figure names a configured task whose model draws it, with options the task
        accepts."""
        entry = context.task(where, figure)
        model = get_model(entry["model"])
        try:
            model.task(entry["task"]).resolve_figure(figure["options"])
        except ParameterError as error:
            key = f"options.{error.name}" if error.name in figure["options"] else "task"
            raise ConfigError(f"config key '{where}.{key}': {error.message}") from None

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [paths.task_file(figure["task"])]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        """The task's ``result.json`` (``inputs[0]``) drawn by the task, titled."""
        import json

        import matplotlib.pyplot as plt

        with open(inputs[0], encoding="utf-8") as stream:
            document = json.load(stream)
        from flocklab.figures import style

        style.apply()
        fig = plt.figure(figsize=(6.4, 4.4), layout="constrained")
        task = get_model(document["model"]).task(document["task"])
        task.draw(fig, document, task.resolve_figure(figure.get("options", {})))
        style.title(fig, figure.get("title", ""))
        return fig

    def caption(self, name: str, figure: Mapping[str, Any], context: FigureContext) -> str:
        return task_caption(name, figure, context.config["tasks"][figure["task"]])
