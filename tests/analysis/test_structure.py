"""The spatial structure measures against brute force, closed forms and their statistics.

Tolerances are derived from the statistics of the case, and stated where they are used:

* a sample variance of K independent box counts with mean lambda (Poisson-like) has the
  relative standard error sqrt((2 + 1/lambda) / K);
* an ordered pair count with expectation mu is twice a Poisson count of mean mu/2, so
  its relative standard error is sqrt(2 / mu);
* S(k) of one wave vector of independent positions is exponential with mean 1 (standard
  deviation 1), so the mean of M of them has standard deviation 1/sqrt(M);
* the mean of n independent unit vectors e^{i phi_j} has |.|^2 of mean 1/n.

A check at "z sigma" uses z = 4 (two-sided false-alarm probability 6e-5 per check); all
draws are seeded, so a passing test passes every time and a failure means the code moved.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings

import numpy as np
import pytest
from scipy.stats import binom

import flocklab
from flocklab.analysis import structure as st

Z = 4.0


# --------------------------------------------------------------------------- helpers


def _frames(positions, box, velocities=None):
    return st.Frames(list(positions), None if velocities is None else list(velocities),
                     np.arange(len(positions), dtype=float), float(box))


def _uniform(n, frames, dim, box=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return _frames([rng.random((n, dim)) * box for _ in range(frames)], box)


def _clusters(n, size, frames, dim, seed=0):
    """n points as n/size whole clusters of ``size`` coincident points, the centres
    uniform in the unit periodic box."""
    rng = np.random.default_rng(seed)
    return _frames([np.repeat(rng.random((n // size, dim)), size, axis=0)
                    for _ in range(frames)], 1.0)


def _brute_box_counts(pos, origin, extent, m):
    """Counts in the m^d boxes by comparing every point with every box's bounds."""
    side = extent / m
    counts = []
    for cell in itertools.product(range(m), repeat=pos.shape[1]):
        low = origin + np.array(cell) * side
        counts.append(np.sum(np.all((pos >= low) & (pos < low + side), axis=1)))
    return np.array(counts)


