r"""The lattice reference models (``ising``, ``potts``; tests/plugins) against exact results.

Exact enumeration of small periodic lattices (4 x 4 Ising, :math:`2^{16}` states; 3 x 3
three-state Potts, :math:`3^9` states) gives :math:`\langle|m|\rangle`,
:math:`\langle m^2\rangle`, :math:`\langle m^4\rangle` and :math:`\langle e\rangle`; a Wolff
run must agree within 4 standard errors, each corrected for autocorrelation
(:func:`flocklab.analysis.timeseries.series_statistics`). A bond probability off by a
factor in the exponent (:math:`1 - e^{-K/2T}`) fails these by tens of standard errors.
Then determinism (same seed, same series; any chunking, the same run), the kernel's
incremental observables against a recount, and a sweep's summary.
"""

from __future__ import annotations

import numpy as np
import pytest

import flocklab
from flocklab.analysis.timeseries import series_statistics
from flocklab.core.driver import run as run_model
from flocklab.core.driver import simulate
from flocklab.core.time import RunControl

#: Tolerance in standard errors.
Z_MAX = 4.0
#: Steps (one Wolff update each, recorded every step) and burn-in of the exact comparisons.
STEPS, BURN_IN = 100_000, 1_000


def lattice_states(side: int, q: int) -> np.ndarray:
    """Every configuration of a ``side x side`` lattice with ``q`` states, shape
    (q^N, side, side), row-major sites ``i = y L + x`` (Potts states 0..q-1)."""
    n = side * side
    codes = np.arange(q**n)
    digits = (codes[:, None] // q ** np.arange(n)) % q
    return digits.reshape(-1, side, side)


def exact_moments(side: int, q: int, temperature: float) -> dict[str, float]:
    r"""Exact Boltzmann averages of ``|m|``, ``m^2``, ``m^4`` (of :math:`|m|`) and ``e``.

    Ising (q = 2): spins :math:`\sigma = 1 - 2s`, :math:`H = -\sum_{\langle ij\rangle}
    \sigma_i\sigma_j`, :math:`m = \sum\sigma/N`; Potts: :math:`H = -\sum\delta(s_i, s_j)`,
    :math:`m = |\sum e^{2\pi i s/q}|/N`. Bonds: each site's right and lower neighbour
    (periodic), 2N in all; energies per spin in units of J, T in units of J/k_B.
    """
    s = lattice_states(side, q)
    n = side * side
    same = (s == np.roll(s, -1, axis=2)).sum(axis=(1, 2)) + \
        (s == np.roll(s, -1, axis=1)).sum(axis=(1, 2))
    if q == 2:
        energy = -(2.0 * same - 2 * n) / n
        m = np.abs((1 - 2 * s).sum(axis=(1, 2))) / n
    else:
        energy = -same / n
        m = np.abs(np.exp(2j * np.pi * s / q).sum(axis=(1, 2))) / n
    weight = np.exp(-(energy - energy.min()) * n / temperature)
    weight /= weight.sum()
    return {"|m|": float(weight @ m), "m^2": float(weight @ m**2),
            "m^4": float(weight @ m**4), "e": float(weight @ energy)}


def simulated_moments(model: str, params: dict, seed: int = 2024
                      ) -> dict[str, tuple[float, float]]:
    """``name -> (mean, autocorrelation-corrected standard error)`` of the same quantities
    from a run of ``STEPS`` steps after ``BURN_IN``."""
    run = simulate(flocklab.get_model(model), params, RunControl(seed=seed, steps=STEPS))
    m = run["magnetization"].values[BURN_IN + 1:]
    e = run["energy"].values[BURN_IN + 1:]
    out = {}
    for name, series in (("|m|", m), ("m^2", m**2), ("m^4", m**4), ("e", e)):
        statistics = series_statistics(series, np.nan)
        out[name] = (statistics.mean, statistics.sem)
    return out


@pytest.mark.parametrize(("model", "side", "q", "params"), [
    ("ising", 4, 2, {"T": 2.0}), ("ising", 4, 2, {"T": 3.0}),
    ("ising", 2, 2, {"T": 2.5}),  # L = 2: each neighbour pair is joined by two bonds
    ("potts", 3, 3, {"T": 0.8, "q": 3}), ("potts", 3, 3, {"T": 1.2, "q": 3}),
])
def test_wolff_runs_agree_with_exact_enumeration(model, side, q, params):
    exact = exact_moments(side, q, params["T"])
    simulated = simulated_moments(model, {"L": side, **params})
    z = {name: (simulated[name][0] - exact[name]) / simulated[name][1] for name in exact}
    assert all(simulated[name][1] > 0 for name in exact)
    assert max(abs(value) for value in z.values()) < Z_MAX, (exact, simulated, z)


def recount(spins: np.ndarray, side: int, model: str, q: int) -> tuple[np.ndarray, np.ndarray]:
    """``(|m|, e)`` of snapshot frames (shape (F, N): Ising ±1 or Potts states), counted
    from scratch, shape (F,) each."""
    s = spins.reshape(-1, side, side).astype(float)
    n = side * side
    if model == "ising":
        bonds = (s * np.roll(s, -1, axis=2)).sum(axis=(1, 2)) + \
            (s * np.roll(s, -1, axis=1)).sum(axis=(1, 2))
        return np.abs(s.sum(axis=(1, 2))) / n, -bonds / n
    same = (s == np.roll(s, -1, axis=2)).sum(axis=(1, 2)) + \
        (s == np.roll(s, -1, axis=1)).sum(axis=(1, 2))
    return np.abs(np.exp(2j * np.pi * s / q).sum(axis=(1, 2))) / n, -same / n


@pytest.mark.parametrize(("model", "params"), [
    ("ising", {"L": 2, "T": 2.0}), ("ising", {"L": 5, "T": 2.3, "clusters": 2}),
    ("potts", {"L": 3, "T": 1.0}), ("potts", {"L": 6, "T": 0.7, "q": 5, "init": "ordered"}),
])
def test_recorded_observables_equal_a_recount_of_the_lattice(model, params):
    """The kernel updates |m| and e with each cluster (bonds to the cluster's outside only);
    at every step they equal a count from the lattice's snapshot."""
    q = params.get("q", 3) if model == "potts" else 2
    run = simulate(flocklab.get_model(model), params,
                   RunControl(seed=5, steps=300, snapshot_every=1))
    m, e = recount(run["spin"].values, params["L"], model, q)
    np.testing.assert_allclose(run["magnetization"].values, m, rtol=0, atol=1e-12)
    np.testing.assert_allclose(run["energy"].values, e, rtol=0, atol=1e-12)
    spins = run["spin"].values
    assert set(np.unique(spins)) <= ({-1, 1} if model == "ising" else set(range(q)))


def _record(model_name: str, params: dict, seed: int, chunk_steps: int | None
            ) -> dict[str, np.ndarray]:
    model = flocklab.get_model(model_name)
    if chunk_steps is not None:  # chunks of that many steps
        model.chunk_updates = chunk_steps * model.entity_count(model.resolve(params))
    control = RunControl(seed=seed, steps=240, record_every=2, snapshot_every=40)
    record = run_model(model, params, control)
    return {**record.series, **record.frames}


@pytest.mark.parametrize(("model", "params"), [
    ("ising", {"L": 8, "T": 2.4, "clusters": 3}), ("potts", {"L": 7, "T": 0.9, "q": 4}),
])
def test_same_seed_same_run_in_one_chunk_or_many(model, params):
    whole = _record(model, params, 7, None)
    for chunk_steps in (1, 7, 40):
        chunked = _record(model, params, 7, chunk_steps)
        for name, values in whole.items():
            np.testing.assert_array_equal(chunked[name], values, err_msg=f"{name}, "
                                                                         f"{chunk_steps}")
    other = _record(model, params, 8, None)
    assert not np.array_equal(other["magnetization"], whole["magnetization"])


def test_declarations_size_and_critical_temperature():
    from flocklab_testmodels.lattice import ISING_TC, potts_critical_temperature

    ising, potts = flocklab.get_model("ising"), flocklab.get_model("potts")
    assert ising.derived(ising.resolve({"L": 12})) == {"N": 144}
    assert ising.size_parameter == potts.size_parameter == "N"
    assert ising.critical_control("T").ordered_side == "below"
    assert ISING_TC == pytest.approx(2.269185, abs=1e-6)
    assert potts_critical_temperature(3) == pytest.approx(0.994973, abs=1e-6)
    # q = 2 Potts is Ising at half the temperature (K = J against 2J)
    assert potts.bond_probability({"T": 1.0}) == ising.bond_probability({"T": 2.0})
    with pytest.raises(flocklab.ParameterError, match="clusters"):
        ising.resolve({"L": 1000, "clusters": 1100})
    with pytest.raises(flocklab.ParameterError, match="'q'"):
        potts.resolve({"q": 9})


def test_a_sweep_summarises_moments_susceptibility_and_binder_cumulant():
    summary = flocklab.sweep("ising", {"T": [2.0, 2.5]}, params={"L": 8}, steps=2000,
                             replicates=2, seed=1)
    for name in ("magnetization_mean", "magnetization_m2", "magnetization_m4",
                 "replicate_susceptibility", "replicate_binder_cumulant"):
        assert name in summary and np.isfinite(summary[name].values).all(), name
    assert float(summary["N"]) == 64
    chi = summary["replicate_susceptibility"].values
    assert chi[1] > chi[0]  # T = 2.5 is nearer T_c(L = 8) than the ordered T = 2.0
