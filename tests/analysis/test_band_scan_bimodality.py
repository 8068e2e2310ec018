"""The bimodality rule of benchmarks/vicsek_bands.py on samples of known distributions."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BINS = 50
N_SAMPLES = 40_000


def _bimodality():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "vicsek_bands.py"
    spec = importlib.util.spec_from_file_location("vicsek_bands", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.bimodality


def _histogram(samples: np.ndarray) -> np.ndarray:
    return np.histogram(samples, bins=BINS, range=(0.0, 1.0))[0] / samples.size


def _mixture(rng, weight, means, sigmas):
    """``weight`` of the samples from the first normal, the rest from the second."""
    first = rng.random(N_SAMPLES) < weight
    return np.where(first, rng.normal(means[0], sigmas[0], N_SAMPLES),
                    rng.normal(means[1], sigmas[1], N_SAMPLES))


@pytest.mark.parametrize("weight", [0.1, 0.3, 0.5])
def test_disordered_and_ordered_states_give_two_peaks_with_their_weight(weight):
    # A run switching between a disordered (v_a ~ 0.08) and a banded state (v_a ~ 0.72).
    rng = np.random.default_rng(1)
    samples = _mixture(rng, weight, (0.08, 0.72), (0.03, 0.03))
    bimodal, minor = _bimodality()(_histogram(samples))
    assert bimodal
    # the lesser peak's share is binomial; the normals' overlap is ~1e-60
    assert minor == pytest.approx(min(weight, 1 - weight),
                                  abs=5 * np.sqrt(weight * (1 - weight) / N_SAMPLES))


def test_one_normal_is_unimodal():
    rng = np.random.default_rng(2)
    bimodal, _ = _bimodality()(_histogram(rng.normal(0.5, 0.05, N_SAMPLES)))
    assert not bimodal


def test_an_equal_mixture_closer_than_two_sigma_is_unimodal():
    # An equal mixture of two normals of the same sigma is unimodal iff |mu1 - mu2| <= 2 sigma.
    rng = np.random.default_rng(3)
    samples = _mixture(rng, 0.5, (0.42, 0.58), (0.1, 0.1))
    assert not _bimodality()(_histogram(samples))[0]
    separated = _mixture(rng, 0.5, (0.3, 0.7), (0.06, 0.06))
    assert _bimodality()(_histogram(separated))[0]


def test_a_peak_holding_too_few_records_does_not_count():
    rng = np.random.default_rng(4)
    samples = _mixture(rng, 0.02, (0.08, 0.72), (0.03, 0.03))
    bimodal, minor = _bimodality()(_histogram(samples))
    assert not bimodal
    assert minor == pytest.approx(0.02, abs=5 * np.sqrt(0.02 * 0.98 / N_SAMPLES))
