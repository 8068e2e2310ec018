"""The Morse swarm without a cut-off (``r_cut: 0``): every pair interacts, the forces and the
energy are the plain all-pairs sums of the untruncated potential, and the groups are linked
within ``r_link`` (by default the cut-off, or 5 l_a without one)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import flocklab
from flocklab.core.parameters import ParameterError
from flocklab.geometry.hash_grid import NeighbourGrid
from flocklab.models.forces.engine import ForcesSimulation
from flocklab.models.forces.params import LINK_LENGTHS, resolve


def _morse_force(pos: np.ndarray, p: dict) -> np.ndarray:
    """Untruncated Morse force on every agent, written out from U(r) (no code shared)."""
    diff = pos[:, None, :] - pos[None, :, :]
    r = np.linalg.norm(diff, axis=2)
    np.fill_diagonal(r, np.inf)
    f = (p["C_r"] / p["l_r"] * np.exp(-r / p["l_r"])
         - p["C_a"] / p["l_a"] * np.exp(-r / p["l_a"])) / r
    return np.einsum("ij,ijk->ik", f, diff)


def test_an_infinite_radius_lists_every_pair():
    rng = np.random.default_rng(1)
    pos = np.zeros((60, 3))
    pos[:, :2] = rng.normal(scale=300.0, size=(60, 2))  # spread far beyond any cell
    grid = NeighbourGrid(60, math.inf, 2)
    grid.update(pos, np.ones(60, bool))
    for i in range(60):
        assert sorted(grid.neighbours(i)) == [j for j in range(60) if j != i]


@pytest.mark.parametrize("dim", [2, 3])
def test_without_a_cut_off_the_force_is_the_sum_over_all_pairs(dim):
    """Agents 40 apart still attract (|F| ~ e^-40 against forces of order 1 near by)."""
    sim = ForcesSimulation.from_parameters({"N": 80, "dim": dim, "r_cut": 0.0, "start_radius": 30.0,
                                            "C_r": 0.5, "l_r": 0.5}, np.random.default_rng(4), 0.05)
    sim.ensure_forces()
    exact = _morse_force(sim.pos[:, :dim], sim.p)
    np.testing.assert_allclose(sim.force[:, :dim], exact, rtol=1e-12,
                               atol=1e-14 * np.abs(exact).max())
    assert np.all(np.diff(sim.grid.start) == 79)


def test_a_cut_off_beyond_every_distance_gives_the_same_forces():
    common = {"N": 50, "start_radius": 4.0}
    none = ForcesSimulation.from_parameters(
        {**common, "r_cut": 0.0}, np.random.default_rng(5), 0.05)
    far = ForcesSimulation.from_parameters(
        {**common, "r_cut": 100.0}, np.random.default_rng(5), 0.05)
    none.ensure_forces()
    far.ensure_forces()
    np.testing.assert_allclose(none.force, far.force, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("potential", ["morse", "generic"])
def test_without_a_cut_off_the_energy_is_the_unshifted_pair_sum(potential):
    p_in = {"N": 30, "start_radius": 3.0, "r_cut": 0.0, "potential": potential}
    sim = ForcesSimulation.from_parameters(p_in, np.random.default_rng(6), 0.05)
    p = sim.p
    r = np.linalg.norm(sim.pos[:, None] - sim.pos[None], axis=2)[np.triu_indices(30, 1)]
    if potential == "morse":
        u = p["C_r"] * np.exp(-r / p["l_r"]) - p["C_a"] * np.exp(-r / p["l_a"])
    else:
        u = 0.5 * p["a"] * r ** 2 + 0.5 * p["b"] * p["c"] * np.exp(-r ** 2 / p["c"])
    assert sim.potential_energy() == pytest.approx(float(u.sum()), rel=1e-12)


def test_the_link_distance_defaults_to_the_cut_off_then_to_five_attraction_lengths():
    assert resolve({"r_cut": 4.0})["link"] == 4.0
    assert resolve({"r_cut": 0.0, "l_a": 2.0})["link"] == LINK_LENGTHS * 2.0 == 10.0
    assert resolve({"r_cut": 0.0, "r_link": 3.0})["link"] == 3.0
    assert resolve({"r_cut": 0.0})["cutoff"] == math.inf


@pytest.mark.parametrize(("params", "key"), [
    ({"r_cut": 0.0, "box": 20.0, "start_radius": 1.0}, "r_cut"),
    ({"r_link": -1.0}, "r_link"),
    ({"r_cut": -2.0}, "r_cut"),
])
def test_bad_cut_off_and_link_name_the_key(params, key):
    with pytest.raises(ParameterError) as error:
        flocklab.get_model("forces").resolve(params)
    assert error.value.name == key
    assert "\n" not in str(error.value)


def test_groups_are_linked_within_r_link():
    """Two clumps of radius 0.5 whose centres are 8 apart: two groups when linked within the
    default 5 l_a, one within 10 (the observation reads the resolved link distance)."""
    sim = ForcesSimulation.from_parameters({"N": 40, "r_cut": 0.0, "start_radius": 0.5},
                                           np.random.default_rng(0), 0.05)
    sim.pos[20:, 0] += 8.0
    model = flocklab.get_model("forces")
    state = {"_sim": sim, "_dt": 0.05}
    assert model.observe(state, sim.p)["groups"] == 2.0
    assert model.observe(state, sim.p)["largest_fraction"] == 0.5
    sim.p["link"] = resolve({"r_cut": 0.0, "r_link": 10.0})["link"]
    assert model.observe(state, sim.p)["groups"] == 1.0
