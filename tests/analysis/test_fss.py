"""Pieces of the finite-size scaling (flocklab.analysis.fss) against closed forms."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from flocklab.analysis import fss

X_PEAK = 2.33
X = np.linspace(0.0, 4.0, 41)


def _moments_with_parabolic_chi(n_particles: float, seeds: int, sizes: int = 2):
    """Per-run moments whose chi = N (<P^2> - <P>^2) is 5 - (x - X_PEAK)^2 in every run."""
    m1 = np.full((sizes, X.size, seeds), 0.5)
    m2 = (0.25 + (5.0 - (X - X_PEAK) ** 2) / n_particles)[None, :, None] + 0.0 * m1
    return m1, m2, np.full((sizes, X.size), n_particles)


def test_peak_bootstrap_of_identical_seeds_is_the_parabola_vertex():
    # Every resample of identical runs gives chi = 5 - (x - 2.33)^2, whose three-point
    # parabola is exact: the 68 % interval collapses onto the vertex x* = 2.33.
    m1, m2, n = _moments_with_parabolic_chi(400.0, seeds=3)
    intervals = fss.peak_bootstrap(X, m1, m2, n, 10, np.random.default_rng(0))
    assert intervals.shape == (2, 2)
    np.testing.assert_allclose(intervals, X_PEAK, atol=1e-9)
    # one seed: no bootstrap (N is then not needed)
    m1, m2, _ = _moments_with_parabolic_chi(400.0, seeds=1)
    assert np.isnan(fss.peak_bootstrap(X, m1, m2, None, 10, np.random.default_rng(0))).all()


def test_binder_crossings_of_straight_lines_and_the_ordered_plateau():
    # G1 - G2 = (0.6 - 0.1 x) - (0.7 - 0.15 x) = 0.05 x - 0.1: zero at x = 2 (between grid
    # points of a grid with step 0.3, so the linear interpolation is exact for lines).
    x = np.arange(0.1, 4.0, 0.3)
    assert fss.binder_crossings(x, 0.6 - 0.1 * x, 0.7 - 0.15 * x) == pytest.approx([2.0])
    # both within 0.02 of 2/3: touching on the ordered plateau is no crossing
    plateau = np.full(x.size, 2 / 3)
    assert fss.binder_crossings(x, plateau, plateau + 0.01 * np.sin(5 * x)) == []
    # a crossing exactly on a grid point is reported once, at that point
    grid = np.array([0.0, 1.0, 2.0, 3.0])
    assert fss.binder_crossings(grid, 0.5 - 0.125 * grid, 0.25 + 0.0 * grid) == [2.0]


def _linear_scaling(sizes, critical=2.5, beta_over_nu=0.3, inverse_nu=0.8):
    """P_L(x) = L^(-beta/nu) (0.5 - 0.1 (x - x_c) L^(1/nu)): a linear scaling function, so
    the collapse's linear interpolation between scaled points is exact."""
    x = np.round(np.arange(2.0, 3.01, 0.05), 10)
    scaled = (x[None, :] - critical) * sizes[:, None] ** inverse_nu
    return x, sizes[:, None] ** (-beta_over_nu) * (0.5 - 0.1 * scaled)


def test_collapse_quality_of_an_exact_linear_scaling_form_is_zero():
    sizes = np.array([8.0, 16.0, 32.0])
    x, v = _linear_scaling(sizes)
    err = np.full(v.shape, 0.01)
    # at the true exponents every scaled point lies on Y = 0.5 - 0.1 X: S = 0
    assert fss.collapse_quality([2.5, 0.3, 0.8], x, v, err, sizes, 0.2) == pytest.approx(
        0.0, abs=1e-20)
    assert fss.collapse_quality([2.5, 0.4, 0.8], x, v, err, sizes, 0.2) > 1.0
    # no scaled point covered by another size: undefined, inf
    assert fss.collapse_quality([2.5, 0.3, 0.8], x, v, err, sizes, 0.0) == np.inf