def _percentile(values, q):
    """Linear-interpolation percentile of a 1-D sample, written out."""
    ordered = np.sort(values)
    position = q / 100.0 * (ordered.size - 1)
    low = math.floor(position)
    high = min(low + 1, ordered.size - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


def _separations(pos, box):
    """Separation vectors of all pairs i < j (minimum image in a periodic box)."""
    i, j = np.triu_indices(pos.shape[0], 1)
    diff = pos[i] - pos[j]
    if box > 0.0:
        diff -= box * np.round(diff / box)
    return i, j, diff


def _brute_pair_sums(pos, box, edges, weights=None):
    """Ordered-pair counts (or sums of w_i . w_j) per shell (lo, hi], by all pairs."""
    i, j, diff = _separations(pos, box)
    distance = np.sqrt((diff**2).sum(1))
    value = np.ones(i.size) if weights is None else (weights[i] * weights[j]).sum(1)
    shell = np.searchsorted(edges, distance, side="left") - 1  # (lo, hi]
    shell[distance == 0.0] = 0
    inside = (shell >= 0) & (shell < edges.size - 1)
    return 2.0 * np.bincount(shell[inside], weights=value[inside], minlength=edges.size - 1)


def _half_space_count(dim, n_max):
    """Wave vectors per shell floor(|n|) = s, 1 <= s <= n_max, one of each pair +-n."""
    grid = np.stack(np.meshgrid(*[np.arange(-n_max - 1, n_max + 2)] * dim, indexing="ij"),
                    -1).reshape(-1, dim)
    norm = np.sqrt((grid**2).sum(1))
    shell = np.floor(norm[(norm >= 1) & (norm < n_max + 1)]).astype(int)
    return np.bincount(shell)[1:] // 2


def _banded(n, frames, box, q, amplitude=0.5, axis=0, sign=1.0, seed=0):
    """Frames with density 1 + amplitude cos(2 pi q (s - s_f) / box) along ``axis`` (s_f
    uniform per frame: the band sits anywhere), uniform across it; headings sign * e_axis
    with random speeds."""
    rng = np.random.default_rng(seed)
    positions, velocities = [], []
    for _ in range(frames):
        shift = rng.random() * box
        s = np.empty(0)
        while s.size < n:  # rejection sampling of the modulated density
            trial = rng.random(2 * n) * box
            keep = rng.random(2 * n) * (1 + amplitude) < 1 + amplitude * np.cos(
                2 * math.pi * q * (trial - shift) / box)
            s = np.concatenate([s, trial[keep]])
        pos = rng.random((n, 2)) * box
        pos[:, axis] = s[:n]
        vel = np.zeros((n, 2))
        vel[:, axis] = sign * (0.5 + rng.random(n))
        positions.append(pos)
        velocities.append(vel)
    return _frames(positions, box, velocities)


# --------------------------------------------------------------------------- box counts


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("box", [1.0, 0.0])
def test_box_counts_and_moments_match_a_brute_force_count(dim, box):
    rng = np.random.default_rng(dim)
    positions = [rng.random((300, dim)) if box else rng.normal(size=(300, dim))
                 for _ in range(3)]
    frames = _frames(positions, box)
    divisions = [1, 2, 3, 5]
    result = st.number_fluctuations(frames, divisions)
    pooled = {m: [] for m in divisions}
    for f, pos in enumerate(positions):
        if box:
            origin, extent = np.zeros(dim), np.ones(dim)
        else:  # the 10-90 % percentile box of each coordinate
            origin = np.array([_percentile(pos[:, a], 10) for a in range(dim)])
            extent = np.array([_percentile(pos[:, a], 90) for a in range(dim)]) - origin
        for b, m in enumerate(divisions):
            counts = _brute_box_counts(pos, origin, extent, m)
            np.testing.assert_array_equal(st._box_counts(pos, origin, extent, m), counts)
            assert result["count_sum"].values[f, b] == counts.sum()
            assert result["count_square_sum"].values[f, b] == (counts**2).sum()
            assert result["boxes"].values[f, b] == m**dim
            pooled[m].append(counts)
        if box:
            assert result["count_sum"].values[f, 0] == 300
        else:  # about 0.8^d of the points fall inside the percentile box
            assert 0.8**dim * 300 * 0.85 < result["count_sum"].values[f, 0] < 300
    # moments over all frames reassembled from the per-frame sums
    for b, m in enumerate(divisions):
        counts = np.concatenate(pooled[m])
        assert result["mean_count"].values[b] == pytest.approx(counts.mean(), rel=1e-12)
        assert result["count_std"].values[b] == pytest.approx(counts.std(), rel=1e-9,
                                                              abs=1e-12)
    if box:
        np.testing.assert_allclose(result["box_side"].values, 1.0 / np.array(divisions))
    assert result.attrs["entities"] == 300 and result.attrs["periodic"] == int(bool(box))


def _assert_half(result, z=Z):
    """alpha = 1/2 within z bootstrap standard deviations (the 95 % half-width / 1.96),
    and an interval narrow enough that 0.5 * 1.05 would be caught."""
    sigma = (result["ci"][1] - result["ci"][0]) / (2 * 1.96)
    assert z * sigma < 0.1, result
    assert abs(result["value"] - 0.5) < z * sigma, result


@pytest.mark.parametrize(("dim", "box"), [(2, 1.0), (3, 1.0), (2, 7.5)])
def test_uniform_positions_give_one_half(dim, box):
    # 120 frames of 4000 points: bootstrap sigma 0.003-0.0055 (3-D: five box sizes in the
    # range), so that 4 sigma < 0.025 and an exponent 5 % off fails
    frames = _uniform(4000, 120, dim, box, seed=dim)
    result = st.fluctuation_exponent(st.number_fluctuations(frames), resamples=300)
    assert result["box_sizes"] >= 3 and result["frames"] == 120
    _assert_half(result)
    assert Z * (result["ci"][1] - result["ci"][0]) / (2 * 1.96) < 0.025, result


@pytest.mark.parametrize("box", [1.0, 0.0])
def test_uniform_frames_remove_giant_fluctuations(box):
    clustered = _clusters(4000, 20, 20, 2, seed=3)
    if not box:  # the same clusters in open space, stretched
        clustered = _frames([p * [3.0, 1.0] for p in clustered.positions], 0.0)
    control = st.uniform_frames(clustered, seed=1)
    assert control.velocities is None and control.box == clustered.box
    for before, after in zip(clustered.positions, control.positions, strict=True):
        assert after.shape == before.shape
        low, high = ((0.0, box) if box else (before.min(0), before.max(0)))
        assert np.all(after >= low) and np.all(after <= high)
        assert np.unique(after[:, 0]).size == after.shape[0]  # no coincident points left
    result = st.fluctuation_exponent(st.number_fluctuations(control), resamples=300)
    _assert_half(result)
    # the clustered frames themselves: amplitude sqrt(20) but still alpha = 1/2
    fluct = st.number_fluctuations(clustered)
    in_range = (fluct["mean_count"] > 10) & (fluct["mean_count"] < 200)
    assert np.all(fluct["count_std"][in_range] ** 2 / fluct["mean_count"][in_range] > 10)


def test_interval_covers_one_half_at_the_nominal_rate():
    # 40 independent datasets (1000 points, 40 frames). If the coverage were 0.95, at
    # least 34 of 40 cover with probability 1 - binom.cdf(33, 40, 0.95) = 0.9966.
    # (The percentile block bootstrap undercovers with few frames: about 0.85 at 8 frames,
    # 0.91 at 20, 0.94 at 40, measured over 200 datasets each.)
    covered, widths = 0, []
    for seed in range(40):
        frames = _uniform(1000, 40, 2, seed=1000 + seed)
        result = st.fluctuation_exponent(st.number_fluctuations(frames), resamples=200,
                                         seed=seed)
        covered += result["ci"][0] <= 0.5 <= result["ci"][1]
        widths.append(result["ci"][1] - result["ci"][0])
    assert binom.cdf(33, 40, 0.95) < 0.005
    assert covered >= 34, covered
    # not covering by being uselessly wide: the spread of alpha over datasets is
    # about 0.02 here, a 95 % interval about 4 times that
    assert np.median(widths) < 0.12


def _no_binomial_correction(monkeypatch):
    original = st._fit_moments
    monkeypatch.setattr(st, "_fit_moments", lambda s1, s2, boxes, entities, use:
                        original(s1, s2, boxes, math.inf, use))


def test_the_binomial_correction_is_needed_when_boxes_hold_much_of_the_total(monkeypatch):
    """Boxes of up to N/4: the uncorrected variance n (1 - n/N) bends the slope by the
    least-squares slope of log(1 - n/N)/2 against log n (-0.039 here), about 8 bootstrap
    sigmas with 300 frames; the corrected fit is 1/2."""
    n = 2000
    fluct = st.number_fluctuations(_uniform(n, 300, 2, seed=11), [2, 3, 4, 5, 6, 8, 10])
    correct = st.fluctuation_exponent(fluct, n_max=n / 2, resamples=300)
    assert correct["box_sizes"] == 7
    _assert_half(correct)
    mean = fluct["mean_count"].values
    bias = np.polyfit(np.log(mean), 0.5 * np.log(1 - mean / n), 1)[0]
    _no_binomial_correction(monkeypatch)
    wrong = st.fluctuation_exponent(fluct, n_max=n / 2, resamples=300)
    assert wrong["value"] - correct["value"] == pytest.approx(bias, rel=1e-9)
    assert bias < -0.035
    with pytest.raises(AssertionError):
        _assert_half(wrong)


def test_open_space_correction_uses_the_entities_in_the_tiled_region():
    """In open space the boxes tile the 10-90 % percentile box, which holds N_r ~ 0.64 N of
    the N entities (2-D); the counts share the total N_r, so Delta N^2 = n (1 - n/N_r) and
    the correction must divide by 1 - n/N_r. With N instead the slope is off by that of
    log((1 - n/N_r)/(1 - n/N))/2 against log n: -0.014 with boxes up to N_r/4 (over 60
    datasets of 40 frames: 0.486 +- 0.002 with N, 0.501 +- 0.002 with N_r)."""
    n = 2000
    rng = np.random.default_rng(13)
    frames = _frames([rng.random((n, 2)) for _ in range(300)], 0.0)
    fluct = st.number_fluctuations(frames, [2, 3, 4, 5, 6, 8, 10])
    region = fluct["count_sum"].values.mean()
    assert 0.6 * n < region < 0.68 * n
    mean, var = fluct["mean_count"].values, fluct["count_std"].values ** 2
    expected = np.polyfit(np.log(mean), 0.5 * np.log(var / (1 - mean / region)), 1)[0]
    result = st.fluctuation_exponent(fluct, n_max=n / 2, resamples=300)
    assert result["value"] == pytest.approx(expected, rel=1e-9)
    _assert_half(result)


@pytest.mark.parametrize(("dim", "size"), [(2, 1), (2, 4), (3, 5)])
def test_whole_clusters_give_one_half_with_amplitude_root_c(dim, size):
    """Clusters of c coincident points at M = N/c uniform centres: a box count is c times
    a binomial, so Delta N^2 = c^2 M p (1 - p) = c <n> (1 - <n>/N) exactly, and the
    corrected Delta N_c = sqrt(c) <n>^(1/2)."""
    n, frames = 4000, 100
    divisions = [4, 6, 9, 14, 20] if dim == 2 else [3, 4, 5, 6, 7]
    fluct = st.number_fluctuations(_clusters(n, size, frames, dim, seed=size), divisions)
    mean, var = fluct["mean_count"].values, fluct["count_std"].values ** 2
    amplitude = np.sqrt(var / (mean * (1 - mean / n)))
    # relative error of a variance of K counts of lambda = <n>/c clusters:
    # sqrt((2 + 1/lambda) / K); half of it for the amplitude
    boxes = np.asarray(divisions) ** dim * frames
    sigma = 0.5 * np.sqrt((2 + size / mean) / boxes)
    np.testing.assert_array_less(np.abs(amplitude / math.sqrt(size) - 1), Z * sigma)
    assert Z * sigma.min() < 0.02  # the finest boxes catch a 2 % error
    result = st.fluctuation_exponent(fluct, n_max=n / 10, resamples=300)
    _assert_half(result)


def test_fewer_than_three_box_sizes_give_nan_and_a_reason():
    # <n> = 500, 125, 56, 31, 20: one inside the default range (10, N/20 = 25)
    fluct = st.number_fluctuations(_uniform(500, 4, 2, seed=2), [1, 2, 3, 4, 5])
    result = st.fluctuation_exponent(fluct)
    assert math.isnan(result["value"]) and all(math.isnan(c) for c in result["ci"])
    assert result["box_sizes"] < 3 and "3 needed" in result["reason"]
    # with the range opened up the same moments give a value
    assert math.isfinite(st.fluctuation_exponent(fluct, n_max=400.0)["value"])


def test_block_length_follows_repeated_frames():
    """Each distinct frame repeated k times: the per-frame variance is piecewise constant,
    rho(t) = 1 - t/k, so tau = 1 + 2 sum_{t<k} (1 - t/k) = k."""
    distinct = _uniform(800, 150, 2, seed=5).positions
    taus = {}
    for k in (1, 3, 6):
        frames = _frames([p for p in distinct for _ in range(k)], 1.0)
        result = st.fluctuation_exponent(st.number_fluctuations(frames), resamples=50)
        taus[k] = result["tau_frames"]
        assert result["block_frames"] == max(1, math.ceil(2 * taus[k]))
        # the estimate of tau from 150 independent blocks: relative error about
        # sqrt(2 (2W + 1) / 150) ~ 0.3 at a window W ~ 5 tau; the ranges are +-50 %
        assert 0.5 * k < taus[k] < 1.5 * k, taus
    assert taus[1] < taus[3] < taus[6]


# --------------------------------------------------------------------------- pairs


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("box", [2.0, 0.0])
def test_pair_counts_match_all_pairs(dim, box):
    rng = np.random.default_rng(dim)
    pos = rng.random((250, dim)) * (box or 3.0)
    weights = rng.normal(size=(250, dim))
    edges = np.linspace(0.0, 0.9 if box else 4.0, 19)
    np.testing.assert_array_equal(st._pair_counts(pos, box, edges),
                                  _brute_pair_sums(pos, box, edges))
    np.testing.assert_allclose(st._pair_counts(pos, box, edges, weights),
                               _brute_pair_sums(pos, box, edges, weights), atol=1e-9)
    # coincident points count in the first shell
    doubled = np.concatenate([pos, pos[:3]])
    extra = st._pair_counts(doubled, box, edges) - st._pair_counts(pos, box, edges)
    assert extra[0] >= 6


@pytest.mark.parametrize("dim", [2, 3])
def test_uniform_pair_correlation_is_one_within_poisson_error(dim):
    n, frames, box = 600, 10, 1.0
    data = _uniform(n, frames, dim, box, seed=7)
    g = st.pair_correlation(data, r_max=0.5, bins=20)["pair_correlation"].values
    edges = np.linspace(0.0, 0.5, 21)
    expected = frames * n * (n - 1) * st._shell_volumes(edges, dim) / box**dim
    # ordered pair count: relative error sqrt(2 / mu) per shell, sqrt(2 / sum mu) overall
    np.testing.assert_array_less(np.abs(g - 1), Z * np.sqrt(2 / expected))
    overall = np.sum(g * expected) / expected.sum()
    assert abs(overall - 1) < Z * math.sqrt(2 / expected.sum()) < 0.01


def test_square_lattice_peaks_at_its_spacing():
    side, spacing = 12, 0.5
    grid = (np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)
            + 0.5) * spacing
    frames = _frames([grid], side * spacing)
    data = st.pair_correlation(frames, r_max=2.5 * spacing, bins=21)
    g, r = data["pair_correlation"].values, data["r"].values
    width = 2.5 * spacing / 21
    peak = int(np.argmax(g))
    assert abs(r[peak] - spacing) < width / 2
    # exactly 4 neighbours at the spacing: g = L^2 / (N (N-1)) * 4 N / V_shell
    n = side**2
    shell = math.pi * ((peak + 1) ** 2 - peak**2) * width**2
    assert g[peak] == pytest.approx((side * spacing) ** 2 * 4 / ((n - 1) * shell), rel=1e-12)
    assert np.all(g[r < spacing - width] == 0)  # nothing closer than the spacing


