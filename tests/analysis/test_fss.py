"""Finite-size scaling (flocklab.analysis.fss) against closed forms and exact scaling forms.

The exactly solved lattice models (Ising, Potts) check the whole method with its intervals:
a small study here and in the pipeline lane, the coverage over 50 independent studies in the
slow lane (tests/analysis/test_fss_calibration.py).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr

from flocklab.analysis.fss import finite_size_scaling
from flocklab.analysis.fss.collapse import collapse_quality
from flocklab.analysis.fss.data import fss_data, jackknife_errors, pooled_curves, sample_curves
from flocklab.analysis.fss.estimate import Curves, Options, estimate
from flocklab.analysis.fss.flags import binder_dip, hysteresis_z, is_bimodal
from flocklab.analysis.fss.local import curve_peak, local_fit, significant_crossings
from flocklab.analysis.reading import CriticalFitError
from flocklab.analysis.resampling import bootstrap_interval, small_sample_factor

# An exact scaling form (no corrections): z = (x - X_C) L^A_EXP, P = L^-B g(z),
# var P = L^(C - 2) h(z), so chi = N var P = L^C h(z) with N = L^2, and
# sd / mean = L^((C - 2)/2 + B) sqrt(h)/g is scale-free when C = 2 - 2B (hyperscaling):
# the Binder cumulant of Gaussian records is then a function of z alone.
X_C, A_EXP, B_EXP = 2.5, 0.8, 0.125
C_EXP = 2.0 - 2.0 * B_EXP
SIZES = np.array([8.0, 16.0, 32.0, 64.0])
OFFSETS = np.linspace(-2.0, 3.0, 13)


def _g(z):
    return 0.25 / (1.0 + np.exp(z)) + 0.05


def _h(z):
    return 0.02 * np.exp(-0.5 * (z - 0.8) ** 2) + 0.002


def _exact_moments(sizes=SIZES, offsets=OFFSETS):
    """Gaussian moments <P>, <P^2>, <P^4> on each size's grid x = X_C + s L^-A_EXP."""
    x = X_C + offsets[None, :] * sizes[:, None] ** -A_EXP
    z = (x - X_C) * sizes[:, None] ** A_EXP
    mean = sizes[:, None] ** -B_EXP * _g(z)
    var = sizes[:, None] ** (C_EXP - 2.0) * _h(z)
    m2 = mean**2 + var
    m4 = mean**4 + 6 * mean**2 * var + 3 * var**2
    return x, mean, m2, m4


def _exact_curves(error=1e-6):
    x, m1, m2, m4 = _exact_moments()
    counts = np.broadcast_to(SIZES[:, None] ** 2, x.shape)
    order, chi, binder = pooled_curves(m1[..., None], m2[..., None], m4[..., None], counts)
    small = np.full(x.shape, error)
    return Curves(SIZES, x, order, chi, binder, small, small * chi, small)


def test_an_exact_scaling_form_gives_back_its_exponents():
    # Every size is sampled at the same scaled points, so each local fit errs by the same
    # amount in z at every size: the crossings, slopes and maxima scale exactly, and the
    # estimators recover x_c and the exponents to rounding (a wrong power of L, a slope
    # taken off x_c or a crossing of the wrong orientation would not).
    found = estimate(_exact_curves(), Options(side="below", dimension=2.0))
    assert float(found["x_c"]) == pytest.approx(X_C, abs=1e-9)
    assert float(found["inverse_nu"]) == pytest.approx(A_EXP, abs=1e-9)
    assert float(found["beta_over_nu"]) == pytest.approx(B_EXP, abs=1e-9)
    assert float(found["gamma_over_nu"]) == pytest.approx(C_EXP, abs=1e-9)
    assert float(found["hyperscaling"]) == pytest.approx(0.0, abs=1e-8)
    # the chi maxima move as x* = x_c + a L^(-1/nu); the peak-shift fit sees it
    assert float(found["peak_shift_x_c"]) == pytest.approx(X_C, abs=1e-6)
    assert float(found["peak_shift_inverse_nu"]) == pytest.approx(A_EXP, abs=1e-4)
    assert not np.isnan(found["crossing"]).any()
    # the collapse of the exact form is perfect at the true parameters and found there
    assert collapse_quality(_exact_curves(1e-3), np.array([X_C, B_EXP, A_EXP]), 1.0)[0] \
        < 1e-6
    assert float(found["collapse_x_c"]) == pytest.approx(X_C, abs=2e-3)
    assert float(found["collapse_inverse_nu"]) == pytest.approx(A_EXP, abs=2e-2)


