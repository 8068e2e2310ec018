"""``flocklab task MODEL TASK [options]``: a model's named computation from the command line.

The options come from the declarations: one option per task option
(:attr:`flocklab.core.tasks.Task.options`) and one per model parameter; a model parameter whose
name a task option already takes is spelled ``--model-NAME``. The task runs through the
same stage as the pipeline's ``tasks:`` entries (:func:`flocklab.stages.tasks.run_task`):
``result.json`` and the task's tables go into ``--out-dir``, and the answer is printed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from flocklab.core.commands import CommandContext, add_task_arguments, task_arguments


def setup_task(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    """The ``task`` command's parsers: one per model and task; only the wanted model's
    module is imported when a model is named (``context.wanted``; ``None``: every model's)."""
    from flocklab.core.registry import available_models, get_model

    models = parser.add_subparsers(dest="model", required=True, metavar="MODEL")
    for name in available_models():
        if context.wanted is not None and name != context.wanted:
            models.add_parser(name, help="(see flocklab task NAME --help)")
            continue
        model = get_model(name)
        if not model.tasks:
            stub = models.add_parser(name, help="(no tasks)")
            stub.add_argument("task", nargs="?", help="(this model offers no tasks)")
            continue
        tasks = models.add_parser(name, help=model.description).add_subparsers(
            dest="task", required=True, metavar="TASK")
        for declared in model.tasks:
            sub = tasks.add_parser(declared.name, help=declared.description,
                                   description=f"{declared.description}. Model "
                                               f"{model.name}: {model.reference}.")
            add_task_arguments(sub, declared.options, model.parameters, context.add_parameter)
            sub.add_argument("--out-dir", default=".", metavar="DIR",
                             help="directory for result.json and the task's tables; default: "
                                  "the current directory")


def run_task_command(args: argparse.Namespace) -> dict[str, Any]:
    """Run the task the parsed ``args`` name; returns its written document."""
    from flocklab.core.io import json_ready
    from flocklab.core.parameters import ParameterError
    from flocklab.core.registry import available_models, get_model
    from flocklab.stages.tasks import run_task

    model = get_model(args.model)
    if not model.tasks:
        offering = [name for name in available_models() if get_model(name).tasks]
        raise ParameterError("model", f"model '{model.name}' offers no tasks; models with "
                                      f"tasks: {', '.join(offering)}")
    task = model.task(args.task)
    params, options = task_arguments(args, task.options, model.parameters)
    out = Path(args.out_dir) / "result.json"
    document = run_task({"model": model.name, "task": task.name, "params": params,
                         "options": options}, out)
    result = document["result"]
    headline = result.get("answer", result) if isinstance(result, dict) else result
    print(json.dumps(json_ready(headline), ensure_ascii=False, default=str, allow_nan=False))
    print(f"wrote {out}")
    return document
