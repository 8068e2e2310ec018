r"""Counter-based uniform random numbers for the kernels.

The noise of particle ``i`` at step ``t`` is a pure function of (key, t, i):

.. math::

    u = \mathrm{mix}(k + (tN + i)\,\gamma) / 2^{64}, \qquad \gamma = \lfloor 2^{64}/\varphi \rfloor,

with ``mix`` the SplitMix64 finaliser (Steele, Lea & Flood 2014), i.e. element
``tN + i`` of the SplitMix64 sequence started at the key. Because nothing is
drawn in sequence, the numbers do not depend on the order particles are
processed in, on the number of threads, on chunking of the time loop, or on
where a run was checkpointed; and no noise buffer is needed.

The key is drawn from the run's NumPy ``Generator`` (seeded by the run seed), so
runs with different seeds use unrelated keys.

References
----------
G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014. SplitMix64 passes TestU01's BigCrush.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
SHIFT_30 = np.uint64(30)
SHIFT_27 = np.uint64(27)
SHIFT_31 = np.uint64(31)
SHIFT_11 = np.uint64(11)
TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def counter_uniform(key, counter):  # pragma: no cover
    """U[0, 1) double (53 random bits) for uint64 ``key`` and ``counter``."""
    z = key + counter * GOLDEN_GAMMA
    z = (z ^ (z >> SHIFT_30)) * MIX_1
    z = (z ^ (z >> SHIFT_27)) * MIX_2
    z = z ^ (z >> SHIFT_31)
    return np.float64(z >> SHIFT_11) * TWO_POW_MINUS_53


@njit(cache=True)
def _fill(key, step, out):  # pragma: no cover
    n = out.shape[0]
    base = np.uint64(step) * np.uint64(n)
    for i in range(n):
        out[i] = counter_uniform(key, base + np.uint64(i))


def noise_key(rng: np.random.Generator) -> np.uint64:
    """Draw a noise key from a run's generator (64 raw bits)."""
    return np.uint64(rng.bit_generator.random_raw())


def step_uniforms(key: np.uint64, step: int, n: int) -> np.ndarray:
    """The U[0, 1) numbers of particles ``0..n-1`` at ``step``, shape (n,), as the kernels use."""
    out = np.empty(n)
    _fill(np.uint64(key), int(step), out)
    return out