def test_corrections_to_scaling_move_the_crossings_and_the_extrapolation_removes_them():
    # U_L(x) = f(z) + c L^-omega: crossings of (L_s, L_t) shift by -c h_st / f'(0) off x_c;
    # the fit x_cross = x_c + b h_st with the same omega takes them back to x_c.
    x = X_C + OFFSETS[None, :] * SIZES[:, None] ** -A_EXP
    z = (x - X_C) * SIZES[:, None] ** A_EXP
    binder = 0.6 - 0.1 * np.tanh(z) + 0.05 * SIZES[:, None] ** -1.0
    curves = _exact_curves()
    shifted = Curves(SIZES, x, curves.order, curves.chi, binder, curves.order_err,
                     curves.chi_err, np.full(x.shape, 1e-6))
    found = estimate(shifted, Options(correction_exponent=1.0))
    crossings = found["crossing"]
    assert np.all(np.abs(crossings - X_C) > 5e-4)         # all off x_c, the smallest
    assert np.abs(crossings - X_C).max() > 5e-3            # pair by 0.009
    assert float(found["x_c"]) == pytest.approx(X_C, abs=2e-4)
    assert float(found["inverse_nu"]) == pytest.approx(A_EXP, rel=0.02)


def test_local_quadratic_fits_and_maxima_of_closed_forms():
    x = np.linspace(0.0, 2.0, 21)
    fit = local_fit(x, 3.0 + 2.0 * (x - 1.3) - 0.5 * (x - 1.3) ** 2, 1.3)
    np.testing.assert_allclose(fit.coefficients, [3.0, 2.0, -0.5], atol=1e-12)
    peak = curve_peak(x, 7.0 * np.exp(-(x - 1.234) ** 2 / 0.18))
    assert peak.location == pytest.approx(1.234, abs=1e-12)  # ln of a Gaussian: exact
    assert peak.height == pytest.approx(7.0, rel=1e-12)
    edge = curve_peak(x, x + 1.0)
    assert edge.at_edge and np.isnan(edge.location)


def test_a_crossing_counts_only_where_the_curves_differ_significantly_on_both_sides():
    x = np.linspace(0.0, 1.0, 11)
    small = (x, 0.6 - 0.1 * x, np.full(11, 0.002))
    large = (x, 0.65 - 0.2 * x, np.full(11, 0.002))          # crosses at x = 0.5
    (found,) = significant_crossings(small, large, "below")
    assert found.location == pytest.approx(0.5, abs=1e-12) and found.oriented
    # the same curves with errors as large as their separation: nothing is resolved
    assert significant_crossings((*small[:2], np.full(11, 0.05)),
                                 (*large[:2], np.full(11, 0.05)), "below") == []
    # the larger size below on the ordered side: a crossing, but not a critical one
    (inverted,) = significant_crossings(large, small, "below")
    assert not inverted.oriented


def test_bootstrap_interval_widens_for_few_replicates():
    values = np.random.default_rng(1).normal(size=4000)
    low, high = bootstrap_interval(values, replicates=4)
    q16, q84 = np.percentile(values, [16, 84])
    assert (high - low) == pytest.approx((q84 - q16) * math.sqrt(4 / 3), rel=1e-9)
    assert small_sample_factor(1) == 1.0
    assert np.isnan(bootstrap_interval(np.full(5, np.nan), 4)).all()


