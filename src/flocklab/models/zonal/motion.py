r"""Steering (informed agents, escape, noise, turning cap, obstacle field) and motion.

See :mod:`flocklab.models.zonal.rules` for the order of the sub-steps and the equations. Obstacles
are an array ``obstacles`` of shape (K, 6): centre (3), radius :math:`a_k`, influence radius
:math:`R_k > a_k`, strength :math:`k_k` (1/s²·length → velocity change per unit time per unit
length, so :math:`k (R - r)` is an acceleration).

The hard guarantee (:func:`move`): the straight segment of every step is tested against every
obstacle (ray–sphere intersection). A step that would cross a surface goes to the surface
(pushed out by a relative 1e-9 against rounding), and the rest of the step slides along the
tangent plane there (which lies outside that sphere) unless the slide itself would hit another
obstacle, in which case the agent stays on the surface; the heading loses its inward normal
component. Positions are therefore never inside an obstacle.
"""

from __future__ import annotations

import math

from numba import njit, prange

from flocklab.core.random import counter_uniform
from flocklab.geometry.vectors import (
    TWO_PI,
    gaussian,
    min_image,
    noise_counter,
    rotate_noise,
    unit,
    wrap_periodic,
)
from flocklab.geometry.vectors import turn_toward as _turn_toward

SURFACE_MARGIN = 1e-9


@njit(cache=True, inline="always")
def _informed(i, dx, dy, dz, pos, omega, goal, seeks_food, food, box):  # pragma: no cover
    if omega[i] <= 0.0:
        return dx, dy, dz
    if seeks_food[i]:
        gx, gy, gz = unit(min_image(food[0] - pos[i, 0], box),
                           min_image(food[1] - pos[i, 1], box),
                           min_image(food[2] - pos[i, 2], box))
    else:
        gx, gy, gz = goal[i, 0], goal[i, 1], goal[i, 2]
    return unit(dx + omega[i] * gx, dy + omega[i] * gy, dz + omega[i] * gz)


@njit(cache=True, inline="always")
def _escape(i, dx, dy, dz, pos, pred_pos, pred_detect, k_e, k_c, box):  # pragma: no cover
    """Escape direction and whether agent i is fleeing."""
    fx = fy = fz = 0.0
    fleeing = False
    for p in range(pred_pos.shape[0]):
        rx = min_image(pos[i, 0] - pred_pos[p, 0], box)
        ry = min_image(pos[i, 1] - pred_pos[p, 1], box)
        rz = min_image(pos[i, 2] - pred_pos[p, 2], box)
        dist = math.sqrt(rx * rx + ry * ry + rz * rz)
        if dist < pred_detect[p] and dist > 0.0:
            fx += rx / dist
            fy += ry / dist
            fz += rz / dist
            fleeing = True
    if not fleeing:
        return dx, dy, dz, False
    fx, fy, fz = unit(fx, fy, fz)
    ux, uy, uz = unit(k_e * fx + k_c * dx, k_e * fy + k_c * dy, k_e * fz + k_c * dz)
    if ux == 0.0 and uy == 0.0 and uz == 0.0:  # evasion exactly cancels cohesion
        ux, uy, uz = fx, fy, fz
    return ux, uy, uz, True


@njit(cache=True, inline="always")
def _obstacle_field(px, py, pz, vx, vy, vz, obstacles, dt, box):  # pragma: no cover
    """Velocity after the obstacles' repulsive change k (R - r) dt along the outward unit."""
    for k in range(obstacles.shape[0]):
        rx = min_image(px - obstacles[k, 0], box)
        ry = min_image(py - obstacles[k, 1], box)
        rz = min_image(pz - obstacles[k, 2], box)
        r = math.sqrt(rx * rx + ry * ry + rz * rz)
        if obstacles[k, 3] < r < obstacles[k, 4]:
            dv = obstacles[k, 5] * (obstacles[k, 4] - r) * dt / r
            vx += dv * rx
            vy += dv * ry
            vz += dv * rz
    return vx, vy, vz


