"""Stage *task*: a model's named computation → ``results/tasks/<name>/result.json``.

A model may offer computations besides time runs (:attr:`flocklab.core.model.Model.tasks`,
:class:`flocklab.core.tasks.Task` instances), such as the five questions of the bench-dragon
contest problem. The stage resolves the task's parameters through the model and its options
through the task, runs :meth:`flocklab.core.tasks.Task.run` with the task's directory for any
tables it writes (CSV, xlsx), and writes the returned document as strict JSON with the
task's identity, parameters and provenance.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flocklab.core.io import write_json
from flocklab.core.provenance import provenance_attrs
from flocklab.core.registry import get_model


def run_task(entry: Mapping[str, Any], out: str | os.PathLike) -> dict[str, Any]:
    """Run the task described by a config ``tasks`` entry and write its JSON document.

    Parameters
    ----------
    entry : mapping
        ``model``, ``task``, ``params``, ``options`` (and ``description``).
    out : path
        The JSON file; tables go beside it.
    """
    model = get_model(entry["model"])
    params = model.resolve(entry.get("params", {}))
    options = dict(entry.get("options", {}))
    task = model.task(entry["task"])
    result = task.run(model, params, task.resolve(params, options), Path(out).parent)
    document = {"model": model.name, "task": entry["task"],
                "description": entry.get("description", ""), "parameters": params,
                "options": options, "result": result, **provenance_attrs()}
    write_json(document, out)
    return document
