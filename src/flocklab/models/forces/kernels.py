r"""Compiled kernels of the force-based swarm (numba, ``cache=True``): pure functions on arrays.

Positions and velocities have shape (N, 3) (``z = 0`` in 2-D); neighbour lists are the CSR
arrays ``start``, ``index`` of :class:`flocklab.geometry.hash_grid.NeighbourGrid` (self
excluded, dead agents excluded). Every per-agent sum runs over that agent's list in its fixed
order and writes only that agent's row, so results do not depend on the number of threads.

Pair potential (``pot`` = :func:`potential_vector`), with :math:`\hat r_{ij} = (x_i - x_j)/r`
and the radial force on *i* :math:`f(r) = -U'(r)` (positive: away from *j*):

* Morse (D'Orsogna et al. 2006): :math:`U = C_r e^{-r/l_r} - C_a e^{-r/l_a}`,
  :math:`f_{rep} = (C_r/l_r) e^{-r/l_r}`, :math:`f_{att} = -(C_a/l_a) e^{-r/l_a}`;
* generic attraction/repulsion (Gazi & Passino 2003): :math:`U = a r^2/2 + (bc/2) e^{-r^2/c}`,
  :math:`f_{rep} = b r e^{-r^2/c}`, :math:`f_{att} = -a r`.

Both are cut at :math:`r_c` (force zero beyond, potential shifted so that :math:`U(r_c) = 0`);
with no cut-off (:math:`r_c = \infty`) every pair interacts and the potential is unshifted.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from flocklab.core.random import counter_uniform
from flocklab.core.variants import serial_variant
from flocklab.geometry.vectors import min_image, turn_toward, unit, wrap_periodic

MORSE = 0
GENERIC = 1
# pot layout
_KIND, _CR, _LR, _CA, _LA, _A, _B, _C, _RCUT, _RSTAR = range(10)
TWO_PI = 2.0 * math.pi


def potential_vector(p: dict) -> np.ndarray:
    """The ``pot`` array of the kernels from resolved parameters: kind, C_r, l_r, C_a, l_a,
    a, b, c, the cut-off (``inf`` without one), r* (``inf`` stored as a huge number)."""
    kind = MORSE if p["potential"] == "morse" else GENERIC
    r_star = min(p["r_star"], 1e300)
    return np.array([kind, p["C_r"], p["l_r"], p["C_a"], p["l_a"], p["a"], p["b"], p["c"],
                     p["cutoff"], r_star], dtype=np.float64)


@njit(cache=True, inline="always")
def pair_force(r, pot):  # pragma: no cover
    """Radial force magnitudes (repulsive part, attractive part) at distance ``r``:
    :math:`-U_{rep}'(r)` and :math:`-U_{att}'(r)`."""
    if pot[_KIND] == MORSE:
        return (pot[_CR] / pot[_LR] * math.exp(-r / pot[_LR]),
                -pot[_CA] / pot[_LA] * math.exp(-r / pot[_LA]))
    return pot[_B] * r * math.exp(-r * r / pot[_C]), -pot[_A] * r


@njit(cache=True, inline="always")
def pair_energy(r, pot):  # pragma: no cover
    """Unshifted energies (repulsive part, attractive part) at distance ``r``."""
    if pot[_KIND] == MORSE:
        return pot[_CR] * math.exp(-r / pot[_LR]), -pot[_CA] * math.exp(-r / pot[_LA])
    return 0.5 * pot[_B] * pot[_C] * math.exp(-r * r / pot[_C]), 0.5 * pot[_A] * r * r


@njit(cache=True, inline="always")
def _separation(pos, i, j, box):  # pragma: no cover
    return (min_image(pos[i, 0] - pos[j, 0], box), min_image(pos[i, 1] - pos[j, 1], box),
            min_image(pos[i, 2] - pos[j, 2], box))


@njit(cache=True)
def _social_range(lo, hi, order, pos, start, index, pot, w_rep, w_att, box, mode, force,
                  rep_dir, att_dir):  # pragma: no cover
    r_cut_sq = pot[_RCUT] * pot[_RCUT]
    r_star = pot[_RSTAR]
    for k in range(lo, hi):
        i = order[k]
        fx = fy = fz = 0.0
        rx = ry = rz = 0.0
        ax = ay = az = 0.0
        for q in range(start[i], start[i + 1]):
            dx, dy, dz = _separation(pos, i, index[q], box)
            r2 = dx * dx + dy * dy + dz * dz
            if r2 > r_cut_sq or r2 == 0.0:
                continue
            r = math.sqrt(r2)
            if mode == 0:
                f_rep, f_att = pair_force(r, pot)
                f = (w_rep * f_rep + w_att * f_att) / r
                fx += f * dx
                fy += f * dy
                fz += f * dz
            elif r < r_star:
                rx += dx / r
                ry += dy / r
                rz += dz / r
            else:
                ax -= dx / r
                ay -= dy / r
                az -= dz / r
        if mode == 0:
            force[i, 0], force[i, 1], force[i, 2] = fx, fy, fz
        else:
            rep_dir[i, 0], rep_dir[i, 1], rep_dir[i, 2] = rx, ry, rz
            att_dir[i, 0], att_dir[i, 1], att_dir[i, 2] = ax, ay, az


@njit(cache=True)
def _zero_dead(alive, *arrays):  # pragma: no cover
    for i in range(alive.shape[0]):
        if not alive[i]:
            for out in arrays:
                out[i, 0] = out[i, 1] = out[i, 2] = 0.0


@njit(cache=True, parallel=True)
def social(chunks, order, n_alive, pos, alive, start, index, pot, w_rep, w_att, box, mode,
           force, rep_dir, att_dir):  # pragma: no cover
    r"""Pair terms of every alive agent over its neighbour list.

    ``mode`` 0 (inertial): ``force[i]`` :math:`= \sum_{j: r_{ij} \le r_c}
    (w_{rep} f_{rep}(r_{ij}) + w_{att} f_{att}(r_{ij}))\,\hat r_{ij}` (force units).
    ``mode`` 1 (non-inertial): ``rep_dir[i]`` :math:`= \sum_{r_{ij} < r^*} \hat r_{ij}` (away
    from neighbours closer than the equilibrium distance) and ``att_dir[i]``
    :math:`= -\sum_{r^* \le r_{ij} \le r_c} \hat r_{ij}` (toward the farther ones).
    Coincident agents (``r = 0``) exert nothing; dead agents get zeros. The agents are visited
    in the grid's cell ``order`` (its first ``n_alive`` entries), so consecutive agents share
    their neighbours and the positions read stay in cache; each agent's own sum runs over
    its list in a fixed order. ``chunks <= 1`` runs serially.
    """
    _zero_dead(alive, force, rep_dir, att_dir)
    if chunks <= 1:
        _social_range(0, n_alive, order, pos, start, index, pot, w_rep, w_att, box, mode,
                      force, rep_dir, att_dir)
    else:
        for c in prange(chunks):
            _social_range(c * n_alive // chunks, (c + 1) * n_alive // chunks, order, pos,
                          start, index, pot, w_rep, w_att, box, mode, force, rep_dir, att_dir)


@njit(cache=True)
def potential_energy(pos, alive, start, index, pot, w_rep, w_att, box):  # pragma: no cover
    r"""Total shifted pair energy :math:`\frac12 \sum_i \sum_{j \ne i, r_{ij} \le r_c}
    [w_{rep} (U_{rep}(r_{ij}) - U_{rep}(r_c)) + w_{att} (U_{att}(r_{ij}) - U_{att}(r_c))]`."""
    r_cut = pot[_RCUT]
    shift_rep, shift_att = pair_energy(r_cut, pot) if r_cut < np.inf else (0.0, 0.0)
    total = 0.0
    for i in range(pos.shape[0]):
        if not alive[i]:
            continue
        for q in range(start[i], start[i + 1]):
            dx, dy, dz = _separation(pos, i, index[q], box)
            r = math.sqrt(dx * dx + dy * dy + dz * dz)
            if r <= r_cut:
                u_rep, u_att = pair_energy(r, pot)
                total += w_rep * (u_rep - shift_rep) + w_att * (u_att - shift_att)
    return 0.5 * total


@njit(cache=True)
def _align_range(lo, hi, order, pos, vel, start, index, r_align, box, include_self, vsum,
                 count):  # pragma: no cover
    r2_max = r_align * r_align
    for k in range(lo, hi):
        i = order[k]
        sx = sy = sz = 0.0
        m = 0
        if include_self:
            sx, sy, sz, m = vel[i, 0], vel[i, 1], vel[i, 2], 1
        for q in range(start[i], start[i + 1]):
            j = index[q]
            dx, dy, dz = _separation(pos, i, j, box)
            if dx * dx + dy * dy + dz * dz <= r2_max:
                sx += vel[j, 0]
                sy += vel[j, 1]
                sz += vel[j, 2]
                m += 1
        vsum[i, 0], vsum[i, 1], vsum[i, 2] = sx, sy, sz
        count[i] = m


@njit(cache=True, parallel=True)
def alignment_sums(chunks, order, n_alive, pos, vel, alive, start, index, r_align, box,
                   include_self, vsum, count):  # pragma: no cover
    r"""``vsum[i]`` :math:`= \sum_{j: r_{ij} \le r_{align}} v_j` over the neighbours (and
    ``v_i`` itself when ``include_self``), ``count[i]`` their number; zero for the dead.
    Agents visited in cell ``order`` as in :func:`social`."""
    for i in range(alive.shape[0]):
        if not alive[i]:
            vsum[i, 0] = vsum[i, 1] = vsum[i, 2] = 0.0
            count[i] = 0
    if chunks <= 1:
        _align_range(0, n_alive, order, pos, vel, start, index, r_align, box, include_self,
                     vsum, count)
    else:
        for c in prange(chunks):
            _align_range(c * n_alive // chunks, (c + 1) * n_alive // chunks, order, pos, vel,
                         start, index, r_align, box, include_self, vsum, count)


@njit(cache=True)
def propel(vel, alive, alpha, beta, mass, t):  # pragma: no cover
    r"""Exact flow over time ``t`` of :math:`m\,\dot v = (\alpha - \beta |v|^2)\,v`.

    The direction is constant and :math:`u = |v|^2` obeys the logistic (Bernoulli) law
    :math:`\dot u = (2/m)(\alpha u - \beta u^2)`, so with :math:`E = e^{2\alpha t/m} - 1`

    .. math:: u(t) = u_0 (1 + E) / (1 + \beta u_0 E / \alpha)

    (:math:`E/\alpha \to 2t/m` as :math:`\alpha \to 0`); the velocity is scaled by
    :math:`\sqrt{u(t)/u_0}`. Valid for any sign of alpha (negative: linear friction).
    """
    x = 2.0 * alpha * t / mass
    e = math.expm1(x)
    e_over_alpha = e / alpha if abs(x) > 1e-12 else 2.0 * t / mass * (1.0 + 0.5 * x)
    for i in range(vel.shape[0]):
        if not alive[i]:
            continue
        u0 = vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1] + vel[i, 2] * vel[i, 2]
        scale = math.sqrt((1.0 + e) / (1.0 + beta * u0 * e_over_alpha))
        vel[i, 0] *= scale
        vel[i, 1] *= scale
        vel[i, 2] *= scale


@njit(cache=True)
def kick(vel, alive, acc, h):  # pragma: no cover
    """``vel += h acc`` for the alive agents."""
    for i in range(vel.shape[0]):
        if alive[i]:
            vel[i, 0] += h * acc[i, 0]
            vel[i, 1] += h * acc[i, 1]
            vel[i, 2] += h * acc[i, 2]


@njit(cache=True)
def drift(pos, vel, alive, h, box):  # pragma: no cover
    """``pos += h vel`` for the alive agents, wrapped into ``[0, box)`` when periodic."""
    for i in range(pos.shape[0]):
        if not alive[i]:
            continue
        for a in range(3):
            pos[i, a] = wrap_periodic(pos[i, a] + h * vel[i, a], box)


@njit(cache=True)
def steering(vel, alive, vsum, count, w_align, goal_vel, tempted, w_tempt, fear_vel, afraid,
             w_fear, external, out):  # pragma: no cover
    r"""Steering accelerations of the inertial form (the five influences' last three):

    .. math:: a_i = w_o (\bar v_i - v_i) + w_t (v^{goal}_i - v_i)[\mathrm{tempted}]
              + w_f (v^{esc}_i - v_i)[\mathrm{afraid}] + a^{ext}_i,

    :math:`\bar v_i` the mean velocity of the neighbours within ``r_align`` (no term
    without neighbours), :math:`a^{ext}` the external accelerations (``external``).
    """
    for i in range(vel.shape[0]):
        ax, ay, az = external[i, 0], external[i, 1], external[i, 2]
        if alive[i]:
            if w_align > 0.0 and count[i] > 0:
                ax += w_align * (vsum[i, 0] / count[i] - vel[i, 0])
                ay += w_align * (vsum[i, 1] / count[i] - vel[i, 1])
                az += w_align * (vsum[i, 2] / count[i] - vel[i, 2])
            if tempted[i]:
                ax += w_tempt * (goal_vel[i, 0] - vel[i, 0])
                ay += w_tempt * (goal_vel[i, 1] - vel[i, 1])
                az += w_tempt * (goal_vel[i, 2] - vel[i, 2])
            if afraid[i]:
                ax += w_fear * (fear_vel[i, 0] - vel[i, 0])
                ay += w_fear * (fear_vel[i, 1] - vel[i, 1])
                az += w_fear * (fear_vel[i, 2] - vel[i, 2])
        else:
            ax = ay = az = 0.0
        out[i, 0], out[i, 1], out[i, 2] = ax, ay, az


@njit(cache=True)
def member_forces(pos, alive, ppos, member, r_cut, box, out):  # pragma: no cover
    r"""Force on every alive prey of the predators' own Morse potentials (``member[k]`` =
    has one, C_r, l_r, C_a, l_a), cut at ``r_cut``:
    :math:`\sum_p [(C^p_r/l^p_r) e^{-r/l^p_r} - (C^p_a/l^p_a) e^{-r/l^p_a}]\,\hat r_{ip}`
    (the papers' attraction-repulsion function between a fish and the shark)."""
    r_cut_sq = r_cut * r_cut
    for i in range(pos.shape[0]):
        fx = fy = fz = 0.0
        if alive[i]:
            for k in range(ppos.shape[0]):
                if member[k, 0] == 0.0:
                    continue
                dx = min_image(pos[i, 0] - ppos[k, 0], box)
                dy = min_image(pos[i, 1] - ppos[k, 1], box)
                dz = min_image(pos[i, 2] - ppos[k, 2], box)
                r2 = dx * dx + dy * dy + dz * dz
                if r2 > r_cut_sq or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                f = (member[k, 1] / member[k, 2] * math.exp(-r / member[k, 2])
                     - member[k, 3] / member[k, 4] * math.exp(-r / member[k, 4])) / r
                fx += f * dx
                fy += f * dy
                fz += f * dz
        out[i, 0], out[i, 1], out[i, 2] = fx, fy, fz


@njit(cache=True, inline="always")
def normal(key, step, n, agent, k):  # pragma: no cover
    """Standard normal number ``k`` (0..2) of (key, step, agent): Box–Muller on the
    counter-based uniforms of counters ``8 (step n + agent) + 2k, + 2k + 1``."""
    base = (np.uint64(step) * np.uint64(n) + np.uint64(agent)) * np.uint64(8)
    u1 = counter_uniform(key, base + np.uint64(2 * k))
    u2 = counter_uniform(key, base + np.uint64(2 * k + 1))
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI * u2)