def test_open_space_pair_correlation_of_uniform_points_is_one():
    rng = np.random.default_rng(8)
    frames = _frames([rng.random((800, 2)) * [2.0, 1.0] for _ in range(10)], 0.0)
    g = st.pair_correlation(frames, r_max=0.4, bins=8)["pair_correlation"].values
    # data and reference are both ordered Poisson-like counts: relative error
    # sqrt(2/mu + 2/mu); mu estimated by the uniform density in the 2 x 1 rectangle,
    # with the edge loss sum_i (area within r of the rectangle's boundary) neglected
    # (it lowers mu by < 40 % at r = 0.4, which makes the bound conservative there)
    edges = np.linspace(0.0, 0.4, 9)
    mu = 10 * 800 * 799 / 2.0 * st._shell_volumes(edges, 2) * 0.6
    np.testing.assert_array_less(np.abs(g - 1), Z * np.sqrt(4 / mu))
    assert abs(np.mean(g) - 1) < 0.02


# --------------------------------------------------------------------------- S(k)


@pytest.mark.parametrize(("dim", "n_max"), [(2, 10), (3, 4)])
def test_uniform_structure_factor_is_one(dim, n_max):
    frames = 30
    data = st.structure_factor(_uniform(500, frames, dim, seed=dim), n_max=n_max)
    s = data["structure_factor"].values
    vectors = _half_space_count(dim, n_max) * frames
    assert s.size == n_max and vectors.size == n_max
    # each |rho_k|^2 / N is exponential with mean 1 and standard deviation 1
    np.testing.assert_array_less(np.abs(s - 1), Z / np.sqrt(vectors))
    overall = np.sum(s * vectors) / vectors.sum()
    assert abs(overall - 1) < Z / math.sqrt(vectors.sum()) < 0.06
    # k of a shell: 2 pi / L times its mean |n|, inside [s, s + 1)
    assert np.all((data["k"].values >= 2 * math.pi * np.arange(1, n_max + 1))
                  & (data["k"].values < 2 * math.pi * np.arange(2, n_max + 2)))


