"""``flocklab run|init|check-config``: the pipeline without knowing Snakemake.

``flocklab run`` validates the config in this process (one line per problem, no job
started), turns ``--only NAME`` into the files that build that study, figure or task, and runs
the workflow that ships inside the package (``flocklab/workflow/Snakefile``) with the
environment's Snakemake in the current directory: results go to ``./results``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from flocklab.core.commands import Command, CommandContext

#: Profiles of the packaged workflow (``--profile``): directories under workflow/profiles.
PROFILES = ("default", "slurm")
#: The config ``flocklab run`` and ``check-config`` read when none is given.
DEFAULT_CONFIG = Path("config") / "config.yaml"


def workflow_dir() -> Path:
    """The packaged workflow: Snakefile, rules, scripts, report, envs and profiles."""
    return Path(str(resources.files("flocklab") / "workflow"))


def _setup_run(run: argparse.ArgumentParser, context: CommandContext) -> None:
    run.add_argument("config", nargs="?", default=None,
                     help=f"YAML config file (default: {DEFAULT_CONFIG})")
    run.add_argument("--only", nargs="+", action="extend", default=[], metavar="NAME",
                     help="build only these studies, figures or tasks of the config (and "
                          "their inputs); a name shared by a study and a figure builds both, "
                          "study:NAME, figure:NAME or task:NAME one")
    run.add_argument("--cores", type=int, default=None, metavar="N",
                     help="CPU cores to use (default: the profile's, 2 for the default)")
    run.add_argument("--dry-run", "-n", action="store_true",
                     help="list the jobs that would run, run none")
    run.add_argument("--profile", default="default", metavar="NAME",
                     help=f"workflow profile: {', '.join(PROFILES)} or a profile directory "
                          "(slurm: submit jobs with sbatch); default: default")
    run.add_argument("--report", action="store_true",
                     help="afterwards write the HTML report results/report.html")
    run.add_argument("--unlock", action="store_true",
                     help="remove the lock a killed run (kill -9, a crashed node) left on "
                          "the results directory, run nothing (an interrupted run removes "
                          "its own)")


def _setup_init(init: argparse.ArgumentParser, context: CommandContext) -> None:
    init.add_argument("dir", help="directory (created if missing)")
    init.add_argument("--force", action="store_true", help="overwrite an existing config")


def _setup_check(check: argparse.ArgumentParser, context: CommandContext) -> None:
    check.add_argument("config", nargs="?", default=None,
                       help=f"YAML config file (default: {DEFAULT_CONFIG})")


def _config_path(given: str | None) -> Path:
    from flocklab.core.parameters import ConfigError

    path = Path(given) if given else DEFAULT_CONFIG
    if not path.is_file():
        hint = "" if given else "; give one, or write a starter with 'flocklab init DIR'"
        raise ConfigError(f"no config file {path}{hint}")
    return path


def check_config_command(args: argparse.Namespace) -> None:
    """Validate the config and print the plan (studies, runs, tasks, figures, cost)."""
    from flocklab.core.driver import available_memory
    from flocklab.pipeline import load_config
    from flocklab.pipeline.plan import make_plan, plan_lines

    config, studies = load_config(_config_path(args.config))
    plan = make_plan(config, studies, available_memory())
    for line in plan_lines(plan):
        print(line)
    for warning in plan.warnings:
        print(f"flocklab: warning: {warning}", file=sys.stderr)


def snakemake_command(config: Path, targets: list[str], args: argparse.Namespace) -> list[str]:
    """The Snakemake command line of ``flocklab run``."""
    profile = args.profile
    if profile in PROFILES:
        profile = str(workflow_dir() / "profiles" / profile)
    elif not Path(profile).is_dir():
        from flocklab.core.names import nearest_names
        from flocklab.core.parameters import ConfigError

        raise ConfigError(f"--profile {profile!r}: no such profile or directory"
                          f"{nearest_names(profile, PROFILES)}")
    command = [sys.executable, "-m", "snakemake", "-s", str(workflow_dir() / "Snakefile"),
               "--directory", os.getcwd(), "--configfile", str(config.resolve()),
               "--workflow-profile", profile]
    if args.cores is not None:
        command += ["--cores", str(args.cores)]
    if args.dry_run:
        command.append("--dry-run")
    if getattr(args, "unlock", False):
        return [*command, "--unlock"]
    return command + targets


#: Exit status of a run ended by a signal: 128 + its number (the shell's convention).
SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Interrupted(Exception):
    """The run was ended by SIGINT (Ctrl-C) or SIGTERM (a scheduler's time limit)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def run_snakemake(command: Sequence[str]) -> int:
    """Run Snakemake to its end and return its exit status.

    Snakemake runs in its own session, so a Ctrl-C in the terminal reaches this process
    only; SIGINT and SIGTERM received here are passed on to Snakemake once (as SIGTERM),
    and this process waits for it to finish: Snakemake then cancels its running jobs, leaves
    no partial file that looks complete and removes its lock, so the same command resumes with the
    unfinished jobs. (``subprocess.call`` would kill it 0.25 s after an interrupt and leave
    the lock.)

    Raises
    ------
    Interrupted
        After Snakemake has ended, if a signal asked for it.
    """
    process = subprocess.Popen(list(command), start_new_session=True)
    received: list[int] = []

    def pass_on(signum: int, frame: Any) -> None:
        if not received and process.poll() is None:
            # SIGTERM for either: Snakemake's SIGTERM handler cancels the running jobs at
            # once, where a SIGINT could let a running job finish and the next one start
            process.send_signal(signal.SIGTERM)
        received.append(signum)

    previous = {sig: signal.signal(sig, pass_on) for sig in SIGNAL_EXIT}
    try:
        code = process.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        raise Interrupted(received[0])
    return code


def _config_after_only(args: argparse.Namespace) -> None:
    """``flocklab run --only NAME CONFIG``: ``--only`` takes every word after it, so a YAML
    file among them with no CONFIG given before is the config."""
    files = [name for name in args.only if name.endswith((".yaml", ".yml"))
             and Path(name).is_file()]
    if args.config is None and len(files) == 1:
        args.config = files[0]
        args.only.remove(files[0])


def run_command(args: argparse.Namespace) -> int:
    """Validate the config, then run the packaged workflow on it; returns Snakemake's exit
    code."""
    from flocklab.core import paths
    from flocklab.core.parameters import ConfigError
    from flocklab.figures.kinds import FigureContext
    from flocklab.pipeline import load_config
    from flocklab.pipeline.targets import only_targets

    if args.cores is not None and args.cores < 1:
        raise ConfigError(f"--cores {args.cores}: must be at least 1")
    _config_after_only(args)
    path = _config_path(args.config)
    config, studies = load_config(path)
    targets = only_targets(config, FigureContext(config, studies), args.only,
                           shutil.which("ffmpeg") is not None)
    command = snakemake_command(path, targets, args)
    if args.unlock:
        print(f"flocklab: removing a stale lock of {paths.RESULTS}/", file=sys.stderr)
        return run_snakemake(command)
    what = ", ".join(args.only) if args.only else f"every study, figure and task of {path}"
    print(f"flocklab: {'planning' if args.dry_run else 'building'} {what}", file=sys.stderr)
    code = run_snakemake(command)
    if code == 0 and args.report and not args.dry_run:
        whole = command[:len(command) - len(targets)]
        code = run_snakemake([*whole, "--report", paths.report_file()])
    if code == 0 and not args.dry_run:
        built = targets or [f"{paths.RESULTS}/"]
        print(f"wrote {', '.join(built)}" + (f"; report {paths.report_file()}"
                                              if args.report else ""))
    return code


def init_command(args: argparse.Namespace) -> None:
    """Write the starter config ``DIR/config.yaml``."""
    from flocklab.core.parameters import ConfigError

    target = Path(args.dir) / "config.yaml"
    if target.exists() and not args.force:
        raise ConfigError(f"{target} exists; give --force to overwrite it")
    target.parent.mkdir(parents=True, exist_ok=True)
    text = (resources.files("flocklab") / "workflow" / "starter.yaml").read_text("utf-8")
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}; next: cd {args.dir} && flocklab check-config config.yaml && "
          f"flocklab run config.yaml")


#: The pipeline's commands.
PIPELINE_COMMANDS = (
    Command("run", "run the pipeline (simulations, analyses, figures) on a config",
            _setup_run, run_command,
            description="Run the workflow of CONFIG in the current directory (results/). "
                        "Jobs already done are not run again; after a kill, the same command "
                        "resumes."),
    Command("init", "write a commented starter config into DIR", _setup_init,
            init_command),
    Command("check-config", "validate a workflow config and print its plan and cost",
            _setup_check, check_config_command),
)
