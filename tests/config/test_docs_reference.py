"""The reference pages the docs generate from the code (``docs/_ext/flocklab_docs.py``):
every schema key and figure kind in the config reference, every model parameter, observable
and task option on the model pages, every command in the command-line reference."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from flocklab.core.registry import available_models, get_model
from flocklab.figures.kinds import KINDS
from flocklab.pipeline import config_schema as load_schema

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location(
        "flocklab_docs", REPO / "docs" / "_ext" / "flocklab_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_config_reference_lists_every_key_and_every_figure_kind(generator):
    page = generator.config_page()
    schema = load_schema()
    for key in schema["properties"]:
        assert f"`{key}`" in page
    for key in schema["$defs"]["study"]["properties"]:
        assert f"`{key}`" in page
    for kind in KINDS:
        assert f"### kind `{kind}`" in page
    # the finite-size scaling section's keys (resamples replaced the old bootstrap)
    fss = schema["$defs"]["study"]["properties"]["fss"]["properties"]
    assert {"control", "size", "dimension", "select", "resamples", "collapse_window",
            "correction_exponent", "points", "collapse"} <= set(fss)
    assert "bootstrap" not in fss
    for key in fss:
        assert f"`fss.{key}`" in page, key


def test_each_model_page_lists_its_declarations(generator):
    models = [get_model(name) for name in available_models()]
    ours = [model for model in models if generator.package_model(model)]
    assert {model.name for model in ours} >= {"vicsek", "zonal", "forces", "foraging",
                                              "dragon_chain", "dragon_agents", "springs"}
    assert not any(model.name in ("noisy_phases", "oscillator") for model in ours)
    for model in ours:
        page = generator.model_page(model)
        for spec in model.parameters:
            assert f"| `{spec.name}` |" in page, (model.name, spec.name)
        for observable in model.observables:
            assert f"| `{observable.name}` |" in page
        for task in model.tasks:
            assert f"### `{task.name}`" in page
            for option in task.options:
                assert f"| `{option.name}` |" in page, (model.name, task.name, option.name)


def test_the_cli_reference_has_every_command_and_task(generator):
    page = generator.cli_page()
    for command in ("simulate", "task", "metrics", "fit", "fss", "params", "check-config"):
        assert f"## `flocklab {command}`" in page
    assert "#### `flocklab task dragon_chain collision`" in page
    assert "### `flocklab simulate vicsek`" in page
    assert "--eta" in page
    assert "--correction-exponent" in page and "--no-collapse" in page   # flocklab fss


def test_a_table_cell_keeps_one_line_and_escapes_pipes(generator):
    assert generator.cell("a |\n b") == "a \\| b"
