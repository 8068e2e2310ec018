"""Sensitivity analysis: estimators against analytic indices, designs, claims, config errors."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import xarray as xr
import yaml

from flocklab.analysis.sensitivity import (
    Factor,
    analyse_sensitivity,
    design_record_dataset,
    ishigami,
    ishigami_indices,
    morris_design,
    morris_indices,
    oat_design,
    oat_response,
    read_design,
    run_outputs,
    sobol_design,
    sobol_indices,
)
from flocklab.config import design_points
from flocklab.core.parameters import ConfigError
from flocklab.pipeline import validate_config

ISHIGAMI = [Factor(name, -math.pi, math.pi) for name in ("x1", "x2", "x3")]


def test_ishigami_analytic_indices():
    # Published values (Ishigami & Homma 1990; Saltelli et al. 2008), a = 7, b = 0.1
    expected = ishigami_indices()
    assert np.allclose(expected["S1"], [0.3139, 0.4424, 0.0], atol=1e-4)
    assert np.allclose(expected["ST"], [0.5576, 0.4424, 0.2437], atol=1e-4)


def test_sobol_indices_of_ishigami_agree_with_the_analytic_values():
    """Each of the six indices within 3 of its 95 % half-widths (5.9 standard errors: a
    chance failure has probability ~1e-8 per index), and the intervals narrow. Whether the
    intervals cover at their nominal level is the next test's job: requiring all six inside
    their own 95 % intervals at one seed would fail by chance one time in four."""
    design = sobol_design(ISHIGAMI, 4096, seed=11)
    assert design.values.shape == (4096 * 5, 3)
    result = sobol_indices(design, ishigami(design.values), seed=12, resamples=500)
    expected = ishigami_indices()
    for name in ("S1", "ST"):
        error = np.abs(result.values[name] - expected[name])
        assert np.all(error <= 3 * result.values[f"{name}_conf"]), (name, result.values)
        # the intervals are informative, not just wide
        assert np.all(result.values[f"{name}_conf"] < 0.05)


def test_sobol_intervals_cover_the_truth_at_their_level():
    """95 % intervals over 12 independent designs of 512 base samples: 72 intervals, of which
    at least 85 % must cover the analytic value (a binomial 95 % coverage falls below 85 %
    with probability < 0.2 %)."""
    expected = ishigami_indices()
    covered = total = 0
    for seed in range(1, 13):
        design = sobol_design(ISHIGAMI, 512, seed=seed)
        result = sobol_indices(design, ishigami(design.values), seed=seed, resamples=300)
        for name in ("S1", "ST"):
            covered += int(np.sum(np.abs(result.values[name] - expected[name])
                                  <= result.values[f"{name}_conf"]))
            total += 3
    assert covered / total >= 0.85


def test_sobol_convergence_rows_use_prefixes_and_tighten():
    design = sobol_design(ISHIGAMI, 1024, seed=3)
    result = sobol_indices(design, ishigami(design.values), seed=4, resamples=200)
    assert result.sizes.tolist() == [8, 16, 32, 64, 128, 256, 512, 1024]
    assert np.allclose(result.convergence["S1"][-1], result.values["S1"])
    # interval widths shrink roughly as 1/sqrt(N): 128x more samples, >= 4x narrower
    assert np.all(result.convergence["ST_conf"][-1] * 4 < result.convergence["ST_conf"][0])


def test_doubling_the_sobol_design_keeps_its_rows():
    small = sobol_design(ISHIGAMI, 16, seed=5)
    large = sobol_design(ISHIGAMI, 32, seed=5)
    assert np.array_equal(small.values, large.values[: small.values.shape[0]])


def test_constant_output_gives_undefined_indices_with_a_note():
    design = sobol_design(ISHIGAMI, 16, seed=1)
    result = sobol_indices(design, np.ones(design.values.shape[0]), seed=1)
    assert np.all(np.isnan(result.values["S1"]))
    assert "constant" in result.note


def test_morris_of_a_linear_model_is_exact():
    """y = sum c_i x_i on [0, 1]: every elementary effect is c_i, so mu* = |c_i|, sigma = 0."""
    factors = [Factor(f"x{i}", 0.0, 1.0) for i in range(4)]
    coefficients = np.array([10.0, -5.0, 1.0, 0.0])
    design = morris_design(factors, 10, seed=2)
    result = morris_indices(design, design.values @ coefficients, seed=3, resamples=100)
    assert np.allclose(result.values["mu_star"], np.abs(coefficients), atol=1e-9)
    assert np.allclose(result.values["mu"], coefficients, atol=1e-9)
    assert np.allclose(result.values["sigma"], 0.0, atol=1e-9)


def test_morris_ranks_the_sobol_g_function_correctly():
    """Sobol' G-function: importance falls as a_i grows (a = 0, 1, 4.5, 9, 99)."""
    a = np.array([0.0, 1.0, 4.5, 9.0, 99.0])
    factors = [Factor(f"x{i}", 0.0, 1.0) for i in range(a.size)]
    design = morris_design(factors, 20, seed=3)
    outputs = np.prod((np.abs(4.0 * design.values - 2.0) + a) / (1.0 + a), axis=1)
    result = morris_indices(design, outputs, seed=2, resamples=100)
    assert np.all(np.diff(result.values["mu_star"]) < 0), result.values["mu_star"]
    assert result.sizes.tolist() == [2, 5, 10, 20]


