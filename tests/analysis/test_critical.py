"""Single-size critical fits, the summary readers and the resampling helpers on synthetic data
with known answers; the finite-size scaling stage, its comparison with the fits and its
figures (the finite-size scaling estimators themselves: tests/analysis/test_fss.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from flocklab.analysis import critical as crit
from flocklab.analysis import reading, resampling, rounded
from flocklab.analysis.critical import fit_critical_summary
from flocklab.analysis.fss import finite_size_scaling
from flocklab.analysis.fss.compare import fits_against_peaks, with_fit_comparison
from flocklab.analysis.reading import CriticalFitError
from flocklab.analysis.rounded import RoundedFitError, calibrated_fit
from flocklab.analysis.timeseries import replicate_average
from flocklab.cli.main import main
from flocklab.core.parameters import ParameterError
from flocklab.stages.critical import run_fit_critical, run_fss

TRUE_CRITICAL, TRUE_BETA, AMPLITUDE, TAIL = 3.0, 0.45, 0.95, 0.04
ETA = np.round(np.arange(1.0, 4.01, 0.1), 10)
#: Nominal coverage of a ±1σ interval.
NOMINAL = stats.norm.cdf(1) - stats.norm.cdf(-1)


def _truth(eta):
    s = np.clip((TRUE_CRITICAL - eta) / TRUE_CRITICAL, 0, None)
    return np.maximum(AMPLITUDE * s**TRUE_BETA, TAIL)   # finite-size tail above eta_c


def _synthetic_seeds(rng, seeds=8, noise=0.01):
    return _truth(ETA)[:, None] + noise * rng.normal(size=(ETA.size, seeds))


def _summary(samples, dim="replicate"):
    """A Vicsek summary.nc-like dataset from per-seed values, shape (n_sizes, n_eta, n_seeds)."""
    n_sizes, _, seeds = samples.shape
    mean = samples.mean(axis=-1)
    err = samples.std(axis=-1, ddof=1) / np.sqrt(seeds)
    return xr.Dataset(
        {"order_parameter_mean": (("N", "eta", dim), samples),
         "order_parameter_sem": (("N", "eta", dim), np.full(samples.shape, 0.01)),
         "replicate_order_parameter": (("N", "eta"), mean),
         "replicate_order_parameter_err": (("N", "eta"), err)},
        coords={"N": 400 * (np.arange(n_sizes) + 1), "eta": ETA, dim: np.arange(seeds),
                "L": ("N", 10.0 * (np.arange(n_sizes) + 1))},
        attrs={"model": "vicsek", "primary_observable": "order_parameter",
               "size_parameter": "N"})


def _strict_json(text: str):
    """Parse JSON, refusing NaN and Infinity (as strict parsers do)."""
    def refuse(constant):
        raise ValueError(f"non-standard JSON constant {constant}")
    return json.loads(text, parse_constant=refuse)


# --------------------------------------------------------------------------- power-law fit


def test_fit_recovers_critical_point_and_exponent():
    rng = np.random.default_rng(1)
    samples = _synthetic_seeds(rng)
    fit = crit.fit_power_law(ETA, samples.mean(1), samples.std(1, ddof=1) / np.sqrt(8))
    # tolerance: 5 fit standard deviations (the noise is 1 % per seed)
    assert abs(fit.critical - TRUE_CRITICAL) < 5 * fit.critical_err
    assert abs(fit.exponent - TRUE_BETA) < 5 * fit.exponent_err
    assert fit.window[1] < fit.critical
    assert fit.n_points >= 4
    # nothing assumes the observable's range: a rescaled observable gives the same fit
    for scale in (0.01, 100.0):
        scaled = crit.fit_power_law(ETA, scale * samples.mean(1),
                                    scale * samples.std(1, ddof=1) / np.sqrt(8))
        assert scaled.critical == pytest.approx(fit.critical, rel=1e-6)
        assert scaled.exponent == pytest.approx(fit.exponent, rel=1e-5)
        assert scaled.amplitude == pytest.approx(scale * fit.amplitude, rel=1e-5)


def test_density_side_fit():
    rho = np.linspace(0.2, 3.0, 29)
    v = np.where(rho > 0.8, 0.9 * (np.abs(rho - 0.8) / 0.8) ** 0.35, 0.1)
    fit = crit.fit_power_law(rho, v, np.full(rho.size, 0.005), side="above", reduced_max=2.0)
    # noise-free data: the fit is exact up to the optimiser's tolerance
    assert fit.critical == pytest.approx(0.8, abs=1e-4)
    assert fit.exponent == pytest.approx(0.35, abs=1e-3)
    assert fit.status == "converged"


def test_fit_covariance_intervals_cover_the_truth_at_68_percent():
    # With known per-point errors (absolute_sigma) the covariance interval value ± 1σ of a
    # near-linear least-squares fit covers the truth with probability 0.6827. Over n
    # independent data sets the number of hits is binomial: its standard error is
    # sqrt(p (1 - p) / n) = 0.023 for n = 400, so the band 0.683 ± 3 × 0.023 = [0.613, 0.753]
    # fails a correct fit with probability 0.003 per quantity, and catches a 1σ
    # interval that is 20 % too narrow or too wide (coverage 0.58 or 0.77). A 2000-set
    # run gave 0.674 (x_c) and 0.688 (beta).
    rng = np.random.default_rng(2)
    sigma = 0.01 / np.sqrt(8)
    trials = 400
    hits_critical = hits_beta = 0
    for _ in range(trials):
        v = _truth(ETA) + sigma * rng.normal(size=ETA.size)
        fit = crit.fit_power_law(ETA, v, np.full(ETA.size, sigma))
        hits_critical += abs(fit.critical - TRUE_CRITICAL) < fit.critical_err
        hits_beta += abs(fit.exponent - TRUE_BETA) < fit.exponent_err
    band = 3 * np.sqrt(NOMINAL * (1 - NOMINAL) / trials)
    assert abs(hits_critical / trials - NOMINAL) < band
    assert abs(hits_beta / trials - NOMINAL) < band


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_truth_at_the_expected_rate():
    # The percentile interval of a bootstrap over k seeds has half-width
    # sqrt((k - 1) / k) s / sqrt(k) (the bootstrap variance of a mean is (k - 1)/k times
    # s^2 / k), so it covers like a Student-t interval of that half-width: expected
    # coverage c = P(|t_{k-1}| < sqrt((k - 1)/k)) = 0.62 for k = 8. Band: c ± 3 binomial
    # standard errors over the trials (± 0.10 for 100 trials).
    rng = np.random.default_rng(3)
    seeds, trials = 8, 100
    expected = 2 * stats.t.cdf(np.sqrt((seeds - 1) / seeds), seeds - 1) - 1
    hits = 0
    for _ in range(trials):
        _ds, document = fit_critical_summary(_summary(_synthetic_seeds(rng, seeds)[None]),
                                            "eta", {}, resamples=100,
                                            seed=int(rng.integers(1 << 30)))
        # the paper's method, reported beside the calibrated interval for comparison
        low, high = document["power_law"]["beta"]["ci"]
        hits += low <= TRUE_BETA <= high
    assert abs(hits / trials - expected) < 3 * np.sqrt(expected * (1 - expected) / trials)


def test_a_window_that_does_not_settle_is_an_error_and_a_cycle_is_flagged():
    rng = np.random.default_rng(8)
    v = _truth(ETA) + 0.002 * rng.normal(size=ETA.size)
    with pytest.raises(CriticalFitError, match="did not settle within 1 iterations"):
        crit.fit_power_law(ETA, v, np.full(ETA.size, 0.002), max_iterations=1)
    # About 5 % of noisy data sets make the window alternate between two point sets
    # (measured: 99 of 2000); the chance that 300 sets show none is 0.95^300 < 1e-6.
    sigma = 0.01 / np.sqrt(8)
    for _ in range(300):
        v = _truth(ETA) + sigma * rng.normal(size=ETA.size)
        fit = crit.fit_power_law(ETA, v, np.full(ETA.size, sigma))
        if fit.status == "cycle":
            break
    assert fit.status == "cycle" and "alternated" in fit.note
    # the returned fit is consistent with its own critical value: window on the ordered
    # side of it and a point beyond it
    assert ETA[fit.used].max() < fit.critical < ETA.max()


def test_window_scan_brackets_the_window_used():
    for reduced_max in (0.5, 0.8, 4.0):
        widths = crit.scan_widths(0.05, reduced_max)
        assert min(widths) == pytest.approx(reduced_max / 2)
        assert max(widths) == pytest.approx(2 * reduced_max)
        assert reduced_max in widths
    rng = np.random.default_rng(9)
    samples = _synthetic_seeds(rng)
    rows = crit.window_scan(ETA, samples.mean(1), samples.std(1, ddof=1) / np.sqrt(8),
                            reduced_max=0.8)
    assert [row["reduced_max"] for row in rows] == pytest.approx(
        [0.4, 0.4 * 2**0.5, 0.8, 0.8 * 2**0.5, 1.6])
    for row in rows:   # failed widths say why
        assert (row["critical"] is None) == (row["status"] == "failed")
        assert row["status"] != "failed" or row["note"]


def test_too_few_points_or_no_transition_is_an_error_not_a_number():
    with pytest.raises(CriticalFitError, match="no transition"):
        crit.fit_power_law(ETA, np.full(ETA.size, 0.9), np.full(ETA.size, 0.01))
    coarse = np.array([1.0, 2.8, 3.2, 3.6, 4.0])
    with pytest.raises(CriticalFitError, match="points on the ordered side"):
        crit.fit_power_law(coarse, _truth(coarse), np.full(coarse.size, 0.01))
    ordered_only = ETA[ETA < 2.9]
    with pytest.raises(CriticalFitError):
        crit.fit_power_law(ordered_only, _truth(ordered_only), np.full(ordered_only.size, 0.01))


# --------------------------------------------------------------------------- reading a summary


def test_replicate_means_are_the_seed_mean_and_its_standard_error():
    # k seeds at each point: mean = sum / k, error = sd(ddof=1) / sqrt(k) (the jackknife
    # error of a mean equals it)
    samples = np.array([[0.9, 0.8, 1.0], [0.5, 0.2, 0.2], [0.1, 0.3, 0.2]])
    summary = xr.Dataset({"p_mean": (("x", "seed"), samples)},
                         coords={"x": [1.0, 2.0, 3.0], "seed": [0, 1, 2]})
    averaged, dim = reading.with_replicate_means(summary, "p")
    assert dim == "seed" and "replicate_p" not in summary   # the input is not changed
    np.testing.assert_allclose(averaged["replicate_p"], [0.9, 0.3, 0.2], rtol=1e-12)
    np.testing.assert_allclose(averaged["replicate_p_err"],
                               [0.1 / np.sqrt(3), 0.1, 0.1 / np.sqrt(3)], rtol=1e-12)
    # present averages are kept as they are
    assert reading.with_replicate_means(averaged, "p")[0] is averaged
    # one seed: the run's own standard error, and an error without one
    one = summary.isel(seed=[1]).assign(p_sem=(("x", "seed"), [[0.01], [0.02], [0.03]]))
    averaged, _ = reading.with_replicate_means(one, "p")
    np.testing.assert_array_equal(averaged["replicate_p"], [0.8, 0.2, 0.3])
    np.testing.assert_array_equal(averaged["replicate_p_err"], [0.01, 0.02, 0.03])
    with pytest.raises(CriticalFitError, match="one replicate and no 'p_sem'"):
        reading.with_replicate_means(summary.isel(seed=[1]), "p")


def test_replicate_dimension_and_observable_name():
    summary = xr.Dataset({"p_mean": (("x", "replicate"), np.zeros((2, 3))),
                          "q_mean": (("x",), np.zeros(2))})
    assert reading.replicate_dimension(summary, "p_mean") == "replicate"
    with pytest.raises(CriticalFitError, match="no replicate dimension"):
        reading.replicate_dimension(summary, "q_mean")
    with pytest.raises(CriticalFitError, match="no per-replicate variable 'r_mean'"):
        reading.replicate_dimension(summary, "r_mean")
    # given, else declared, else the one <P>_mean
    assert reading.observable_name(summary, "q") == "q"
    with pytest.raises(CriticalFitError, match="has 2 per-replicate"):
        reading.observable_name(summary)
    assert reading.observable_name(summary.drop_vars("q_mean")) == "p"
    summary.attrs["primary_observable"] = "q"
    assert reading.observable_name(summary) == "q"


def test_a_summary_names_its_model_and_symbols():
    summary = xr.Dataset(attrs={"model": "vicsek"})
    assert reading.summary_model(summary).name == "vicsek"
    assert reading.observable_symbol(summary, "order_parameter") == "v_a"
    for attrs in ({}, {"model": "none"}, {"model": "another_simulator"}):
        foreign = xr.Dataset(attrs=attrs)
        assert reading.summary_model(foreign) is None
        assert reading.observable_symbol(foreign, "my_p") == r"\mathrm{my\_p}"


def test_curves_split_a_summary_along_the_control():
    rng = np.random.default_rng(15)
    summary = _summary(_synthetic_seeds(rng)[None].repeat(2, axis=0))
    split = crit.curves(summary, "eta", {}, "order_parameter")
    assert [labels for labels, _ in split] == [{"N": 400}, {"N": 800}]
    assert all(curve.sizes["eta"] == ETA.size and "N" not in curve.dims for _, curve in split)
    ((labels, curve),) = crit.curves(summary, "eta", {"N": 800}, "order_parameter")
    assert labels == {} and int(curve["N"]) == 800
    arrays = crit.curve_arrays(curve, "eta", "order_parameter", "replicate")
    assert arrays.samples.shape == (ETA.size, 8) and arrays.fallback is arrays.err
    assert arrays.sems.shape == (ETA.size, 8) and arrays.independent is None
    np.testing.assert_array_equal(arrays.x, ETA)
    np.testing.assert_array_equal(arrays.v, arrays.samples.mean(axis=1))
    # one seed: the parametric bootstrap falls back on the run's standard error
    arrays = crit.curve_arrays(curve.isel(replicate=[0]), "eta", "order_parameter",
                               "replicate")
    np.testing.assert_array_equal(arrays.fallback, 0.01)
    with pytest.raises(CriticalFitError, match="no coordinate 'rho'"):
        crit.curves(summary, "rho", {}, "order_parameter")
    with pytest.raises(CriticalFitError, match="N = 5 is not in the summary"):
        crit.curves(summary, "eta", {"N": 5}, "order_parameter")
    with pytest.raises(CriticalFitError, match="varies along"):
        crit.curves(summary.assign_coords(eta2=summary["L"] * summary["eta"]), "eta2", {},
                    "order_parameter")


# --------------------------------------------------------------------------- fit stage


def test_stage_output_has_the_documented_fields():
    rng = np.random.default_rng(4)
    ds, document = fit_critical_summary(_summary(_synthetic_seeds(rng)[None]), "eta",
                                        {"N": 400}, resamples=40, seed=1)
    for key in ("eta_c", "beta"):
        entry = document[key]
        low, high = entry["ci"]
        assert low < entry["value"] < high
        # the half-width is the larger of the jackknife part and the window part (times
        # the misfit scale factor)
        assert entry["half_width"] == pytest.approx(entry["scale"] * max(
            entry["statistical"], entry["window"]))
        assert len(document["jackknife"][key]) == 8
        halves = document["split_half"][key]
        assert len(halves["halves"]) == 2 and halves["agree"] in (True, False)
        assert document["power_law"][key]["ci"][0] < document["power_law"][key]["value"]
    assert document["n_points"] >= 7 and document["window"]["reduced_max"] == 0.8
    assert document["status"] == "converged" and document["side"] == "below"
    assert [row["reduced_max"] for row in document["windows"]] == pytest.approx(
        [0.8 / np.sqrt(2), 0.8, 0.8 * np.sqrt(2)])
    assert document["split_half"]["replicates"] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # tolerance: 5 half-widths of the calibrated interval
    assert abs(document["eta_c"]["value"] - TRUE_CRITICAL) < 5 * document["eta_c"]["half_width"]
    assert "beta_half1" in ds and ds["used"].sum() == document["n_points"]
    assert ds.attrs["coordinate"] == "eta" and ds.attrs["observable_symbol"] == "v_a"
    # an effective fit at this size, never "quotable": what limits it, as tags and a sentence,
    # the same tags as flags in the netCDF file, the refits that failed, the bounds reached
    assert document["verdict"].startswith(crit.EFFECTIVE)
    assert set(document["limits"]) <= set(crit.LIMITS)
    assert document["failed_refits"] == {"jackknife": 0, "windows": 0}
    # the synthetic curve is a sharp power law (no rounding): w ends at its lower bound
    assert document["at_bounds"] == ["rounding_width"] and "bound" in document["limits"]
    assert document["rounding_width"] == pytest.approx(rounded.WIDTH_BOUNDS[0], abs=3e-3)
    assert "quotable" not in document and "reasons" not in document
    for tag in crit.LIMITS:
        assert float(ds[f"limit_{tag}"]) == float(tag in document["limits"]), tag
    assert not [name for name in ds.data_vars if str(name).startswith(("quotable", "reason_"))]


def test_density_control_comes_from_the_model_declaration():
    rho = np.linspace(0.2, 3.0, 29)
    clean = np.where(rho > 0.8, 0.9 * (np.abs(rho - 0.8) / 0.8) ** 0.35, 0.1)
    rng = np.random.default_rng(10)
    samples = clean[:, None] + 0.005 * rng.normal(size=(rho.size, 6))
    summary = xr.Dataset(
        {"order_parameter_mean": (("N", "replicate"), samples),
         "order_parameter_sem": (("N", "replicate"), np.full(samples.shape, 0.005))},
        coords={"N": np.arange(rho.size), "density": ("N", rho)},
        attrs={"model": "vicsek", "primary_observable": "order_parameter"})
    _, document = fit_critical_summary(summary, "rho", {}, reduced_max=2.0, resamples=10)
    assert document["side"] == "above" and document["coordinate"] == "density"
    assert abs(document["rho_c"]["value"] - 0.8) < 5 * document["rho_c"]["half_width"]
    assert "delta" in document
    with pytest.raises(ParameterError, match="declares side 'above'"):
        fit_critical_summary(summary, "rho", {}, side="below", resamples=0)
    with pytest.raises(ParameterError, match="no critical control"):
        fit_critical_summary(summary, "temperature", {}, resamples=0)


def _foreign_summary(rng, dim="seed", seeds=6):
    """What another simulator writes: per-seed means and errors, no model, no averages."""
    samples = _synthetic_seeds(rng, seeds)
    return xr.Dataset(
        {"polarisation_mean": (("noise", dim), samples),
         "polarisation_sem": (("noise", dim), np.full(samples.shape, 0.01))},
        coords={"noise": ETA, dim: np.arange(seeds)}), samples


@pytest.mark.parametrize("dim", ["seed", "replicate"])
def test_fit_on_a_foreign_summary_computes_the_replicate_means(dim):
    rng = np.random.default_rng(11)
    summary, samples = _foreign_summary(rng, dim)
    with pytest.raises(ParameterError, match="--side"):
        fit_critical_summary(summary, "noise", {}, observable="polarisation")
    _, document = fit_critical_summary(summary, "noise", {}, resamples=20,
                                       observable="polarisation", side="below",
                                       exponent="beta")
    # the same numbers as the calibrated fit of the per-seed means and errors, and the
    # paper's power law of the seed means with their standard error across seeds (the
    # jackknife error equals it up to rounding, which the optimiser's stopping rule turns
    # into differences of order 1e-9)
    direct = calibrated_fit(ETA, samples, np.full(samples.shape, 0.01), "below", 0.8)
    assert document["noise_c"]["value"] == pytest.approx(direct["critical"]["value"])
    assert document["beta"]["value"] == pytest.approx(direct["exponent"]["value"])
    assert abs(direct["exponent"]["value"] - TRUE_BETA) < 5 * direct["exponent"]["half_width"]
    power = crit.fit_power_law(ETA, samples.mean(1), samples.std(1, ddof=1)
                               / np.sqrt(samples.shape[1]), reduced_max=0.8)
    assert document["power_law"]["beta"]["value"] == pytest.approx(power.exponent, rel=1e-7)
    # a model of a package that is not installed: treated as foreign, side still needed
    summary.attrs["model"] = "another_simulator"
    with pytest.raises(ParameterError, match="not registered"):
        fit_critical_summary(summary, "noise", {}, observable="polarisation")


def test_cli_fits_a_foreign_summary_and_writes_strict_json(tmp_path):
    rng = np.random.default_rng(12)
    summary, _ = _foreign_summary(rng)
    summary.attrs["primary_observable"] = "polarisation"   # --observable defaults to it
    path = tmp_path / "foreign.nc"
    summary.to_netcdf(path)
    out = tmp_path / "fit.json"
    with pytest.raises(SystemExit) as stop:
        main(["fit", str(path), "--control", "noise", "--out", str(out)])
    assert stop.value.code == 2 and not out.exists()
    code = main(["fit", str(path), "--control", "noise", "--side", "below", "--exponent",
                 "beta", "--bootstrap", "0", "--out", str(out), "--out-nc",
                 str(tmp_path / "fit.nc")])
    assert code == 0
    document = _strict_json(out.read_text())
    # no bootstrap: no comparison fit; the calibrated interval needs none
    assert "error" in document["power_law"] and None not in document["beta"]["ci"]
    assert document["observable"] == "polarisation" and "noise_c" in document


def test_a_curve_that_cannot_be_fitted_is_reported_not_fatal_when_others_fit(tmp_path):
    rng = np.random.default_rng(7)
    good = _synthetic_seeds(rng)
    flat = 0.9 + 0.01 * rng.normal(size=good.shape)
    ds, document = fit_critical_summary(_summary(np.stack([good, flat])), "eta", {},
                                        resamples=10)
    assert len(document["fits"]) == 1 and len(document["failed"]) == 1
    assert "no transition" in document["failed"][0]["error"]
    assert np.isnan(ds["eta_c"].values[1]) and np.isfinite(ds["eta_c"].values[0])
    with pytest.raises(CriticalFitError, match="no transition"):
        fit_critical_summary(_summary(np.stack([flat, flat])), "eta", {}, resamples=5)
    # the stage file: strict JSON even with undefined (NaN) numbers
    path = tmp_path / "summary.nc"
    _summary(np.stack([good, flat])).to_netcdf(path)
    settings = {"control": "eta", "reduced_min": 0.02, "reduced_max": 0.5, "bootstrap": 0,
                "select": {}}
    run_fit_critical(path, settings, tmp_path / "c.nc", tmp_path / "c.json", seed=0)
    written = _strict_json((tmp_path / "c.json").read_text())
    assert written["failed"][0]["N"] == 800 and written["fits"][0]["N"] == 400
    with xr.open_dataset(tmp_path / "c.nc") as fits:
        assert np.isnan(fits["eta_c"].values[1])
    # the stage refuses a study none of whose curves can be fitted: the reasons written, the
    # log-log figure says so instead of drawing nothing
    _summary(np.stack([flat, flat])).to_netcdf(tmp_path / "flat.nc")
    run_fit_critical(tmp_path / "flat.nc", settings, tmp_path / "r.nc", tmp_path / "r.json",
                     seed=0)
    refused = _strict_json((tmp_path / "r.json").read_text())
    assert refused["fits"] == [] and "no transition" in refused["refused"]
    with xr.open_dataset(tmp_path / "r.nc") as fits:
        assert np.isnan(fits["eta_c"].values).all() and "no transition" in fits.attrs["refused"]
        import matplotlib

        matplotlib.use("Agg")
        from flocklab.figures import plotting

        figure = plotting.critical_loglog_figure(_summary(np.stack([flat, flat])), fits)
        assert any("no curve could be fitted" in text.get_text()
                   for text in figure.axes[0].texts)
        matplotlib.pyplot.close("all")


# --------------------------------------------------------------------------- finite size
# The estimators of flocklab.analysis.fss are tested in tests/analysis/test_fss.py; here the
# stage around them, the comparison with the single-size fits and the figures.

# Per-run records of P are Gaussian with mean L^(-beta/nu) F(z) and variance chi / N, N = L^2,
# z = (eta - eta_c) L^(1/nu), chi = 0.1 L^(gamma/nu) H(z), H(z) = exp(-(z - z0)^2 / 2) + 0.05,
# gamma/nu = 2 - 2 beta/nu (hyperscaling in d = 2: sd / mean, hence the Binder cumulant, is a
# function of z alone): a Vicsek-like summary with the run moments and histograms the
# analysis reads.
FSS_CRITICAL, FSS_INVERSE_NU, FSS_BETA_OVER_NU, FSS_GAMMA_OVER_NU, PEAK_Z = 2.5, 0.8, 0.3, 1.4, 0.5
FSS_ETA = np.round(np.arange(1.9, 3.1001, 0.025), 10)
FSS_SIZES = np.array([8.0, 16.0, 32.0])
RECORDS, REPLICATES, BINS = 2000, 4, np.linspace(-0.5, 1.5, 51)


def _scaled_chi(sizes, eta):
    z = (eta[None, :] - FSS_CRITICAL) * sizes[:, None] ** FSS_INVERSE_NU
    return 0.1 * sizes[:, None] ** FSS_GAMMA_OVER_NU * (np.exp(-(z - PEAK_Z) ** 2 / 2) + 0.05)


def _fss_summary(rng, sizes=FSS_SIZES, replicates=REPLICATES):
    """A summary from sampled run records, its replicate averages made as summarize does."""
    z = (FSS_ETA[None, :] - FSS_CRITICAL) * sizes[:, None] ** FSS_INVERSE_NU
    mean = sizes[:, None] ** (-FSS_BETA_OVER_NU) * (1 / (1 + np.exp(z)) + 0.1)
    n_particles = sizes**2
    sd = np.sqrt(_scaled_chi(sizes, FSS_ETA) / n_particles[:, None])
    records = (mean[..., None, None] + sd[..., None, None]
               * rng.normal(size=(*mean.shape, replicates, RECORDS)))
    m1, m2, m4 = (np.mean(records**k, axis=-1) for k in (1, 2, 4))
    index = np.digitize(records, BINS) - 1
    inside = (index >= 0) & (index < BINS.size - 1)
    runs = np.arange(m1.size).reshape(m1.shape)[..., None]
    counts = np.bincount((runs * (BINS.size - 1) + index)[inside],
                         minlength=m1.size * (BINS.size - 1))
    histogram = counts.reshape(*m1.shape, BINS.size - 1) / RECORDS
    sem = records.std(axis=-1, ddof=1) / np.sqrt(RECORDS)
    missing = np.full(m1.shape, np.nan)
    averaged = replicate_average(m1, m2, m4, sem, missing, missing, n_particles[:, None],
                                 observable="order_parameter")
    per_run, grid = ("N", "eta", "replicate"), ("N", "eta")
    data = {"order_parameter_mean": (per_run, m1), "order_parameter_m2": (per_run, m2),
            "order_parameter_m4": (per_run, m4), "order_parameter_sem": (per_run, sem),
            "order_parameter_histogram": ((*per_run, "bin"), histogram)}
    data.update({f"replicate_{name}": (grid, values) for name, values in averaged.items()})
    return xr.Dataset(
        data, coords={"N": n_particles.astype(int), "L": ("N", sizes), "eta": FSS_ETA,
                      "replicate": np.arange(replicates), "bin": 0.5 * (BINS[1:] + BINS[:-1])},
        attrs={"model": "vicsek", "primary_observable": "order_parameter",
               "size_parameter": "N"})


def _effective_fits(lengths, peaks, gap, half_width=0.01, rounding_width=0.01):
    """A critical.nc-like dataset of one single-size fit per N (L a coordinate on N, as in a
    study): its eta_c lies ``gap`` above the χ maxima ``peaks``, with a 68 % interval of
    half-width ``half_width``."""
    lengths, fitted = np.asarray(lengths, float), np.asarray(peaks, float) + gap
    return xr.Dataset(
        {"eta_c": ("N", fitted), "eta_c_ci_low": ("N", fitted - half_width),
         "eta_c_ci_high": ("N", fitted + half_width),
         "rounding_width": ("N", np.full(fitted.size, rounding_width))},
        coords={"N": (lengths**2).astype(int), "L": ("N", lengths)},
        attrs={"control": "eta", "coordinate": "eta"})


FSS_SETTINGS = {"control": "eta", "size": "L", "resamples": 20, "collapse": False}


def test_the_fss_stage_writes_strict_json_compares_the_fits_and_refuses_in_words(tmp_path):
    rng = np.random.default_rng(6)
    summary = _fss_summary(rng)
    path = tmp_path / "summary.nc"
    summary.to_netcdf(path)
    run_fss(path, FSS_SETTINGS, tmp_path / "fss.nc", tmp_path / "fss.json", seed=0)
    document = _strict_json((tmp_path / "fss.json").read_text())
    # the library's analysis with the config's settings and the stage's seed, written as is
    _, direct = finite_size_scaling(summary, "eta", "L", FSS_SETTINGS, seed=0)
    for name in ("x_c", "nu", "inverse_nu", "beta_over_nu", "gamma_over_nu", "hyperscaling"):
        assert document[name] == direct[name], name   # floats round-trip through JSON
    assert document["verdict"] == direct["verdict"] and "refused" not in document
    # the scaling form's eta_c, to within the grid's step (the estimators' accuracy and
    # intervals are test_fss.py's: this grid is common to all sizes, not refined per size)
    assert abs(document["x_c"]["value"] - FSS_CRITICAL) < FSS_ETA[1] - FSS_ETA[0]
    assert "effective_fits_against_peaks" not in document   # no critical fits given
    with xr.open_dataset(tmp_path / "fss.nc") as fss:
        assert fss["peak_location"].dims == ("size",) and fss["crossing"].dims == ("pair",)
        assert fss["order"].dims == fss["binder"].dims == ("size", "point")
        np.testing.assert_array_equal(fss["size"].values, FSS_SIZES)
        assert [peak["x"]["value"] for peak in document["peaks"]] == pytest.approx(
            fss["peak_location"].values)
        assert fss.attrs["control"] == "eta" and fss.attrs["size"] == "L"
        assert fss.attrs["verdict"] == document["verdict"]
        peaks = fss["peak_location"].values
    # with the study's single-size fits (critical.nc): compared per size with the maxima
    fits = _effective_fits(FSS_SIZES, peaks, gap=0.5)
    fits.to_netcdf(tmp_path / "critical.nc")
    run_fss(path, FSS_SETTINGS, tmp_path / "fss.nc", tmp_path / "fss.json", seed=0,
            critical_path=tmp_path / "critical.nc")
    document = _strict_json((tmp_path / "fss.json").read_text())
    comparison = document["effective_fits_against_peaks"]
    assert comparison["verdict"] == "disagree" and comparison["sizes"] == FSS_SIZES.tolist()
    with xr.open_dataset(tmp_path / "fss.nc") as fss:
        np.testing.assert_allclose(fss["effective_x_c"].values, peaks + 0.5)
        assert fss["fit_peak_z"].dims == ("size",)
        assert fss.attrs["fit_peak_verdict"] == "disagree"
    # what the analysis cannot use is a refusal in words, not a failed workflow
    for name, unusable, reason in (
            ("one_replicate", summary.isel(replicate=[0]), "at least two replicates"),
            ("one_size", summary.isel(N=[0]), "at least two sizes"),
            ("no_count", summary.swap_dims({"N": "L"}).drop_vars("N"), "element count N")):
        unusable.to_netcdf(tmp_path / f"{name}.nc")
        run_fss(tmp_path / f"{name}.nc", FSS_SETTINGS, tmp_path / f"{name}_fss.nc",
                tmp_path / f"{name}_fss.json", seed=0,
                critical_path=tmp_path / "critical.nc")
        refused = _strict_json((tmp_path / f"{name}_fss.json").read_text())
        assert reason in refused["refused"], (name, refused)
        assert refused["verdict"] == f"refused: {refused['refused']}"
        assert "x_c" not in refused and "effective_fits_against_peaks" not in refused
        with xr.open_dataset(tmp_path / f"{name}_fss.nc") as fss:
            assert reason in fss.attrs["refused"]
    # the element count may be a fixed parameter instead of a coordinate
    no_count = summary.swap_dims({"N": "L"}).drop_vars("N")
    fixed = no_count.assign_attrs(fixed_parameters=json.dumps({"N": 400}))
    _, document = finite_size_scaling(fixed, "eta", "L", FSS_SETTINGS)
    assert document["sizes"] == FSS_SIZES.tolist()


def test_fits_against_peaks_weighs_the_gap_by_the_two_intervals_only():
    """z = |x_fit - x*| / sqrt(h_fit^2 + h_chi^2): a gap of 0.68 with half-widths 0.1 and 0.1
    is z = 0.68 / 0.141 = 4.8, beyond the agreement limit 2, whatever the fits' rounding width
    (the curve's shape, not an uncertainty of its centre); a gap of 0.2 is z = 1.4."""
    peaks = np.array([2.0, 2.2])
    fss = xr.Dataset(
        {"peak_location": ("size", peaks), "peak_location_ci_low": ("size", peaks - 0.1),
         "peak_location_ci_high": ("size", peaks + 0.1)},
        coords={"size": [8.0, 16.0]}, attrs={"control": "eta", "size": "L"})
    lengths = [8.0, 16.0]
    for rounding_width in (0.001, 0.3, 3.0):
        fits = _effective_fits(lengths, peaks, 0.68, half_width=0.1,
                               rounding_width=rounding_width)
        variables, entry = fits_against_peaks(fss, fits)
        assert entry["verdict"] == "disagree", rounding_width
        assert entry["z"] == pytest.approx([0.68 / np.sqrt(0.02)] * 2, rel=1e-9)
        assert entry["z"][0] == pytest.approx(4.8, abs=0.01)
        np.testing.assert_allclose(variables["effective_x_c"][1], peaks + 0.68)
    variables, entry = fits_against_peaks(fss, _effective_fits(lengths, peaks, 0.2, 0.1))
    assert entry["verdict"] == "agree" and entry["z"] == pytest.approx([0.2 / np.sqrt(0.02)] * 2)
    # one size beyond the limit is enough to disagree
    fits = _effective_fits(lengths, peaks, 0.2, 0.1).assign(
        eta_c=("N", peaks + np.array([0.2, 0.68])))
    assert fits_against_peaks(fss, fits)[1]["verdict"] == "disagree"
    # fits that are not one per size, or that were refused, are not compared
    for fits in (_effective_fits(lengths, peaks, 0.2, 0.1).drop_vars("L"),
                 _effective_fits(lengths, peaks, 0.2, 0.1).assign_attrs(refused="no transition")):
        variables, entry = fits_against_peaks(fss, fits)
        assert variables == {} and entry["verdict"] == "not compared"
    compared, document = with_fit_comparison(fss, {"verdict": "v"}, fits)
    assert document["effective_fits_against_peaks"]["verdict"] == "not compared"
    assert compared.attrs["fit_peak_verdict"] == "not compared"


def _labels(figure) -> list[str]:
    return [label for ax in figure.axes for label in ax.get_legend_handles_labels()[1]]


def test_figures_take_control_and_observable_from_the_declarations():
    import matplotlib

    matplotlib.use("Agg")
    from flocklab.figures import plotting

    rng = np.random.default_rng(14)
    summary = _fss_summary(rng, replicates=3)
    fss, document = finite_size_scaling(summary, "eta", "L", {"resamples": 20}, seed=1)
    # the control's symbol (Vicsek's eta) and the observable's (v_a) from the declarations
    figure = plotting.fss_curves_figure(summary, fss, "curves")
    assert [ax.get_xlabel() for ax in figure.axes] == [r"$\eta$"] * 3
    assert figure.axes[0].get_ylabel() == "$v_a$"
    assert any(r"\eta_c" in ax.get_title() for ax in figure.axes)
    figure = plotting.fss_scaling_figure(None, fss)
    assert r"\eta_c" in figure.axes[0].get_ylabel() and "v_a" in figure.axes[1].get_ylabel()
    (axis,) = plotting.collapse_figure(summary, fss).axes
    assert r"\eta_c" in axis.get_xlabel() and "v_a" in axis.get_ylabel()
    (axis,) = plotting.distribution_figure(None, fss).axes
    assert axis.get_xlabel() == "$v_a$"
    assert all(r"$\eta$ = " in label for label in axis.get_legend_handles_labels()[1])
    figure = plotting.fss_critical_figure(summary, fss)
    (axis,) = figure.axes
    assert axis.get_ylabel() == r"pseudo-critical $\eta$" and r"L^{-1/\nu}" in axis.get_xlabel()
    assert not any("effective" in label for label in _labels(figure))
    # with the study's single-size fits: their eta_c(L) beside the maxima
    fits = _effective_fits(FSS_SIZES, fss["peak_location"].values, gap=1.0)
    compared, with_fits = with_fit_comparison(fss, document, fits)
    assert with_fits["effective_fits_against_peaks"]["verdict"] == "disagree"
    assert "single-size effective fits" in _labels(plotting.fss_critical_figure(None, compared))
    # no text leaves the canvas or lies over another
    from flocklab.figures.layout import layout_problems

    for function in (plotting.fss_curves_figure, plotting.fss_scaling_figure,
                     plotting.fss_critical_figure, plotting.collapse_figure,
                     plotting.distribution_figure):
        assert layout_problems(function(summary, compared, "a title")) == [], function
    matplotlib.pyplot.close("all")
    # a refused analysis: each figure says why instead of drawing nothing
    refused = xr.Dataset(attrs={"refused": "needs at least two sizes", "control": "eta"})
    for function in (plotting.fss_curves_figure, plotting.fss_scaling_figure,
                     plotting.fss_critical_figure, plotting.collapse_figure,
                     plotting.distribution_figure):
        texts = " ".join(text.get_text() for ax in function(None, refused).axes
                         for text in ax.texts)
        assert "refused: needs at least two sizes" in " ".join(texts.split()), function
    # the single-size fits' log-log figure: control and observable of a foreign summary, the
    # effective exponent, and what limits each fit ("limits: ...") in its legend entry
    foreign, _ = _foreign_summary(rng)
    critical, _ = fit_critical_summary(foreign, "noise", {}, resamples=0,
                                       observable="polarisation", side="below",
                                       exponent="beta")
    foreign["replicate_polarisation"] = foreign["polarisation_mean"].mean("seed")
    foreign["replicate_polarisation_err"] = foreign["polarisation_mean"].std("seed")
    figure = plotting.critical_loglog_figure(foreign, critical)
    (axis,) = figure.axes
    assert "noise_c - noise" in axis.get_xlabel() and "polarisation" in axis.get_ylabel()
    (entry,) = [label for label in _labels(figure) if "[" in label]
    assert entry.startswith(r"$\beta_{\mathrm{eff}}$ = ")
    flagged = [tag for tag in crit.LIMITS if float(critical[f"limit_{tag}"])]
    assert ("; limits: " in entry) == bool(flagged)
    bounded = critical.assign(limit_bound=1.0, limit_refits=1.0)
    (entry,) = [label for label in _labels(plotting.critical_loglog_figure(foreign, bounded))
                if "[" in label]
    assert "at a bound" in entry and "failed refits" in entry and "quotable" not in entry
    matplotlib.pyplot.close("all")


# --------------------------------------------------------------------------- closed forms


def test_reduced_distance_is_measured_from_the_critical_value_relative_to_it():
    # s = (x_c - x) / x_c on the ordered-below side, (x - x_c) / x_c on the ordered-above
    # side; values chosen so that every s is exact in binary floating point.
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    np.testing.assert_array_equal(crit.reduced_distance(x, 4.0, "below"),
                                  [0.75, 0.5, 0.25, 0.0, -0.25, -0.5])
    np.testing.assert_array_equal(crit.reduced_distance(x, 4.0, "above"),
                                  [-0.75, -0.5, -0.25, 0.0, 0.25, 0.5])


@pytest.mark.parametrize("side", ["below", "above"])
def test_noise_free_power_law_is_fitted_exactly_amplitude_included(side):
    """P = A s^e sampled without noise: the weighted least-squares optimum is the truth, and
    the optimiser reaches it to ~1e-12 (measured); 1e-6 relative leaves a wide margin and
    still resolves a reduced distance off by 3 % (it rescales A by 1.03^e, 1 % here)."""
    if side == "below":
        x = np.linspace(1.0, 3.9, 30)
        truth = (3.0, 0.4, 0.9)
        v = np.where(x < 3.0, 0.9 * (np.abs(3.0 - x) / 3.0) ** 0.4, 0.02)
        fit = crit.fit_power_law(x, v, np.full(x.size, 0.01))
    else:
        x = np.linspace(0.2, 3.0, 29)
        truth = (0.8, 0.35, 0.9)
        v = np.where(x > 0.8, 0.9 * (np.abs(x - 0.8) / 0.8) ** 0.35, 0.1)
        fit = crit.fit_power_law(x, v, np.full(x.size, 0.005), side=side, reduced_max=2.0)
    assert (fit.critical, fit.exponent, fit.amplitude) == pytest.approx(truth, rel=1e-6)
    # and every point with reduced distance in (0.02, reduced_max] of the truth was used
    s = crit.reduced_distance(x, truth[0], side)
    np.testing.assert_array_equal(fit.used, (s > 0.02) & (s <= fit.reduced_max))


@pytest.mark.parametrize("side", ["below", "above"])
def test_the_window_is_half_open_in_reduced_distance(monkeypatch, side):
    """The window rule keeps the points with reduced_min < s <= reduced_max, s measured from
    the fitted x_c. The optimiser is replaced by one returning x_c = 4 exactly, so s is exact
    at the points placed on the window's ends (s = 0.125 and 0.5) and just inside and
    outside them (s = 0.15, 0.51)."""
    params = np.array([0.9, 4.0, 0.5])
    monkeypatch.setattr(crit, "_fit_window", lambda *_: (params, np.eye(3) * 1e-6))
    if side == "below":
        x = np.array([1.5, 1.96, 2.0, 2.5, 3.0, 3.4, 3.5, 3.75, 4.5, 5.0])
    else:
        x = np.array([3.0, 3.5, 4.25, 4.5, 4.6, 5.0, 5.5, 6.0, 6.04, 6.5])
    s = crit.reduced_distance(x, 4.0, side)
    v = np.where(s > 0, 0.9 * np.clip(s, 0, None) ** 0.5, 0.02)
    fit = crit.fit_power_law(x, v, np.full(x.size, 0.01), side, reduced_min=0.125,
                             reduced_max=0.5)
    assert fit.status == "converged" and fit.critical == 4.0
    expected = {"below": [2.0, 2.5, 3.0, 3.4], "above": [4.6, 5.0, 5.5, 6.0]}[side]
    np.testing.assert_array_equal(x[fit.used], expected)


def test_chi2_per_dof_is_the_weighted_residual_sum_over_points_minus_three():
    """Definition: chi2/dof = sum over the window of ((v - A s^e) / err)^2 / (n - 3), with the
    fit's own (A, x_c, e) and window."""
    rng = np.random.default_rng(21)
    sigma = 0.01 / np.sqrt(8)
    v = _truth(ETA) + sigma * rng.normal(size=ETA.size)
    err = np.full(ETA.size, sigma)
    fit = crit.fit_power_law(ETA, v, err)
    s = (fit.critical - ETA[fit.used]) / fit.critical
    residual = (v[fit.used] - fit.amplitude * s**fit.exponent) / err[fit.used]
    assert fit.chi2_per_dof == pytest.approx(np.sum(residual**2) / (fit.n_points - 3),
                                             rel=1e-9)


@pytest.mark.parametrize(("disordered", "errors", "transition"), [
    (0.45, 0.06, True),      # below half, drop 0.55 = 6.5 sigma
    (0.52, 0.01, False),     # above half the ordered value (however significant the drop)
    (0.48, 0.01, True),      # just below half
    (0.30, 0.7 / 3.5 / np.sqrt(2), True),   # drop 3.5 standard errors
    (0.30, 0.7 / 2.5 / np.sqrt(2), False),  # drop only 2.5 standard errors
])
def test_a_transition_needs_a_fall_below_half_by_three_standard_errors(disordered, errors,
                                                                       transition):
    """The documented test: the disordered end below half the ordered end, and the drop
    larger than 3 standard errors of the difference (sqrt(2) x the per-point error)."""
    x = np.arange(6.0)
    v = np.array([1.0, 0.95, 0.9, 0.8, 0.6, disordered])
    err = np.full(6, errors)
    if transition:
        crit._check_transition(x, v, err, "below")
        crit._check_transition(x, v[::-1], err, "above")
    else:
        for values, side in ((v, "below"), (v[::-1], "above")):
            with pytest.raises(CriticalFitError, match="no transition"):
                crit._check_transition(x, values, err, side)


def test_percentile_interval_is_the_central_68_percent():
    # on 0, 1, ..., 100 the q-th percentile is q (linear interpolation is exact)
    values = np.arange(101.0)
    assert resampling.percentile_interval(values) == pytest.approx((16.0, 84.0), abs=1e-9)
    assert resampling.percentile_interval(values, level=0.9) == pytest.approx((5.0, 95.0))
    # no resample succeeded: no interval
    assert np.isnan(resampling.percentile_interval(np.empty(0))).all()


def test_bootstrap_resamples_seeds_and_recomputes_the_standard_error():
    """Two seeds (a, b) per point: a resample is (a, a), (b, b) or a mixed pair, whose mean is
    (a + b)/2 and whose standard error sd(ddof=1)/sqrt(2) is |a - b|/2; identical draws keep
    the fallback error. One seed: the parametric bootstrap mean + N(0, err), whose spread is
    err (sample sd of R = 4000 draws: relative standard error 1/sqrt(2R) = 1.1 %, tolerance
    4.5 %)."""
    a, b = np.array([0.2, 0.5, 0.9]), np.array([0.4, 0.1, 0.9])
    fallback = np.array([0.01, 0.02, 0.03])
    rows = resampling.bootstrap(np.stack([a, b], axis=1), lambda mean, err: np.r_[mean, err],
                                fallback, 200, np.random.default_rng(5))
    mean, err = rows[:, :3], rows[:, 3:]
    mixed = np.isclose(mean, (a + b) / 2) & (a != b)
    assert mixed.any() and (~mixed & (a != b)).any()
    np.testing.assert_allclose(np.where(mixed, err, 0.0),
                               np.where(mixed, np.abs(a - b) / 2, 0.0), rtol=1e-12)
    np.testing.assert_array_equal(np.where(mixed, 0.0, err),
                                  np.where(mixed, 0.0, fallback))
    rows = resampling.bootstrap(a[:, None], lambda mean, err: mean, fallback, 4000,
                                np.random.default_rng(6))
    np.testing.assert_allclose(rows.std(axis=0, ddof=1), fallback, rtol=0.045)
    assert np.all(np.abs(rows.mean(axis=0) - a) < 4 * fallback / np.sqrt(4000))
    # a statistic that cannot be computed on a resample skips it; none computed: no rows

    def refuse(mean, err):
        raise CriticalFitError("no fit on this resample")

    assert resampling.bootstrap(a[:, None], refuse, fallback, 5,
                                np.random.default_rng(7)).shape == (0, 0)


def test_a_single_size_fit_is_effective_and_names_what_limits_it():
    limitations = crit.limitations
    narrow = {"eta_c": {"value": 3.8, "ci": [3.7, 3.9]}, "beta": {"value": 0.3,
                                                              "ci": [0.25, 0.35]}}
    agree = {"eta_c": {"z": 0.1, "agree": True}, "beta": {"z": 1.9, "agree": True}}
    clean = limitations(1.0, 10, narrow, agree)
    # nothing limits it, and still its numbers are effective values at its size
    assert clean == {"limits": [], "verdict": crit.EFFECTIVE}
    # chi2 of 10 dof: 23.2 is the 1 % quantile; 2.4 per dof (p = 0.0075) is rejected
    assert limitations(2.3, 10, narrow, agree)["limits"] == []
    misfit = limitations(2.4, 10, narrow, agree)
    assert misfit["limits"] == ["misfit"] and "chi2/dof = 2.40" in misfit["verdict"]
    assert misfit["verdict"].startswith(crit.EFFECTIVE + "; limits: the rounded law misfits")
    apart = {**agree, "beta": {"z": 10.9, "agree": False}}
    halves = limitations(1.0, 10, narrow, apart)
    assert halves["limits"] == ["halves"] and "beta (z = 10.9)" in halves["verdict"]
    assert limitations(1.0, 10, narrow, {"error": "4 points"})["limits"] == ["halves"]
    one_half = {name: {"z": None, "agree": None} for name in narrow}  # a half refused
    refused = limitations(1.0, 10, narrow, one_half)
    assert refused["limits"] == ["halves"] and "gives no eta_c, beta" in refused["verdict"]
    # a window with two ordered points beyond twice the rounding width: the exponent is the
    # rounding's
    rounded_only = limitations(1.0, 10, narrow, agree, beyond_rounding=2)
    assert rounded_only["limits"] == ["rounded"]
    assert "2 window point(s)" in rounded_only["verdict"]
    assert limitations(1.0, 10, narrow, agree, beyond_rounding=3)["limits"] == []
    wide = {**narrow, "beta": {"value": 0.14, "ci": [-0.29, 0.57]}}  # the L = 40 delta
    assert limitations(10.6, 14, wide, apart)["limits"] == ["misfit", "halves", "wide"]
    # a parameter at a bound of the fit: the bound, not a measurement
    bound = limitations(1.0, 10, narrow, agree, at_bounds=["exponent"])
    assert bound["limits"] == ["bound"] and "exponent ended at a bound" in bound["verdict"]
    # failed refits are named with their counts; zero counts are no limit
    refits = limitations(1.0, 10, narrow, agree, failed_refits={"jackknife": 2, "windows": 0})
    assert refits["limits"] == ["refits"] and refits["verdict"].endswith(
        "failed refits: 2 jackknife")
    assert limitations(1.0, 10, narrow, agree,
                       failed_refits={"jackknife": 0, "windows": 0})["limits"] == []
    everything = limitations(10.6, 14, wide, apart, beyond_rounding=0,
                             at_bounds=["exponent", "rounding_width"],
                             failed_refits={"jackknife": 1, "windows": 2})
    assert everything["limits"] == list(crit.LIMITS)
    assert "exponent, rounding_width ended at a bound" in everything["verdict"]
    assert "failed refits: 1 jackknife, 2 windows" in everything["verdict"]
    assert "quotable" not in everything["verdict"]


# The N = 1600, density-4 curve of the reduced paper study (8 seeds): its steepest descent
# (3.0-3.25) is noise, and a fit started there alone stays in a basin with chi2/dof 2.9.
PAPER_X = np.arange(2.5, 4.76, 0.25)
PAPER_V = np.array([0.608, 0.544, 0.5, 0.411, 0.337, 0.258, 0.182, 0.124, 0.07, 0.043])
PAPER_ERR = np.array([0.0196, 0.0217, 0.0121, 0.0153, 0.0073, 0.0162, 0.0059, 0.0055, 0.0031,
                      0.001])


def test_the_rounded_fit_starts_at_the_half_and_quarter_heights_too():
    from flocklab.analysis.rounded import _best_of_starts, _start, _starts, fit_rounded

    starts = [start[1] for start in _starts(PAPER_X, PAPER_V, "below")]
    # the half height (0.043 + 0.5 (0.608 - 0.043) = 0.3255) is crossed between 3.5 and 3.75
    assert starts[0] == 3.125 and starts[1] == pytest.approx(3.5 + 0.25 * 0.0115 / 0.079)
    fit = fit_rounded(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8)
    assert fit.chi2_per_dof < 0.7 and 3.8 < fit.critical < 4.2
    alone = _best_of_starts(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8, 8, "gaussian",
                            [_start(PAPER_X, PAPER_V, "below")])
    assert alone.chi2_per_dof > 2.0  # what the starts are for


def test_points_beyond_the_rounding_are_counted_on_the_ordered_side():
    from flocklab.analysis.critical import _beyond_rounding

    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    # below 4: s = 0.75, 0.5, 0.25, 0, -0.25; beyond 2 w = 0.2 are three, beyond 0.4 two
    assert _beyond_rounding(x, 4.0, 0.1, "below") == 3
    assert _beyond_rounding(x, 4.0, 0.2, "below") == 2
    # above 2: s = -0.5, 0, 0.5, 1, 1.5; beyond 2 w = 0.6 are two
    assert _beyond_rounding(x, 2.0, 0.3, "above") == 2


def test_a_refit_leaves_the_basin_of_a_wrong_optimum():
    """The jackknife and window refits start from every start of the data and from the full
    fit's optimum, the lowest chi2 winning: a refit that started at the full optimum alone
    would stay in its basin, however bad."""
    from flocklab.analysis.rounded import _best_of_starts, _start, fit_rounded, refit

    wrong = _best_of_starts(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8, 8, "gauss",
                            [_start(PAPER_X, PAPER_V, "below")])
    assert wrong.chi2_per_dof > 2.0
    # that wrong basin puts the exponent at its lower bound
    assert wrong.at_bounds == ["exponent"]
    assert wrong.exponent == pytest.approx(rounded.EXPONENT_BOUNDS[0], abs=0.003)
    stuck = fit_rounded(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8, start=wrong.params)
    assert stuck.chi2_per_dof > 2.0
    better = refit(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8, wrong)
    assert better.chi2_per_dof < 0.7 and 3.8 < better.critical < 4.2
    assert better.at_bounds == []
    # from the best optimum, the refit keeps it
    best = fit_rounded(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8)
    assert refit(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.8, best).chi2_per_dof \
        == pytest.approx(best.chi2_per_dof, rel=1e-6)
    # no start converges: the error, not a number
    with pytest.raises(RoundedFitError, match="points within reduced distance"):
        refit(PAPER_X, PAPER_V, PAPER_ERR, "below", 0.05, best)


def _coarse_curve(seed=0, replicates=4):
    """Nine points of a rounded transition at 3.0 (e = 0.4): with reduced_max 0.6 the fit has
    8 points and the narrowest window (0.6 / sqrt 2) fewer than MIN_POINTS = 7."""
    x = np.linspace(1.0, 4.5, 9)
    clean = rounded.rounded_power_law(x, 0.9, 3.0, 0.4, 0.03, 0.03)
    samples = clean[:, None] + 0.01 * np.random.default_rng(seed).normal(size=(9, replicates))
    return x, samples, np.full(samples.shape, 0.01)


def test_calibrated_fit_counts_the_refits_that_fail(monkeypatch):
    x, samples, sems = _coarse_curve()
    result = calibrated_fit(x, samples, sems, "below", 0.6)
    assert result["fit"].n_points == 8
    assert result["failed_refits"] == {"jackknife": 0, "windows": 1}
    # the interval's window part rests on the windows that could be fitted
    np.testing.assert_allclose(result["windows"][:, 0], [0.6, 0.6 * np.sqrt(2)])
    assert result["jackknife"].shape == (4, 2)
    # a jackknife refit that fails is counted, and the jackknife rests on the others
    calls = []
    real = rounded.refit

    def first_fails(*args, **kwargs):
        calls.append(args[4])
        if len(calls) == 1:
            raise RoundedFitError("refused for the test")
        return real(*args, **kwargs)

    monkeypatch.setattr(rounded, "refit", first_fails)
    result = calibrated_fit(x, samples, sems, "below", 0.6)
    assert calls[:4] == [0.6] * 4   # the four leave-one-out refits come first
    assert result["failed_refits"] == {"jackknife": 1, "windows": 1}
    assert result["jackknife"].shape == (3, 2)
    jack = result["jackknife"][:, 0]
    statistical = rounded.student_factor(4) * np.sqrt(2 / 3 * np.sum((jack - jack.mean())**2))
    assert result["critical"]["statistical"] == pytest.approx(statistical, rel=1e-12)


def _one_curve(x, samples, sems):
    """A foreign summary of one curve (control x, replicates on seed)."""
    return xr.Dataset({"p_mean": (("x", "seed"), samples), "p_sem": (("x", "seed"), sems)},
                      coords={"x": x, "seed": np.arange(samples.shape[1])})


def test_failed_refits_and_bounds_reach_the_record_and_the_netcdf_flags():
    ds, document = fit_critical_summary(_one_curve(*_coarse_curve()), "x", {},
                                        reduced_max=0.6, resamples=0, side="below",
                                        exponent="e")
    assert document["failed_refits"] == {"jackknife": 0, "windows": 1}
    assert "refits" in document["limits"] and "failed refits: 1 windows" in document["verdict"]
    assert float(ds["limit_refits"]) == 1.0 and float(ds["limit_bound"]) == 0.0
    # a true exponent of 4, beyond the bound 3: the record says the estimate is the bound
    x = np.linspace(0.5, 4.5, 33)
    steep = rounded.rounded_power_law(x, 0.9, 3.0, 4.0, 0.02, 0.02)[:, None] + 0.005 * \
        np.random.default_rng(1).normal(size=(x.size, 4))
    ds, document = fit_critical_summary(_one_curve(x, steep, np.full(steep.shape, 0.005)),
                                        "x", {}, resamples=0, side="below", exponent="e")
    assert document["e"]["value"] == pytest.approx(rounded.EXPONENT_BOUNDS[1], abs=3e-3)
    assert "exponent" in document["at_bounds"] and "bound" in document["limits"]
    assert float(ds["limit_bound"]) == 1.0


def test_an_estimate_at_a_bound_of_the_fit_is_listed():
    x = np.linspace(0.5, 4.5, 33)
    err = np.full(x.size, 0.005)
    # a true exponent of 4 lies beyond the upper bound 3: the fit ends there
    steep = rounded.fit_rounded(x, rounded.rounded_power_law(x, 0.9, 3.0, 4.0, 0.02, 0.02),
                                err, "below", 0.8)
    assert steep.exponent == pytest.approx(rounded.EXPONENT_BOUNDS[1], abs=1e-3)
    assert steep.at_bounds == ["exponent"]
    gentle = rounded.fit_rounded(x, rounded.rounded_power_law(x, 0.9, 3.0, 0.4, 0.02, 0.02),
                                 err, "below", 0.8)
    assert gentle.exponent == pytest.approx(0.4, abs=1e-3) and gentle.at_bounds == []

    # the rule: within 1e-3 of the bounds' range of either end, for e and for w
    def at(exponent, width):
        return rounded.RoundedFit("below", np.array([1.0, 3.0, exponent, width, 0.01]),
                                  np.ones(5, bool), 1.0, 0.8, 1).at_bounds

    low, high = rounded.EXPONENT_BOUNDS
    assert at(low, 0.1) == at(high, 0.1) == ["exponent"]
    assert at(high - 0.9e-3 * (high - low), 0.1) == ["exponent"]
    assert at(high - 1.1e-3 * (high - low), 0.1) == []
    assert at(0.4, rounded.WIDTH_BOUNDS[0]) == at(0.4, rounded.WIDTH_BOUNDS[1]) \
        == ["rounding_width"]
    assert at(high, rounded.WIDTH_BOUNDS[1]) == ["exponent", "rounding_width"]
