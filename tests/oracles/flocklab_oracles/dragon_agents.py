"""The article's formulation, kept as a reference for tests and the benchmark.

The bench-dragon article (:data:`flocklab.references.BENCH_DRAGON_ARTICLE`, section 4.2)
writes the right-hand side as a Python loop over units on the *block* layout ``[x_0, y_0,
..., x_{N-1}, y_{N-1}, vx_0, vy_0, ...]`` (its ``pack_state``; the comment above it claims
an interleaved layout, the code does not do that), aligns each unit with its front neighbour
only, and integrates with ``solve_ivp`` without a Jacobian (so the implicit methods build a
dense one by finite differences). This module re-expresses that loop (same forces, same
guards) so the vectorised engine can be checked against it and the benchmark can time it.
Not for production use.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def to_block_layout(y: np.ndarray) -> np.ndarray:
    """Interleaved state (4N,) -> the article's block layout (4N,)."""
    state = np.asarray(y).reshape(-1, 4)
    return np.concatenate([state[:, :2].ravel(), state[:, 2:].ravel()])


def from_block_layout(y: np.ndarray) -> np.ndarray:
    """The article's block layout (4N,) -> interleaved state (4N,)."""
    y = np.asarray(y)
    n = y.size // 4
    return np.column_stack([y[:2 * n].reshape(n, 2), y[2 * n:].reshape(n, 2)]).ravel()


def circular_path_velocity(t: float, head: np.ndarray, radius: float = 10.0,
                           angular_speed: float = 0.5) -> np.ndarray:
    """The article's desired head velocity: the circle's tangent at the head's radial
    projection, magnitude ``radius * angular_speed`` (no radial correction, no ``t``)."""
    norm = np.linalg.norm(head)
    r_desired = radius * head / norm if norm > 1e-6 else np.array([radius, 0.0])
    tangent = np.array([-r_desired[1], r_desired[0]])
    return radius * angular_speed * tangent / np.linalg.norm(tangent)


def _pull(pos: np.ndarray, i: int, j: int, gain: float, rest: float) -> np.ndarray:
    vec = pos[j] - pos[i]
    dist = np.linalg.norm(vec)
    if dist > 1e-6:
        return gain * (dist - rest) * (vec / dist)
    return np.zeros(2)


def article_rhs(t: float, y: np.ndarray, n: int, rest: float, k_a: float, k_c: float,
                k_p: float, k_d: float, k_penalty: float,
                v_desired: Callable[[float, np.ndarray], np.ndarray]) -> np.ndarray:
    """The article's ``system_dynamics``: a loop over units on the block layout."""
    pos = y[:2 * n].reshape(n, 2)
    vel = y[2 * n:].reshape(n, 2)
    acc = np.zeros_like(vel)
    for i in range(n):
        force = np.zeros(2)
        if i > 0:
            force += k_a * (vel[i - 1] - vel[i])
            force += _pull(pos, i, i - 1, k_c, rest)
        if i < n - 1:
            force += _pull(pos, i, i + 1, k_c, rest)
        if i == 0:
            force += k_p * (v_desired(t, pos[0]) - vel[0])
        force += -k_d * vel[i]
        if i > 0:
            force += _pull(pos, i, i - 1, k_penalty, rest)
        if i < n - 1:
            force += _pull(pos, i, i + 1, k_penalty, rest)
        acc[i] = force
    return np.concatenate([vel.ravel(), acc.ravel()])
