"""``flocklab stability springs`` and ``flocklab accuracy springs``: the integrator studies.

The springs model's own commands (its ``commands`` declaration,
:class:`flocklab.core.commands.Command`): a thin layer over the model's ``stability`` and
``accuracy`` tasks (:mod:`flocklab.models.springs.tasks`), run through the task stage
(:func:`flocklab.stages.tasks.run_task`):

* ``stability`` prints, per integrator, the largest stable step measured on nonlinear runs,
  the linear theory's and their ratio, with one progress line per integrator on stderr;
* ``accuracy`` prints each integrator's fitted convergence order and its global errors.

``--preset tongue`` is the tongue of the tongue-model article (the model's defaults);
``--preset cloth`` the model's preset "cloth" (10 x 10, 0.01 kg points, 1000 N/m springs)
hanging from its two top corners under gravity (9.80665 m s-2).
``--integrator`` takes one name, several, or ``all`` (the nine of the study). With
``--out-dir`` the task's JSON document (parameters, options, package version, git commit) and
its CSV table are written there; ``--json`` prints the document's result as strict JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from flocklab.core.commands import Command, CommandContext, add_task_arguments, task_arguments

#: Model parameters of each preset (other parameters keep the model's defaults).
PRESETS = ("tongue", "cloth")


def preset_params(name: str) -> dict[str, Any]:
    """Model parameters of preset ``name``: the tongue is the model's default chain; the cloth
    is the model's preset "cloth" (one definition: the explorer and these commands show the
    same cloth), without its integrator (``--integrator`` chooses)."""
    if name == "tongue":
        return {"structure": "chain"}
    from flocklab.core.registry import get_model

    preset = next(p for p in get_model("springs").presets if p.name == name)
    return {key: value for key, value in preset.params.items() if key != "integrator"}


#: Task options of each preset (given options win): the cloth's 2/omega_max is 2.3 ms, so a
#: quarter second is still > 100 x 2/omega_max, as the pipeline's stability table runs it.
PRESET_OPTIONS: dict[str, dict[str, Any]] = {"tongue": {}, "cloth": {"run_time": 0.25}}
#: Model parameters the verbs do not offer: the preset and --integrator choose them.
_CHOSEN = ("structure", "integrator", "network")


def _setup(task_name: str) -> Callable[[argparse.ArgumentParser, CommandContext], None]:
    """``setup`` of the ``stability`` or ``accuracy`` command: its ``springs`` model verb
    with the task's options (and, for stability, the preset and the model parameters)."""

    def setup(parser: argparse.ArgumentParser, context: CommandContext) -> None:
        from flocklab.core.registry import get_model
        from flocklab.models.springs.integrators import INTEGRATORS, STUDY_METHODS

        model = get_model("springs")
        task = model.task(task_name)
        models = parser.add_subparsers(dest="model", required=True, metavar="MODEL")
        sub = models.add_parser("springs", help=task.description,
                                description=f"{task.description}. {__doc__.split(chr(10))[0]}")
        # SciPy's adaptive solvers have no fixed-step stability limit to measure
        names = STUDY_METHODS if task_name == "stability" else tuple(INTEGRATORS)
        sub.add_argument("--integrator", action="append", metavar="NAME",
                         choices=["all", *names],
                         help="integrator (repeatable), or 'all': the nine of the study; "
                              f"default all. Choices: {', '.join(names)}")
        if task_name == "stability":
            sub.add_argument("--preset", choices=list(PRESETS), default="tongue",
                             help="tongue: the article's six-point chain; cloth: the model's "
                                  "preset cloth (10 x 10, 1000 N/m) hanging from its corners "
                                  "under gravity, runs of 0.25 s unless --run-time is given; "
                                  "default tongue")
        parameters = model.parameters if task_name == "stability" else ()
        add_task_arguments(sub, task.options, parameters, context.add_parameter,
                           skip=("methods", *_CHOSEN),
                           model_title="model parameters (override the preset)")
        sub.add_argument("--out-dir", metavar="DIR", default=None,
                         help="write result.json and the task's CSV table here (default: "
                              "print only)")
        sub.add_argument("--json", action="store_true",
                         help="print the result as strict JSON instead of the table")
        sub.set_defaults(task_name=task_name)

    return setup


