"""Seeds derived from a base seed and the identity of a run.

A run's seed depends only on (base seed, study name, parameter-point label,
replicate index), hashed into a :class:`numpy.random.SeedSequence`, so adding
points or replicates to a sweep never changes the seed of an existing run.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_hash(text: str) -> int:
    """64-bit integer hash of ``text`` that is the same in every process and Python version."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def derive_seed(base_seed: int, study: str, point: str, replicate: int) -> int:
    """Seed of one run, an integer in ``[0, 2**63)``.

    Parameters
    ----------
    base_seed : int
        The config's ``base_seed``.
    study : str
        Study name.
    point : str
        Parameter-point label (see :func:`flocklab.config.point_label`).
    replicate : int
        Replicate index, ``0 <= replicate``.

    Examples
    --------
    >>> derive_seed(1, "fig2a", "eta=2.0", 0) == derive_seed(1, "fig2a", "eta=2.0", 0)
    True
    >>> derive_seed(1, "fig2a", "eta=2.0", 0) != derive_seed(1, "fig2a", "eta=2.0", 1)
    True
    """
    sequence = np.random.SeedSequence(
        entropy=int(base_seed),
        spawn_key=(stable_hash(study), stable_hash(point), int(replicate)),
    )
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
