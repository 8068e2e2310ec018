"""Report captions and grouping: words from the declarations, only the parameters a study
varies or sets, seeds only for models whose runs use them; figures grouped by model and
study; claims tables from studies and tasks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from flocklab.core.registry import get_model
from flocklab.figures.captions import study_caption, study_heading, value_text
from flocklab.figures.kinds import FigureContext
from flocklab.pipeline import validate_config
from flocklab.stages.claims import claim_rows, write_claims_table


@pytest.fixture
def context(repo):
    with open(repo / "config" / "test.yaml") as stream:
        config = yaml.safe_load(stream)
    return FigureContext(config, validate_config(config))


def _caption_of(context, figure):
    spec = context.config["figures"][figure]
    study = context.studies[spec["study"]]
    return study, study_caption(figure, spec, study, ["BODY"])


def test_a_caption_lists_what_the_study_sets_not_every_parameter(context):
    """The noise study sets v0, r and init (v0 = 0.03 is the default, r = 1 too), sweeps N,
    L and eta: only init differs from the defaults and is not swept."""
    figures = [name for name, spec in context.config["figures"].items()
               if spec.get("study") == "noise" and spec["kind"] == "curve"]
    study, text = _caption_of(context, figures[0])
    model = get_model("vicsek")
    defaults = model.resolve({})
    params = study.params(next(study.points()))
    expected = {k for k, v in params.items()
                if v != defaults[k] and k not in study.swept}
    assert expected == {"init"}
    (line,) = [line for line in text.splitlines() if line.startswith("Set by the study")]
    assert "initial headings = aligned" in line
    for name in ("v0", "seed", "N =", "eta", "L ="):
        assert name not in line
    assert f"{study.replicates} seed(s) per point" in text and "burn-in" in text
    # a dimensionless time (steps) gets no unit "1"
    assert f"t = {study.burn_in:g} discarded" in text


def test_a_deterministic_model_gets_no_seed_or_burn_in_line(context, monkeypatch):
    model = type(get_model("vicsek"))
    monkeypatch.setattr(model, "uses_seed", lambda self, params: False)
    figure = next(name for name, spec in context.config["figures"].items()
                  if "study" in spec)
    _, text = _caption_of(context, figure)
    assert "Deterministic runs (no seed)" in text
    assert "seed(s) per point" not in text and "burn-in" not in text and "base seed" not in text


@pytest.mark.parametrize(("deterministic", "replicates", "says"), [
    (True, 2, "Deterministic runs: one run per point, no error bars."),
    (False, 1, "One seed per point; error bars: the run's autocorrelation-corrected"),
    (False, 3, "Error bars: jackknife over the 3 seeds per point."),
])
def test_curve_error_bars_say_what_they_are(context, monkeypatch, deterministic, replicates,
                                            says):
    """Replicates of a deterministic model are one run (no error bars, no "jackknife over
    the 1 seeds"); one seed gets its run's own error."""
    import dataclasses

    from flocklab.figures.kinds import KINDS

    model = type(get_model("vicsek"))
    monkeypatch.setattr(model, "uses_seed", lambda self, params: not deterministic)
    name = next(name for name, spec in context.config["figures"].items()
                if spec["kind"] == "curve")
    spec = context.config["figures"][name]
    study = dataclasses.replace(context.studies[spec["study"]], replicates=replicates)
    text = " ".join(KINDS["curve"].describe(spec, study))
    assert says in text
    assert ("Replicate-averaged" in text) is (replicates > 1)


def test_a_value_is_named_by_its_symbol_in_rst_math(context):
    model = get_model("vicsek")
    assert value_text(model, "eta", 0.5) == r":math:`\eta` = 0.5"
    assert value_text(model, "init", "aligned") == "initial headings = aligned"


def test_figures_are_grouped_by_model_title_and_study_heading(context):
    name = next(name for name, spec in context.config["figures"].items()
                if spec.get("study") == "noise")
    category, subcategory = context.report_group(name)
    assert category == get_model("vicsek").title == "Vicsek model"
    assert subcategory == study_heading(context.studies["noise"]) == \
        "Fig. 2a style noise sweep with critical fits and finite-size scaling (tiny)"


def test_a_study_heading_stops_at_the_first_colon_and_is_short():
    class Named:
        name = "x_study"
        description = "Couzin et al. (2005), two subgroups: which way " + "long " * 40

    assert study_heading(Named()) == "Couzin et al. (2005), two subgroups"
    Named.description = "word " * 40
    assert len(study_heading(Named())) <= 80 and study_heading(Named()).endswith("…")
    Named.description = ""
    assert study_heading(Named()) == "x study"


def test_the_claims_table_gathers_studies_and_tasks(tmp_path):
    study = {"claims": [{"claim": "more noise, less order", "verdict": "holds",
                         "evidence": "ρ = −0.9", "test": "Spearman rank correlation", "n": 5,
                         "effect": -0.9, "low": -0.99, "high": -0.1, "p": 2 / 120,
                         "detectable": None}]}
    task = {"model": "springs", "task": "stability",
            "result": {"verdicts": [{"claim": "implicit is stable", "verdict": "fails",
                                     "evidence": "Δt = 0.1 s"},
                                    {"claim": "RK4 is better", "verdict": "inconclusive",
                                     "evidence": ""}]}}
    no_claims = {"result": {"table": []}}
    paths = []
    for k, document in enumerate((study, task, no_claims)):
        paths.append(tmp_path / f"{k}.json")
        paths[-1].write_text(json.dumps(document))
    assert claim_rows("x", no_claims) == []
    out = tmp_path / "claims.csv"
    count = write_claims_table([("noise study", paths[0]), ("task stability", paths[1]),
                                ("task other", paths[2])], out)
    with open(out, encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert count == 3 == len(rows)
    assert [row["tested in"] for row in rows] == ["noise study", "task stability",
                                                  "task stability"]
    assert [row["verdict"] for row in rows] == ["holds", "fails", "inconclusive"]
    assert rows[1]["evidence"] == "Δt = 0.1 s"
    assert (rows[0]["n"], rows[0]["effect"], rows[0]["95 % interval"], rows[0]["p"]) == (
        "5", "-0.9", "[-0.99, -0.1]", "p = 0.017")
    assert rows[1]["test"] == rows[1]["p"] == rows[1]["n"] == ""


@pytest.mark.parametrize("config_name", sorted(
    path.name for path in (Path(__file__).resolve().parents[2] / "config").glob("*.yaml")))
def test_every_caption_renders_its_math(repo, config_name):
    """Each figure caption of a config, rendered as the report renders it (docutils HTML,
    warnings as errors): no role or bold markup left as text."""
    from docutils.core import publish_parts

    from flocklab.figures.kinds import KINDS

    with open(repo / "config" / config_name) as stream:
        config = yaml.safe_load(stream)
    context = FigureContext(config, validate_config(config))
    for name, spec in config["figures"].items():
        caption = KINDS[spec["kind"]].caption(name, spec, context)
        html = publish_parts(caption, writer="html",
                             settings_overrides={"report_level": 2, "halt_level": 2})["body"]
        assert ":math:" not in html and "**" not in html, (name, html[:300])
