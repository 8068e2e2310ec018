r"""Numba kernels of the lattice test models: Wolff single-cluster updates of the q-state
Potts model on an :math:`L \times L` periodic square lattice (the Ising model is q = 2).

The lattice is a flat array ``spins`` of shape (N,), N = L², site ``i = y L + x``, holding
Potts states :math:`s_i \in \{0, \dots, q-1\}` (``int8``). With
:math:`B = \sum_{\langle ij\rangle} \delta(s_i, s_j)` the number of satisfied bonds (2N
bonds: each site's right and lower neighbour),

* Potts: :math:`H = -J B`, energy per spin :math:`e = -B/N`;
* Ising (spins :math:`\sigma = 1 - 2s = \pm 1`):
  :math:`H = -J\sum_{\langle ij\rangle}\sigma_i\sigma_j = -J(2B - 2N)`, :math:`e = 2 - 2B/N`.

One Wolff update (U. Wolff, Phys. Rev. Lett. 62, 361 (1989)): a uniformly random seed
site in state a, a new state b uniform among the other q − 1 (q = 2: the other one, no
draw), the cluster of sites in state a connected by bonds added with probability
:math:`p = 1 - e^{-K/T}` (K = 2J for ±1 Ising spins, K = J for Potts; the caller passes
p), grown with an explicit stack, then set to b. Cluster members hold a sentinel state (q)
while the cluster grows, so a site joins at most once and, afterwards, the bonds from the
cluster to the rest are told apart from the bonds inside it: the change of B and of the
state counts is exact integer arithmetic, and the observables at a record cost O(q), not
O(N) (each call of :func:`advance` recounts them once from the lattice).

Random numbers: draw ``j`` of step ``t`` (all cluster updates of the step, in order: the
seed site, the new state if q > 2, then one draw per bond tried, in stack order) is
``counter_uniform(key, (t << 32) + j)`` (:mod:`flocklab.core.random`), so a run does not
depend on chunking or checkpoints; the caller keeps ``clusters (4N + 2) < 2**32``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from flocklab.core.random import counter_uniform

ONE = np.uint64(1)
STEP_SHIFT = np.uint64(32)


@njit(cache=True, inline="always")
def _neighbours(x, y, side):  # pragma: no cover
    """Right, left, lower and upper neighbours of site (x, y), periodic: ``(xs, ys)``."""
    right = x + 1 if x + 1 < side else 0
    left = x - 1 if x > 0 else side - 1
    down = y + 1 if y + 1 < side else 0
    up = y - 1 if y > 0 else side - 1
    return (right, left, x, x), (y, y, down, up)


@njit(cache=True)
def lattice_totals(spins, side, q, counts):  # pragma: no cover
    """Fill ``counts`` (shape (q,)) with the number of sites in each state and return the
    number B of satisfied bonds. States ``>= q`` (left by a live change of q) are folded
    modulo q first."""
    n = spins.shape[0]
    for i in range(n):
        if spins[i] >= q:
            spins[i] = spins[i] % q
    counts[:] = 0
    bonds = 0
    for i in range(n):
        s = spins[i]
        counts[s] += 1
        x = i % side
        right = i + 1 if x < side - 1 else i + 1 - side
        down = i + side if i + side < n else i + side - n
        bonds += (spins[right] == s) + (spins[down] == s)
    return bonds


@njit(cache=True)
def magnetization(counts, q, n):  # pragma: no cover
    r"""Order parameter :math:`|m| = |\sum_j e^{2\pi i s_j/q}| / N` from the state counts
    (q = 2: :math:`|N_0 - N_1| / N`, exactly)."""
    if q == 2:
        return abs(counts[0] - counts[1]) / n
    re = 0.0
    im = 0.0
    for k in range(q):
        angle = 2.0 * math.pi * k / q
        re += counts[k] * math.cos(angle)
        im += counts[k] * math.sin(angle)
    return min(1.0, math.sqrt(re * re + im * im) / n)


@njit(cache=True)
def energy(bonds, n, ising):  # pragma: no cover
    """Energy per spin in units of J: ``2 - 2B/N`` (Ising) or ``-B/N`` (Potts)."""
    if ising:
        return 2.0 - 2.0 * bonds / n
    return -bonds / n


@njit(cache=True)
def wolff_update(spins, side, q, p_add, key, counter, stack, members):  # pragma: no cover
    """One Wolff cluster update of ``spins`` in place.

    Returns ``(size, old, new, bond change, next counter)``: the cluster's size, its state
    before and after, the change of the number of satisfied bonds and the counter of the
    next draw. ``stack`` (sites whose bonds are still to be tried) and ``members`` (the
    cluster) are int64 work arrays of shape (2, N), rows x and y of the sites (so the
    neighbour look-ups need no division).
    """
    n = spins.shape[0]
    seed = min(np.int64(counter_uniform(key, counter) * n), n - 1)
    counter += ONE
    old = np.int64(spins[seed])
    if q == 2:
        new = 1 - old
    else:
        r = min(np.int64(counter_uniform(key, counter) * (q - 1)), q - 2)
        counter += ONE
        new = r if r < old else r + 1
    sentinel = q
    spins[seed] = sentinel
    stack[0, 0] = members[0, 0] = seed % side
    stack[1, 0] = members[1, 0] = seed // side
    top = 1
    size = 1
    while top > 0:
        top -= 1
        xs, ys = _neighbours(stack[0, top], stack[1, top], side)
        for k in range(4):
            j = ys[k] * side + xs[k]
            if spins[j] == old:
                if counter_uniform(key, counter) < p_add:
                    spins[j] = sentinel
                    stack[0, top] = members[0, size] = xs[k]
                    stack[1, top] = members[1, size] = ys[k]
                    top += 1
                    size += 1
                counter += ONE
    change = 0
    for m in range(size):  # bonds to sites outside: members still hold the sentinel
        xs, ys = _neighbours(members[0, m], members[1, m], side)
        for k in range(4):
            s = spins[ys[k] * side + xs[k]]
            change += (s == new) - (s == old)
    for m in range(size):
        spins[members[1, m] * side + members[0, m]] = new
    return size, old, new, change, counter


@njit(cache=True)
def write_spins(spins, ising, out):  # pragma: no cover
    """Snapshot of the lattice into ``out`` (shape (N,)): ±1 Ising spins or Potts states."""
    for i in range(spins.shape[0]):
        out[i] = 1 - 2 * spins[i] if ising else spins[i]


@njit(cache=True)
def advance(spins, side, q, p_add, clusters, ising, key, first_step, steps, stack, members,
            counts, magnetization_out, energy_out, record_of_step, frame_of_step,
            snapshots):  # pragma: no cover
    """Advance the lattice by ``steps`` steps of ``clusters`` Wolff updates each.

    Parameters
    ----------
    spins : ndarray of int8, shape (N,)
        Potts states, row-major ``i = y L + x``; updated in place.
    side, q : int
        Lattice side L and number of states (2 for Ising).
    p_add : float
        Bond probability :math:`1 - e^{-K/T}`.
    clusters : int
        Cluster updates per step.
    ising : bool
        Ising energies (``2 - 2B/N``) and ±1 snapshots.
    key : uint64
        Noise key (:func:`flocklab.core.random.noise_key`).
    first_step, steps : int
        Global step the lattice is at, and the number of steps to take.
    stack, members : ndarray of int64, shape (2, N)
        Work space.
    counts : ndarray of int64, shape (q,)
        Work space (sites per state).
    magnetization_out, energy_out : ndarray, shape (R,)
        Output: |m| and e at record ``record_of_step[t]``.
    record_of_step, frame_of_step : ndarray of int64, shape (total steps + 1,)
        Record / frame index of each global step, -1 for none.
    snapshots : ndarray of int8, shape (F, N)
        Output frames (:func:`write_spins`).

    Returns
    -------
    int
        Sites flipped (the summed cluster sizes), for the mean cluster size.
    """
    n = spins.shape[0]
    bonds = lattice_totals(spins, side, q, counts)
    flipped = 0
    for s in range(steps):
        t = first_step + s + 1
        counter = np.uint64(t) << STEP_SHIFT
        for _ in range(clusters):
            size, old, new, change, counter = wolff_update(spins, side, q, p_add, key,
                                                           counter, stack, members)
            counts[old] -= size
            counts[new] += size
            bonds += change
            flipped += size
        record = record_of_step[t]
        if record >= 0:
            magnetization_out[record] = magnetization(counts, q, n)
            energy_out[record] = energy(bonds, n, ising)
        frame = frame_of_step[t]
        if frame >= 0:
            write_spins(spins, ising, snapshots[frame])
    return flipped


@njit(cache=True)
def observables(spins, side, q, ising, counts):  # pragma: no cover
    """``(|m|, e)`` of the current lattice (as :func:`advance` records them)."""
    bonds = lattice_totals(spins, side, q, counts)
    return magnetization(counts, q, spins.shape[0]), energy(bonds, spins.shape[0], ising)