def test_collapse_bootstrap_of_identical_seeds_stays_at_the_optimum():
    sizes = np.array([8.0, 16.0, 32.0])
    x, v = _linear_scaling(sizes)
    err = np.full(v.shape, 0.01)
    best = fss.collapse(x, v, err, sizes, guess=[2.45, 0.35, 0.9], window=0.2)
    assert (best.critical, best.beta_over_nu, best.inverse_nu) == pytest.approx(
        (2.5, 0.3, 0.8), abs=2e-3)
    m1 = np.repeat(v[..., None], 3, axis=2)   # three identical seeds
    rows = fss.collapse_bootstrap(x, m1, sizes, best, 0.2, 4, np.random.default_rng(1), err)
    assert rows.shape == (4, 3)
    np.testing.assert_allclose(
        rows, np.tile([best.critical, best.beta_over_nu, best.inverse_nu], (4, 1)), atol=1e-3)
    assert fss.collapse_bootstrap(x, m1[..., :1], sizes, best, 0.2, 4,
                                  np.random.default_rng(1), err).shape == (0, 3)


def test_extrapolation_entry_and_the_collapse_start():
    # x_c(L) = 2 + 1.5 L^(-0.7) exactly
    lengths = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    peaks = np.column_stack([2.0 + 1.5 * lengths ** (-0.7), np.ones(5)])
    err = np.full(5, 1e-4)
    scalars, entry, guess = fss.extrapolation_entry(lengths, peaks, err, np.linspace(1, 3, 9))
    assert scalars == entry
    assert scalars["inf"] == pytest.approx(2.0, abs=1e-3)
    assert scalars["inverse_nu"] == pytest.approx(0.7, abs=0.01)
    assert scalars["extrapolation_amplitude"] == pytest.approx(1.5, rel=0.02)
    assert guess == [scalars["inf"], 0.5, scalars["inverse_nu"]]
    # x_c(inf) outside the control range: start at the largest size's peak
    _, _, guess = fss.extrapolation_entry(lengths, peaks, err, np.linspace(2.5, 3, 9))
    assert guess == [peaks[-1, 0], 0.5, 1.0]
    # three sizes: no extrapolation, the reason instead
    scalars, entry, guess = fss.extrapolation_entry(lengths[:3], peaks[:3], err[:3],
                                                    np.linspace(1, 3, 9))
    assert scalars == {} and ">= 4 sizes" in entry["error"]
    assert guess == [peaks[2, 0], 0.5, 1.0]


def test_collapse_quality_of_a_hand_computed_two_size_case():
    """Sizes L = 1, 2 with 1/nu = 1, beta/nu = 0, x_c = 10: X = (x - 10) L, Y = v.
    Size 1 at X = -1, 0, 1 with v = 0, 0, 0; size 2 at X = -2, 0, 2 with v = 0, 0, 2; unit
    errors. Size 1's points are all covered by size 2, whose interpolations there are 0
    (variance 1/2), 0 (variance 1) and 1 (variance 1/2); size 2 has one covered point
    (X = 0, interpolation 0). The only non-zero term is at X = 1: weighted mean
    (0 + 1/(1/2)) / (1 + 2) = 2/3, deviation (2/3)^2 / (1 + 1/3) = 1/3. S = (1/3) / 4."""
    x = np.array([9.0, 10.0, 11.0])
    v = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    quality = fss.collapse_quality([10.0, 0.0, 1.0], x, v, np.ones_like(v),
                                   np.array([1.0, 2.0]), 0.2)
    assert quality == pytest.approx(1 / 12, rel=1e-12)


@pytest.mark.parametrize(("depth", "flagged"), [(3.5, True), (2.5, False)])
def test_binder_minimum_needs_a_dip_of_three_standard_errors(depth, flagged):
    # G dips to min(1/3, G_last) - depth x its error at the minimum (documented: 3 sigma)
    x = np.linspace(0.0, 4.0, 9)
    err = np.full(9, 0.01)
    binder = np.array([0.66, 0.65, 0.6, 0.5, 0.4, 0.35, 0.34, 0.335, 0.34])
    binder[5] = 1 / 3 - depth * 0.01
    assert fss.binder_minimum(x, binder, err) is flagged


