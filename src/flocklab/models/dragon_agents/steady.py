r"""Closed-form steady state of the dragon towed along a straight line.

On a straight path with the head's desired velocity :math:`U e` (constant), look for a
travelling solution: every unit moves with the same velocity :math:`V e`, the chain lies
on the line behind the head, link :math:`l` (between units :math:`l-1` and :math:`l`,
:math:`l = 1..N-1`) has length :math:`L + \delta_l`. Alignment vanishes (equal
velocities). With a perception delay :math:`\tau` a unit sees its neighbours where they
were :math:`\tau` ago, :math:`V\tau` further back along :math:`e`, so its front cohesion
spring reads :math:`\delta_l - V\tau` and its back spring :math:`\delta_{l+1} + V\tau`.
Force balance along :math:`e` with :math:`K_i = k_{c,i} + k_\mathrm{pen}`:

.. math::
    \text{tail } (i = N-1):&\quad K_i\delta_i - k_{c,i}V\tau = k_{d,i}V \\
    1 \le i \le N-2:&\quad K_i(\delta_i - \delta_{i+1}) - 2k_{c,i}V\tau = k_{d,i}V \\
    \text{head}:&\quad k_p(U - V) = k_{d,0}V + K_0\delta_1 + k_{c,0}V\tau

Every :math:`\delta_l` is :math:`V` times a number fixed by the recursion from the tail,
and the head equation then gives :math:`V`. For equal gains it sums to

.. math:: V = \frac{k_p U}{k_p + N k_d + 2(N-1)k_c\tau}, \qquad
          \delta_l = \frac{(N-l)\,k_d + (2(N-l)-1)\,k_c\tau}{k_c + k_\mathrm{pen}}\,V.

So the links are in tension (the head tows the chain), the tension grows linearly toward
the head, the error :math:`\delta_l` falls as :math:`1/k_\mathrm{pen}`, and the chain
moves slower than the head is asked to by the factor :math:`k_p/(k_p + N k_d)` (the total
drag :math:`N k_d V` is balanced by the head's path force alone). A delay acts as extra
drag :math:`2(N-1)k_c\tau V`: the delayed cohesion springs of each link pull backward on
both ends.
"""

from __future__ import annotations

import numpy as np


def steady_line(n: int, k_c: float, k_d: float, k_p: float, k_penalty: float, speed: float,
                tau: float = 0.0) -> tuple[float, np.ndarray]:
    """Equal gains: ``(V, delta)``, ``delta`` shape (N-1,) (m), link 1 first (at the head)."""
    velocity = k_p * speed / (k_p + n * k_d + 2 * (n - 1) * k_c * tau)
    behind = n - np.arange(1, n)
    delta = (behind * k_d + (2 * behind - 1) * k_c * tau) * velocity / (k_c + k_penalty)
    return float(velocity), delta


def steady_line_general(k_c: np.ndarray, k_d: np.ndarray, k_p: float, k_penalty: float,
                        speed: float, tau: float = 0.0) -> tuple[float, np.ndarray]:
    """Per-unit gains (shape (N,)): the recursion from the tail, ``(V, delta)``."""
    n = k_c.shape[0]
    stiff = k_c + k_penalty
    per_v = np.zeros(n)  # per_v[l] = delta_l / V for l = 1..N-1
    for i in range(n - 1, 0, -1):
        push = k_d[i] + k_c[i] * tau
        if i < n - 1:
            push += stiff[i] * per_v[i + 1] + k_c[i] * tau
        per_v[i] = push / stiff[i]
    velocity = k_p * speed / (k_p + k_d[0] + stiff[0] * per_v[1] + k_c[0] * tau)
    return float(velocity), velocity * per_v[1:]
