"""Command line: ``flocklab COMMAND``, one command per subparser of :func:`build_parser`.

Model options are generated from the model's parameter declarations, so every
parameter has an option whose help gives its meaning, unit, allowed range and default
(underscores become dashes: ``--field-of-view``; the Python API's spelling ``--field_of_view``
is accepted too; structured parameters take JSON). The run controls have the names of the
Python API (``--steps`` or ``--t-end``, ``--dt``, ``--record-every``, ``--snapshot-every``,
``--snapshot-start``, ``--seed``; likewise also with underscores).

A user's mistake ends in one line ``flocklab: error: ...`` naming the option or key (with the
nearest names for a misspelt one) and exit code 2, never a traceback; option prefixes are not
abbreviated; the global options (``-v``) may stand anywhere on the line.
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

from flocklab.analysis.timeseries import ORDER_THRESHOLD
from flocklab.cli.explore import EXPLORE_DESCRIPTION, run_explore, setup_explore
from flocklab.cli.fss import FSS_DESCRIPTION, parse_select, run_fss_command, setup_fss
from flocklab.cli.pipeline import PIPELINE_COMMANDS, SIGNAL_EXIT, Interrupted
from flocklab.cli.task import run_task_command, setup_task
from flocklab.core.commands import Command, CommandContext, model_commands
from flocklab.core.model import Model, SimulationError
from flocklab.core.parameters import ConfigError, ParameterError, ParameterSpec
from flocklab.core.provenance import package_version
from flocklab.core.registry import available_models, get_model
from flocklab.core.time import RunControl

#: Options of the root parser that may stand anywhere on the command line.
GLOBAL_FLAGS = ("-v", "--verbose")


class Parser(argparse.ArgumentParser):
    """An argument parser that never abbreviates options, suggests the nearest name for a
    misspelt option or choice, and reports an unknown option with the usage of the
    (sub)command it was given to."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self._subparsers is None:
            options = [option for action in self._actions for option in action.option_strings]
            close = difflib.get_close_matches(extras[0], options, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return namespace, extras

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices]
        if not choices:
            raise argparse.ArgumentError(action, f"{value!r}: there is nothing to choose here")
        close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.5)
        hint = (f"did you mean {' or '.join(map(repr, close))}?" if close
                else f"choose from {', '.join(choices)}")
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}; {hint}")


class _CommandListFormatter(argparse.HelpFormatter):
    """Root help: one line per command under "commands" (no line of the ``COMMAND``
    placeholder above them), each name on its help line."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=24)
        self._action_max_length = 18  # "    check-config  ": every name on its help line

    def _format_action(self, action: argparse.Action) -> str:
        text = super()._format_action(action)
        if action.nargs == argparse.PARSER:
            text = "\n".join(text.split("\n")[1:])
        return text


class _StderrHandler(logging.StreamHandler):
    """A log handler writing to whatever ``sys.stderr`` is when a message is logged (so
    that ``main`` may be called many times in one process, as the tests do)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def _number(kind: str):
    def parse(text: str) -> int | float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        return int(value) if kind == "int" and value.is_integer() else value
    parse.__name__ = kind
    return parse


def _json_value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON: {error.msg}") from None


_json_value.__name__ = "JSON"


def _add_parameter(parser: Any, spec: ParameterSpec, prefix: str = "") -> None:
    """One option for the declared parameter (or task option) ``spec``, stored under
    ``prefix + spec.name``; its help gives the meaning, unit, range and default."""
    help_text = (f"{spec.description} [{spec.unit}]; {spec.range_text()}; "
                 f"default {json.dumps(spec.default)}").replace("%", "%%")
    options = _spellings(prefix + spec.name)
    dest = prefix + spec.name
    if spec.kind == "choice":
        parser.add_argument(*options, dest=dest, choices=spec.choices, help=help_text)
    elif spec.kind == "json":
        parser.add_argument(*options, dest=dest, type=_json_value, metavar="JSON",
                            help=help_text)
    elif spec.kind == "bool":
        parser.add_argument(*options, dest=dest, action=argparse.BooleanOptionalAction,
                            default=None, help=help_text)
    else:
        parser.add_argument(*options, dest=dest, type=_number(spec.kind),
                            metavar="VALUE", help=help_text)


def _spellings(name: str) -> tuple[str, ...]:
    """``--k-a`` and the Python API's ``--k_a`` for a parameter named ``k_a``."""
    dashed = f"--{name.replace('_', '-')}"
    return (dashed,) if "_" not in name else (dashed, f"--{name}")