def test_binder_crossings_just_outside_the_plateau_margin_are_reported():
    # Both curves 0.025 +- 0.0015 below 2/3, crossing at x = 1.5: outside the default
    # plateau margin of 0.02, so a crossing; within 0.015 of 2/3 it is the plateau.
    x = np.array([0.0, 1.0, 2.0, 3.0])
    for offset, expected in ((0.025, [1.5]), (0.015, [])):
        first = 2 / 3 - offset + 0.001 * (x - 1.5)
        second = 2 / 3 - offset - 0.001 * (x - 1.5)
        assert fss.binder_crossings(x, first, second) == pytest.approx(expected)


def test_is_bimodal_needs_valleys_of_a_fifth_of_the_maximum():
    """Flat-topped peaks (height 1, five bins) around a flat valley (five bins), so that the
    3-bin moving average leaves peak and valley heights unchanged: the valley depth is
    1 - valley, bimodal when >= 0.2 (the default prominence)."""
    for valley, expected in ((0.78, True), (0.82, False)):
        histogram = np.array([0.0, *[1.0] * 5, *[valley] * 5, *[1.0] * 5, 0.0])
        assert fss.is_bimodal(histogram) is expected


def test_peak_estimates_use_half_the_bootstrap_interval_as_the_error():
    """Documented (PeakEstimates.err): half the 68 % interval, at least a tenth of the
    smallest grid step; half the mean grid step with one seed."""
    rng = np.random.default_rng(3)
    m1, m2, n = _moments_with_parabolic_chi(400.0, seeds=3)
    m2 = m2 * (1 + 0.02 * rng.normal(size=m2.shape))   # seeds disagree: a finite interval
    step = X[1] - X[0]
    chi = 400.0 * (m2.mean(axis=2) - m1.mean(axis=2) ** 2)

    def inputs(seeds):
        return fss.FssInputs(size_dim="N", data=None, lengths=np.array([10.0, 20.0]), x=X,
                             v=m1.mean(axis=2), err=np.full(chi.shape, 0.01), chi=chi,
                             binder=np.full(chi.shape, 0.5), binder_err=np.full(chi.shape, 0.01),
                             m1=m1[..., :seeds], m2=m2[..., :seeds],
                             n_particles=n if seeds > 1 else None, histogram=None)

    estimates = fss.peak_estimates(inputs(3), 40, np.random.default_rng(4))
    half = 0.5 * (estimates.interval[:, 1] - estimates.interval[:, 0])
    assert np.all(half > step / 10)
    np.testing.assert_allclose(estimates.err, half, rtol=1e-12)
    one = fss.peak_estimates(inputs(1), 40, np.random.default_rng(4))
    np.testing.assert_allclose(one.err, step / 2, rtol=1e-12)
    assert not estimates.at_edge.any()  # the maximum at 2.33 lies inside [0, 4]
    rising = inputs(3)
    rising.chi[1] = X.copy()  # the second size's chi grows to the end of the range
    edge = fss.peak_estimates(rising, 10, np.random.default_rng(4))
    assert edge.at_edge.tolist() == [False, True]
    assert np.isnan(edge.interior_locations()[1]) and edge.peaks[1, 0] == X[-1]


def test_fit_peak_z_counts_intervals_and_the_rounding_spread():
    from flocklab.analysis.fss import fit_peak_z

    # |3.0 - 3.5| over sqrt(0.1^2 + 0.2^2 + (0.1 * 3)^2) = 0.5 / sqrt(0.14)
    z = fit_peak_z(np.array([3.0, np.nan]), np.array([0.1, 0.1]), np.array([0.1, 0.1]),
                   np.array([3.5, 3.0]), np.array([0.2, 0.2]))
    assert z[0] == pytest.approx(0.5 / np.sqrt(0.14), rel=1e-12) and np.isnan(z[1])