@pytest.mark.parametrize("dim", [2, 3])
def test_structure_factor_matches_the_direct_sum(dim):
    rng = np.random.default_rng(dim)
    box, n_max = 3.0, 4
    positions = [rng.random((40, dim)) * box for _ in range(2)]
    data = st.structure_factor(_frames(positions, box), n_max=n_max)
    grid = np.stack(np.meshgrid(*[np.arange(-n_max - 1, n_max + 2)] * dim, indexing="ij"),
                    -1).reshape(-1, dim)
    norm = np.sqrt((grid**2).sum(1))
    for s in range(1, n_max + 1):
        vectors = grid[(norm >= s) & (norm < s + 1)]  # both of each +-n: same |rho|^2
        power = [np.abs(np.exp(-2j * math.pi / box * pos @ vectors.T).sum(0)) ** 2
                 / pos.shape[0] for pos in positions]
        assert data["structure_factor"].values[s - 1] == pytest.approx(np.mean(power),
                                                                       rel=1e-10)
        mean_norm = np.sqrt((vectors**2).sum(1)).mean()
        assert data["k"].values[s - 1] == pytest.approx(2 * math.pi / box * mean_norm)


def test_a_perfect_lattice_scatters_only_at_its_bragg_peaks():
    side = 6  # 6 x 6 sites in a box of side 6: reciprocal lattice at |n| = 6
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2) + 0.3
    n = side**2
    s = st.structure_factor(_frames([grid.astype(float)], float(side)), n_max=side)
    values = s["structure_factor"].values
    np.testing.assert_allclose(values[:side - 1], 0.0, atol=1e-20 * n + 1e-12)
    # shell 6 holds (6, 0) and (0, 6) with S = N, the rest with S = 0
    in_shell = _half_space_count(2, side)[side - 1]
    assert values[side - 1] == pytest.approx(2 * n / in_shell, rel=1e-12)
    power = st._lattice_power(grid.astype(float), float(side), side)
    assert power.max() == pytest.approx(n**2, rel=1e-12)