def _add_run_controls(parser: argparse.ArgumentParser, model: Model) -> None:
    run = parser.add_argument_group(f"run control (time in {model.time_units})")
    length = run.add_mutually_exclusive_group(required=True)
    length.add_argument("--steps", type=int, help="time steps (>= 1)")
    if model.time_mode == "continuous":
        length.add_argument(*_spellings("t_end"), type=float, dest="t_end",
                            help=f"final time [{model.time_units}]")
        run.add_argument("--dt", type=float, help=f"time step [{model.time_units}]; default "
                                                  f"{model.default_dt:g}")
    run.add_argument("--seed", type=int, default=None,
                     help="seed of the random stream (required unless the run is "
                          "deterministic: the model's uses_seed)")
    run.add_argument(*_spellings("record_every"), type=float, dest="record_every", metavar="T",
                     help="record the observables every T (a whole number of steps); "
                          "default: every step")
    run.add_argument(*_spellings("snapshot_every"), type=float, default=0, metavar="T",
                     help="store a snapshot frame every T (0: only frame 0); default 0")
    run.add_argument(*_spellings("snapshot_start"), type=float, default=0, metavar="S",
                     help="time of the first stored frame after frame 0; default 0")
    run.add_argument("--checkpoint-every", type=int, default=0, metavar="K",
                     help="save the state every K steps and resume from a checkpoint of "
                          "the same run if one exists (0: off); default 0")
    run.add_argument("--checkpoint", default=None, metavar="PATH",
                     help="checkpoint file (default: .OUT.checkpoint.npz beside --out)")
    run.add_argument("--threads", type=int, default=None,
                     help="kernel threads (results do not depend on it); default: all cores")
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="progress bar (default: only on a terminal)")
    run.add_argument("--out", required=True, help="output netCDF file")


def _add_model_parsers(models: argparse._SubParsersAction, wanted: str | None) -> None:
    """One sub-parser per model; only ``wanted``'s module is imported when it is named."""
    for name in available_models():
        if wanted is not None and name != wanted:
            models.add_parser(name, help="(see flocklab simulate NAME --help)")
            continue
        model = get_model(name)
        model_parser = models.add_parser(name, help=model.description,
                                         allow_abbrev=False,
                                         description=f"{model.description}. "
                                                     f"{model.reference}.")
        for spec in model.parameters:
            _add_parameter(model_parser, spec)
        _add_run_controls(model_parser, model)