def test_oat_design_and_response():
    factors = [Factor("a", values=(1.0, 2.0, 3.0)), Factor("b", values=(10.0, 20.0))]
    design = oat_design(factors, baseline={"a": 2.0, "b": 10.0})
    assert design.values.tolist() == [[1, 10], [2, 10], [3, 10], [2, 10], [2, 20]]
    assert design.oat_factor.tolist() == [0, 0, 0, 1, 1]
    assert design.oat_level.tolist() == [0, 1, 2, 0, 1]
    runs = np.array([[1.0, 3.0], [2.0, 2.0], [5.0, 7.0], [2.0, 2.0], [0.0, 0.0]])
    response = oat_response(design, runs)
    assert np.allclose(response.mean[0], [2.0, 2.0, 6.0])
    assert np.allclose(response.sem[0], [1.0, 0.0, 1.0])
    assert np.isnan(response.mean[1, 2])
    assert np.allclose(response.swing, [4.0, 2.0])


# --------------------------------------------------------------------------- config


@pytest.fixture
def test_config(repo):
    with open(repo / "config" / "test.yaml") as stream:
        return yaml.safe_load(stream)


def test_design_points_map_density_to_n_and_share_the_baseline(test_config):
    studies = validate_config(test_config)
    oat = studies["oat"]
    points = list(oat.points())
    # eta levels (3) + density levels (2), the baseline (eta 0.2, density 1.6) once
    assert len(oat.design_points) == 5 and len(points) == 4
    assert {p.values["N"] for p in points} == {40, 20}
    assert points[0].label == "eta=0.2_density=1.6"
    sobol = studies["sobol"]
    assert len(sobol.design_points) == 8 * 4
    assert all(p.values["N"] == round(float(p.label.split("density=")[1]) * 25)
               for p in sobol.points())


def test_growing_a_sobol_design_keeps_existing_runs(test_config):
    before = validate_config(copy.deepcopy(test_config))["sobol"]
    test_config["studies"]["sobol"]["sensitivity"]["samples"] = 16
    after = validate_config(test_config)["sobol"]
    old = {p.label: before.seed(p, 0) for p in before.points()}
    new = {p.label: after.seed(p, 0) for p in after.points()}
    assert old.items() <= new.items() and len(new) == 2 * len(old)


