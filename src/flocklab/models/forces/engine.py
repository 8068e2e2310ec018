r"""The force-based swarm's engine: state arrays, work space and the time step.

Inertial form: :math:`\dot x_i = v_i`,

.. math::

    \dot v_i = \underbrace{\tfrac{1}{m}(\alpha - \beta|v_i|^2) v_i}_{S}
    + \underbrace{\tfrac{1}{m} F_i(x)}_{A}
    + \underbrace{w_o(\bar v_i - v_i) + w_t(v^{goal}_i - v_i) + w_f(v^{esc}_i - v_i)}_{G}
    + \sigma \xi_i,

:math:`F_i = \sum_j (w_r f_{rep} + w_a f_{att})\,\hat r_{ij}` the cut pair force. One step of
``h`` is the Strang splitting (:meth:`ForcesSimulation.step_inertial`)

.. math:: B(h/2)\; A(h)\; B(h/2), \qquad B(\tau) = S(\tau/2)\, G_{mid}(\tau)\, S(\tau/2),

with :math:`A(h)` velocity Verlet (kick h/2, drift h, kick h/2: symplectic, second order,
exact momentum balance of the pair forces), :math:`S` the exact flow of the self-propulsion
(:func:`~flocklab.models.forces.kernels.propel`) and :math:`G_{mid}` the explicit midpoint
rule on the steering terms at fixed positions. Every factor is second-order accurate and the
composition is symmetric, so the step is of order 2 (tested); with alpha = beta = 0 and no
steering it is velocity Verlet. The noise kick :math:`\sigma\sqrt{h}\,\xi` closes the step;
predators move after the prey, from the prey's new positions (first order in that coupling).

Non-inertial form (the papers' discrete update, first order):
:math:`v_i \leftarrow s\,\widehat{D_i}` from the weighted unit directions, then
:math:`x_i \leftarrow x_i + h v_i` (:func:`~flocklab.models.forces.kernels.directions`).

The neighbour list and the pair forces are rebuilt whenever the positions or the alive mask
differ from those they were built for, so a chunked or resumed run computes the same bits.

References
----------
E. Hairer, C. Lubich and G. Wanner, *Geometric Numerical Integration*, 2nd ed., Springer
(2006), ch. II.5 (composition methods, Strang splitting).
M. R. D'Orsogna et al., Phys. Rev. Lett. 96, 104302 (2006) (the model).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numba
import numpy as np

from flocklab.core.random import noise_key
from flocklab.core.threads import parallel_chunks
from flocklab.geometry.hash_grid import NeighbourGrid
from flocklab.models.forces import kernels as K
from flocklab.models.forces.params import TARGETS, resolve

FOLLOWER, LEADER, SUBLEADER = 0, 1, 2


def random_directions(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``n`` unit vectors uniform on the circle or sphere, shape (n, 3)."""
    out = np.zeros((n, 3))
    v = rng.standard_normal((n, dim))
    out[:, :dim] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def candidate_directions(count: int, dim: int) -> np.ndarray:
    """Candidate escape directions, shape (count, 3): equal angles on the circle (2-D) or a
    Fibonacci sphere (3-D)."""
    out = np.zeros((count, 3))
    k = np.arange(count)
    if dim == 2:
        angle = 2.0 * math.pi * k / count
        out[:, 0], out[:, 1] = np.cos(angle), np.sin(angle)
        return out
    z = 1.0 - (2.0 * k + 1.0) / count
    ring = np.sqrt(1.0 - z * z)
    angle = math.pi * (3.0 - math.sqrt(5.0)) * k
    out[:, 0], out[:, 1], out[:, 2] = ring * np.cos(angle), ring * np.sin(angle), z
    return out


def goal_direction(p: Mapping[str, Any], t: float) -> np.ndarray:
    """Unit goal direction (3,) in the xy plane at time ``t`` (it turns at ``turn_time``)."""
    angle = p["goal_angle"] + (p["turn_angle"] if t >= p["turn_time"] and p["turn_angle"]
                               else 0.0)
    out = np.zeros(3)
    out[0], out[1] = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return out