def _setup_simulate(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    models = parser.add_subparsers(dest="model", required=True, metavar="MODEL")
    _add_model_parsers(models, context.wanted)


def _setup_params(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    parser.add_argument("model", choices=available_models())


def _run_params(args: argparse.Namespace) -> None:
    for spec in get_model(args.model).parameters:
        print(f"{spec.name:8s} {spec.kind:6s} default {json.dumps(spec.default):12s} "
              f"[{spec.unit}] {spec.range_text()} — {spec.description}")


def _setup_fss(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    setup_fss(parser, _netcdf_file)


def command_registry(models: bool = True) -> dict[str, Command]:
    """``name -> Command`` of every command: the command line's own and, with ``models``,
    those the registered models declare (each model module imported, no kernel).

    Raises
    ------
    ValueError
        If two commands share a name.
    """
    declared = [command for name in (available_models() if models else [])
                for command in model_commands(get_model(name))]
    registry: dict[str, Command] = {}
    for command in (*ANALYSES, *declared, *TOOLS):
        if command.name in registry:
            raise ValueError(f"command '{command.name}' is declared twice")
        registry[command.name] = command
    return registry


def build_parser(model: str | None = "", command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser, one sub-parser per :func:`command_registry` entry; ``model``
    limits the simulate and task sub-parsers that are built in full to that model
    (``None``: none; ``""``: all). A ``command`` of the command line's own leaves the models'
    commands out (none of their modules is imported)."""
    parser = Parser(prog="flocklab", description="Simulate and analyse models of collective "
                    "motion and chains of linked agents; one command per line below.",
                    formatter_class=_CommandListFormatter)
    parser.add_argument("--version", action="version", version=f"flocklab {package_version()}")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="log progress messages (checkpoints, timings) to stderr")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     title="commands")
    own = {entry.name for entry in (*ANALYSES, *TOOLS)}
    context = CommandContext(_add_parameter, model or None if model != "" else None)
    for entry in command_registry(models=command not in own).values():
        sub = commands.add_parser(entry.name, help=entry.help, allow_abbrev=False,
                                  description=entry.description or None)
        entry.setup(sub, context)
        sub.set_defaults(_command=entry)
    return parser


def _setup_metrics(metrics: argparse.ArgumentParser, context: CommandContext) -> None:
    metrics.add_argument("run", type=_netcdf_file, help="run netCDF file")
    metrics.add_argument("--burn-in", type=float, required=True,
                         help="discard records at times <= this (model time units, >= 0)")
    metrics.add_argument("--order-threshold", type=float, default=ORDER_THRESHOLD,
                         help="level of the primary observable whose first-passage time is "
                              f"time_to_order (default {ORDER_THRESHOLD})")
    metrics.add_argument("--out", required=True, help="output netCDF file")


def _setup_fit(fit: argparse.ArgumentParser, context: CommandContext) -> None:
    fit.add_argument("summary", type=_netcdf_file,
                     help="a study's summary.nc, or any netCDF file with per-replicate "
                          "<P>_mean and <P>_sem")
    fit.add_argument("--control", required=True, metavar="KEY",
                     help="a critical control the summary's model declares (e.g. eta, rho "
                          "for vicsek); without a model attribute, the coordinate's name")
    fit.add_argument("--observable", default=None, metavar="NAME",
                     help="observable P (default: the summary's primary_observable, else "
                          "the one P with a <P>_mean variable)")
    fit.add_argument("--side", choices=["below", "above"], default=None,
                     help="ordered side of the critical value (required when the summary "
                          "names no model; else must agree with the model)")
    fit.add_argument("--exponent", default=None, metavar="NAME",
                     help="name of the exponent in the output (default: the model's, else "
                          "'exponent')")
    fit.add_argument("--select", action="append", default=[], metavar="DIM=VALUE",
                     help="fix another swept dimension, e.g. --select N=400 (repeatable)")
    fit.add_argument("--reduced-min", type=float, default=0.02,
                     help="leave out points with reduced distance <= this; default 0.02")
    fit.add_argument("--reduced-max", type=float, default=0.5,
                     help="leave out points with reduced distance > this; default 0.5")
    fit.add_argument("--bootstrap", type=int, default=200,
                     help="bootstrap resamples over seeds; default 200")
    fit.add_argument("--seed", type=int, default=0, help="seed of the bootstrap; default 0")
    fit.add_argument("--out", required=True, help="output JSON file")
    fit.add_argument("--out-nc", help="also write the fit as netCDF")


def _setup_structure(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    parser.add_argument("run", type=_netcdf_file, help="run netCDF file with snapshot frames")
    parser.add_argument("--first-frame", type=int, default=None, metavar="K",
                        help="first frame analysed (>= 0; default: the frames of the run's "
                             "second half)")
    parser.add_argument("--resamples", type=int, default=1000,
                        help="bootstrap resamples for alpha's interval (>= 100); default 1000")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the bootstrap and the uniform control; default 0")
    parser.add_argument("--out", required=True, help="output JSON file")
    parser.add_argument("--out-nc", default=None, help="also write the curves as netCDF")


def _structure(args: argparse.Namespace) -> None:
    from flocklab.analysis.structure import StructureInputError
    from flocklab.stages.structure import run_structure_file

    if args.first_frame is not None and args.first_frame < 0:
        raise ParameterError("first_frame", "'--first-frame' must be >= 0")
    if args.resamples < 100:
        raise ParameterError("resamples", "'--resamples' must be >= 100")
    try:
        summary = run_structure_file(args.run, args.out, args.first_frame, args.out_nc,
                                     args.seed, args.resamples)
    except StructureInputError as error:
        raise ParameterError("run", f"{args.run}: {error}") from None
    alpha, control = summary["number_fluctuation_exponent"], summary["control_exponent"]
    parts = [f"alpha = {alpha['value']:.3f} [{alpha['ci'][0]:.3f}, {alpha['ci'][1]:.3f}]",
             f"uniform control {control['value']:.3f}"]
    if "correlation_length" in summary:
        parts.append(f"r_0 = {summary['correlation_length']:.3g} "
                     f"(size {summary['flock_size']:.3g})")
    band = summary["band"]["band"]
    parts.append({1: "band", 0: "no band", -1: "bands untestable (open space)"}[band])
    print(f"wrote {args.out}" + (f" and {args.out_nc}" if args.out_nc else "")
          + f"; {summary['frames']} frames from {summary['first_frame']}: " + ", ".join(parts))


def _netcdf_file(text: str) -> str:
    """A path that names an existing netCDF file (argparse type)."""
    from pathlib import Path

    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no file {text!r}" if not path.exists()
                                         else f"{text!r} is not a file")
    with open(path, "rb") as stream:
        magic = stream.read(8)
    if not (magic.startswith(b"CDF") or magic.startswith(b"\x89HDF")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a netCDF file")
    return text


_netcdf_file.__name__ = "netCDF file"


def _simulate(args: argparse.Namespace) -> None:
    """Run the parsed ``simulate`` command and print what it wrote."""
    from flocklab.stages.simulate import run_simulation

    model = get_model(args.model)
    given = {spec.name: getattr(args, spec.name) for spec in model.parameters
             if getattr(args, spec.name) is not None}
    params = model.resolve(given)
    if args.seed is None and model.uses_seed(params):
        raise ParameterError("seed", f"'--seed' is required: model '{model.name}' draws "
                                     f"random numbers with these parameters")
    control = RunControl(seed=0 if args.seed is None else args.seed, steps=args.steps,
                         t_end=getattr(args, "t_end", None),
                         dt=getattr(args, "dt", None), record_every=args.record_every,
                         snapshot_every=args.snapshot_every, snapshot_start=args.snapshot_start)
    if args.checkpoint_every < 0:
        raise ParameterError("checkpoint_every", "'--checkpoint-every' must be >= 0")
    run_simulation(model.name, params, control, args.out, threads=args.threads,
                   progress=args.progress, checkpoint_every=args.checkpoint_every,
                   checkpoint_file=args.checkpoint)
    print(f"wrote {args.out}{_final_value(args.out)}")


def _fit_headline(fit: dict[str, Any]) -> str:
    """``"N=40: eta_c = 3.74, beta = 0.299 (effective; limits: misfit)"``: a fit's curve (the
    keys before ``control``), critical value, exponent and whether they can be quoted."""
    keys = list(fit)
    curve = keys[:keys.index("control")] if "control" in keys else []
    where = ", ".join(f"{key}={fit[key]}" for key in curve)
    values = [f"{key} = {value['value']:.4g}" for key, value in fit.items()
              if isinstance(value, dict) and isinstance(value.get("value"), int | float)]
    limits = "" if "limits" not in fit else (
        " (effective)" if not fit["limits"] else
        f" (effective; limits: {', '.join(fit['limits'])})")
    return f"{where + ': ' if where else ''}{', '.join(values) or 'no fit'}{limits}"


def _fit(args: argparse.Namespace) -> None:
    from flocklab.analysis.critical import fit_critical_summary
    from flocklab.core.io import open_dataset, write_json, write_netcdf
    from flocklab.core.provenance import with_provenance

    select = parse_select(args.select)
    if not 0 <= args.reduced_min < args.reduced_max:
        raise ParameterError("reduced_min", "need 0 <= --reduced-min < --reduced-max")
    if args.bootstrap < 0:
        raise ParameterError("bootstrap", "'--bootstrap' must be >= 0")
    ds, document = fit_critical_summary(open_dataset(args.summary), args.control, select,
                                        args.reduced_min, args.reduced_max, args.bootstrap,
                                        args.seed, observable=args.observable,
                                        side=args.side, exponent=args.exponent)
    write_json(document, args.out)
    if args.out_nc:
        write_netcdf(with_provenance(ds), args.out_nc)
    print(f"wrote {args.out}" + (f" and {args.out_nc}" if args.out_nc else "")
          + "".join(f"; {_fit_headline(fit)}" for fit in document.get("fits", [document])))


def _final_value(path: str) -> str:
    """``"; order_parameter = 0.83 at time 100"``: the primary observable at the end of a
    written run (empty if the run names none)."""
    from flocklab.core.io import open_dataset

    run = open_dataset(path)
    name = run.attrs.get("primary_observable")
    if name not in run or "time" not in run[name].dims:
        return ""
    last = run[name].isel(time=-1)
    return f"; {name} = {float(last):.4g} at time {run['time'].values[-1]:g}"


def _metrics(args: argparse.Namespace) -> None:
    from flocklab.stages.metrics import run_metrics

    if not args.burn_in >= 0:
        raise ParameterError("burn_in", "'--burn-in' must be >= 0")
    ds = run_metrics(args.run, args.burn_in, args.out, order_threshold=args.order_threshold)
    means = [name for name in ds.data_vars if name.endswith("_mean")]
    headline = f"; {means[0]} = {float(ds[means[0]]):.4g}" if means else ""
    print(f"wrote {args.out}{headline}")


def _dispatch(args: argparse.Namespace) -> int | None:
    """Run the parsed command (its registry entry's ``run``); its exit code (``None``: 0)."""
    code = args._command.run(args)
    return code if isinstance(code, int) and not isinstance(code, bool) else None


#: The command line's own commands, in the order of ``flocklab --help``; the registered
#: models' commands (:func:`flocklab.core.commands.model_commands`) follow the analyses.
ANALYSES = (
    Command("simulate", "run one simulation and write a netCDF file", _setup_simulate,
            _simulate),
    Command("task", "run a model's named computation (e.g. the contest questions, integrator "
                    "stability)", setup_task, run_task_command),
    Command("metrics", "statistics of a run's order parameter", _setup_metrics, _metrics),
    Command("fit", "critical value and exponent from a summary.nc",
            _setup_fit, _fit,
            description="Fit P = A s^e, s the reduced distance from the critical value, on "
                        "the ordered side. A summary written by flocklab names its model, "
                        "which declares the controls; any other summary needs per-replicate "
                        "<P>_mean (and <P>_sem) on (control, replicate or seed), --side and "
                        "--exponent."),
    Command("fss", "critical point and exponents by finite-size scaling of a summary",
            _setup_fss, run_fss_command, description=FSS_DESCRIPTION),
    Command("structure", "spatial structure of a run's snapshot frames (number "
                         "fluctuations, correlations, bands)", _setup_structure, _structure,
            description="Number fluctuations Delta N against <n> and their exponent alpha "
                        "(95 %% block-bootstrap interval over frames, beside the same for "
                        "uniformly redrawn positions), g(r), S(k), the connected velocity "
                        "correlation and its first zero r_0, and the band profiles along the "
                        "mean heading, of the frames of a run file whose model declares "
                        "positions. Writes strict JSON (and netCDF with --out-nc)."),
)
TOOLS = (
    Command("explore", "a live explorer of a model in the browser", setup_explore, run_explore,
            description=EXPLORE_DESCRIPTION),
    Command("params", "list a model's parameters", _setup_params, _run_params),
    *PIPELINE_COMMANDS,
)


def _set_verbosity(logger: logging.Logger, verbose: bool) -> None:
    """Progress messages on stderr with ``-v``, none without; a call of :func:`main` without
    ``-v`` after one with it (in one process) is quiet again."""
    ours = [handler for handler in logger.handlers if isinstance(handler, _StderrHandler)]
    if verbose and not ours:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("flocklab: %(message)s"))
        logger.addHandler(handler)
    elif not verbose:
        for handler in ours:
            logger.removeHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.NOTSET)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flocklab`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    end = argv.index("--") if "--" in argv else len(argv)
    flags = [item for item in argv[:end] if item in GLOBAL_FLAGS]
    argv = flags + [item for item in argv[:end] if item not in GLOBAL_FLAGS] + argv[end:]
    wanted = None
    for verb in ("simulate", "task"):
        if verb in argv[:-1]:
            wanted = argv[argv.index(verb) + 1]
    words = [item for item in argv if not item.startswith("-")]
    parser = build_parser(wanted if wanted in available_models() else "",
                          command=words[0] if words else None)
    args = parser.parse_args(argv)
    _set_verbosity(logging.getLogger("flocklab"), args.verbose)
    try:
        return _dispatch(args) or 0
    except Interrupted as stop:  # Snakemake has finished its jobs' cancellation and unlocked
        print(f"flocklab: interrupted ({stop}); finished runs are kept: the same command "
              "resumes with the unfinished ones", file=sys.stderr)
        return SIGNAL_EXIT[stop.signum]
    except ParameterError as error:
        parser.exit(2, f"flocklab: error: {error.message}\n")
    except ConfigError as error:  # one line per problem
        parser.exit(2, "".join(f"flocklab: error: {line}\n"
                               for line in str(error).splitlines()))
    except (SimulationError, ValueError, MemoryError) as error:
        parser.exit(1, f"flocklab: error: {error}\n")
    except OSError as error:
        parser.exit(1, f"flocklab: error: {error.strerror or error}"
                       f"{f': {error.filename}' if error.filename else ''}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
