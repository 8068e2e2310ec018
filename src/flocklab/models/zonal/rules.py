r"""Kernels of the zonal model: desired directions, steering, motion with obstacles.

One synchronous step of the prey (all agents read the state at time ``t``):

1. **Desired direction** :math:`\mathbf{d}_i` from the neighbour list (one of three rules, below).
   A zero vector means "no social input": the agent keeps its heading.
2. **Informed agents** (weight :math:`\omega_i > 0`, preferred unit direction :math:`\mathbf{g}_i`,
   or the unit vector toward the food point):
   :math:`\mathbf{d} \leftarrow (\hat{\mathbf{d}} + \omega\mathbf{g})/
   |\hat{\mathbf{d}} + \omega\mathbf{g}|` (Couzin et al. 2005).
3. **Escape** (any predator within its ``detection_range`` of the agent):
   :math:`\mathbf{F} = k_e\,\hat{\mathbf{F}}_{\rm evasion} + k_c\,\hat{\mathbf{d}}` with
   :math:`\mathbf{F}_{\rm evasion} = \sum_p (\mathbf{x}_i - \mathbf{P}_p)/|\cdot|` and the social
   direction as the cohesion term (contest paper, Eq. 5); the agent then runs at its own escape
   (limit) speed.
4. **Noise**: rotation of :math:`\hat{\mathbf{d}}` by a Gaussian angle of s.d. ``noise``
   (:mod:`flocklab.geometry.vectors`), then
5. **Turning-rate cap**: the heading turns toward the noisy :math:`\hat{\mathbf{d}}` by at most
   ``turning_rate * dt``.
6. **Obstacles** (contest paper, problem 3): for :math:`a_k < r < R_k` the velocity changes by
   :math:`k (R_k - r)\,\Delta t` along the unit vector from the obstacle centre to the agent,
   and the heading becomes the direction of the new velocity (speed unchanged).
7. **Motion**: :math:`\mathbf{x} \leftarrow \mathbf{x} + s\,\mathbf{e}\,\Delta t`, except that a
   step whose segment would enter an obstacle ends on its surface and slides along it, the
   heading made tangent — so no agent is ever inside an obstacle.

Desired-direction rules (:math:`\mathbf{r}_{ij} = \mathbf{x}_j - \mathbf{x}_i`,
:math:`\hat{\mathbf{r}}_{ij}` its unit vector; a neighbour is *visible* when the angle between
:math:`\mathbf{e}_i` and :math:`\mathbf{r}_{ij}` is at most ``field_of_view/2``):

* ``couzin2002``: if any neighbour has :math:`r_{ij} < r_r` (all directions),
  :math:`\mathbf{d} = -\sum \hat{\mathbf{r}}_{ij}` over them, nothing else. Otherwise, over visible
  neighbours, :math:`\mathbf{d}_o = \sum \mathbf{e}_j` for :math:`r_r \le r_{ij} < r_r + \Delta_o`
  (plus :math:`\mathbf{e}_i` itself when ``self_in_orientation`` and the zone holds at least one
  neighbour) and :math:`\mathbf{d}_a = \sum \hat{\mathbf{r}}_{ij}` for
  :math:`r_r + \Delta_o \le r_{ij} \le r_r + \Delta_o + \Delta_a`;
  :math:`\mathbf{d} = \tfrac12(\hat{\mathbf{d}}_o + \hat{\mathbf{d}}_a)` when both zones are
  occupied, the one present otherwise.
* ``couzin2005``: if any neighbour has :math:`r_{ij} < \alpha`, :math:`\mathbf{d} =
  -\sum \hat{\mathbf{r}}_{ij}` over them; otherwise :math:`\mathbf{d} = \sum_{j \ne i}
  \hat{\mathbf{r}}_{ij} + \sum_{j} \mathbf{e}_j` over visible neighbours within :math:`\rho`, the
  second sum running over :math:`j = 1..n_i` with no :math:`j \ne i`, read as including
  :math:`\mathbf{e}_i`.
* ``boids``: :math:`\mathbf{d} = w_0\mathbf{e}_i + w_c\,\widehat{(\bar{\mathbf{x}}_{\rm nb} -
  \mathbf{x}_i)} + w_a\,\widehat{\textstyle\sum\mathbf{e}_j}
  + w_s\,\widehat{\textstyle\sum_{r_{ij} < r_s} -\hat{\mathbf{r}}_{ij}}
  + w_g\,\widehat{(\bar{\mathbf{x}} - \mathbf{x}_i)}
  + w_h\,\widehat{\textstyle\sum_{\rm all}\mathbf{e}}`, neighbours within the vision radius;
  the speed is :math:`v_{\max}\,c_i^{\,\gamma}` clipped to :math:`[v_{\min}, v_{\max}]` with the
  local consensus :math:`c_i = |\sum_{j \in \{i\} \cup \rm nb} \mathbf{e}_j| / (n_i + 1)`
  (the contest paper's variable-speed rule).

References
----------
I. D. Couzin, J. Krause, R. James, G. D. Ruxton, N. R. Franks, "Collective memory and spatial
sorting in animal groups", J. Theor. Biol. 218, 1-11 (2002).
I. D. Couzin, J. Krause, N. R. Franks, S. A. Levin, "Effective leadership and decision-making
in animal groups on the move", Nature 433, 513-516 (2005).
C. W. Reynolds, "Flocks, herds and schools: a distributed behavioral model", SIGGRAPH 1987.
"""

