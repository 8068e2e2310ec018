r"""Compiled kernels of the foraging model (numba, ``cache=True``): pure functions on arrays.

One time step of length :math:`\Delta t` from :math:`t = g\,\Delta t` (global step ``g``):

1. :func:`decide_and_move` — every living agent chooses its direction from what it perceives
   within the radius :math:`R` (partners from the hashed grid's CSR list, food from the
   field) and moves :math:`v\,\Delta t` (walls reflect; obstacles are never entered,
   :func:`move`);
2. :func:`feed` — metabolism :math:`k\,|\Delta x| + b\,\Delta t` is paid, food is eaten at the
   new position, the field is depleted, the dead are recorded;
3. :func:`regrow` — :math:`F \leftarrow F_0 - (F_0 - F)\,e^{-r\Delta t}`;
4. :func:`hunt` — predators chase the nearest living agent and capture within their radius.

Behaviour of a living agent ``i`` with partners :math:`J` (:math:`n_f = |J|`), own food
value :math:`Y_i = F(\mathbf{x}_i)`, in this order (artificial fish swarm, Li, Shao and Qian
2002):

* **flee**: a predator closer than :math:`R_f` — run straight away from the nearest one at
  :math:`v_{max}` (no other term);
* **follow**: the partner with the most food :math:`Y_{max}`, if :math:`Y_{max} > Y_i`,
  :math:`Y_{max} > Y^*` and :math:`Y_{max}/n_f > \delta Y_i`; **swarm**: the partners'
  centre :math:`\mathbf{x}_c`, if :math:`Y_c > Y_i`, :math:`Y_c > Y^*` and
  :math:`Y_c/n_f > \delta Y_i`; of the two the one with more food (``social`` only);
* **forage**: up to ``tries`` points uniform in the disc of radius :math:`R`, inside the
  arena and at least :math:`d_{sa}` from every obstacle; the first with
  :math:`Y_j \ge Y_i` (the paper's rule) and :math:`Y_j > Y^*`;
* **random move**: the heading turned by an angle uniform in
  :math:`[-\sigma\sqrt{3\Delta t}, \sigma\sqrt{3\Delta t}]` (variance :math:`\sigma^2\Delta t`:
  rotational diffusion :math:`D_r = \sigma^2/2` whatever the step, persistence time
  :math:`2/\sigma^2`).

Food is a target only above the break-even density :math:`Y^* = (k v_0 + b)/\gamma`, where
eating pays for swimming: a forager stays on a patch while it pays, leaves one grazed below
it, and in empty water keeps its persistent random move (with the paper's bare
:math:`Y_j \ge Y_0` a forager in empty water accepts every sample, a diffusive search, and
one on a grazed patch stays there starving). The paper's "0 < S <= 1: foraging state" is
read literally: an agent forages at any energy; :math:`E_{max}` only stops the intake.

A partner closer than the safety distance :math:`d_{sa}` takes priority: the agent then
swims straight away from the partners that close,
:math:`\mathbf{e}_i \leftarrow \hat{\mathbf{u}}\big(\sum_{j: r_{ij} < d_{sa}}
(\mathbf{x}_i - \mathbf{x}_j)/r_{ij}\big)` (the contest paper: "when the distance is below
the safety distance the individual swims away"; the zone of repulsion of Couzin et al.
2002). Otherwise the chosen intention :math:`\mathbf{d}_1` (unit vector toward the target)
is combined with schooling as in the paper's weighted directions,

.. math::

    \mathbf{D} = \lambda_1 \mathbf{d}_1 + \lambda_2 \hat{\mathbf{u}}(\mathbf{x}_c - \mathbf{x}_i)
    + \lambda_3 \hat{\mathbf{u}}\Big(\sum_{j\in J}\mathbf{e}_j\Big),
    \qquad \mathbf{e}_i \leftarrow \hat{\mathbf{u}}(\mathbf{D}),

cohesion and alignment only when ``social``. Random numbers are counter-based
(:func:`flocklab.core.random.counter_uniform` of counter :math:`(gN + i)K + j`,
:math:`K = 2 n_{try} + 1`), so results do not depend on threads, chunking or checkpoints;
each agent reads only the state at the start of the step, so the update is synchronous.

References
----------
X. L. Li, Z. J. Shao and J. X. Qian, "An optimizing method based on autonomous animats:
fish-swarm algorithm", Systems Engineering — Theory & Practice 22(11), 32 (2002).
J. O'Rourke, *Computational Geometry in C*, 2nd ed., CUP (1998), §7.4 (point in polygon).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from flocklab.core.random import counter_uniform
from flocklab.core.variants import serial_variant

#: Behaviour codes (snapshot variable ``behaviour``).
WANDER, FORAGE, SWARM, FOLLOW, FLEE = 0, 1, 2, 3, 4
#: Causes of death (run output ``cause``).
LIVING, STARVED, CAPTURED = 0, 1, 2
#: Layout of the float parameter vector ``par``.
(SPEED, FLEE_SPEED, VISUAL, TRIES, CROWDING, NOISE, SAFETY, W_INTENT, W_COHESION, W_ALIGN,
 E_MAX, FLEE_RANGE, DT, LX, LY, K_METABOLIC, B_METABOLIC, FEEDING, SOCIAL,
 DEPLETION) = range(20)
N_PAR = 20
#: Layout of the food-grid geometry ``geo``: cell sides, inverse sides, cells per axis.
HX, HY, INV_HX, INV_HY, NX, NY = range(6)


# --------------------------------------------------------------------------- food field


@njit(cache=True, inline="always")
def cell_index(x, y, geo):  # pragma: no cover
    """Index ``iy * nx + ix`` of the food cell holding ``(x, y)`` (clamped to the grid)."""
    nx = int(geo[NX])
    ny = int(geo[NY])
    ix = min(max(int(x * geo[INV_HX]), 0), nx - 1)
    iy = min(max(int(y * geo[INV_HY]), 0), ny - 1)
    return iy * nx + ix


@njit(cache=True, inline="always")
def food_at(field, x, y, geo):  # pragma: no cover
    """Food density :math:`F(\\mathbf{x})` (piecewise constant on the cells)."""
    return field[cell_index(x, y, geo)]


# --------------------------------------------------------------------------- obstacles


@njit(cache=True, inline="always")
def _orient(ax, ay, bx, by, cx, cy):  # pragma: no cover
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True, inline="always")
def _on_box(ax, ay, bx, by, cx, cy):  # pragma: no cover
    return min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)


@njit(cache=True)
def segments_intersect(ax, ay, bx, by, cx, cy, dx, dy):  # pragma: no cover
    """Whether segments ab and cd share a point (touching and collinear overlap count)."""
    d1 = _orient(cx, cy, dx, dy, ax, ay)
    d2 = _orient(cx, cy, dx, dy, bx, by)
    d3 = _orient(ax, ay, bx, by, cx, cy)
    d4 = _orient(ax, ay, bx, by, dx, dy)
    if ((d1 > 0.0 > d2) or (d1 < 0.0 < d2)) and ((d3 > 0.0 > d4) or (d3 < 0.0 < d4)):
        return True
    return ((d1 == 0.0 and _on_box(cx, cy, dx, dy, ax, ay))
            or (d2 == 0.0 and _on_box(cx, cy, dx, dy, bx, by))
            or (d3 == 0.0 and _on_box(ax, ay, bx, by, cx, cy))
            or (d4 == 0.0 and _on_box(ax, ay, bx, by, dx, dy)))


@njit(cache=True, inline="always")
def _edge_distance_sq(x, y, x0, y0, x1, y1):  # pragma: no cover
    ex = x1 - x0
    ey = y1 - y0
    length_sq = ex * ex + ey * ey
    s = 0.0 if length_sq == 0.0 else ((x - x0) * ex + (y - y0) * ey) / length_sq
    s = min(max(s, 0.0), 1.0)
    px = x0 + s * ex - x
    py = y0 + s * ey - y
    return px * px + py * py


@njit(cache=True)
def point_blocked(x, y, edges, poly_start, clearance):  # pragma: no cover
    """Whether ``(x, y)`` is inside an obstacle (crossing number) or closer than
    ``clearance`` to one of its edges.

    Parameters
    ----------
    edges : ndarray, shape (M, 4)
        Edges ``x0, y0, x1, y1``; polygon ``p`` owns ``edges[poly_start[p]:poly_start[p+1]]``
        (a closed ring).
    poly_start : ndarray of int64, shape (P + 1,)
    clearance : float
        Minimum distance to the edges (length).
    """
    c2 = clearance * clearance
    for p in range(poly_start.shape[0] - 1):
        inside = False
        for e in range(poly_start[p], poly_start[p + 1]):
            x0, y0, x1, y1 = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            if (y0 > y) != (y1 > y):
                if x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                    inside = not inside
            if clearance > 0.0 and _edge_distance_sq(x, y, x0, y0, x1, y1) < c2:
                return True
        if inside:
            return True
    return False


@njit(cache=True)
def move_blocked(x0, y0, x1, y1, edges, poly_start, clearance):  # pragma: no cover
    """Whether the straight move from ``(x0, y0)`` to ``(x1, y1)`` touches an obstacle edge or
    ends inside an obstacle or within ``clearance`` of one."""
    if point_blocked(x1, y1, edges, poly_start, clearance):
        return True
    for e in range(edges.shape[0]):
        if segments_intersect(x0, y0, x1, y1, edges[e, 0], edges[e, 1], edges[e, 2],
                              edges[e, 3]):
            return True
    return False


@njit(cache=True)
def _nearest_edge(x, y, edges):  # pragma: no cover
    best = 0
    best_d = np.inf
    for e in range(edges.shape[0]):
        d = _edge_distance_sq(x, y, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3])
        if d < best_d:
            best_d = d
            best = e
    return best


@njit(cache=True)
def move(x, y, ex, ey, length, lx, ly, edges, poly_start, clearance):  # pragma: no cover
    """One move of ``length`` along the unit heading ``(ex, ey)`` from a free point.

    Walls reflect the heading component that would leave :math:`[0, L_x]\\times[0, L_y]`.
    A move that would touch an obstacle slides along the edge nearest the start (the step's
    component along it); if that is blocked too the body stays and its heading is mirrored
    in that edge. The result is therefore never inside an obstacle, nor within
    ``clearance`` of one, whenever the start was not.

    Returns
    -------
    x, y, ex, ey : float
        New position and heading.
    """
    dx = length * ex
    dy = length * ey
    if x + dx < 0.0 or x + dx > lx:
        dx = -dx
        ex = -ex
    if y + dy < 0.0 or y + dy > ly:
        dy = -dy
        ey = -ey
    nx = min(max(x + dx, 0.0), lx)
    ny = min(max(y + dy, 0.0), ly)
    if edges.shape[0] == 0 or not move_blocked(x, y, nx, ny, edges, poly_start, clearance):
        return nx, ny, ex, ey
    e = _nearest_edge(x, y, edges)
    tx = edges[e, 2] - edges[e, 0]
    ty = edges[e, 3] - edges[e, 1]
    norm = math.hypot(tx, ty)
    tx /= norm
    ty /= norm
    along = dx * tx + dy * ty
    sx = min(max(x + along * tx, 0.0), lx)
    sy = min(max(y + along * ty, 0.0), ly)
    if not move_blocked(x, y, sx, sy, edges, poly_start, clearance):
        sign = 1.0 if along >= 0.0 else -1.0
        return sx, sy, sign * tx, sign * ty
    normal = ex * (-ty) + ey * tx
    return x, y, ex + 2.0 * normal * ty, ey - 2.0 * normal * tx


# --------------------------------------------------------------------------- behaviour


@njit(cache=True, inline="always")
def _unit(x, y):  # pragma: no cover
    norm = math.hypot(x, y)
    if norm == 0.0:
        return 0.0, 0.0
    return x / norm, y / norm


@njit(cache=True)
def _flee_direction(x, y, ppos, flee_range):  # pragma: no cover
    """Unit vector away from the nearest predator closer than ``flee_range`` (0, 0: none)."""
    best = flee_range * flee_range
    fx = 0.0
    fy = 0.0
    for p in range(ppos.shape[0]):
        dx = x - ppos[p, 0]
        dy = y - ppos[p, 1]
        d2 = dx * dx + dy * dy
        if d2 < best:
            best = d2
            fx, fy = _unit(dx, dy)
            if fx == 0.0 and fy == 0.0:
                fx = 1.0
    return fx, fy


@njit(cache=True)
def _forage(x, y, own, worth, field, geo, edges, poly_start, par, key, base
            ):  # pragma: no cover
    """Try-number search: the first of ``tries`` points in the disc of radius R that is free
    and holds food worth eating (above ``worth``), at least ``own``; returns
    (found, tx, ty)."""
    radius = par[VISUAL]
    for m in range(int(par[TRIES])):
        u1 = counter_uniform(key, base + np.uint64(2 * m))
        u2 = counter_uniform(key, base + np.uint64(2 * m + 1))
        r = radius * math.sqrt(u1)
        angle = 2.0 * math.pi * u2
        px = x + r * math.cos(angle)
        py = y + r * math.sin(angle)
        if px < 0.0 or px > par[LX] or py < 0.0 or py > par[LY]:
            continue
        value = food_at(field, px, py, geo)
        if value < own or value <= worth:
            continue
        if edges.shape[0] and point_blocked(px, py, edges, poly_start, par[SAFETY]):
            continue
        return True, px, py
    return False, x, y


@njit(cache=True)
def _partners(i, pos, head, start, index, field, geo, safety):  # pragma: no cover
    """Sums over the partners of agent ``i``: count, position sum, heading sum, separation
    sum and count, and the partner with the most food (the lowest index on ties, so the
    choice does not depend on the list's order)."""
    xi = pos[i, 0]
    yi = pos[i, 1]
    n_f = 0
    sx = sy = ax = ay = px = py = 0.0
    n_sep = 0
    best_y = -1.0
    best_j = -1
    bx = by = 0.0
    for q in range(start[i], start[i + 1]):
        j = index[q]
        dx = pos[j, 0] - xi
        dy = pos[j, 1] - yi
        n_f += 1
        sx += pos[j, 0]
        sy += pos[j, 1]
        ax += head[j, 0]
        ay += head[j, 1]
        r = math.hypot(dx, dy)
        if r < safety and r > 0.0:
            px -= dx / r
            py -= dy / r
            n_sep += 1
        value = food_at(field, pos[j, 0], pos[j, 1], geo)
        if value > best_y or (value == best_y and j < best_j):
            best_y = value
            best_j = j
            bx = pos[j, 0]
            by = pos[j, 1]
    return n_f, sx, sy, ax, ay, px, py, n_sep, best_y, bx, by


@njit(cache=True, inline="always")
def _break_even(par):  # pragma: no cover
    """Break-even food density :math:`Y^* = (k v_0 + b)/\\gamma` (infinite without feeding)."""
    cost = par[K_METABOLIC] * par[SPEED] + par[B_METABOLIC]
    return cost / par[FEEDING] if par[FEEDING] > 0.0 else np.inf


@njit(cache=True)
def _intention(x, y, ex, ey, n_f, cx, cy, best_y, bx, by, field, geo, edges, poly_start, par,
               key, base):  # pragma: no cover
    """The own intention d_1 of a living, non-fleeing agent and its behaviour code."""
    own = food_at(field, x, y, geo)
    worth = _break_even(par)
    if par[SOCIAL] > 0.0 and n_f > 0:
        centre = food_at(field, cx, cy, geo)
        limit = par[CROWDING] * own
        follow = best_y > own and best_y > worth and best_y / n_f > limit
        swarm = centre > own and centre > worth and centre / n_f > limit
        if follow and (not swarm or best_y >= centre):
            dx, dy = _unit(bx - x, by - y)
            if dx != 0.0 or dy != 0.0:
                return dx, dy, FOLLOW
        if swarm:
            dx, dy = _unit(cx - x, cy - y)
            if dx != 0.0 or dy != 0.0:
                return dx, dy, SWARM
    found, tx, ty = _forage(x, y, own, worth, field, geo, edges, poly_start, par, key, base)
    if found:
        dx, dy = _unit(tx - x, ty - y)
        if dx != 0.0 or dy != 0.0:
            return dx, dy, FORAGE
    u = counter_uniform(key, base + np.uint64(2 * int(par[TRIES])))
    turn = (2.0 * u - 1.0) * par[NOISE] * math.sqrt(3.0 * par[DT])
    c = math.cos(turn)
    s = math.sin(turn)
    return c * ex - s * ey, s * ex + c * ey, WANDER


@njit(cache=True)
def decide_one(i, pos, head, start, index, field, geo, edges, poly_start, ppos, par, key,
               step):  # pragma: no cover
    """Direction, speed and behaviour code of living agent ``i`` (see the module docstring)."""
    n = pos.shape[0]
    x = pos[i, 0]
    y = pos[i, 1]
    if ppos.shape[0]:
        fx, fy = _flee_direction(x, y, ppos, par[FLEE_RANGE])
        if fx != 0.0 or fy != 0.0:
            return fx, fy, par[FLEE_SPEED], FLEE
    draws = np.uint64(2 * int(par[TRIES]) + 1)
    base = (np.uint64(step) * np.uint64(n) + np.uint64(i)) * draws
    n_f, sx, sy, ax, ay, px, py, n_sep, best_y, bx, by = _partners(
        i, pos, head, start, index, field, geo, par[SAFETY])
    cx = sx / n_f if n_f else x
    cy = sy / n_f if n_f else y
    dx, dy, code = _intention(x, y, head[i, 0], head[i, 1], n_f, cx, cy, best_y, bx, by,
                              field, geo, edges, poly_start, par, key, base)
    if n_sep:
        ux, uy = _unit(px, py)
        if ux != 0.0 or uy != 0.0:
            return ux, uy, par[SPEED], code
    wx = par[W_INTENT] * dx
    wy = par[W_INTENT] * dy
    if par[SOCIAL] > 0.0 and n_f > 0:
        ux, uy = _unit(cx - x, cy - y)
        wx += par[W_COHESION] * ux
        wy += par[W_COHESION] * uy
        ux, uy = _unit(ax, ay)
        wx += par[W_ALIGN] * ux
        wy += par[W_ALIGN] * uy
    ux, uy = _unit(wx, wy)
    if ux == 0.0 and uy == 0.0:
        ux, uy = _unit(dx, dy)
        if ux == 0.0 and uy == 0.0:
            ux, uy = head[i, 0], head[i, 1]
    return ux, uy, par[SPEED], code


@njit(cache=True, parallel=True)
def decide_and_move(pos, head, alive, start, index, field, geo, edges, poly_start, ppos, par,
                    key, step, new_pos, new_head, moved, behaviour):  # pragma: no cover
    """Every living agent decides and moves (synchronous: reads only the old state).

    Parameters
    ----------
    pos : ndarray, shape (N, 3)
        Positions (``z = 0``), length.
    head : ndarray, shape (N, 2)
        Unit headings.
    alive : ndarray of bool, shape (N,)
    start, index : ndarray of int64
        CSR partner lists within :math:`R` (:class:`flocklab.geometry.hash_grid.NeighbourGrid`).
    field : ndarray, shape (ny * nx,)
        Food density, energy/length².
    geo : ndarray, shape (6,)
        Food-grid geometry (:data:`HX` ...).
    edges, poly_start : ndarray
        Obstacle edges (see :func:`point_blocked`).
    ppos : ndarray, shape (P, 2)
        Predator positions.
    par : ndarray, shape (N_PAR,)
        Parameters (:data:`SPEED` ...).
    key : uint64
        The run's noise key.
    step : int
        Global step number ``g``.
    new_pos, new_head, moved, behaviour : ndarray
        Outputs: positions (N, 3), headings (N, 2), distance moved (N,), behaviour code (N,).
    """
    dt = par[DT]
    for i in prange(pos.shape[0]):
        if not alive[i]:
            new_pos[i, 0] = pos[i, 0]
            new_pos[i, 1] = pos[i, 1]
            new_pos[i, 2] = 0.0
            new_head[i, 0] = head[i, 0]
            new_head[i, 1] = head[i, 1]
            moved[i] = 0.0
            continue
        ux, uy, speed, code = decide_one(i, pos, head, start, index, field, geo, edges,
                                         poly_start, ppos, par, key, step)
        x, y, ex, ey = move(pos[i, 0], pos[i, 1], ux, uy, speed * dt, par[LX], par[LY], edges,
                            poly_start, par[SAFETY])
        new_pos[i, 0] = x
        new_pos[i, 1] = y
        new_pos[i, 2] = 0.0
        new_head[i, 0] = ex
        new_head[i, 1] = ey
        moved[i] = math.hypot(x - pos[i, 0], y - pos[i, 1])
        behaviour[i] = code


# --------------------------------------------------------------------------- energy


@njit(cache=True)
def feed(pos, moved, energy, alive, field, geo, par, t_old, demand, cell_demand, eaten,
         first_food, death_time, cause):  # pragma: no cover
    r"""Metabolism, feeding, depletion and starvation for one step (serial, fixed order).

    Each living agent pays :math:`c_i = k\,|\Delta\mathbf{x}_i| + b\,\Delta t` and asks for
    :math:`d_i = \min(\gamma F_c \Delta t,\; E_{max} - (E_i - c_i))` from the cell ``c`` it
    now stands in (nothing above :math:`E_{max}`). With depletion the cell holds
    :math:`F_c A_c` and every agent in it gets the share
    :math:`s_c = \min(1, F_c A_c / \sum_{j\in c} d_j)` of its demand (food shared equally in
    proportion), and :math:`F_c` drops by what was eaten over :math:`A_c`. Energy is linear in
    time within a step, so an agent whose new energy is :math:`\le 0` died at
    :math:`t + \Delta t\, E_{old}/(E_{old} - E_{new})`.

    Parameters
    ----------
    pos : ndarray, shape (N, 3)
        Positions after the move.
    moved : ndarray, shape (N,)
        Distance moved in the step.
    demand : ndarray, shape (N,)
        Work space.
    cell_demand : ndarray, shape (ny * nx,)
        Work space, all zero on entry and on return.
    eaten, first_food, death_time, cause : ndarray, shape (N,)
        Updated: energy eaten so far, first time on food (-1: never), time of death
        (-1: alive), cause of death.
    """
    dt = par[DT]
    area = geo[HX] * geo[HY]
    e_max = par[E_MAX]
    t_new = t_old + dt
    n = pos.shape[0]
    for i in range(n):
        if alive[i]:
            c = cell_index(pos[i, 0], pos[i, 1], geo)
            after = energy[i] - (par[K_METABOLIC] * moved[i] + par[B_METABOLIC] * dt)
            demand[i] = min(par[FEEDING] * field[c] * dt, max(e_max - after, 0.0))
            cell_demand[c] += demand[i]
    for i in range(n):
        if not alive[i]:
            continue
        c = cell_index(pos[i, 0], pos[i, 1], geo)
        share = 1.0
        if par[DEPLETION] > 0.0 and cell_demand[c] > field[c] * area:
            share = field[c] * area / cell_demand[c]
        if field[c] > 0.0 and first_food[i] < 0.0:
            first_food[i] = t_new
        old = energy[i]
        got = share * demand[i]
        new = min(old - (par[K_METABOLIC] * moved[i] + par[B_METABOLIC] * dt) + got, e_max)
        eaten[i] += got
        if new <= 0.0:
            alive[i] = False
            death_time[i] = t_old + dt * old / (old - new)
            cause[i] = STARVED
            new = 0.0
        energy[i] = new
    for i in range(n):
        c = cell_index(pos[i, 0], pos[i, 1], geo)
        total = cell_demand[c]
        if total > 0.0:
            if par[DEPLETION] > 0.0:
                share = min(1.0, field[c] * area / total)
                field[c] = max(field[c] - share * total / area, 0.0)
            cell_demand[c] = 0.0


@njit(cache=True, parallel=True)
def regrow(field, initial, decay):  # pragma: no cover
    r"""Relaxation toward the initial field over one step:
    :math:`F \leftarrow F_0 - (F_0 - F)\,e^{-r\Delta t}` (``decay`` :math:`= e^{-r\Delta t}`),
    the exact solution of :math:`\dot F = r (F_0 - F)` over the step."""
    for c in prange(field.shape[0]):
        field[c] = initial[c] - (initial[c] - field[c]) * decay


# --------------------------------------------------------------------------- predators


@njit(cache=True)
def hunt(ppos, pspeed, pcapture, pos, alive, par, edges, poly_start, t_new, death_time,
         cause):  # pragma: no cover
    """Each predator moves toward the nearest living agent (obstacles and walls as for the
    agents, no clearance) and captures it if then within its capture radius (one capture
    per predator and step). Returns the number of captures."""
    captures = 0
    for p in range(ppos.shape[0]):
        best = -1
        best_d = np.inf
        for i in range(pos.shape[0]):
            if alive[i]:
                d = math.hypot(pos[i, 0] - ppos[p, 0], pos[i, 1] - ppos[p, 1])
                if d < best_d:
                    best_d = d
                    best = i
        if best < 0:
            continue
        ux, uy = _unit(pos[best, 0] - ppos[p, 0], pos[best, 1] - ppos[p, 1])
        length = min(pspeed[p] * par[DT], best_d)
        x, y, _, _ = move(ppos[p, 0], ppos[p, 1], ux, uy, length, par[LX], par[LY], edges,
                          poly_start, 0.0)
        ppos[p, 0] = x
        ppos[p, 1] = y
        if math.hypot(pos[best, 0] - x, pos[best, 1] - y) <= pcapture[p]:
            alive[best] = False
            death_time[best] = t_new
            cause[best] = CAPTURED
            captures += 1
    return captures


# --------------------------------------------------------------------------- observables


@njit(cache=True)
def _root(parent, i):  # pragma: no cover
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def group_sizes(start, index, alive):  # pragma: no cover
    """Connected components of the partner graph among the living (union-find).

    Returns
    -------
    n_groups : int
    largest : int
        Size of the largest group (0 when none is alive).
    """
    n = alive.shape[0]
    parent = np.arange(n)
    for i in range(n):
        if alive[i]:
            for q in range(start[i], start[i + 1]):
                a = _root(parent, i)
                b = _root(parent, index[q])
                if a != b:
                    parent[max(a, b)] = min(a, b)
    size = np.zeros(n, np.int64)
    for i in range(n):
        if alive[i]:
            size[_root(parent, i)] += 1
    groups = 0
    largest = 0
    for i in range(n):
        if size[i] > 0:
            groups += 1
            largest = max(largest, size[i])
    return groups, largest


# Serial twin for one-thread runs (flocklab.core.variants): no parallel runtime start-up.
decide_and_move_serial = serial_variant(decide_and_move)
regrow_serial = serial_variant(regrow)