@pytest.mark.parametrize(("study", "path", "value", "key", "says"), [
    ("sobol", ["factors", "eta"], {"low": 2.0, "high": 1.0},
     "studies.sobol.sensitivity.factors.eta.low", "must be < high"),
    ("sobol", ["factors", "speed"], {"low": 0.1, "high": 1.0},
     "studies.sobol.sensitivity.factors.speed", "unknown parameter"),
    ("sobol", ["samples"], 12, "studies.sobol.sensitivity.samples", "power of two"),
    ("morris", ["levels"], 5, "studies.morris.sensitivity.levels", "even number"),
    ("morris", ["samples"], 1, "studies.morris.sensitivity.samples", "at least 2"),
    ("sobol", ["factors", "eta"], {"low": 0.1, "high": 9.0},
     "studies.sobol.sensitivity.factors.eta.high", "out of range"),
    ("oat", ["factors", "eta"], {"low": 0.1, "high": 1.0},
     "studies.oat.sensitivity.factors.eta", "'values'"),
    ("oat", ["outputs"], ["order_parameter_mean", "speed"],
     "studies.oat.sensitivity.outputs[1]", "not a per-run metric"),
    ("oat", ["claims", 1, "at"], 1.0, "studies.oat.sensitivity.claims[1].at", "levels"),
    ("sobol", ["factors", "N"], {"low": 10, "high": 20},
     "studies.sobol.sensitivity.factors.density", "vary one of them"),
    ("sobol", ["factors", "eta"], {"low": 0.1, "high": 1.0, "dist": "truncnorm"},
     "studies.sobol.sensitivity.factors.eta", "mean and sd"),
])
def test_bad_sensitivity_settings_name_their_key(test_config, study, path, value, key, says):
    node = test_config["studies"][study]["sensitivity"]
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    with pytest.raises(ConfigError) as error:
        validate_config(test_config)
    assert f"config key '{key}'" in str(error.value)
    assert says in str(error.value)


@pytest.mark.parametrize(("claim", "key", "says"), [
    ({"exponent": {"below": 0.5}, "trend": "decreasing"}, "claims[0]", "give one of"),
    ({"exponent": {}}, "claims[0].exponent", "'below' and/or 'above'"),
    ({"exponent": {"above": 0.6, "below": 0.4}}, "claims[0].exponent", "must be <"),
])
def test_bad_exponent_claims_name_their_key(test_config, claim, key, says):
    entry = test_config["studies"]["oat"]["sensitivity"]["claims"][0]
    entry.pop("trend")
    entry.update(claim)
    with pytest.raises(ConfigError) as error:
        validate_config(test_config)
    assert f"config key 'studies.oat.sensitivity.{key}'" in str(error.value)
    assert says in str(error.value)


def test_an_exponent_needs_positive_levels(test_config):
    """eta's levels include 0 in no config here: make one, the log scale refuses it."""
    section = test_config["studies"]["oat"]["sensitivity"]
    section["factors"]["eta"]["values"] = [0.0, 1.0, 2.0]
    section["claims"][0] = {"claim": "c", "parameter": "eta",
                            "output": "order_parameter_mean", "exponent": {"below": 1.0}}
    with pytest.raises(ConfigError, match=r"claims\[0\]\.parameter.*positive levels"):
        validate_config(test_config)


def test_an_exponent_claim_is_judged_on_the_log_log_fit():
    """y = 2 N^0.5 exactly at four sizes (two replicates each): the exponent 0.5 holds
    inside (0.4, 0.6) and fails below 0.3."""
    factors = [Factor("N", values=(50.0, 100.0, 200.0, 400.0))]
    design = oat_design(factors, baseline={"N": 100.0})
    design_ds = _design_file(design, {"N": 100, "L": 5.0})
    summary = _summary_of_n(design_ds, lambda n: 2.0 * n ** 0.5)
    claims = [{"claim": "R ~ N^1/2", "parameter": "N", "output": "y",
               "exponent": {"above": 0.4, "below": 0.6}},
              {"claim": "R grows slowly", "parameter": "N", "output": "y",
               "exponent": {"below": 0.3}}]
    ds, document = analyse_sensitivity(design_ds, summary, {"outputs": ["y"], "claims": claims},
                                       replicates=2)
    assert ds["claim_verdict"].values.tolist() == ["holds", "fails"]
    assert document["claims"][0]["effect"] == pytest.approx(0.5, abs=1e-9)
    assert document["claims"][0]["n"] == 8