class ForcesSimulation:
    """A run of the force-based swarm.

    Parameters
    ----------
    params : mapping
        Prepared parameters (:meth:`Forces.prepare <flocklab.core.model.Model.prepare>`,
        with the keys of :func:`~flocklab.models.forces.params.complete`); not checked
        again (:meth:`from_parameters` prepares them).
    rng : numpy.random.Generator
        Draws the initial condition, the roles and the noise key.
    dt : float
        Time step.

    Attributes
    ----------
    pos, vel : ndarray (N, 3)
        Positions and velocities (``z = 0`` in 2-D).
    alive : ndarray of bool (N,)
    role : ndarray of int8 (N,)
        0 follower, 1 leader, 2 sub-leader.
    leader_of : ndarray of int64 (N,)
        The leader a sub-leader follows (-1 for the others).
    ppos, phead : ndarray (P, 3)
        Predator positions and unit headings.
    prest, pcaptures : ndarray (P,)
        Rest time left and captures of each predator.
    capture_step, captured_by : ndarray of int64 (N,)
        Step of capture and captor (-1: not captured).
    step_count : int
        Steps done.
    """

    def __init__(self, params: Mapping[str, Any], rng: np.random.Generator,
                 dt: float) -> None:
        p = params
        self.p, self.dt = p, float(dt)
        self.n, self.dim = p["N"], p["dim"]
        self._init_agents(rng)
        self._init_roles(rng)
        self.key = noise_key(rng)
        self._init_predators()
        self._init_work()
        self.step_count = 0

    @classmethod
    def from_parameters(cls, given: Mapping[str, Any], rng: np.random.Generator,
                        dt: float) -> ForcesSimulation:
        """A run of ``given`` outside the driver: the parameters prepared
        (:func:`~flocklab.models.forces.params.resolve`), then the engine built."""
        return cls(resolve(given), rng, dt)

    # ------------------------------------------------------------------ setup
    def _init_agents(self, rng: np.random.Generator) -> None:
        p, n, dim = self.p, self.n, self.dim
        centre = np.zeros(3)
        if p["box"] > 0:
            centre[:dim] = 0.5 * p["box"]
        radius = p["start_radius"] * rng.random(n) ** (1.0 / dim)
        self.pos = random_directions(rng, n, dim) * radius[:, None] + centre
        if p["initial"] == "aligned":
            self.vel = np.tile(goal_direction(p, 0.0), (n, 1))
        elif p["initial"] == "rotating":
            rel = self.pos - centre
            self.vel = np.zeros((n, 3))
            self.vel[:, 0], self.vel[:, 1] = -rel[:, 1], rel[:, 0]
            size = np.linalg.norm(self.vel, axis=1, keepdims=True)
            self.vel = np.divide(self.vel, size, out=np.zeros_like(self.vel), where=size > 0)
        else:
            self.vel = random_directions(rng, n, dim)
        self.vel *= p["initial_speed"]
        self.alive = np.ones(n, np.bool_)
        self.capture_step = np.full(n, -1, np.int64)
        self.captured_by = np.full(n, -1, np.int64)

    def _init_roles(self, rng: np.random.Generator) -> None:
        p, n = self.p, self.n
        order = rng.permutation(n)
        q, s = p["leaders"], p["subleaders"]
        self.role = np.zeros(n, np.int8)
        self.leader_of = np.full(n, -1, np.int64)
        self.leaders = np.sort(order[:q])
        self.subleaders = np.sort(order[q:q + s])
        self.role[self.leaders] = LEADER
        self.role[self.subleaders] = SUBLEADER
        if s:
            self.leader_of[self.subleaders] = self.leaders[np.arange(s) % q]
        self.tempted = self.role > 0
        self.followers = np.flatnonzero(self.role == FOLLOWER)

    def _init_predators(self) -> None:
        preds, dim = self.p["predator_specs"], self.dim
        count = len(preds)
        self.ppos = np.zeros((count, 3))
        self.phead = np.zeros((count, 3))
        self.prest = np.zeros(count)
        self.pcaptures = np.zeros(count, np.int64)
        self.pparams = np.zeros((count, 6))
        self.pmember = np.zeros((count, 5))
        for k, pred in enumerate(preds):
            if pred.get("potential"):
                u = pred["potential"]
                self.pmember[k] = [1.0, u["C_r"], u["l_r"], u["C_a"], u["l_a"]]
        centre = self.pos.mean(axis=0)
        for k, pred in enumerate(preds):
            self.ppos[k, :dim] = pred["position"]
            heading = np.zeros(3)
            if "velocity" in pred:
                heading[:dim] = pred["velocity"]
            else:
                heading = centre - self.ppos[k]
            norm = np.linalg.norm(heading)
            self.phead[k] = heading / norm if norm > 0 else [1.0, 0.0, 0.0]
            self.pparams[k] = [pred["speed"], math.radians(pred["turn_rate"]),
                               pred["capture_radius"], pred["rest_time"],
                               TARGETS.index(pred["target"]), pred.get("prey", 0)]

    def _init_work(self) -> None:
        p, n = self.p, self.n
        self.chunks = parallel_chunks(n)
        serial = numba.get_num_threads() == 1
        self._social = K.social_serial if serial else K.social
        self._align = K.alignment_sums_serial if serial else K.alignment_sums
        self.grid = NeighbourGrid(n, p["radius"], self.dim, p["box"])
        self.pot = K.potential_vector(p)
        self.force = np.zeros((n, 3))
        self.rep_dir = np.zeros((n, 3))
        self.att_dir = np.zeros((n, 3))
        self.vsum = np.zeros((n, 3))
        self.count = np.zeros(n, np.int64)
        self.acc = np.zeros((n, 3))
        self.v_mid = np.zeros((n, 3))
        self.goal_vel = np.zeros((n, 3))
        self.fear_vel = np.zeros((n, 3))
        self.afraid = np.zeros(n, np.bool_)
        self.external = np.zeros((n, 3))
        self.candidates = candidate_directions(p["escape_directions"], self.dim)
        self.weights = np.array([p["w_inertia"], p["w_repulsion"], p["w_attraction"],
                                 p["w_alignment"], p["w_temptation"], p["w_fear"]])
        self._built_pos = np.full((n, 3), np.nan)
        self._built_alive = np.zeros(n, np.bool_)
        self._forces_ready = False

    # ------------------------------------------------------------------ neighbours, forces
    def ensure_grid(self) -> bool:
        """Rebuild the neighbour list if positions or the alive mask changed; True if it did."""
        if np.array_equal(self._built_pos, self.pos) and np.array_equal(self._built_alive,
                                                                        self.alive):
            return False
        self.grid.update(self.pos, self.alive)
        self._built_pos[...] = self.pos
        self._built_alive[...] = self.alive
        self._forces_ready = False
        return True

    def ensure_forces(self) -> None:
        """Pair forces (inertial form) for the current positions."""
        self.ensure_grid()
        if self._forces_ready:
            return
        p = self.p
        self._social(self.chunks, self.grid.order, self.grid.n_alive, self.pos, self.alive,
                     self.grid.start, self.grid.index, self.pot, p["w_repulsion"],
                     p["w_attraction"], p["box"], 0, self.force, self.rep_dir, self.att_dir)
        self._forces_ready = True

    def potential_energy(self) -> float:
        """Total shifted pair energy of the alive agents (energy units)."""
        self.ensure_grid()
        p = self.p
        return float(K.potential_energy(self.pos, self.alive, self.grid.start, self.grid.index,
                                        self.pot, p["w_repulsion"], p["w_attraction"],
                                        p["box"]))

    def neighbour_counts(self) -> np.ndarray:
        """Neighbours of each agent within the search radius (N,)."""
        self.ensure_grid()
        return np.diff(self.grid.start)

    # ------------------------------------------------------------------ steering targets
    def goal_velocities(self, vel: np.ndarray, t: float) -> None:
        """``goal_vel`` of leaders and sub-leaders for velocities ``vel`` at time ``t``."""
        p, s = self.p, self.p["cruise_speed"]
        if not self.leaders.size:
            return
        goal = goal_direction(p, t) * s
        if p["leader_rule"] == "cosine" and self.followers.size:
            mean_f = vel[self.followers[self.alive[self.followers]]].mean(axis=0) \
                if self.alive[self.followers].any() else np.zeros(3)
            size = np.linalg.norm(mean_f)
            weight = max(0.0, float(goal @ mean_f) / (s * size)) if size > 0 else 1.0
            goal = weight * goal + (1.0 - weight) * mean_f
        self.goal_vel[self.leaders] = goal
        if self.subleaders.size:
            lead = self.leader_of[self.subleaders]
            target = self.pos[lead] + p["prediction_step"] * vel[lead] - self.pos[
                self.subleaders]
            if p["box"] > 0:
                target -= p["box"] * np.rint(target / p["box"])
            size = np.linalg.norm(target, axis=1, keepdims=True)
            self.goal_vel[self.subleaders] = np.where(
                size > 0, s * target / np.where(size > 0, size, 1.0), vel[lead])

    def escape_targets(self, pvel: np.ndarray) -> None:
        """``fear_vel`` and ``afraid`` of the prey, and the ``external`` pair force of member
        predators, for the current positions."""
        p = self.p
        if not self.ppos.shape[0]:
            return
        if self.pmember[:, 0].any():
            K.member_forces(self.pos, self.alive, self.ppos, self.pmember, p["cutoff"],
                            p["box"], self.external)
            self.external /= p["mass"]
        K.escape_velocities(self.pos, self.alive, self.ppos, pvel, p["fear_range"],
                            p["escape_speed"], p["escape_mix"], p["escape_beta"],
                            p["escape_horizon"], self.candidates, p["box"], self.fear_vel,
                            self.afraid)

    def predator_velocities(self) -> np.ndarray:
        """Velocities (P, 3) of the predators."""
        return self.phead * self.pparams[:, :1]

    # ------------------------------------------------------------------ the step
    def steering(self, vel: np.ndarray, t: float, out: np.ndarray) -> None:
        """Steering accelerations (``G``) at velocities ``vel``, positions fixed."""
        p = self.p
        if p["w_alignment"] > 0.0:
            self._align(self.chunks, self.grid.order, self.grid.n_alive, self.pos, vel,
                        self.alive, self.grid.start, self.grid.index, p["r_align"], p["box"],
                        False, self.vsum, self.count)
        self.goal_velocities(vel, t)
        K.steering(vel, self.alive, self.vsum, self.count, p["w_alignment"], self.goal_vel,
                   self.tempted, p["w_temptation"], self.fear_vel, self.afraid, p["w_fear"],
                   self.external, out)

    def has_steering(self) -> bool:
        p = self.p
        return bool(p["w_alignment"] > 0.0 or (self.leaders.size and p["w_temptation"] > 0)
                    or (self.ppos.shape[0] and p["w_fear"] > 0.0) or self.pmember[:, 0].any())

    def velocity_flow(self, tau: float, t: float) -> None:
        """``B(tau)``: exact self-propulsion over tau/2, midpoint steering over tau, exact
        self-propulsion over tau/2 (positions fixed)."""
        p = self.p
        K.propel(self.vel, self.alive, p["alpha"], p["beta"], p["mass"], 0.5 * tau)
        if self.has_steering():
            self.ensure_grid()
            self.escape_targets(self.predator_velocities())
            self.steering(self.vel, t, self.acc)
            np.copyto(self.v_mid, self.vel)
            K.kick(self.v_mid, self.alive, self.acc, 0.5 * tau)
            self.steering(self.v_mid, t, self.acc)
            K.kick(self.vel, self.alive, self.acc, tau)
        K.propel(self.vel, self.alive, p["alpha"], p["beta"], p["mass"], 0.5 * tau)

    def step_inertial(self) -> None:
        """One Strang step B(h/2) A(h) B(h/2) (module docstring)."""
        h, p = self.dt, self.p
        t = self.step_count * h
        self.velocity_flow(0.5 * h, t)
        self.ensure_forces()
        K.kick(self.vel, self.alive, self.force, 0.5 * h / p["mass"])
        K.drift(self.pos, self.vel, self.alive, h, p["box"])
        self.ensure_forces()
        K.kick(self.vel, self.alive, self.force, 0.5 * h / p["mass"])
        self.velocity_flow(0.5 * h, t + h)
        if p["noise"] > 0.0:
            K.noise_kick(self.vel, self.alive, p["noise"] * math.sqrt(h), self.key,
                         self.step_count, self.dim)

    def step_non_inertial(self) -> None:
        """One step of the non-inertial form: new velocities from the unit directions, then
        the move (module docstring)."""
        h, p = self.dt, self.p
        t = self.step_count * h
        self.ensure_grid()
        self._social(self.chunks, self.grid.order, self.grid.n_alive, self.pos, self.alive,
                     self.grid.start, self.grid.index, self.pot, p["w_repulsion"],
                     p["w_attraction"], p["box"], 1, self.force, self.rep_dir, self.att_dir)
        if p["w_alignment"] > 0.0:
            self._align(self.chunks, self.grid.order, self.grid.n_alive, self.pos, self.vel,
                        self.alive, self.grid.start, self.grid.index, p["r_align"], p["box"],
                        True, self.vsum, self.count)
        self.goal_velocities(self.vel, t)
        self.escape_targets(self.predator_velocities())
        K.directions(self.vel, self.alive, self.rep_dir, self.att_dir, self.vsum,
                     self.goal_vel, self.tempted, self.fear_vel, self.afraid, self.external,
                     self.weights,
                     p["noise"] * math.sqrt(h), self.key, self.step_count, self.dim,
                     p["cruise_speed"], p["escape_speed"], self.v_mid)
        np.copyto(self.vel, self.v_mid)
        K.drift(self.pos, self.vel, self.alive, h, p["box"])

    def predator_step(self) -> None:
        """Predators pursue their targets from the prey's new positions, then capture."""
        p = self.p
        targets = {pr["target"] for pr in p["predator_specs"]}
        counts = self.neighbour_counts() if "densest" in targets else self.count
        K.predators_move(self.ppos, self.phead, self.pparams, self.pos, self.alive, counts,
                         self.dt, self.dim, p["box"])
        K.predators_capture(self.ppos, self.prest, self.pparams, self.pcaptures, self.pos,
                            self.alive, self.step_count, self.dt, p["box"], self.capture_step,
                            self.captured_by)

    def advance(self, steps: int) -> None:
        """Run ``steps`` steps in place."""
        inertial = self.p["form"] == "inertial"
        for _ in range(steps):
            if inertial:
                self.step_inertial()
            else:
                self.step_non_inertial()
            self.step_count += 1
            if self.ppos.shape[0]:
                self.predator_step()