def test_discontinuity_flags_on_closed_forms():
    x = np.linspace(0.0, 1.0, 21)
    err = np.full(21, 0.005)
    monotone = 0.6 - 0.3 * x
    dipped = monotone - 0.4 * np.exp(-((x - 0.6) / 0.08) ** 2)
    assert not binder_dip(monotone, err, "below")
    assert binder_dip(dipped, err, "below")
    assert not binder_dip(monotone[::-1], err, "above")       # ordered at large x
    assert binder_dip(dipped[::-1], err, "above")
    centres = np.linspace(0.01, 0.99, 50)
    two = np.exp(-((centres - 0.2) / 0.05) ** 2) + np.exp(-((centres - 0.8) / 0.05) ** 2)
    assert is_bimodal(two) and not is_bimodal(np.exp(-((centres - 0.5) / 0.1) ** 2))
    # a pile-up in the first bin (|m| of a scalar order parameter) is no second peak
    assert not is_bimodal(np.exp(-centres / 0.05) + np.exp(-((centres - 0.6) / 0.1) ** 2))
    apart = hysteresis_z(np.array([[0.9, 0.91, 0.89]]), np.array([[0.2, 0.21, 0.19]]))
    assert apart[0] > 50
    # two runs per start that agree by chance: their own standard errors keep z honest
    lucky = (np.array([[0.383, 0.3831]]), np.array([[0.375, 0.3751]]))
    assert hysteresis_z(*lucky)[0] > 50
    sem = np.full((1, 2), 0.005)
    assert hysteresis_z(*lucky, sem, sem)[0] == pytest.approx(0.008 / 0.005, rel=1e-2)


# --------------------------------------------------------------------------- from summaries


def _sampled_summary(rng, replicates=4, records=4000, nested=True, sizes=SIZES[:3]):
    """Per-run moments of Gaussian records from the exact scaling form, as a summary with
    each size on its own grid (nested) or on one common grid (rectangular)."""
    x, mean, m2, _ = _exact_moments(sizes)
    sd = np.sqrt(m2 - mean**2)
    runs = mean[..., None, None] + sd[..., None, None] * rng.normal(
        size=(*mean.shape, replicates, records))
    moments = {k: np.mean(runs**k, axis=-1) for k in (1, 2, 4)}
    attrs = {"model": "none", "primary_observable": "p", "size_parameter": "N"}
    if nested:
        dims = ("L_x", "replicate")
        data = {f"p_{name}": (dims, moments[k].reshape(-1, replicates))
                for k, name in ((1, "mean"), (2, "m2"), (4, "m4"))}
        coords = {"L": ("L_x", np.repeat(sizes, x.shape[1])), "x": ("L_x", x.ravel()),
                  "N": ("L_x", np.repeat(sizes**2, x.shape[1]))}
        return xr.Dataset(data, coords=coords, attrs=attrs)
    raise NotImplementedError


def test_a_sampled_scaling_form_is_recovered_within_its_intervals():
    summary = _sampled_summary(np.random.default_rng(7))
    _, document = finite_size_scaling(summary, "x", "L", {"side": "below", "resamples": 60,
                                                          "collapse": False}, seed=3)
    truth = {"x_c": X_C, "nu": 1 / A_EXP, "beta_over_nu": B_EXP, "gamma_over_nu": C_EXP}
    for name, value in truth.items():
        entry = document[name]
        low, high = entry["ci"]
        half = (high - low) / 2
        # within three half-widths, and the interval is informative (a tenth of the value)
        assert abs(entry["value"] - value) < 3 * half + 1e-12, (name, entry)
        assert half < 0.25 * abs(value), (name, entry)
        assert entry["failed_resamples"] == 0
    assert document["bootstrap"]["small_sample_factor"] == pytest.approx(math.sqrt(4 / 3))
    assert document["drift_without_smallest"]["sizes"] == [16.0, 32.0]
    json.dumps(document, allow_nan=False)                      # strict JSON