from __future__ import annotations

import math

from numba import njit, prange

from flocklab.geometry.vectors import min_image, unit
from flocklab.models.zonal.params import RULES

RULE_CODES = {name: code for code, name in enumerate(RULES)}


@njit(cache=True, inline="always")
def _offset(i, j, pos, box):  # pragma: no cover
    """Separation r_ij = x_j - x_i (minimum image; one code path for 2-D and 3-D, z = 0 in
    2-D) and its length."""
    dx = min_image(pos[j, 0] - pos[i, 0], box)
    dy = min_image(pos[j, 1] - pos[i, 1], box)
    dz = min_image(pos[j, 2] - pos[i, 2], box)
    return dx, dy, dz, math.sqrt(dx * dx + dy * dy + dz * dz)


@njit(cache=True)
def couzin2002_one(i, pos, head, start, index, r_r, r_o, r_a, cos_half_fov, self_in_o,
                   box):  # pragma: no cover
    """Desired direction of agent i under the 2002 zones (unit vector, or zero)."""
    rx = ry = rz = 0.0
    ox = oy = oz = 0.0
    ax = ay = az = 0.0
    n_r = 0
    n_o = 0
    n_a = 0
    ex, ey, ez = head[i, 0], head[i, 1], head[i, 2]
    for q in range(start[i], start[i + 1]):
        j = index[q]
        dx, dy, dz, dist = _offset(i, j, pos, box)
        if dist == 0.0:
            continue
        if dist < r_r:
            rx -= dx / dist
            ry -= dy / dist
            rz -= dz / dist
            n_r += 1
        elif n_r == 0 and (ex * dx + ey * dy + ez * dz) >= cos_half_fov * dist:
            if dist < r_o:
                ox += head[j, 0]
                oy += head[j, 1]
                oz += head[j, 2]
                n_o += 1
            elif dist <= r_a:
                ax += dx / dist
                ay += dy / dist
                az += dz / dist
                n_a += 1
    if n_r > 0:
        return unit(rx, ry, rz)
    if n_o > 0 and self_in_o:
        ox += ex
        oy += ey
        oz += ez
    ox, oy, oz = unit(ox, oy, oz)
    ax, ay, az = unit(ax, ay, az)
    if n_o > 0 and n_a > 0:
        return unit(0.5 * (ox + ax), 0.5 * (oy + ay), 0.5 * (oz + az))
    if n_o > 0:
        return ox, oy, oz
    return ax, ay, az  # zero when n_a == 0 too: keep heading


@njit(cache=True)
def couzin2005_one(i, pos, head, start, index, alpha, rho, cos_half_fov, box):  # pragma: no cover
    """Desired direction of agent i under the 2005 rule (unit vector, or zero)."""
    rx = ry = rz = 0.0
    sx = sy = sz = 0.0
    n_r = 0
    n_s = 0
    ex, ey, ez = head[i, 0], head[i, 1], head[i, 2]
    for q in range(start[i], start[i + 1]):
        j = index[q]
        dx, dy, dz, dist = _offset(i, j, pos, box)
        if dist == 0.0:
            continue
        if dist < alpha:
            rx -= dx / dist
            ry -= dy / dist
            rz -= dz / dist
            n_r += 1
        elif n_r == 0 and dist <= rho and (ex * dx + ey * dy + ez * dz) >= cos_half_fov * dist:
            sx += dx / dist + head[j, 0]
            sy += dy / dist + head[j, 1]
            sz += dz / dist + head[j, 2]
            n_s += 1
    if n_r > 0:
        return unit(rx, ry, rz)
    if n_s > 0:
        return unit(sx + ex, sy + ey, sz + ez)
    return 0.0, 0.0, 0.0