# --------------------------------------------------------------------------- C(r)


def test_fft_shell_sums_are_exact_for_points_on_the_grid():
    """Points on the grid's cells (each 0.3 cell from a corner): grid distances are the
    true ones, so the FFT sums equal the all-pairs sums. The shell width is not a whole
    number of cells, so no distance falls on an edge."""
    rng = np.random.default_rng(1)
    box, edges = 10.0, np.linspace(0.0, 5.2, 41)
    cells = math.ceil(2 * box / (edges[1] - edges[0]))
    pos = (rng.integers(0, cells, size=(300, 2)) + 0.3) * (box / cells)
    dv = rng.normal(size=(300, 2))
    dv -= dv.mean(0)
    products, counts = st._grid_correlation(pos, dv, box, edges)
    np.testing.assert_allclose(counts, _brute_pair_sums(pos, box, edges), atol=1e-6)
    np.testing.assert_allclose(products, _brute_pair_sums(pos, box, edges, dv), atol=1e-6)


@pytest.mark.parametrize("dim", [2, 3])
def test_fft_correlation_is_the_pair_sum_within_the_grid_distance_error(dim):
    """Off the grid, a pair's grid distance is within delta = h sqrt(d) (h the cell) of the
    true one. Cumulated to an edge R, FFT and exact sums may differ only by pairs within
    delta of R: |F(R) - E(R)| <= sum of |dv_i . dv_j| over those."""
    rng = np.random.default_rng(dim)
    box, edges = 6.0, np.linspace(0.0, 3.0, 31)
    pos = rng.random((400, dim)) * box
    dv = rng.normal(size=(400, dim))
    dv -= dv.mean(0)
    products, counts = st._grid_correlation(pos, dv, box, edges)
    exact = st._pair_counts(pos, box, edges, dv)
    exact_counts = st._pair_counts(pos, box, edges)
    cells = min(max(8, math.ceil(2 * box / (edges[1] - edges[0]))), 512 if dim == 2 else 128)
    delta = box / cells * math.sqrt(dim)
    i, j, diff = _separations(pos, box)
    distance = np.sqrt((diff**2).sum(1))
    product = np.abs((dv[i] * dv[j]).sum(1))
    # the grid distance error: below delta, and not within delta / 2 (cells are whole)
    h = box / cells
    cell_diff = np.floor(pos[i] / h) - np.floor(pos[j] / h)
    cell_diff -= cells * np.round(cell_diff / cells)
    error = np.abs(h * np.sqrt((cell_diff**2).sum(1)) - distance)
    assert 0.5 * delta < error.max() < delta
    for b, radius in enumerate(edges[1:]):
        near = np.abs(distance - radius) <= delta
        assert abs(products[:b + 1].sum() - exact[:b + 1].sum()) <= 2 * product[near].sum()
        assert abs(counts[:b + 1].sum() - exact_counts[:b + 1].sum()) <= 2 * near.sum() + 1e-6


