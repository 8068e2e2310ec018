"""The shared collective observables against the Vicsek model's compiled order parameter and
brute-force references."""

import math

import numpy as np
import pytest

import flocklab
from flocklab.analysis import collective


def test_polarisation_is_the_vicsek_order_parameter():
    """P of the final headings of a Vicsek run equals the order parameter its kernel recorded
    at the last step (to rounding)."""
    run = flocklab.simulate("vicsek", N=200, L=5.0, eta=1.0, steps=50, seed=4,
                            snapshot_every=50, snapshot_start=50)
    theta = run["theta"].values[-1]
    heads = np.c_[np.cos(theta), np.sin(theta)]
    assert collective.polarisation(heads) == pytest.approx(
        float(run["order_parameter"].values[-1]), abs=1e-12)


def test_groups_match_a_brute_force_union_find():
    rng = np.random.default_rng(7)
    pos = rng.uniform(0, 10, (150, 2))
    radius, box = 0.9, 10.0
    n, labels = collective.groups(pos, radius, box)
    parent = list(range(len(pos)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(pos)):
        for j in range(i):
            d = pos[i] - pos[j]
            d -= box * np.round(d / box)
            if math.hypot(*d) <= radius:
                parent[root(i)] = root(j)
    roots = [root(i) for i in range(len(pos))]
    assert n == len(set(roots))
    for i in range(len(pos)):   # same group in both partitions
        for j in range(i):
            assert (labels[i] == labels[j]) == (roots[i] == roots[j])


def test_a_rotating_ring_mills_and_a_flock_does_not():
    angle = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    pos = np.c_[np.cos(angle), np.sin(angle)]
    tangent = np.c_[-np.sin(angle), np.cos(angle)]
    assert collective.milling(pos, tangent) == pytest.approx(1.0)
    assert collective.polarisation(tangent) == pytest.approx(0.0, abs=1e-12)
    flock = np.tile([1.0, 0.0], (40, 1))
    assert collective.milling(pos, flock) == pytest.approx(0.0, abs=1e-12)
    assert collective.radius_of_gyration(pos) == pytest.approx(1.0)