@njit(cache=True)
def noise_kick(vel, alive, amplitude, key, step, dim):  # pragma: no cover
    """Additive velocity noise ``vel += amplitude * xi``, xi standard normal per component
    (a pure function of key, step, agent and component)."""
    n = vel.shape[0]
    for i in range(n):
        if alive[i]:
            for a in range(dim):
                vel[i, a] += amplitude * normal(key, step, n, i, a)


@njit(cache=True, inline="always")
def _add_unit(dx, dy, dz, weight, x, y, z):  # pragma: no cover
    if weight == 0.0:
        return dx, dy, dz
    ux, uy, uz = unit(x, y, z)
    return dx + weight * ux, dy + weight * uy, dz + weight * uz


@njit(cache=True)
def directions(vel, alive, rep_dir, att_dir, vsum, goal_vel, tempted, fear_vel, afraid,
               external, weights, noise, key, step, dim, speed, escape_speed,
               out):  # pragma: no cover
    r"""Velocities of the non-inertial form:

    .. math:: D_i = w_{in} \hat v_i + w_r \hat D_r + w_a \hat D_a + w_o \hat D_o
              + w_t \hat v^{goal}_i + w_f \hat v^{esc}_i + w_a \hat a^{ext}_i, \qquad
              v_i \leftarrow s\,\widehat{D_i + \sigma \xi_i}

    (hats: unit vectors, zero vectors stay zero; ``weights`` = w_in, w_r, w_a, w_o, w_t,
    w_f; ``noise`` = sigma sqrt(dt) |D_i|; ``s`` the cruise speed, or ``escape_speed`` for a
    prey that fears a predator). An agent whose D is zero keeps its velocity direction.
    """
    n = vel.shape[0]
    for i in range(n):
        if not alive[i]:
            out[i, 0], out[i, 1], out[i, 2] = vel[i, 0], vel[i, 1], vel[i, 2]
            continue
        dx, dy, dz = _add_unit(0.0, 0.0, 0.0, weights[0], vel[i, 0], vel[i, 1], vel[i, 2])
        dx, dy, dz = _add_unit(dx, dy, dz, weights[1], rep_dir[i, 0], rep_dir[i, 1],
                               rep_dir[i, 2])
        dx, dy, dz = _add_unit(dx, dy, dz, weights[2], att_dir[i, 0], att_dir[i, 1],
                               att_dir[i, 2])
        dx, dy, dz = _add_unit(dx, dy, dz, weights[3], vsum[i, 0], vsum[i, 1], vsum[i, 2])
        if tempted[i]:
            dx, dy, dz = _add_unit(dx, dy, dz, weights[4], goal_vel[i, 0], goal_vel[i, 1],
                                   goal_vel[i, 2])
        dx, dy, dz = _add_unit(dx, dy, dz, weights[2], external[i, 0], external[i, 1],
                               external[i, 2])
        s = speed
        if afraid[i]:
            dx, dy, dz = _add_unit(dx, dy, dz, weights[5], fear_vel[i, 0], fear_vel[i, 1],
                                   fear_vel[i, 2])
            s = escape_speed
        if noise > 0.0:
            size = math.sqrt(dx * dx + dy * dy + dz * dz)
            dx += noise * size * normal(key, step, n, i, 0)
            dy += noise * size * normal(key, step, n, i, 1)
            if dim == 3:
                dz += noise * size * normal(key, step, n, i, 2)
        ux, uy, uz = unit(dx, dy, dz)
        if ux == 0.0 and uy == 0.0 and uz == 0.0:
            ux, uy, uz = unit(vel[i, 0], vel[i, 1], vel[i, 2])
        out[i, 0], out[i, 1], out[i, 2] = s * ux, s * uy, s * uz