def _fss_and_fits(fitted, peaks, width=0.02):
    sizes = np.array([10.0, 20.0, 40.0])
    fss = xr.Dataset({"rho_c_chi": ("L", np.asarray(peaks, float)),
                      "rho_c_chi_ci_low": ("L", np.asarray(peaks, float) - 0.05),
                      "rho_c_chi_ci_high": ("L", np.asarray(peaks, float) + 0.05)},
                     coords={"L": sizes}, attrs={"control": "rho", "size": "L"})
    fitted = np.asarray(fitted, float)
    critical = xr.Dataset({"rho_c": ("L", fitted), "rho_c_ci_low": ("L", fitted - 0.02),
                           "rho_c_ci_high": ("L", fitted + 0.02),
                           "rounding_width": ("L", np.full(3, width))},
                          coords={"L": sizes})
    return fss, critical


def test_fits_against_peaks_agree_disagree_and_skip_unfitted_sizes():
    from flocklab.analysis.fss import fits_against_peaks, with_fit_comparison

    fss, critical = _fss_and_fits([0.5, 0.52, np.nan], [0.55, 0.5, 0.9])
    variables, entry = fits_against_peaks(fss, critical)
    assert entry["verdict"] == "agree" and entry["z"][2] is None  # L = 40 not fitted
    assert "rho_c_fit" in variables and variables["fit_peak_z"][1][0] < 2
    # the density study's case: fits at 0.18-0.2, susceptibility maxima at 1.9-2.1
    fss, critical = _fss_and_fits([np.nan, 0.18, 0.198], [1.2, 2.1, 1.93])
    out, document = with_fit_comparison(fss, {"control": "rho"}, critical)
    verdict = document["fits_against_peaks"]
    assert verdict["verdict"] == "disagree" and out.attrs["fit_peak_verdict"] == "disagree"
    assert "not to be quoted" in verdict["text"] and "L = 20: fit 0.18" in verdict["text"]
    assert min(z for z in verdict["z"] if z is not None) > 10
    # 0.3 apart with half-widths 0.02 and 0.05 and a rounding spread of 0.02: z = 5.2
    fss, critical = _fss_and_fits([1.0, 1.0, 1.0], [1.0, 1.3, 1.0])
    assert fits_against_peaks(fss, critical)[1]["verdict"] == "disagree"


def test_fits_per_other_curves_are_not_compared():
    from flocklab.analysis.fss import fits_against_peaks

    fss, _ = _fss_and_fits([0.5] * 3, [0.5] * 3)
    rules = xr.Dataset({"rho_c": ("update", [0.5, 0.6])}, coords={"update": ["a", "b"]})
    variables, entry = fits_against_peaks(fss, rules)
    assert variables == {} and entry["verdict"] == "not compared"


def test_a_refused_fit_is_not_compared():
    from flocklab.analysis.fss import fits_against_peaks

    fss, critical = _fss_and_fits([0.5] * 3, [0.5] * 3)
    refused = critical[["rho_c"]] * np.nan
    refused.attrs["refused"] = "L = 20: 5 points in the window; need 7"
    variables, entry = fits_against_peaks(fss, refused)
    assert variables == {} and entry["verdict"] == "not compared"
    assert "5 points in the window" in entry["text"]


def test_a_susceptibility_largest_at_the_range_end_is_no_maximum():
    from flocklab.analysis.fss import fits_against_peaks

    fss, critical = _fss_and_fits([0.5, 0.5, 0.5], [0.5, 2.5, 0.5])
    fss["peak_at_edge"] = ("L", np.array([0, 1, 0], np.int8))  # L = 20 rises to the end
    _, entry = fits_against_peaks(fss, critical)
    assert entry["verdict"] == "agree" and entry["z"][1] is None and entry["peaks"][1] is None