@njit(cache=True)
def _steer_range(lo, hi, pos, head, alive, desired, consensus, omega, goal, seeks_food, food,
                 pred_pos, pred_detect, escape_speed, fparams, key, step, dim, box, obstacles,
                 new_head, speed, fleeing):  # pragma: no cover
    n = pos.shape[0]
    base_speed, noise, max_turn, dt = fparams[0], fparams[1], fparams[2], fparams[3]
    v_min, v_max, gamma = fparams[6], fparams[7], fparams[8]
    for i in range(lo, hi):
        if not alive[i]:
            continue
        ex, ey, ez = head[i, 0], head[i, 1], head[i, 2]
        dx, dy, dz = desired[i, 0], desired[i, 1], desired[i, 2]
        if dx == 0.0 and dy == 0.0 and dz == 0.0:
            dx, dy, dz = ex, ey, ez
        dx, dy, dz = _informed(i, dx, dy, dz, pos, omega, goal, seeks_food, food, box)
        dx, dy, dz, flee = _escape(i, dx, dy, dz, pos, pred_pos, pred_detect, fparams[4],
                                   fparams[5], box)
        if noise > 0.0:
            psi = noise * gaussian(key, step, n, i)
            phi = TWO_PI * counter_uniform(key, noise_counter(step, n, i, 2))
            dx, dy, dz = rotate_noise(dx, dy, dz, psi, phi, dim)
        ex, ey, ez = _turn_toward(ex, ey, ez, dx, dy, dz, max_turn, dim)
        if flee:
            s = escape_speed[i]
        elif v_max > 0.0:
            s = min(max(v_max * consensus[i] ** gamma, v_min), v_max)
        else:
            s = base_speed
        if obstacles.shape[0] > 0:
            vx, vy, vz = _obstacle_field(pos[i, 0], pos[i, 1], pos[i, 2], s * ex, s * ey, s * ez,
                                         obstacles, dt, box)
            ex, ey, ez = unit(vx, vy, vz)
        new_head[i, 0] = ex
        new_head[i, 1] = ey
        new_head[i, 2] = ez
        speed[i] = s
        fleeing[i] = flee


@njit(cache=True, parallel=True)
def steer(chunks, pos, head, alive, desired, consensus, omega, goal, seeks_food, food, pred_pos,
          pred_detect, escape_speed, fparams, key, step, dim, box, obstacles, new_head, speed,
          fleeing):  # pragma: no cover
    """New headings and speeds of all alive agents (synchronous: reads ``head``, writes new).

    Parameters
    ----------
    desired : ndarray (N, 3)
        Unit desired directions (zero: keep heading).
    consensus : ndarray (N,)
        Boids local consensus (ignored otherwise).
    omega : ndarray (N,)
        Weight of the preferred direction (0: uninformed).
    goal : ndarray (N, 3)
        Preferred unit directions; ``seeks_food[i]`` replaces it by the unit vector to ``food``.
    pred_pos : ndarray (P, 3), pred_detect : ndarray (P,)
        Predator positions and the distances within which prey detect them.
    escape_speed : ndarray (N,)
        Each agent's limit speed, used while fleeing.
    fparams : ndarray (9,)
        speed, noise (rad), max turn per step (rad), dt, k_e, k_c, then the boids speed rule
        (v_min, v_max, exponent gamma; v_max <= 0 means constant speed).
    new_head : ndarray (N, 3), speed : ndarray (N,), fleeing : ndarray of bool (N,)
        Outputs.
    """
    n = pos.shape[0]
    if chunks <= 1:
        _steer_range(0, n, pos, head, alive, desired, consensus, omega, goal, seeks_food, food,
                     pred_pos, pred_detect, escape_speed, fparams, key, step, dim, box,
                     obstacles, new_head, speed, fleeing)
        return
    for c in prange(chunks):
        _steer_range(c * n // chunks, (c + 1) * n // chunks, pos, head, alive, desired,
                     consensus, omega, goal, seeks_food, food, pred_pos, pred_detect,
                     escape_speed, fparams, key, step, dim, box, obstacles, new_head, speed,
                     fleeing)