@njit(cache=True)
def boids_one(i, pos, head, start, index, vision, separation, cos_half_fov, weights, centre,
              mean_head, box):  # pragma: no cover
    """Boids desired direction of agent i and its local consensus c_i."""
    cx = cy = cz = 0.0
    hx, hy, hz = head[i, 0], head[i, 1], head[i, 2]
    sx = sy = sz = 0.0
    n = 0
    ex, ey, ez = hx, hy, hz
    for q in range(start[i], start[i + 1]):
        j = index[q]
        dx, dy, dz, dist = _offset(i, j, pos, box)
        if dist == 0.0 or (ex * dx + ey * dy + ez * dz) < cos_half_fov * dist:
            continue
        if dist < separation:
            sx -= dx / dist
            sy -= dy / dist
            sz -= dz / dist
        if dist <= vision:
            cx += dx
            cy += dy
            cz += dz
            hx += head[j, 0]
            hy += head[j, 1]
            hz += head[j, 2]
            n += 1
    consensus = math.sqrt(hx * hx + hy * hy + hz * hz) / (n + 1)
    coh = unit(cx, cy, cz)  # direction to the neighbours' centroid
    ali = unit(hx - ex, hy - ey, hz - ez)
    sep = unit(sx, sy, sz)
    gc = unit(min_image(centre[0] - pos[i, 0], box), min_image(centre[1] - pos[i, 1], box),
               min_image(centre[2] - pos[i, 2], box))
    dx = weights[0] * ex + weights[1] * coh[0] + weights[2] * ali[0] + weights[3] * sep[0]
    dy = weights[0] * ey + weights[1] * coh[1] + weights[2] * ali[1] + weights[3] * sep[1]
    dz = weights[0] * ez + weights[1] * coh[2] + weights[2] * ali[2] + weights[3] * sep[2]
    dx += weights[4] * gc[0] + weights[5] * mean_head[0]
    dy += weights[4] * gc[1] + weights[5] * mean_head[1]
    dz += weights[4] * gc[2] + weights[5] * mean_head[2]
    ux, uy, uz = unit(dx, dy, dz)
    return ux, uy, uz, consensus


@njit(cache=True)
def group_centre_and_heading(pos, head, alive, centre, mean_head):  # pragma: no cover
    """Centroid and unit mean heading of the alive agents (written into the outputs)."""
    n = 0
    for a in range(3):
        centre[a] = 0.0
        mean_head[a] = 0.0
    for i in range(pos.shape[0]):
        if alive[i]:
            n += 1
            for a in range(3):
                centre[a] += pos[i, a]
                mean_head[a] += head[i, a]
    norm = math.sqrt(mean_head[0] ** 2 + mean_head[1] ** 2 + mean_head[2] ** 2)
    for a in range(3):
        centre[a] /= max(n, 1)
        if norm > 0.0:
            mean_head[a] /= norm


@njit(cache=True)
def _desired_range(lo, hi, rule, pos, head, alive, start, index, fparams, self_in_o, box,
                       centre, mean_head, desired, consensus):  # pragma: no cover
    for i in range(lo, hi):
        if not alive[i]:
            continue
        if rule == 0:
            d = couzin2002_one(i, pos, head, start, index, fparams[0], fparams[1], fparams[2],
                               fparams[3], self_in_o, box)
        elif rule == 1:
            d = couzin2005_one(i, pos, head, start, index, fparams[0], fparams[1], fparams[2],
                               box)
        else:
            dx, dy, dz, c = boids_one(i, pos, head, start, index, fparams[0], fparams[1],
                                      fparams[2], fparams[3:9], centre, mean_head, box)
            d = (dx, dy, dz)
            consensus[i] = c
        desired[i, 0] = d[0]
        desired[i, 1] = d[1]
        desired[i, 2] = d[2]


@njit(cache=True, parallel=True)
def desired_directions(chunks, rule, pos, head, alive, start, index, fparams, self_in_o, box,
                       centre, mean_head, desired, consensus):  # pragma: no cover
    """Desired unit directions (zero: keep heading) of all alive agents.

    Parameters
    ----------
    rule : int
        0 couzin2002, 1 couzin2005, 2 boids.
    fparams : ndarray (12,)
        couzin2002: r_r, r_o, r_a, cos(fov/2); couzin2005: alpha, rho, cos(fov/2);
        boids: vision, separation, cos(fov/2), then the six weights
        (inertia, cohesion, alignment, separation, group centre, group heading).
    desired : ndarray (N, 3)
        Output.
    consensus : ndarray (N,)
        Output (boids only): local consensus ``c_i``.
    """
    n = pos.shape[0]
    if chunks <= 1:
        _desired_range(0, n, rule, pos, head, alive, start, index, fparams, self_in_o, box,
                       centre, mean_head, desired, consensus)
        return
    for c in prange(chunks):
        _desired_range(c * n // chunks, (c + 1) * n // chunks, rule, pos, head, alive, start,
                       index, fparams, self_in_o, box, centre, mean_head, desired, consensus)