def test_fft_and_exact_correlation_of_a_smooth_field_agree():
    """dv = (cos 2 pi y/L, sin 2 pi x/L): C(r) smooth, so moving a pair by at most
    delta = h sqrt(2) changes a shell's mean by at most delta max|C'|; the zeros agree
    to within delta."""
    rng = np.random.default_rng(2)
    box, bins = 6.0, 30
    pos = rng.random((2000, 2)) * box
    vel = np.stack([np.cos(2 * math.pi * pos[:, 1] / box),
                    np.sin(2 * math.pi * pos[:, 0] / box)], -1)
    data = st.velocity_correlation(_frames([pos], box, [vel]), bins=bins)
    edges = np.linspace(0.0, box / 2, bins + 1)
    dv = vel - vel.mean(0)
    pairs = st._pair_counts(pos, box, edges)
    exact = st._pair_counts(pos, box, edges, dv) / pairs / np.mean((dv**2).sum(1))
    delta = box / math.ceil(2 * box / (edges[1] - edges[0])) * math.sqrt(2)
    slope = np.abs(np.diff(exact)).max() / (edges[1] - edges[0])
    np.testing.assert_allclose(data["velocity_correlation"].values, exact, rtol=0,
                               atol=delta * slope)
    assert delta * slope < 0.05
    r_exact = st.first_zero(data["r"].values, exact)
    assert 2.0 < r_exact < 2.6  # cos(2 pi r / L)-like field: a zero near L/2.6
    assert abs(data.attrs["correlation_length"] - r_exact) < delta


