"""The figure-kind registry: every kind fulfils the contract, the config schema's figure section
is assembled from the kinds, and a new kind is one class (defined here, in a test, and then
validated, checked, located, drawn and captioned with no other edit)."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import xarray as xr
import yaml

matplotlib.use("Agg")  # before pyplot: no display in tests

import matplotlib.pyplot as plt

from flocklab.analysis.timeseries import summary_quantities
from flocklab.core import paths
from flocklab.core.parameters import ConfigError
from flocklab.core.registry import get_model
from flocklab.figures.kinds import KINDS, FigureContext, FigureKind, StudyKind
from flocklab.pipeline import config_schema as load_schema
from flocklab.pipeline import load_config, validate_config
from flocklab.stages.figures import make_animation, make_figure

CONTRACT = ("check", "inputs", "draw", "caption")


@pytest.mark.parametrize("name", list(KINDS))
def test_every_kind_fulfils_the_contract(name):
    """Name, description, a schema fragment whose keys are described, and its own check,
    inputs, draw and caption (none left to the base class)."""
    kind = KINDS[name]
    assert isinstance(kind, FigureKind) and kind.name == name
    assert kind.description.strip()
    branch = kind.schema()
    assert branch["if"] == {"properties": {"kind": {"const": name}}}
    then = branch["then"]
    assert then["additionalProperties"] is False
    own = {key: value for key, value in then["properties"].items()
           if key not in ("kind", "study", "title")}
    assert set(kind.required) <= set(own)
    for key, schema in own.items():
        assert schema.get("description"), f"{name}.{key} has no description"
    assert ("study" in then["required"]) is kind.needs_study
    for method in CONTRACT:
        assert getattr(type(kind), method) is not getattr(FigureKind, method), (name, method)
    if isinstance(kind, StudyKind):
        assert type(kind).check_study is not StudyKind.check_study
        assert type(kind).describe is not StudyKind.describe


def test_the_schema_figure_section_is_assembled_from_the_kinds(repo):
    schema = load_schema()
    figure = schema["$defs"]["figure"]
    assert figure["properties"]["kind"]["enum"] == list(KINDS)
    assert [branch["if"]["properties"]["kind"]["const"] for branch in figure["allOf"]] \
        == list(KINDS)
    for name, kind in KINDS.items():
        assert f"{name} = {kind.description}" in figure["properties"]["kind"]["description"]
    link = repo / "workflow" / "schemas" / "config.schema.yaml"
    assert link.is_symlink()
    assert link.resolve() == (repo / "src" / "flocklab" / "config" / "schema.yaml").resolve()


def test_the_assembled_schema_accepts_the_shipped_configs_and_fills_defaults(repo):
    paths = [*sorted((repo / "config").glob("*.yaml")), repo / "tests/plugins/config.yaml"]
    for path in paths:
        config, _ = load_config(path)
        for figure in config["figures"].values():
            assert figure["kind"] in KINDS and "title" in figure
            if figure["kind"] == "snapshots":
                assert all("frame" in panel and "replicate" in panel
                           for panel in figure["panels"])


def test_make_figure_and_make_animation_refuse_each_others_kinds(tmp_path):
    with pytest.raises(ValueError, match="not drawn by make_figure"):
        make_figure({"kind": "animation"}, [], [tmp_path / "a.png"])
    with pytest.raises(ValueError, match="not drawn by make_figure"):
        make_figure({"kind": "nonsense"}, [], [tmp_path / "a.png"])
    with pytest.raises(ValueError, match="not drawn by make_animation"):
        make_animation({"kind": "curve"}, tmp_path / "run.nc", tmp_path / "a.gif")


def test_the_kinds_and_the_config_import_no_matplotlib():
    """The Snakefile imports both to parse its rules (on every cluster job)."""
    code = ("import sys, flocklab.figures.kinds, flocklab.config;"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------- a new kind


@pytest.fixture
def bars_kind():
    """A kind defined in this test only: one bar per point of a study's swept dimension."""
    assert "bars" not in KINDS

    class Bars(FigureKind):
        name = "bars"
        description = "a summary quantity as one bar per value of the swept dimension"
        required = ("y",)
        keys = """
            y: {type: string, description: summary quantity drawn as the bar heights}
            colour: {type: string, default: grey, description: bar colour}
        """

        def check(self, where, figure, context):
            study = context.study(where, figure)
            quantities = summary_quantities(get_model(study.model))
            if figure["y"] not in quantities:
                raise ConfigError(f"config key '{where}.y': '{figure['y']}' is not one of "
                                  f"{', '.join(quantities)}")

        def inputs(self, figure, context):
            return [paths.study_file(figure["study"], "summary.nc")]

        def draw(self, figure, inputs):
            summary = xr.load_dataset(inputs[0])
            values = summary[f"replicate_{figure['y']}"]
            fig, ax = plt.subplots()
            ax.bar([str(v) for v in values[values.dims[0]].values], values.values,
                   color=figure["colour"])
            ax.set_title(figure["title"])
            return fig

        def caption(self, name, figure, context):
            return f"**{figure['title'] or name}** — {figure['y']} of study {figure['study']}"

    yield KINDS["bars"]
    del KINDS["bars"]


@pytest.fixture
def test_config(repo):
    with open(repo / "config" / "test.yaml") as stream:
        config = yaml.safe_load(stream)
    config["figures"] = {"counts": {"kind": "bars", "study": "density",
                                    "y": "order_parameter"}}
    return config


def _error(config) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(copy.deepcopy(config))
    return str(caught.value)


def test_an_undefined_kind_is_refused(test_config):
    assert _error(test_config).startswith("config key 'figures.counts.kind': 'bars' is not one")


def test_a_new_kind_is_one_class(bars_kind, test_config, tmp_path):
    # schema: defaults filled in, unknown keys refused
    studies = validate_config(test_config)
    figure = test_config["figures"]["counts"]
    assert figure["colour"] == "grey" and figure["title"] == ""
    bad = copy.deepcopy(test_config)
    bad["figures"]["counts"]["hue"] = "N"
    assert _error(bad).startswith("config key 'figures.counts.hue': unknown key")
    bad = copy.deepcopy(test_config)
    del bad["figures"]["counts"]["y"]
    assert "'y' is a required property" in _error(bad)
    # the kind's check, before any job runs
    bad = copy.deepcopy(test_config)
    bad["figures"]["counts"]["y"] = "temperature"
    assert _error(bad).startswith("config key 'figures.counts.y': 'temperature' is not one of")
    bad["figures"]["counts"]["study"] = "nothing"
    assert _error(bad).startswith("config key 'figures.counts.study': unknown study 'nothing'")
    # inputs and caption as the Snakemake rules get them
    context = FigureContext(test_config, studies)
    assert context.inputs("counts") == ["results/density/summary.nc"]
    assert context.caption("counts") == "**counts** — order_parameter of study density"
    # drawn by the figures stage
    summary = tmp_path / "summary.nc"
    xr.Dataset({"replicate_order_parameter": ("N", np.array([0.25, 0.75]))},
               coords={"N": [8, 32]}).to_netcdf(summary)
    outputs = [tmp_path / "counts.png", tmp_path / "counts.pdf"]
    make_figure(figure, [summary], outputs, dpi=50)
    assert all(Path(out).stat().st_size > 0 for out in outputs)
    fig = bars_kind.draw(figure, [summary])
    heights = [patch.get_height() for patch in fig.axes[0].patches]
    np.testing.assert_allclose(heights, [0.25, 0.75])
    plt.close(fig)