def test_grid_layout_does_not_change_the_analysis():
    # the same runs on a rectangular (L, x) grid give the numbers of the nested layout
    nested = _sampled_summary(np.random.default_rng(9), sizes=np.array([8.0, 16.0]))
    rows = nested.set_index(L_x=["L", "x"]).unstack("L_x")
    rows = rows.assign_coords(N=rows["L"] ** 2)
    settings = {"side": "below", "resamples": 30, "collapse": False}
    _, a = finite_size_scaling(nested, "x", "L", settings, seed=5)
    _, b = finite_size_scaling(rows, "x", "L", settings, seed=5)
    for name in ("x_c", "nu", "beta_over_nu", "gamma_over_nu"):
        assert a[name]["value"] == pytest.approx(b[name]["value"], rel=1e-12)
    # N as the size coordinate: L = N^(1/d)
    by_count = nested  # its size parameter N = L^2 is a coordinate
    _, c = finite_size_scaling(by_count, "x", "N", {**settings, "dimension": 2}, seed=5)
    assert c["lengths"] == pytest.approx([8.0, 16.0])
    assert c["x_c"]["value"] == pytest.approx(a["x_c"]["value"], rel=1e-12)


def test_what_the_analysis_refuses_and_why():
    summary = _sampled_summary(np.random.default_rng(2), replicates=2)
    settings = {"side": "below", "resamples": 20, "collapse": False}
    with pytest.raises(CriticalFitError, match="at least two replicates"):
        finite_size_scaling(summary.isel(replicate=[0]), "x", "L", settings)
    with pytest.raises(CriticalFitError, match="at least two sizes"):
        finite_size_scaling(summary.where(summary["L"] == 8.0, drop=True), "x", "L", settings)
    with pytest.raises(CriticalFitError, match="p_m4"):
        finite_size_scaling(summary.drop_vars("p_m4"), "x", "L", settings)
    with pytest.raises(CriticalFitError, match="element count N"):
        finite_size_scaling(summary.drop_vars("N").assign_attrs(size_parameter="none"),
                            "x", "L", settings)
    extra = xr.concat([summary, summary], dim="density").assign_coords(density=[1.0, 2.0])
    with pytest.raises(CriticalFitError, match=r"select one value of it .* density"):
        finite_size_scaling(extra, "x", "L", settings)
    finite_size_scaling(extra, "x", "L", {**settings, "select": {"density": 2.0}})
    from flocklab.core.parameters import ParameterError

    with pytest.raises(ParameterError, match="--side"):
        finite_size_scaling(summary, "x", "L", {"resamples": 20})


def test_curves_from_pooled_moments_and_their_jackknife_errors():
    # chi from pooled moments includes the run-to-run scatter of the means: two runs with
    # means 0.4 and 0.6 and no scatter inside give chi = N var = N 0.01
    m1 = np.array([[[0.4, 0.6]]])
    m2, m4 = m1**2, m1**4
    _, chi, binder = pooled_curves(m1, m2, m4, np.array([[100.0]]))
    assert float(chi[0, 0]) == pytest.approx(1.0)
    assert float(binder[0, 0]) == pytest.approx(1 - (0.4**4 + 0.6**4) / 2 / (3 * 0.26**2))
    summary = _sampled_summary(np.random.default_rng(4), replicates=5)
    data = fss_data(summary, "x", "L", side="below")
    order_err, _, _ = jackknife_errors(data)
    direct = np.nanstd(data.m1, axis=-1, ddof=1) / np.sqrt(5)   # jackknife of a mean
    np.testing.assert_allclose(order_err, direct, rtol=1e-10)
    assert sample_curves(data, jackknife_errors(data)).x.shape == data.x.shape
