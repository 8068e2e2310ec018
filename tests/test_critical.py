"""Critical-point fits and finite-size scaling on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from flocklab import critical as crit
from flocklab.stages.critical import finite_size_scaling, fit_critical_summary

TRUE_CRITICAL, TRUE_BETA, AMPLITUDE, TAIL = 3.0, 0.45, 0.95, 0.04
ETA = np.round(np.arange(1.0, 4.01, 0.1), 10)


def _truth(eta):
    s = np.clip((TRUE_CRITICAL - eta) / TRUE_CRITICAL, 0, None)
    return np.maximum(AMPLITUDE * s**TRUE_BETA, TAIL)   # finite-size tail above eta_c


def _synthetic_seeds(rng, seeds=8, noise=0.01):
    return _truth(ETA)[:, None] + noise * rng.normal(size=(ETA.size, seeds))


def _summary(samples):
    """A summary.nc-like dataset from per-seed values, shape (n_sizes, n_eta, n_seeds)."""
    n_sizes, _, seeds = samples.shape
    mean = samples.mean(axis=-1)
    err = samples.std(axis=-1, ddof=1) / np.sqrt(seeds)
    return xr.Dataset(
        {"order_parameter_mean": (("N", "eta", "seed"), samples),
         "order_parameter_sem": (("N", "eta", "seed"), np.full(samples.shape, 0.01)),
         "replicate_order_parameter": (("N", "eta"), mean),
         "replicate_order_parameter_err": (("N", "eta"), err)},
        coords={"N": 400 * (np.arange(n_sizes) + 1), "eta": ETA, "seed": np.arange(seeds),
                "L": ("N", 10.0 * (np.arange(n_sizes) + 1))})


def test_fit_recovers_critical_point_and_exponent():
    rng = np.random.default_rng(1)
    samples = _synthetic_seeds(rng)
    fit = crit.fit_power_law(ETA, samples.mean(1), samples.std(1, ddof=1) / np.sqrt(8))
    # tolerance: 5 fit standard deviations (the noise is 1 % per seed)
    assert abs(fit.critical - TRUE_CRITICAL) < 5 * fit.critical_err + 1e-3
    assert abs(fit.exponent - TRUE_BETA) < 5 * fit.exponent_err
    assert fit.exponent == pytest.approx(TRUE_BETA, abs=0.05)
    assert fit.window[1] < fit.critical
    assert fit.n_points >= 4


def test_density_side_fit():
    rho = np.linspace(0.2, 3.0, 29)
    v = np.where(rho > 0.8, 0.9 * (np.abs(rho - 0.8) / 0.8) ** 0.35, 0.1)
    fit = crit.fit_power_law(rho, v, np.full(rho.size, 0.005), side="above", reduced_max=2.0)
    assert fit.critical == pytest.approx(0.8, abs=0.01)
    assert fit.exponent == pytest.approx(0.35, abs=0.02)


def test_fit_covariance_intervals_cover_the_truth_at_about_68_percent():
    rng = np.random.default_rng(2)
    hits_critical = hits_beta = 0
    trials = 150
    for _ in range(trials):
        samples = _synthetic_seeds(rng)
        fit = crit.fit_power_law(ETA, samples.mean(1), samples.std(1, ddof=1) / np.sqrt(8))
        hits_critical += abs(fit.critical - TRUE_CRITICAL) < fit.critical_err
        hits_beta += abs(fit.exponent - TRUE_BETA) < fit.exponent_err
    # nominal 0.68; binomial sd over 150 sets is 0.04, and errors estimated from 8 seeds
    # scatter, so accept 0.5-0.85
    assert 0.5 < hits_critical / trials < 0.85
    assert 0.5 < hits_beta / trials < 0.85


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_truth_at_about_68_percent():
    rng = np.random.default_rng(3)
    hits = 0
    trials = 60
    for _ in range(trials):
        _ds, document = fit_critical_summary(_summary(_synthetic_seeds(rng)[None]), "eta", {},
                                            resamples=100, seed=int(rng.integers(1 << 30)))
        low, high = document["beta"]["ci"]
        hits += low <= TRUE_BETA <= high
    assert 0.45 < hits / trials < 0.9


def test_stage_output_has_the_documented_fields():
    rng = np.random.default_rng(4)
    ds, document = fit_critical_summary(_summary(_synthetic_seeds(rng)[None]), "eta",
                                        {"N": 400}, resamples=40, seed=1)
    for key in ("eta_c", "beta"):
        entry = document[key]
        assert set(entry) >= {"value", "ci"}
        low, high = entry["ci"]
        assert low <= entry["value"] <= high or abs(entry["value"] - low) < 0.05
    assert document["n_points"] >= 4 and "window" in document
    assert document["bootstrap"]["successful"] > 30
    assert [row["reduced_max"] for row in document["window_scan"]] == [0.3, 0.4, 0.5, 0.6, 0.7]
    assert abs(document["eta_c"]["value"] - TRUE_CRITICAL) < 0.05
    assert "beta_scan" in ds and ds["used"].sum() == document["n_points"]


def test_too_few_points_or_no_transition_is_an_error_not_a_number():
    with pytest.raises(crit.CriticalFitError, match="no transition"):
        crit.fit_power_law(ETA, np.full(ETA.size, 0.9), np.full(ETA.size, 0.01))
    coarse = np.array([1.0, 2.8, 3.2, 3.6, 4.0])
    with pytest.raises(crit.CriticalFitError, match="points on the ordered side"):
        crit.fit_power_law(coarse, _truth(coarse), np.full(coarse.size, 0.01))
    ordered_only = ETA[ETA < 2.9]
    with pytest.raises(crit.CriticalFitError):
        crit.fit_power_law(ordered_only, _truth(ordered_only), np.full(ordered_only.size, 0.01))


def _scaling_data(rng, sizes, critical=2.5, inverse_nu=0.8, beta_over_nu=0.3, noise=0.005):
    x = np.round(np.arange(1.9, 3.11, 0.05), 10)
    scaled = (x[None, :] - critical) * sizes[:, None] ** inverse_nu

    def shape_function(z):
        return 1.0 / (1.0 + np.exp(z)) + 0.1

    clean = sizes[:, None] ** (-beta_over_nu) * shape_function(scaled)
    return x, clean + noise * clean * rng.normal(size=clean.shape), noise * clean


def test_data_collapse_recovers_known_exponents():
    rng = np.random.default_rng(5)
    sizes = np.array([8.0, 16.0, 32.0, 64.0])
    x, v, err = _scaling_data(rng, sizes)
    result = crit.collapse(x, v, err, sizes, guess=[2.4, 0.5, 1.0], window=0.2)
    assert result.critical == pytest.approx(2.5, abs=0.02)
    assert result.inverse_nu == pytest.approx(0.8, abs=0.08)
    assert result.beta_over_nu == pytest.approx(0.3, abs=0.03)
    assert result.quality < 5
    wrong = crit.collapse_quality([2.3, 0.3, 0.8], x, v, err, sizes, 0.2)
    assert wrong > 10 * result.quality


def test_extrapolation_recovers_infinite_size_critical_point():
    sizes = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    critical = 2.0 + 1.5 * sizes ** (-0.7)
    fit = crit.extrapolate(sizes, critical, np.full(5, 1e-4))
    assert fit.critical == pytest.approx(2.0, abs=1e-3)
    assert fit.inverse_nu == pytest.approx(0.7, abs=0.01)
    with pytest.raises(crit.CriticalFitError):
        crit.extrapolate(sizes[:3], critical[:3], np.full(3, 1e-4))
    rising = np.array([4.5, 4.1, 3.7, 3.3, 2.6])   # no approach to a limit: 1/nu runs away
    with pytest.raises(crit.CriticalFitError, match="ill-conditioned"):
        crit.extrapolate(np.array([3.1, 5.0, 10.0, 31.6, 50.0]), rising, np.full(5, 0.05))


def test_susceptibility_peak_and_binder_crossing():
    x = np.linspace(0, 4, 41)
    chi = 5 - (x - 2.33) ** 2
    assert crit.susceptibility_peak(x, chi)[0] == pytest.approx(2.33, abs=1e-9)
    assert crit.binder_crossings(x, 0.6 - 0.1 * x, 0.7 - 0.15 * x) == pytest.approx([2.0])


def test_discontinuity_flags():
    x = np.linspace(0, 4, 9)
    continuous = np.array([0.66, 0.66, 0.65, 0.6, 0.5, 0.4, 0.35, 0.34, 0.33])
    dip = continuous.copy()
    dip[5] = 0.1
    assert not crit.binder_minimum(x, continuous, np.full(9, 0.01))
    assert crit.binder_minimum(x, dip, np.full(9, 0.01))
    bins = np.linspace(0, 1, 50)
    one_peak = np.exp(-((bins - 0.5) / 0.1) ** 2)
    two_peaks = np.exp(-((bins - 0.2) / 0.05) ** 2) + 0.8 * np.exp(-((bins - 0.7) / 0.05) ** 2)
    assert not crit.is_bimodal(one_peak)
    assert crit.is_bimodal(two_peaks)


def test_finite_size_stage_on_synthetic_scaling_data():
    rng = np.random.default_rng(6)
    sizes = np.array([8.0, 16.0, 32.0, 64.0])
    x, v, _ = _scaling_data(rng, sizes, noise=0.0)
    seeds = 4
    samples = v[:, :, None] * (1 + 0.005 * rng.normal(size=(*v.shape, seeds)))
    ds = xr.Dataset(
        {"order_parameter_mean": (("N", "eta", "seed"), samples),
         "order_parameter_m2": (("N", "eta", "seed"), samples**2),
         "replicate_order_parameter": (("N", "eta"), samples.mean(-1)),
         "replicate_order_parameter_err": (("N", "eta"),
                                           samples.std(-1, ddof=1) / np.sqrt(seeds)),
         "replicate_susceptibility": (("N", "eta"), np.exp(-((x[None] - 2.5) ** 2))
                                      * sizes[:, None]),
         "replicate_binder_cumulant": (("N", "eta"), np.full(v.shape, 0.5)),
         "replicate_binder_cumulant_err": (("N", "eta"), np.full(v.shape, 0.01)),
         "order_parameter_histogram": (("N", "eta", "seed", "bin"),
                                       np.ones((*samples.shape, 50)))},
        coords={"N": (sizes**2).astype(int), "L": ("N", sizes), "eta": x,
                "seed": np.arange(seeds), "bin": np.arange(50)})
    fss, document = finite_size_scaling(ds, "eta", "L", collapse_window=0.2, resamples=4)
    assert document["collapse"]["eta_c"]["value"] == pytest.approx(2.5, abs=0.03)
    assert document["collapse"]["inverse_nu"]["value"] == pytest.approx(0.8, abs=0.1)
    assert fss["eta_c_chi"].values == pytest.approx(2.5, abs=0.03)
    assert document["discontinuity_suspected"] is False


def test_a_curve_that_cannot_be_fitted_is_reported_not_fatal_when_others_fit():
    rng = np.random.default_rng(7)
    good = _synthetic_seeds(rng)
    flat = 0.9 + 0.01 * rng.normal(size=good.shape)
    ds, document = fit_critical_summary(_summary(np.stack([good, flat])), "eta", {},
                                        resamples=10)
    assert len(document["fits"]) == 1 and len(document["failed"]) == 1
    assert "no transition" in document["failed"][0]["error"]
    assert np.isnan(ds["eta_c"].values[1]) and np.isfinite(ds["eta_c"].values[0])
    with pytest.raises(crit.CriticalFitError, match="no transition"):
        fit_critical_summary(_summary(np.stack([flat, flat])), "eta", {}, resamples=5)