def test_the_oat_figure_draws_an_exponent_claim_log_log():
    """The panel of an exponent claim is log-log with the fit (slope 0.5 on y = 2 N^0.5)
    and the claimed exponent, the middle of (0.4, 0.6), through the level means."""
    from flocklab.figures.plotting import oat_figure

    design = oat_design([Factor("N", values=(50.0, 100.0, 200.0, 400.0))],
                        baseline={"N": 100.0})
    design_ds = _design_file(design, {"N": 100, "L": 5.0})
    claims = [{"claim": "R ~ N^1/2", "parameter": "N", "output": "y",
               "exponent": {"above": 0.4, "below": 0.6}}]
    ds, _ = analyse_sensitivity(design_ds, _summary_of_n(design_ds, lambda n: 2.0 * n ** 0.5),
                                {"outputs": ["y"], "claims": claims}, replicates=2)
    ax = oat_figure(ds).axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    fit, claimed = (line for line in ax.get_lines() if line.get_label().startswith(
        ("fit", "exponent")))
    for line in (fit, claimed):
        x, y = line.get_data()
        slope = np.diff(np.log(y))[0] / np.diff(np.log(x))[0]
        assert slope == pytest.approx(0.5, abs=1e-9)
    assert fit.get_data()[1][0] == pytest.approx(2.0 * 50 ** 0.5, rel=1e-9)


def test_sensitivity_study_takes_no_sweep(test_config):
    test_config["studies"]["sobol"]["sweep"] = [{"r": [1.0, 2.0]}]
    with pytest.raises(ConfigError, match=r"studies\.sobol\.sweep"):
        validate_config(test_config)


def test_sensitivity_figure_needs_the_right_method(test_config):
    test_config["figures"]["sobol_indices"]["study"] = "morris"
    with pytest.raises(ConfigError, match=r"figures\.sobol_indices\.kind"):
        validate_config(test_config)
    test_config["figures"]["sobol_indices"].update(kind="curve", x="eta", y="order_parameter",
                                                   study="sobol")
    with pytest.raises(ConfigError, match="needs a grid study"):
        validate_config(test_config)


def test_a_design_row_the_model_refuses_names_the_factors(test_config):
    test_config["studies"]["sobol"]["sensitivity"]["factors"] = {
        "v0": {"low": 0.5, "high": 4.9}, "L": {"low": 3.0, "high": 6.0}}
    studies = validate_config(test_config)  # each range end alone is valid
    with pytest.raises(ConfigError, match=r"studies\.sobol\.sensitivity\.factors.*'v0'"):
        list(studies["sobol"].points())


# --------------------------------------------------------------------------- stage datasets


def _design_file(design, fixed, seed=5):
    """The design dataset as the sample stage writes it (without provenance)."""
    record = {"name": "toy", "model": "vicsek", "fixed": fixed, "seed": seed,
              "sensitivity": {"method": design.method}}
    return design_record_dataset(record, design, design_points("vicsek", fixed, design))


def _summary_of(design_ds, function, offsets):
    """A summary with output ``y`` = function(eta, r) + offsets[replicate] at every point."""
    labels = design_ds["point"].values.astype(str).tolist()
    distinct = sorted(set(labels))
    first = [labels.index(label) for label in distinct]
    eta, r = (design_ds["value"].sel(parameter=name).values[first] for name in ("eta", "r"))
    y = function(eta, r)[:, None] + np.asarray(offsets)[None, :]
    return xr.Dataset({"y": (("point", "replicate"), y, {"units": "1"})},
                      coords={"point": distinct, "replicate": np.arange(len(offsets))})


def _summary_of_n(design_ds, function, replicates=2):
    """A summary with output ``y`` = function(N) in every replicate at every point."""
    labels = design_ds["point"].values.astype(str).tolist()
    distinct = sorted(set(labels))
    first = [labels.index(label) for label in distinct]
    n = design_ds["value"].sel(parameter="N").values[first]
    y = np.repeat(function(n)[:, None], replicates, axis=1)
    return xr.Dataset({"y": (("point", "replicate"), y, {"units": "1"})},
                      coords={"point": distinct, "replicate": np.arange(replicates)})


