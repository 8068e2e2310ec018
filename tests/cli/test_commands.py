"""The command registry: every command in ``flocklab --help``, models' commands from the
models, looked up without a kernel."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from flocklab.cli.main import build_parser, command_registry, main
from flocklab.core.commands import Command, model_commands
from flocklab.core.registry import available_models, get_model


def test_help_lists_every_command_once_with_its_help_and_no_markup(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listed = out.split("commands:", 1)[1]
    registry = command_registry()
    for name, command in registry.items():
        line = next(line for line in listed.splitlines() if line.split()[:1] == [name])
        assert command.help.split()[0] in line, name
    assert "{" not in out and "COMMAND\n" not in listed  # no choice set, no placeholder line
    rows = [line.split()[0] for line in listed.splitlines() if line.startswith("    ")
            and not line.startswith("     ")]
    assert rows == list(registry)


def test_model_commands_come_from_the_models() -> None:
    """Only the models that declare commands add them; each names its model's task."""
    owners = {command.name: name for name in available_models()
              for command in model_commands(get_model(name))}
    assert owners == {"dragon": "dragon_chain", "stability": "springs", "accuracy": "springs"}
    assert all(isinstance(c, Command) for name in available_models()
               for c in model_commands(get_model(name)))


def test_looking_up_the_commands_imports_no_numba() -> None:
    code = ("import sys; from flocklab.cli.main import build_parser; build_parser(''); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_a_command_of_the_cli_leaves_the_model_commands_out() -> None:
    parser = build_parser("", command="params")
    names = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert "stability" not in names.choices and "params" in names.choices


def test_two_commands_of_one_name_are_refused(monkeypatch) -> None:
    import flocklab.cli.main as cli

    twice = (*cli.ANALYSES, Command("fit", "again", lambda p, c: None, lambda a: None))
    monkeypatch.setattr(cli, "ANALYSES", twice)
    with pytest.raises(ValueError, match="'fit' is declared twice"):
        command_registry()
