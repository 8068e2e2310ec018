"""Commands of the command line as registry entries, and the task options they share.

A :class:`Command` is one ``flocklab NAME`` sub-command: its name, its one-line help, the
function that adds its arguments to its parser and the function that runs it. The command
line (:mod:`flocklab.cli.main`) builds its parser from its own commands and from the ones
each registered model declares (the ``commands`` declaration of
:class:`~flocklab.core.model.Model`, a ``"module:NAME"`` path to a sequence of commands,
imported only when the command line is built), so no command names a model it does not
belong to.

A command that runs one of its model's tasks takes the task's options and the model's
parameters as :func:`add_task_arguments` spells them (the spelling of ``flocklab task``:
a model parameter whose name a task option already takes is ``--model-NAME``) and reads
them back with :func:`task_arguments`.

This module imports argparse only: looking a model's commands up imports no kernel.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from flocklab.core.parameters import ParameterSpec

#: ``add_parameter(parser_or_group, spec, prefix="")``: one option for a declared parameter
#: (the command line's, so that every command spells and documents options alike).
AddParameter = Callable[..., None]


@dataclass(frozen=True)
class CommandContext:
    """What the command line hands to a command's ``setup``.

    ``add_parameter`` adds one option for a :class:`~flocklab.core.parameters.ParameterSpec`;
    ``wanted`` is the model named on the command line (``None``: every model's parsers are
    built in full), so that a command with one parser per model imports only that one.
    """

    add_parameter: AddParameter
    wanted: str | None = None


@dataclass(frozen=True)
class Command:
    """One ``flocklab NAME`` sub-command.

    Parameters
    ----------
    name : str
        The word on the command line.
    help : str
        One line, shown by ``flocklab --help``.
    setup : callable
        ``setup(parser, context)`` adds the command's arguments (and sub-commands) to its
        :class:`argparse.ArgumentParser` (``context``: :class:`CommandContext`).
    run : callable
        ``run(args)`` runs the parsed command; returns its exit code (``None``: 0) or any
        other value (ignored).
    description : str
        Longer text of ``flocklab NAME --help`` (default: ``help``).
    """

    name: str
    help: str
    setup: Callable[[argparse.ArgumentParser, CommandContext], None]
    run: Callable[[argparse.Namespace], Any]
    description: str = ""


def model_commands(model: Any) -> tuple[Command, ...]:
    """The commands ``model`` declares (its ``commands``: a sequence of :class:`Command` or
    the ``"module:NAME"`` path of one, imported here); ``()`` if none."""
    declared = getattr(model, "commands", None)
    if not declared:
        return ()
    if isinstance(declared, str):
        module, _, name = declared.partition(":")
        declared = getattr(importlib.import_module(module), name)
    return tuple(declared)


def task_option_dest(spec: ParameterSpec, taken: Collection[str]) -> str:
    """Where a model parameter's option is stored: ``model-NAME`` when a task option of the
    same name is ``taken``, else ``NAME``."""
    return f"model-{spec.name}" if spec.name in taken else spec.name


def add_task_arguments(parser: argparse.ArgumentParser, options: Sequence[ParameterSpec],
                       parameters: Sequence[ParameterSpec], add_parameter: AddParameter,
                       skip: Collection[str] = (),
                       model_title: str = "model parameters") -> None:
    """One option per task option and per model parameter (those named in ``skip`` left out);
    a model parameter whose name a task option takes is spelled ``--model-NAME``."""
    group = parser.add_argument_group("task options")
    for spec in options:
        if spec.name not in skip:
            add_parameter(group, spec)
    taken = {spec.name for spec in options}
    model = parser.add_argument_group(model_title)
    for spec in parameters:
        if spec.name not in skip:
            add_parameter(model, spec, prefix="model-" if spec.name in taken else "")


def task_arguments(args: argparse.Namespace, options: Sequence[ParameterSpec],
                   parameters: Sequence[ParameterSpec], skip: Collection[str] = ()
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The model parameters and task options given on the command line (those left unset,
    ``None``, and those in ``skip`` are not in them): ``(params, options)``."""
    taken = {spec.name for spec in options}
    chosen = {spec.name: getattr(args, spec.name) for spec in options
              if spec.name not in skip and getattr(args, spec.name, None) is not None}
    params = {}
    for spec in parameters:
        dest = task_option_dest(spec, taken)
        if spec.name not in skip and getattr(args, dest, None) is not None:
            params[spec.name] = getattr(args, dest)
    return params, chosen