@njit(cache=True, inline="always")
def escape_objective(rx, ry, rz, ux, uy, uz, speed, pvx, pvy, pvz, beta, horizon
                     ):  # pragma: no cover
    r"""Objective of the escape direction ``u`` for a prey at ``r`` from the predator:

    .. math:: J(u) = \beta \cos\angle(u, v_p) + (1 - \beta)\,
              \frac{|r|}{|r + (s u - v_p) H|}

    (the first term 0 when the predator stands still; ``inf`` when the look-ahead distance is
    0). Minimising it keeps distance (second term) and moves across or against the
    predator's heading (first term).
    """
    vp = math.sqrt(pvx * pvx + pvy * pvy + pvz * pvz)
    cos = (ux * pvx + uy * pvy + uz * pvz) / vp if vp > 0.0 else 0.0
    fx = rx + (speed * ux - pvx) * horizon
    fy = ry + (speed * uy - pvy) * horizon
    fz = rz + (speed * uz - pvz) * horizon
    ahead = math.sqrt(fx * fx + fy * fy + fz * fz)
    now = math.sqrt(rx * rx + ry * ry + rz * rz)
    if ahead == 0.0:
        return math.inf
    return beta * cos + (1.0 - beta) * now / ahead


@njit(cache=True)
def escape_velocities(pos, alive, ppos, pvel, fear_range, speed, mix, beta, horizon,
                      candidates, box, fear_vel, afraid):  # pragma: no cover
    r"""Escape velocity of every alive prey within ``fear_range`` of a predator (the
    nearest one): ``speed`` times the unit of :math:`(1 - m) \hat e_{flee} + m \hat u^*`,
    :math:`e_{flee}` away from the predator, :math:`u^*` the candidate direction minimising
    :func:`escape_objective` (first of equal ones), ``m`` = ``mix``."""
    r2_max = fear_range * fear_range
    for i in range(pos.shape[0]):
        afraid[i] = False
        fear_vel[i, 0] = fear_vel[i, 1] = fear_vel[i, 2] = 0.0
        if not alive[i]:
            continue
        best = -1
        best_r2 = r2_max
        for k in range(ppos.shape[0]):
            rx = min_image(pos[i, 0] - ppos[k, 0], box)
            ry = min_image(pos[i, 1] - ppos[k, 1], box)
            rz = min_image(pos[i, 2] - ppos[k, 2], box)
            r2 = rx * rx + ry * ry + rz * rz
            if r2 <= best_r2 and r2 > 0.0:
                best, best_r2 = k, r2
        if best < 0:
            continue
        rx = min_image(pos[i, 0] - ppos[best, 0], box)
        ry = min_image(pos[i, 1] - ppos[best, 1], box)
        rz = min_image(pos[i, 2] - ppos[best, 2], box)
        ex, ey, ez = unit(rx, ry, rz)
        if mix > 0.0:
            lowest = math.inf
            ox, oy, oz = ex, ey, ez
            for c in range(candidates.shape[0]):
                value = escape_objective(rx, ry, rz, candidates[c, 0], candidates[c, 1],
                                         candidates[c, 2], speed, pvel[best, 0], pvel[best, 1],
                                         pvel[best, 2], beta, horizon)
                if value < lowest:
                    lowest = value
                    ox, oy, oz = candidates[c, 0], candidates[c, 1], candidates[c, 2]
            ux, uy, uz = unit((1.0 - mix) * ex + mix * ox, (1.0 - mix) * ey + mix * oy,
                              (1.0 - mix) * ez + mix * oz)
            if ux == 0.0 and uy == 0.0 and uz == 0.0:
                ux, uy, uz = ox, oy, oz
            ex, ey, ez = ux, uy, uz
        afraid[i] = True
        fear_vel[i, 0], fear_vel[i, 1], fear_vel[i, 2] = speed * ex, speed * ey, speed * ez


