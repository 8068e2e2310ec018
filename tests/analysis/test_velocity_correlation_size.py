"""The r_0-against-L fits of benchmarks/velocity_correlation_size.py on synthetic flocks
whose answer is known: r_0 = 0.35 L (Cavagna et al. 2010, scale-free) and a saturating
r_0 = r_sat (1 - exp(-L/l))."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "velocity_correlation_size.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("velocity_correlation_size", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve the module by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _runs(bench, sizes, r0_of, noise, seeds=4, seed=3):
    rng = np.random.default_rng(seed)
    runs = []
    for n, size in sizes.items():
        for s in range(seeds):
            r0 = r0_of(size) * (1.0 + noise * rng.standard_normal())
            runs.append(bench.RunResult(n, s, 1.0, 0.9, 1.0, 1.0, 10, size, r0, r0 / size,
                                        0, r0, 0.1))
    return runs


SIZES = {100: 6.0, 200: 8.0, 400: 11.0, 800: 14.0, 1600: 18.0, 3200: 23.0}


def test_proportional_flocks_give_a_and_gamma_one(bench):
    """r_0 = 0.35 L with 3 % scatter: a covers 0.35, gamma covers 1, r_0/L has no trend, and
    the saturating form has no finite fit (ell runs far beyond L)."""
    fit = bench.fits(_runs(bench, SIZES, lambda size: 0.35 * size, 0.03), resamples=300)
    _, low, high = fit["a"]
    assert low <= 0.35 <= high and high - low < 0.02
    assert fit["gamma"][1] <= 1.0 <= fit["gamma"][2]
    assert fit["ratio_slope"][1] <= 0.0 <= fit["ratio_slope"][2]
    assert "no finite fit" in bench.fit_lines(fit)


def test_saturating_flocks_give_gamma_below_one_and_their_scale(bench):
    """r_0 = 5 (1 - exp(-L/8)) without scatter: the saturating fit returns r_sat = 5 and
    ell = 8, the power law gamma < 1 and r_0/L decreases."""
    fit = bench.fits(_runs(bench, SIZES, lambda size: 5.0 * (1.0 - np.exp(-size / 8.0)), 0.0),
                     resamples=50)
    assert fit["r_sat"][0] == pytest.approx(5.0, rel=1e-4)
    assert fit["ell"][0] == pytest.approx(8.0, rel=1e-4)
    assert fit["gamma"][2] < 1.0
    assert fit["ratio_slope"][2] < 0.0