def test_design_file_round_trip():
    factors = [Factor("eta", values=(0.2, 3.0, 6.0)), Factor("density", values=(0.8, 1.6))]
    design = oat_design(factors, baseline={"eta": 0.2, "density": 1.6})
    ds = _design_file(design, {"N": 40, "L": 5.0, "eta": 0.2})
    assert ds.attrs["method"] == "oat" and ds.attrs["rows"] == 5
    assert ds.attrs["distinct_points"] == 4          # the baseline appears twice
    # density sets N = round(density L^2) at L = 5
    assert ds["N"].values.tolist() == [40, 40, 40, 20, 40]
    assert ds["N"].attrs["units"] == "1"
    back = read_design(ds)
    assert back.method == "oat" and back.names == ["eta", "density"]
    assert [(f.values, f.dist) for f in back.factors] == [(f.values, f.dist) for f in factors]
    assert all(np.isnan(f.low) and np.isnan(f.mean) for f in back.factors)  # oat: no ranges
    np.testing.assert_array_equal(back.values, design.values)
    np.testing.assert_array_equal(back.oat_level, design.oat_level)


def test_oat_analysis_of_a_known_response():
    # y = 1 - 0.1 eta + 0.05 r, replicates at +-0.01: level means are the formula, their
    # standard error sd / sqrt(2) = 0.01, swings 0.1 (6 - 0.2) and 0.05 (1 - 0.5)
    factors = [Factor("eta", values=(0.2, 3.0, 6.0)), Factor("r", values=(0.5, 1.0))]
    design = oat_design(factors, baseline={"eta": 0.2, "r": 1.0})
    design_ds = _design_file(design, {"N": 40, "L": 5.0})
    summary = _summary_of(design_ds, lambda eta, r: 1 - 0.1 * eta + 0.05 * r, [0.01, -0.01])
    claims = [
        {"claim": "more noise, less order", "parameter": "eta", "output": "y",
         "trend": "decreasing"},
        {"claim": "eta = 6 is disordered", "parameter": "eta", "output": "y", "at": 6.0,
         "below": 0.5},
        {"claim": "eta = 0.2 is disordered", "parameter": "eta", "output": "y", "at": 0.2,
         "below": 0.5}]
    ds, document = analyse_sensitivity(design_ds, summary, {"outputs": ["y"], "claims": claims},
                                       replicates=2)
    np.testing.assert_allclose(ds["response_mean"].sel(output="y", parameter="eta"),
                               [1.03, 0.75, 0.45], rtol=1e-12)
    np.testing.assert_allclose(ds["response_sem"].sel(output="y", parameter="r")[:2], 0.01,
                               rtol=1e-9)
    np.testing.assert_allclose(ds["swing"].sel(output="y"), [0.58, 0.025], rtol=1e-12)
    np.testing.assert_allclose(ds["row_mean"].sel(output="y"),
                               [1.03, 0.75, 0.45, 1.005, 1.03], rtol=1e-12)
    # eta = 6 from two runs, 0.46 and 0.44: the 95 % Student interval (t = 12.7 with one
    # degree of freedom) is [0.32, 0.58] and reaches past 0.5, so the data cannot decide
    assert ds["claim_verdict"].values.tolist() == ["holds", "inconclusive", "fails"]
    assert ds["claim_n"].values.tolist() == [6, 2, 2]
    assert ds["claim_p"].values[0] == pytest.approx(16 / 720)   # exact: 2^3 x 2 of 6! orders
    assert document["outputs"]["y"]["r"]["mean"] == pytest.approx([1.005, 1.03])
    assert document["claims"][2]["verdict"] == "fails" and document["notes"] == {}
    assert ds.attrs["bootstrap_seed"] == 6 and "git_commit" not in ds.attrs


def test_morris_analysis_of_a_linear_response():
    # y = 2 eta - 3 r: every elementary effect per full range is c_i (high - low), so
    # mu = (2 x 5.9, -3 x 1.0), mu* = |mu| and sigma = 0
    factors = [Factor("eta", 0.1, 6.0), Factor("r", 0.5, 1.5)]
    design = morris_design(factors, 4, seed=2)
    design_ds = _design_file(design, {"N": 40, "L": 5.0})
    summary = _summary_of(design_ds, lambda eta, r: 2 * eta - 3 * r, [0.0])
    ds, _ = analyse_sensitivity(design_ds, summary, {"outputs": ["y"], "resamples": 20,
                                                     "confidence": 0.95, "levels": 4},
                                replicates=1)
    mu = ds["mu"].sel(output="y").values
    np.testing.assert_allclose(mu, [11.8, -3.0], rtol=1e-5)
    np.testing.assert_allclose(ds["mu_star"].sel(output="y"), np.abs(mu), rtol=1e-12)
    np.testing.assert_allclose(ds["sigma"].sel(output="y"), 0.0, atol=1e-4)
    assert ds["evaluations"].values.tolist() == (ds["sample_size"].values * 3).tolist()
    assert ds["mu_star_convergence"].dims == ("output", "sample_size", "parameter")


