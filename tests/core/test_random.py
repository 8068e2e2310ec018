"""The counter-based noise of the kernels."""

from __future__ import annotations

import numpy as np
from scipy import stats

from flocklab.core.random import noise_key, step_uniforms


def test_uniform_on_unit_interval():
    u = np.concatenate([step_uniforms(np.uint64(12345), step, 100_000) for step in range(3)])
    assert u.min() >= 0.0 and u.max() < 1.0
    # Kolmogorov-Smirnov against U[0, 1): p-value below 1e-3 would fail (false alarm 0.1 %)
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / u.size)


def test_neighbouring_counters_are_uncorrelated():
    u = step_uniforms(np.uint64(7), 1, 200_000)
    # lag-1 correlation within a step and across particles of consecutive steps: |r| < 4/sqrt(n)
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 4 / np.sqrt(u.size)
    v = step_uniforms(np.uint64(7), 2, 200_000)
    assert abs(np.corrcoef(u, v)[0, 1]) < 4 / np.sqrt(u.size)


def test_pure_function_of_key_step_and_particle():
    a = step_uniforms(np.uint64(99), 5, 1000)
    np.testing.assert_array_equal(a, step_uniforms(np.uint64(99), 5, 1000))
    assert not np.array_equal(a, step_uniforms(np.uint64(100), 5, 1000))
    keys = {int(noise_key(np.random.default_rng(seed))) for seed in range(100)}
    assert len(keys) == 100