@njit(cache=True, inline="always")
def _first_hit(px, py, pz, sx, sy, sz, obstacles, box):  # pragma: no cover
    """Smallest t in [0, 1] at which p + t s enters an obstacle, and which one (-1: none)."""
    t_hit = 2.0
    hit = -1
    for k in range(obstacles.shape[0]):
        fx = min_image(px - obstacles[k, 0], box)
        fy = min_image(py - obstacles[k, 1], box)
        fz = min_image(pz - obstacles[k, 2], box)
        a = sx * sx + sy * sy + sz * sz
        b = 2.0 * (fx * sx + fy * sy + fz * sz)
        c = fx * fx + fy * fy + fz * fz - obstacles[k, 3] ** 2
        if a == 0.0 or b >= 0.0:  # not moving, or moving away from the centre
            continue
        disc = b * b - 4.0 * a * c
        if disc < 0.0:
            continue
        t = (-b - math.sqrt(disc)) / (2.0 * a)
        if c <= 0.0:
            t = 0.0  # on (or, by rounding, just inside) the surface and moving inward
        if t <= 1.0 and t < t_hit:
            t_hit = t
            hit = k
    return t_hit, hit


@njit(cache=True)
def _move_range(lo, hi, pos, head, speed, alive, dt, obstacles, box):  # pragma: no cover
    for i in range(lo, hi):
        if not alive[i]:
            continue
        sx = speed[i] * head[i, 0] * dt
        sy = speed[i] * head[i, 1] * dt
        sz = speed[i] * head[i, 2] * dt
        t, k = _first_hit(pos[i, 0], pos[i, 1], pos[i, 2], sx, sy, sz, obstacles, box)
        if k < 0:
            pos[i, 0] = wrap_periodic(pos[i, 0] + sx, box)
            pos[i, 1] = wrap_periodic(pos[i, 1] + sy, box)
            pos[i, 2] = wrap_periodic(pos[i, 2] + sz, box)
            continue
        # reach the surface (pushed out against rounding), then slide: the rest of the step
        # loses its inward normal part, unless that tangential slide would hit another obstacle
        cx, cy, cz, a = obstacles[k, 0], obstacles[k, 1], obstacles[k, 2], obstacles[k, 3]
        nx, ny, nz = unit(min_image(pos[i, 0] + t * sx - cx, box),
                           min_image(pos[i, 1] + t * sy - cy, box),
                           min_image(pos[i, 2] + t * sz - cz, box))
        radius = a * (1.0 + SURFACE_MARGIN)
        px, py, pz = cx + radius * nx, cy + radius * ny, cz + radius * nz
        inward = sx * nx + sy * ny + sz * nz
        rest = 1.0 - t
        tx = rest * (sx - inward * nx)
        ty = rest * (sy - inward * ny)
        tz = rest * (sz - inward * nz)
        if _first_hit(px, py, pz, tx, ty, tz, obstacles, box)[1] < 0:
            px += tx
            py += ty
            pz += tz
        pos[i, 0] = wrap_periodic(px, box)
        pos[i, 1] = wrap_periodic(py, box)
        pos[i, 2] = wrap_periodic(pz, box)
        ux, uy, uz = unit(sx - inward * nx, sy - inward * ny, sz - inward * nz)
        if ux == 0.0 and uy == 0.0 and uz == 0.0:  # head-on: turn away
            ux, uy, uz = nx, ny, nz
        head[i, 0] = ux
        head[i, 1] = uy
        head[i, 2] = uz


@njit(cache=True, parallel=True)
def move(chunks, pos, head, speed, alive, dt, obstacles, box):  # pragma: no cover
    """Advance positions by ``speed * head * dt`` without ever entering an obstacle.

    Parameters
    ----------
    pos, head : ndarray (N, 3)
        Updated in place (``head`` only for agents stopped on an obstacle surface).
    speed : ndarray (N,)
    alive : ndarray of bool (N,)
    dt : float
    obstacles : ndarray (K, 6)
    box : float
        Periodic box side, or 0.
    """
    n = pos.shape[0]
    if chunks <= 1:
        _move_range(0, n, pos, head, speed, alive, dt, obstacles, box)
        return
    for c in prange(chunks):
        _move_range(c * n // chunks, (c + 1) * n // chunks, pos, head, speed, alive, dt,
                    obstacles, box)