def test_identical_velocities_give_nan_without_warnings():
    """All velocities equal: dv = v - V is rounding noise (about 1e-17 here), C(0) = 0 in
    exact arithmetic, so C(r) and r_0 are undefined: NaN, not the noise's correlation.
    A small but real fluctuation (1e-9 of the speed) is still measured."""
    rng = np.random.default_rng(2)
    for box in (4.0, 0.0):
        pos = rng.random((50, 2)) * 4.0
        equal = np.tile([0.3, -0.1], (50, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            data = st.velocity_correlation(_frames([pos], box, [equal]), bins=10)
        assert np.all(np.isnan(data["velocity_correlation"].values))
        assert math.isnan(data.attrs["correlation_length"])
        assert data["pair_count"].values.sum() > 0  # the pairs are there all the same
        nudged = equal + 1e-9 * rng.normal(size=equal.shape)
        data = st.velocity_correlation(_frames([pos], box, [nudged]), bins=10)
        assert np.all(np.isfinite(data["velocity_correlation"].values))


def test_velocity_correlation_needs_velocities():
    with pytest.raises(ValueError, match="velocities"):
        st.velocity_correlation(_uniform(10, 1, 2, seed=0))


def test_two_domains_moving_apart_match_the_exact_pair_sum():
    """Left half (x < 1) at +u, right half at -u, in open space: V = 0, dv_i . dv_j = +u^2
    on the same side and -u^2 across, so C = (P_same - P_across) / P; beyond sqrt(2)
    (more than the unit square's diagonal) every pair is across: C = -1."""
    rng = np.random.default_rng(4)
    half = 200
    pos = rng.random((2 * half, 2))
    pos[half:, 0] += 1.0  # the first half at x < 1, the second at x > 1
    u = np.array([0.6, 0.8])
    vel = np.concatenate([np.tile(u, (half, 1)), np.tile(-u, (half, 1))])
    data = st.velocity_correlation(_frames([pos], 0.0, [vel]), bins=30, r_max=2.1)
    edges = np.linspace(0.0, 2.1, 31)
    i, j, diff = _separations(pos, 0.0)
    distance = np.sqrt((diff**2).sum(1))
    same = np.where((i < half) == (j < half), 1.0, -1.0)
    shell = np.searchsorted(edges, distance, side="left") - 1
    signed = np.bincount(shell, weights=same, minlength=30)[:30]
    pairs = np.bincount(shell, minlength=30)[:30].astype(float)
    expected = np.divide(signed, pairs, out=np.full(30, np.nan), where=pairs > 0)
    np.testing.assert_allclose(data["velocity_correlation"].values, expected, atol=1e-12)
    np.testing.assert_array_equal(data["pair_count"].values, 2 * pairs)
    beyond = (data["r"].values - 0.035 > math.sqrt(2)) & (pairs > 0)
    assert beyond.any() and np.all(expected[beyond] == -1.0)
    assert data.attrs["correlation_length"] == pytest.approx(
        st.first_zero(data["r"].values, expected), rel=1e-12)
    # the zero lies between the near (same-side) and the far (across) pairs
    assert 0.3 < data.attrs["correlation_length"] < 1.0
    assert data.attrs["flock_size"] == pytest.approx(distance.max())


def test_first_zero_interpolates_a_line_exactly():
    r = np.linspace(0.0, 5.0, 11)
    assert st.first_zero(r, 1.3 - 0.6 * r) == pytest.approx(1.3 / 0.6, rel=1e-14)
    values = 1.3 - 0.6 * r
    values[3] = np.nan  # NaN shells (no pairs) are skipped
    assert st.first_zero(r, values) == pytest.approx(1.3 / 0.6, rel=1e-14)
    assert math.isnan(st.first_zero(r, 1.0 + r))  # never crosses
    assert math.isnan(st.first_zero(r, -1.0 - r))  # negative from the start
    assert st.first_zero(r, np.cos(r)) < st.first_zero(r, np.cos(r / 2))


@pytest.mark.parametrize(("dim", "box"), [(2, 0.0), (3, 0.0), (2, 5.0), (3, 5.0)])
def test_pair_products_of_fluctuations_sum_to_minus_their_squares(dim, box):
    """sum_{i != j} dv_i . dv_j = |sum_i dv_i|^2 - sum_i |dv_i|^2 = -sum_i |dv_i|^2: the shell
    sums over all distances add up to it, so C must change sign."""
    rng = np.random.default_rng(dim)
    pos = rng.random((300, dim)) * (box or 5.0)
    vel = rng.normal(size=(300, dim)) + 2.0
    dv = vel - vel.mean(0)
    reach = 5.0 * math.sqrt(dim) * 1.01  # beyond every (minimum-image) distance
    edges = np.linspace(0.0, reach, 40)
    target = -np.sum(dv**2)
    assert st._pair_counts(pos, box, edges, dv).sum() == pytest.approx(target, rel=1e-9)
    if box:
        products, counts = st._grid_correlation(pos, dv, box, edges)
        assert products.sum() == pytest.approx(target, rel=1e-9)
        assert counts.sum() == pytest.approx(300 * 299, rel=1e-12)
    else:  # through velocity_correlation: sum_r C(r) P(r) = -N (its default r_max)
        data = st.velocity_correlation(_frames([pos], 0.0, [vel]), bins=40)
        total = np.nansum(data["velocity_correlation"].values * data["pair_count"].values)
        assert total == pytest.approx(-300, rel=1e-9)
        assert math.isfinite(data.attrs["correlation_length"])


# --------------------------------------------------------------------------- bands


@pytest.mark.parametrize("q", [1, 2])
def test_a_travelling_band_is_found_and_centred(q):
    n, frames, box = 4000, 50, 32.0
    data = st.band_profiles(_banded(n, frames, box, q, seed=q))
    assert data.attrs["band"] == 1 and data.attrs["dominant_mode"] == q
    assert data.attrs["heading_axis"] == 0
    # |mean e^{iqs}| = 0.25 plus noise of mean square 1/N; per frame its noise has
    # standard deviation sqrt(1/(2N)), over the frames / sqrt(F)
    sigma = math.sqrt(1 / (2 * n * frames))
    assert abs(data.attrs["band_amplitude"] - math.sqrt(0.25**2 + 1 / n)) < Z * sigma
    # the profile aligned on each frame's phase: 1 + 0.5 cos(2 pi q (s - L/2) / L), the
    # cosine averaged over a slab (sinc), its sine part zero; the projections' noise is
    # 2 sigma
    s, density = data["s"].values, data["density_profile"].values
    bins = s.size
    phase = 2 * math.pi * q * (s - box / 2) / box
    cosine = 2 * np.mean((density - 1) * np.cos(phase))
    sine = 2 * np.mean((density - 1) * np.sin(phase))
    sinc = math.sin(math.pi * q / bins) / (math.pi * q / bins)
    assert abs(cosine - 2 * math.sqrt(0.25**2 + 1 / n) * sinc) < Z * 2 * sigma
    assert abs(sine) < Z * 2 * sigma
    assert np.mean(density) == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(data["order_profile"].values, 1.0, rtol=1e-12)


def test_headings_along_y_select_axis_one():
    for sign in (1.0, -1.0):
        data = st.band_profiles(_banded(3000, 20, 24.0, 1, axis=1, sign=sign, seed=9))
        assert data.attrs["heading_axis"] == 1 and data.attrs["band"] == 1
        assert data.attrs["dominant_mode"] == 1
        assert data["density_profile"].values.argmax() in (11, 12)  # s = L/2 in 24 slabs


def test_uniform_and_isotropic_clusters_are_not_bands():
    rng = np.random.default_rng(12)
    n, frames, box = 3000, 20, 32.0
    heading = [np.tile([1.0, 0.0], (n, 1))] * frames
    uniform = st.band_profiles(_frames([rng.random((n, 2)) * box for _ in range(frames)],
                                       box, heading))
    assert uniform.attrs["band"] == 0
    # Rayleigh: the mean |A_q| of independent positions is sqrt(pi / 4N); the Rayleigh
    # law's relative standard deviation is sqrt(4/pi - 1) = 0.52, over 8 F samples
    rayleigh = uniform.attrs["random_amplitude"]
    assert rayleigh == pytest.approx(math.sqrt(math.pi / (4 * n)))
    spread = math.sqrt(4 / math.pi - 1) / math.sqrt(8 * frames)
    assert abs(uniform["mode_amplitude"].values.mean() / rayleigh - 1) < Z * spread
    clusters = []
    for _ in range(frames):  # 6 Gaussian blobs of radius 2: strong, isotropic modes
        centres = rng.random((6, 2)) * box
        clusters.append((np.repeat(centres, n // 6, axis=0)
                         + rng.normal(scale=2.0, size=(n, 2))) % box)
    clustered = st.band_profiles(_frames(clusters, box, heading))
    assert clustered.attrs["band_amplitude"] > st.BAND_AMPLITUDE  # strong, but
    assert clustered.attrs["band_anisotropy"] < st.BAND_ANISOTROPY  # not along the heading
    assert clustered.attrs["band"] == 0


def test_open_space_has_no_band_flag():
    rng = np.random.default_rng(3)
    pos = rng.normal(size=(500, 2))
    data = st.band_profiles(_frames([pos], 0.0, [np.tile([0.0, 2.0], (500, 1))]))
    assert data.attrs["band"] == -1 and "mode_amplitude" not in data
    assert math.isnan(data.attrs["band_amplitude"])
    assert data["density_profile"].values.mean() == pytest.approx(1.0)


# --------------------------------------------------------------------------- real runs


RUNS = [
    ("vicsek", {"N": 50, "L": 4.0, "v0": 0.05, "steps": 20, "snapshot_every": 5}),
    ("zonal", {"N": 20, "dim": 2, "t_end": 1.0, "dt": 0.1, "snapshot_every": 0.2}),
    ("zonal", {"N": 20, "dim": 3, "speed": 2.0, "t_end": 1.0, "dt": 0.1,
               "snapshot_every": 0.2}),
    ("forces", {"N": 30, "start_radius": 1.0, "t_end": 3.0, "snapshot_every": 0.5,
                "predators": [{"position": [0.0, 0.0], "capture_radius": 0.5,
                               "rest_time": 0.2}]}),
    ("forces", {"N": 20, "dim": 3, "box": 12.0, "start_radius": 3.0, "t_end": 1.0,
                "snapshot_every": 0.25}),
    ("foraging", {"N": 20, "E0": 1.0, "E_max": 5.0, "b_metabolic": 1.0, "k_metabolic": 0.0,
                  "t_end": 2.0, "snapshot_every": 0.4}),
]


@pytest.mark.parametrize(("name", "arguments"), RUNS,
                         ids=[f"{name}-{k}" for k, (name, _) in enumerate(RUNS)])
def test_run_frames_reads_each_model_with_kinematics(name, arguments):
    run = flocklab.simulate(name, seed=3, progress=False, **arguments)
    model = flocklab.get_model(name)
    params = model.run_parameters(run)
    frames = st.run_frames(run, model.kinematics, params)
    dim = model.kinematics.dimensions(params)
    names = ("x", "y", "z")[:dim]
    alive = (run["alive"].values > 0 if "alive" in run
             else np.ones(run["x"].shape, bool))
    assert len(frames) == run.sizes["frame"] and frames.dim == dim
    np.testing.assert_array_equal(frames.times, run["frame"].values)
    assert frames.box == float(params.get("box", params.get("L", 0.0)))
    for f, (pos, vel) in enumerate(zip(frames.positions, frames.velocities, strict=True)):
        assert pos.shape == vel.shape == (alive[f].sum(), dim)
        np.testing.assert_array_equal(pos, np.stack([run[a].values[f][alive[f]]
                                                     for a in names], -1))
        speed = np.linalg.norm(vel, axis=1)
        if name == "vicsek":
            np.testing.assert_allclose(speed, arguments["v0"], rtol=1e-12)
        elif name == "zonal":
            np.testing.assert_allclose(speed, run["speed"].values[f][alive[f]], rtol=1e-6)
        elif name == "foraging":
            np.testing.assert_allclose(speed, 1.0, rtol=1e-6)  # unit headings
        else:
            np.testing.assert_allclose(vel, np.stack([run[f"v{a}"].values[f][alive[f]]
                                                      for a in names], -1))
    if name == "foraging" or "predators" in arguments:
        assert alive.sum(1).min() < alive.shape[1]  # the filtering had something to do
    later = st.run_frames(run, model.kinematics, params, first_frame=2)
    assert len(later) == len(frames) - 2
    np.testing.assert_array_equal(later.positions[0], frames.positions[2])
    with pytest.raises(ValueError, match=r"snapshot frames; first_frame = 99.*snapshots"):
        st.run_frames(run, model.kinematics, params, first_frame=99)


def test_run_frames_without_snapshots_says_how_to_record_them():
    run = flocklab.simulate("vicsek", N=20, L=3.0, steps=5, seed=1, progress=False)
    model = flocklab.get_model("vicsek")
    params = model.run_parameters(run)
    assert len(st.run_frames(run, model.kinematics, params)) == 1  # the initial frame
    with pytest.raises(ValueError, match=r"has 1 snapshot frames.*snapshots"):
        st.run_frames(run, model.kinematics, params, first_frame=1)
    with pytest.raises(ValueError, match=r"has 0 snapshot frames.*snapshots"):
        st.run_frames(run.drop_vars(["x", "y", "theta"]), model.kinematics, params)


def test_the_whole_dataset_of_a_short_vicsek_run():
    start = time.perf_counter()
    run = flocklab.simulate("vicsek", N=200, L=8.0, eta=0.3, steps=40, snapshot_every=10,
                            seed=2, progress=False)
    model = flocklab.get_model("vicsek")
    frames = st.run_frames(run, model.kinematics, model.run_parameters(run))
    dataset, summary = st.structure_dataset(frames, resamples=50)
    assert {"pair_correlation", "structure_factor", "velocity_correlation",
            "density_profile", "count_std"} <= set(dataset.data_vars)
    assert summary["frames"] == 5 and summary["dimension"] == 2 and summary["periodic"]
    assert summary["band"]["band"] in (0, 1)
    assert dataset.attrs["band"] == summary["band"]["band"]
    assert time.perf_counter() - start < 30