def test_run_outputs_match_rows_by_label():
    summary = xr.Dataset({"y": (("point", "replicate"), [[1.0, 2.0], [3.0, 4.0]])},
                         coords={"point": ["a", "b"], "replicate": [0, 1]})
    runs = run_outputs(summary, ["b", "a", "b"], ["y"])
    assert runs.tolist() == [[[3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]]
    with pytest.raises(ValueError, match=r"no runs for design point\(s\) \['c'\]"):
        run_outputs(summary, ["a", "c"], ["y"])
    with pytest.raises(ValueError, match="output 'z' is not in the summary"):
        run_outputs(summary, ["a"], ["z"])
    with pytest.raises(ValueError, match="non-finite"):
        run_outputs(summary.where(summary["y"] < 4), ["b"], ["y"])


def test_sobol_indices_of_an_additive_linear_model():
    """y = a + 2 b + 0 c with independent U[0, 1] factors: V = (1 + 4) / 12, so
    S1 = ST = (1/5, 4/5, 0) exactly. The estimators' integrands are quadratic polynomials of
    the inputs, which scrambled Sobol' points integrate with an RMS error O(N^-3/2)
    (Owen 1997), ~1e-5 at N = 1024; the design's 6-digit rounding adds to it (measured worst
    error over seeds 1-10: 0.0024). Tolerance 0.005: a 3 % error of the largest index
    (0.024) is five times larger."""
    factors = [Factor(name, 0.0, 1.0) for name in ("a", "b", "c")]
    design = sobol_design(factors, 1024, seed=1)
    result = sobol_indices(design, design.values @ np.array([1.0, 2.0, 0.0]), seed=1,
                           resamples=10)
    for name in ("S1", "ST"):
        np.testing.assert_allclose(result.values[name], [0.2, 0.8, 0.0], atol=0.005)




@pytest.mark.parametrize(("levels", "deterministic"), [((0.2, 0.3), True), ((0.2, 3.0), False)])
def test_a_design_is_deterministic_only_if_no_row_uses_its_seed(monkeypatch, levels,
                                                               deterministic):
    """Each row's parameters (fixed ones and those the factors set) are asked: a model that
    uses its seed only above eta = 1 makes the design random once one level is above it."""
    from flocklab.core.registry import get_model
    from flocklab.stages.sensitivity import is_deterministic

    model = get_model("vicsek")
    monkeypatch.setattr(type(model), "uses_seed", lambda self, params: params["eta"] > 1.0)
    design = oat_design([Factor("eta", values=levels), Factor("density", values=(0.8, 1.6))],
                        baseline={"eta": 0.2, "density": 1.6})
    assert is_deterministic(_design_file(design, {"N": 40, "L": 5.0, "eta": 0.2})) \
        is deterministic


@pytest.mark.parametrize("name", ["morris", "sobol"])
def test_sampled_methods_declare_their_rows_per_sample(name):
    """A sampled method's declared rows per sample is its design's: samples x (d + 1) rows
    for Morris trajectories, samples x (d + 2) for Saltelli's cross-sampled Sobol' design."""
    from flocklab.analysis.sensitivity import METHODS

    method = METHODS[name]
    assert method.check(8, 4) is None and method.factors_as == "range"
    design = method.design(ISHIGAMI, samples=8, seed=3, levels=4)
    assert design.values.shape == (8 * method.rows_per_sample(3), 3)
    assert set(method.headline) <= set(method.indices)


def test_point_by_point_method_declares_values_and_claims():
    from flocklab.analysis.sensitivity import METHODS

    oat = METHODS["oat"]
    assert oat.rows_per_sample is None and oat.factors_as == "values" and oat.claims
    assert not any(m.claims for m in METHODS.values() if m.rows_per_sample is not None)