@njit(cache=True, inline="always")
def nearest_alive(pos, alive, point, box, limit2, inclusive):  # pragma: no cover
    """Index of the alive agent nearest to ``point`` (minimum image) whose squared distance
    is below ``limit2`` (at most, when ``inclusive``; the last of equal ones then), or -1."""
    best, best_r2 = -1, limit2
    for i in range(pos.shape[0]):
        if not alive[i]:
            continue
        dx = min_image(pos[i, 0] - point[0], box)
        dy = min_image(pos[i, 1] - point[1], box)
        dz = min_image(pos[i, 2] - point[2], box)
        r2 = dx * dx + dy * dy + dz * dz
        if r2 < best_r2 or (inclusive and r2 == best_r2):
            best, best_r2 = i, r2
    return best


@njit(cache=True)
def predators_move(ppos, phead, pparams, pos, alive, counts, dt, dim, box
                   ):  # pragma: no cover
    r"""Pursuit: each predator turns its heading toward its target by at most
    ``turn_rate * dt`` and moves ``speed * dt`` along it.

    ``pparams[k]`` = speed, turn rate (rad/time), capture radius, rest time, target code
    (0 densest: the alive prey with the most neighbours, ``counts``; 1 nearest; 2 chosen:
    prey ``pparams[k, 5]``, the nearest once it is captured), prey index. Ties go to the
    lowest index. Returns nothing; without alive prey a predator goes straight on.
    """
    for k in range(ppos.shape[0]):
        code = int(pparams[k, 4])
        target = -1
        if code == 2 and alive[int(pparams[k, 5])]:
            target = int(pparams[k, 5])
        elif code == 0:
            most = -1
            for i in range(pos.shape[0]):
                if alive[i] and counts[i] > most:
                    most, target = counts[i], i
        if target < 0:
            target = nearest_alive(pos, alive, ppos[k], box, math.inf, False)
        if target >= 0:
            dx, dy, dz = unit(min_image(pos[target, 0] - ppos[k, 0], box),
                              min_image(pos[target, 1] - ppos[k, 1], box),
                              min_image(pos[target, 2] - ppos[k, 2], box))
            if not (dx == 0.0 and dy == 0.0 and dz == 0.0):
                hx, hy, hz = turn_toward(phead[k, 0], phead[k, 1], phead[k, 2], dx, dy, dz,
                                         pparams[k, 1] * dt, dim)
                phead[k, 0], phead[k, 1], phead[k, 2] = hx, hy, hz
        for a in range(3):
            ppos[k, a] = wrap_periodic(ppos[k, a] + pparams[k, 0] * dt * phead[k, a], box)


@njit(cache=True)
def predators_capture(ppos, prest, pparams, pcaptures, pos, alive, step, dt, box,
                      capture_step, captured_by):  # pragma: no cover
    """Each predator not resting (in index order) captures the nearest alive prey within its
    capture radius, then rests ``rest time``; resting predators count down. Returns the
    number of captures."""
    total = 0
    for k in range(ppos.shape[0]):
        if prest[k] > 0.0:
            prest[k] = max(0.0, prest[k] - dt)
            continue
        best = nearest_alive(pos, alive, ppos[k], box, pparams[k, 2] * pparams[k, 2], True)
        if best >= 0:
            alive[best] = False
            capture_step[best] = step
            captured_by[best] = k
            pcaptures[k] += 1
            prest[k] = pparams[k, 3]
            total += 1
    return total


# Serial twins for single-threaded runs (flocklab.core.variants).
social_serial = serial_variant(social)
alignment_sums_serial = serial_variant(alignment_sums)