def run_springs_command(args: argparse.Namespace) -> dict[str, Any]:
    """Run the parsed ``stability`` or ``accuracy`` verb; print and return its result."""
    from flocklab.core.io import json_ready
    from flocklab.core.registry import get_model
    from flocklab.stages.tasks import run_task

    model = get_model("springs")
    task = model.task(args.task_name)
    chosen = args.integrator or ["all"]
    preset = getattr(args, "preset", "tongue")
    given_params, given_options = task_arguments(args, task.options, model.parameters,
                                                 skip=("methods", *_CHOSEN))
    options = {**(PRESET_OPTIONS[preset] if task.name == "stability" else {}), **given_options,
               "methods": None if "all" in chosen else list(dict.fromkeys(chosen))}
    params = {**preset_params(preset), **given_params}
    entry = {"model": "springs", "task": task.name, "params": params, "options": options}
    with tempfile.TemporaryDirectory(prefix="flocklab-springs-") as scratch, \
            _progress_on_stderr():
        out_dir = Path(args.out_dir) if args.out_dir else Path(scratch)
        document = run_task(entry, out_dir / "result.json")
    result = document["result"]
    if args.json:
        print(json.dumps(json_ready(result), allow_nan=False))
    elif task.name == "stability":
        print(stability_text(result))
    else:
        print(accuracy_text(result))
    if args.out_dir:
        print(f"wrote {out_dir / 'result.json'} and {', '.join(_tables(out_dir))}",
              file=sys.stderr)
    return result


#: The springs model's commands (its ``commands`` declaration).
COMMANDS = (
    Command("stability", "largest stable time step of each integrator, measured and in theory",
            _setup("stability"), run_springs_command),
    Command("accuracy", "convergence order of each integrator", _setup("accuracy"),
            run_springs_command),
)


def _tables(out_dir: Path) -> list[str]:
    return sorted(str(p) for p in out_dir.glob("*.csv"))


@contextlib.contextmanager
def _progress_on_stderr() -> Iterator[None]:
    """Progress lines of the tasks (INFO of the ``flocklab`` loggers) on stderr while
    running, unless a handler is already there (``flocklab -v``)."""
    logger = logging.getLogger("flocklab")
    if logger.handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("flocklab: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


# --------------------------------------------------------------------------- tables


def _seconds(value: float | None, state: str) -> str:
    if state in ("stable_at_every_dt_tried", "unconditionally_stable"):
        return "inf"
    if state == "not_measured" or value is None:
        return "-"
    return f"{value:.4g}"


def stability_text(result: Mapping[str, Any]) -> str:
    """The stability table as text: configuration, integrator, measured and theory
    ``dt_max`` (s), their ratio and the agreement; the state names under it."""
    header = ("configuration", "integrator", "measured [s]", "theory [s]", "ratio",
              "agreement")
    rows = [header]
    for row in result["table"]:
        measured, theory = row["dt_measured"], row["dt_theory"]
        ratio = "-"
        if row["dt_measured_state"] == "measured" and row["dt_theory_state"] == "measured":
            ratio = f"{measured / theory:.3f}"
        elif row["dt_measured_state"] == row["dt_theory_state"].replace(
                "unconditionally_stable", "stable_at_every_dt_tried"):
            ratio = "both"
        rows.append((row["configuration"], row["method"],
                     _seconds(measured, row["dt_measured_state"]),
                     _seconds(theory, row["dt_theory_state"]), ratio,
                     row["agreement"] or "-"))
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(header))]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(r, widths, strict=True))
             for r in rows]
    lines.append("inf: stable at every step tried (measured) or at every step (theory); "
                 "-: not measured or no linear theory; ratio 'both': both inf or both 0; "
                 f"resolution of a measured limit {result['resolution']:.1%}")
    return "\n".join(lines)


def accuracy_text(result: Mapping[str, Any]) -> str:
    """Each integrator's fitted order and its global errors at each step, as text."""
    methods = result["methods"]
    steps = next(iter(methods.values()))["dt"]
    header = ["integrator", "order", *(f"e(dt={dt:g})" for dt in steps)]
    rows = [header]
    for method, data in methods.items():
        rows.append([method, _order(data["order"]),
                     *(f"{error:.3g}" for error in data["error"])])
    widths = [max(len(r[k]) for r in rows) for k in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True))
             for r in rows]
    lines.append(f"{result['problem']}, damping ratio {result['zeta']:g}; order: slope of "
                 "log error against log dt")
    return "\n".join(lines)


def _order(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.3f}"
