"""The zonal-model engine: state arrays, preallocated work space and the time loop.

:class:`ZonalSimulation` owns every array the kernels need, allocated once; :meth:`advance`
runs ``k`` synchronous steps (neighbour list -> desired directions -> steering -> motion ->
predators) with no array allocated per step by the kernels (the neighbour list grows only
when a step needs more room than any before; with predators the Python side looks up the
step's events in two tiny arrays, and computes a convex hull and the Voronoi domains of
danger when an attack begins).
The only randomness inside the loop is the counter-based noise of
:mod:`flocklab.geometry.vectors`, so a run depends on the parameters and the seed only — not on
the number of threads, nor on how the steps are chunked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from flocklab.core.random import noise_key
from flocklab.core.threads import parallel_chunks
from flocklab.geometry.hash_grid import NeighbourGrid
from flocklab.models.zonal import metrics
from flocklab.models.zonal.danger import voronoi_domains
from flocklab.models.zonal.motion import move, steer
from flocklab.models.zonal.params import (
    SPECS,
    check_step_length,
    interaction_range,
    resolve,
    start_centre,
)
from flocklab.models.zonal.predators import (
    EVENT_ATTACK,
    EVENT_CAPTURE,
    STALKING,
    TARGET_RULES,
    predators_capture,
    predators_decide,
)
from flocklab.models.zonal.rules import RULE_CODES, desired_directions, group_centre_and_heading


def random_unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``n`` directions uniform on the circle (dim 2) or sphere (dim 3), shape (n, 3)."""
    out = np.zeros((n, 3))
    v = rng.standard_normal((n, dim))
    out[:, :dim] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def uniform_ball(rng: np.random.Generator, n: int, dim: int, radius: float) -> np.ndarray:
    """``n`` points uniform in a disc/ball of ``radius`` around the origin, shape (n, 3)."""
    return random_unit_vectors(rng, n, dim) * (radius * rng.random(n) ** (1.0 / dim))[:, None]


#: Time step of an engine built without one (the declared default of ``dt``).
DEFAULT_DT = next(spec.default for spec in SPECS if spec.name == "dt")

#: Approach directions averaged by :meth:`ZonalSimulation.approach_null_rank`.
APPROACH_DIRECTIONS = 64


class ZonalSimulation:
    """A zonal-model run (Couzin 2002 / Couzin 2005 / boids, with predators and obstacles).

    Parameters
    ----------
    params : mapping
        Prepared parameters (:meth:`Zonal.prepare <flocklab.core.model.Model.prepare>`,
        with the keys of :func:`~flocklab.models.zonal.params.complete`); not checked again
        (:meth:`from_parameters` prepares them). Without ``dt`` the engine starts with the
        declared default; a driver sets its own with :meth:`set_time_step`.
    seed : int or numpy.random.Generator
        Seed of the initial condition and of the noise key.

    Attributes
    ----------
    pos, head : ndarray (N, 3)
        Positions and unit headings (``z = 0`` in 2-D).
    speed : ndarray (N,)
        Current speeds.
    alive : ndarray of bool (N,)
    informed : ndarray of int64 (N,)
        -1 uninformed, 0 the ``informed_fraction`` group, 1.. the subgroups.
    capture_step, captured_by : ndarray of int64 (N,)
        Step of capture and predator index (-1: not captured).
    capture_on_hull : ndarray of int8 (N,)
        1 if the captured prey was on the convex hull of the group when its captor's attack
        began, 0 if not, -1 not captured / unknown.
    capture_domain, capture_domain_rank : ndarray (N,)
        2-D open space: the captured prey's Voronoi domain of danger when its captor's attack
        began (cell clipped to a disc of the captor's detection range around the prey,
        :meth:`danger_domains`) and its mid-rank among the alive prey's domains then
        (:func:`~flocklab.models.zonal.metrics.domain_ranks`: 0 smallest, 1 largest); -1 if not
        captured, in 3-D or in a periodic box (not NaN: the state must stay finite).
    capture_null_rank : ndarray (N,)
        For the same captures, the rank a predator approaching from a random side would
        meet (:meth:`approach_null_rank`; -1 as above).
    attacks : list of (step, predator)
        When each attack began.
    step_count : int
        Steps done so far.
    """

    def __init__(self, params: Mapping[str, Any], seed: int | np.random.Generator = 0
                 ) -> None:
        p = {"dt": DEFAULT_DT, **params}  # its own copy: set_time_step changes dt
        self.p = p
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        n, dim = p["N"], p["dim"]
        self.n, self.dim = n, dim
        if p["start"] == "box":
            self.pos = np.zeros((n, 3))
            self.pos[:, :dim] = rng.random((n, dim)) * p["box"]
        else:
            self.pos = uniform_ball(rng, n, dim, p["start_radius"]) + start_centre(p)
        if p["initial"] == "aligned":
            self.head = np.zeros((n, 3))
            self.head[:, 0] = 1.0
        else:
            self.head = random_unit_vectors(rng, n, dim)
        self.alive = np.ones(n, dtype=np.bool_)
        self.speed = np.full(n, p["speed"])
        self.escape_speed = p["escape_speed"] * (1.0 + p["speed_spread"] * (
            2.0 * rng.random(n) - 1.0))
        self._init_informed(rng)
        self.key = noise_key(rng)
        self._init_work()
        self._init_predators()
        self.step_count = 0

    @classmethod
    def from_parameters(cls, given: Mapping[str, Any], seed: int | np.random.Generator = 0,
                        check_step: bool = True) -> ZonalSimulation:
        """A run of ``given`` outside the driver: the parameters prepared
        (:func:`~flocklab.models.zonal.params.resolve`; ``check_step``: the step length
        checked against ``dt``), then the engine built."""
        return cls(resolve(given, check_step), seed)

    # ------------------------------------------------------------------ setup
    def _init_informed(self, rng: np.random.Generator) -> None:
        p, n = self.p, self.n
        self.informed = np.full(n, -1, np.int64)
        self.goal = np.zeros((n, 3))
        self.omega = np.zeros(n)
        angle = math.radians(p["preferred_angle"])
        groups = [(p["informed_fraction"], np.array([math.cos(angle), math.sin(angle)]))]
        groups += list(p["subgroup_directions"])
        order = rng.permutation(n)
        first = 0
        for label, (fraction, direction) in enumerate(groups):
            count = round(fraction * n)
            members = order[first:first + count]
            first += count
            self.informed[members] = label
            self.goal[members, : direction.shape[0]] = direction
            self.omega[members] = p["omega"]
        self.seeks_food = (self.informed >= 0) & (p["food_position"] is not None)
        self.food = np.zeros(3) if p["food_position"] is None else p["food_position"]

    def _init_work(self) -> None:
        p, n = self.p, self.n
        self.chunks = parallel_chunks(n)
        self.grid = NeighbourGrid(n, interaction_range(p), self.dim, p["box"])
        self.new_head = np.empty_like(self.head)
        self.desired = np.zeros((n, 3))
        self.consensus = np.ones(n)
        self.fleeing = np.zeros(n, np.bool_)
        self.centre = np.zeros(3)
        self.mean_head = np.zeros(3)
        cos_half = math.cos(math.radians(p["field_of_view"]) / 2.0)
        if p["field_of_view"] >= 360.0:
            cos_half = -2.0  # everything visible, also against rounding
        self.rule = RULE_CODES[p["rule"]]
        self.rule_params = np.zeros(12)
        if p["rule"] == "couzin2002":
            r_o = p["r_r"] + p["delta_o"]
            self.rule_params[:4] = [p["r_r"], r_o, r_o + p["delta_a"], cos_half]
        elif p["rule"] == "couzin2005":
            self.rule_params[:3] = [p["alpha"], p["rho"], cos_half]
        else:
            self.rule_params[:9] = [p["vision"], p["separation"], cos_half, p["w_inertia"],
                                    p["w_cohesion"], p["w_alignment"], p["w_separation"],
                                    p["w_centre"], p["w_heading"]]
        boids = p["rule"] == "boids"
        self.steer_params = np.array([
            p["speed"], p["noise"], math.radians(p["turning_rate"]) * p["dt"], p["dt"],
            p["k_e"], p["k_c"], p["speed_min"] if boids else 0.0,
            p["speed"] if boids else 0.0, p["speed_exponent"]])
        self.obstacles = np.ascontiguousarray(p["obstacle_rows"], dtype=float).reshape(-1, 6)

    def _init_predators(self) -> None:
        preds = self.p["predator_specs"]
        count = len(preds)
        self.ppos = np.zeros((count, 3))
        self.phead = np.zeros((count, 3))
        self.pspeed = np.zeros(count)
        self.palive = np.ones(count, np.bool_)
        self.pstatus = np.full(count, STALKING, np.int64)
        self.pdetected = np.zeros(count, np.int64)
        self.ptarget = np.full(count, -1, np.int64)
        self.pevent = np.zeros(count, np.int64)
        self.ptimer = np.zeros(count)
        self.pparams = np.zeros((count, 11))
        self.pdetect = np.zeros(count)
        for k, pred in enumerate(preds):
            self.ppos[k, : self.dim] = pred["position"]
            self.pparams[k] = [pred["speed"], pred["stalk_speed"], pred["detection_range"],
                               pred["capture_radius"], pred["c1"], pred["c2"], pred["w_d"],
                               pred["w_v"], float(TARGET_RULES.index(pred["target"])),
                               pred["max_attack_time"], pred["rest_time"]]
            self.pdetect[k] = pred["detection_range"]
        self.capture_step = np.full(self.n, -1, np.int64)
        self.captured_by = np.full(self.n, -1, np.int64)
        self.capture_on_hull = np.full(self.n, -1, np.int8)
        self.hull_at_attack = np.zeros((count, self.n), np.bool_)
        self.capture_domain = np.full(self.n, -1.0)
        self.capture_domain_rank = np.full(self.n, -1.0)
        self.domain_at_attack = np.full((count, self.n), -1.0)
        self.null_rank_at_attack = np.full(count, -1.0)
        self.capture_null_rank = np.full(self.n, -1.0)
        self.attacks: list[tuple[int, int]] = []
        self.attacks_started = np.zeros(count, np.int64)

    def set_time_step(self, dt: float, check: bool = True) -> None:
        """Use time step ``dt`` from now on, checked against the repulsion radius unless
        ``check`` is False (a driver's run was checked when it was prepared)."""
        if check:
            check_step_length(self.p, dt)
        self.p["dt"] = float(dt)
        self.steer_params[2] = math.radians(self.p["turning_rate"]) * dt
        self.steer_params[3] = dt

    def set_zone_widths(self, delta_o: float, delta_a: float) -> None:
        """Use the couzin2002 zone widths ``delta_o``, ``delta_a`` from now on (the
        neighbour range follows); the state is kept, so a run continues from it."""
        p = self.p
        p["delta_o"], p["delta_a"] = float(delta_o), float(delta_a)
        r_o = p["r_r"] + p["delta_o"]
        self.rule_params[1:3] = [r_o, r_o + p["delta_a"]]
        self.grid.radius = interaction_range(p)

    # ------------------------------------------------------------------ time loop
    def advance(self, steps: int) -> None:
        """Run ``steps`` synchronous steps in place."""
        for _ in range(steps):
            self._step()

    def _step(self) -> None:
        p = self.p
        box = p["box"]
        self.grid.update(self.pos, self.alive)
        if self.rule == RULE_CODES["boids"]:
            group_centre_and_heading(self.pos, self.head, self.alive, self.centre,
                                     self.mean_head)
        desired_directions(self.chunks, self.rule, self.pos, self.head, self.alive, self.grid.start,
                           self.grid.index, self.rule_params, p["self_in_orientation"], box,
                           self.centre, self.mean_head, self.desired, self.consensus)
        steer(self.chunks, self.pos, self.head, self.alive, self.desired, self.consensus,
              self.omega, self.goal, self.seeks_food, self.food, self.ppos, self.pdetect,
              self.escape_speed, self.steer_params, self.key, self.step_count, self.dim, box,
              self.obstacles, self.new_head, self.speed, self.fleeing)
        # in place (callers may hold the array); a captured agent keeps its heading
        np.copyto(self.head, self.new_head, where=self.alive[:, None])
        move(self.chunks, self.pos, self.head, self.speed, self.alive, p["dt"], self.obstacles, box)
        self.step_count += 1
        if self.ppos.shape[0]:
            self._predator_step()

    def _predator_step(self) -> None:
        p = self.p
        predators_decide(self.ppos, self.phead, self.pspeed, self.pstatus, self.pdetected,
                         self.ptarget, self.ptimer, self.pevent, self.pparams, self.pos,
                         self.speed, self.alive, p["dt"], p["box"])
        for k in np.flatnonzero(self.pevent == EVENT_ATTACK):
            self.attacks.append((self.step_count, int(k)))
            self.attacks_started[k] += 1
            self.hull_at_attack[k] = self.hull_members()
            self.domain_at_attack[k] = np.nan_to_num(self.danger_domains(self.pdetect[k]),
                                                     nan=-1.0)
            self.null_rank_at_attack[k] = self.approach_null_rank(self.ppos[k],
                                                                  self.domain_at_attack[k])
        move(1, self.ppos, self.phead, self.pspeed, self.palive, p["dt"], self.obstacles, p["box"])
        predators_capture(self.ppos, self.pstatus, self.ptarget, self.ptimer, self.pevent,
                          self.pparams, self.pos, self.alive, self.step_count, p["box"],
                          self.capture_step, self.captured_by)
        for k in np.flatnonzero(self.pevent == EVENT_CAPTURE):
            prey = self.ptarget[k]
            self.capture_on_hull[prey] = int(self.hull_at_attack[k, prey])
            self._record_domain(prey, self.domain_at_attack[k])
            if self.capture_domain_rank[prey] >= 0:
                self.capture_null_rank[prey] = self.null_rank_at_attack[k]

    def _record_domain(self, prey: int, domains: np.ndarray) -> None:
        """Domain of danger and its rank among ``domains`` (-1: unknown) of a captured prey."""
        if domains[prey] < 0:
            return
        self.capture_domain[prey] = domains[prey]
        rank = metrics.domain_ranks(np.where(domains >= 0, domains, np.nan))[prey]
        self.capture_domain_rank[prey] = rank if np.isfinite(rank) else -1.0

    def approach_null_rank(self, predator: np.ndarray, domains: np.ndarray,
                           directions: int = APPROACH_DIRECTIONS) -> float:
        """Domain rank the nearest-prey rule would meet from a random side: the mean, over
        ``directions`` equally spaced approach directions at the predator's distance from the
        alive prey's centroid, of the rank of the prey nearest to that point (-1: unknown).

        A predator that attacks the nearest prey meets the edge of the group, where domains
        of danger are large; this is the rank that geometry alone gives, the baseline against
        which Hamilton's prediction is measured (2-D open space)."""
        alive = np.flatnonzero(self.alive & (domains >= 0))
        if alive.size < 2:
            return -1.0
        ranks = metrics.domain_ranks(np.where(domains >= 0, domains, np.nan))[alive]
        xy = self.pos[alive, :2]
        centre = xy.mean(axis=0)
        distance = float(np.hypot(*(predator[:2] - centre)))
        angles = 2 * np.pi * np.arange(directions) / directions
        points = centre + distance * np.column_stack([np.cos(angles), np.sin(angles)])
        nearest = np.argmin(((points[:, None, :] - xy[None, :, :]) ** 2).sum(-1), axis=1)
        return float(np.mean(ranks[nearest]))

    def hull_members(self) -> np.ndarray:
        """Boolean mask (N,) of the alive agents on the convex hull of the alive group."""
        mask = np.zeros(self.n, np.bool_)
        index = np.flatnonzero(self.alive)
        if index.size <= self.dim:
            mask[index] = True
            return mask
        try:
            hull = ConvexHull(self.pos[index, : self.dim])
        except QhullError:  # degenerate (collinear/coplanar) group: all on the boundary
            mask[index] = True
            return mask
        mask[index[hull.vertices]] = True
        return mask

    def danger_domains(self, radius: float) -> np.ndarray:
        """Hamilton's domain of danger of each alive prey (2-D, open space): the area of its
        Voronoi cell among the alive prey clipped to the disc of ``radius`` around it
        (:func:`~flocklab.models.zonal.danger.voronoi_domains`), shape (N,), length²; NaN for dead
        prey, and for all in 3-D, in a periodic box or with fewer than two alive prey."""
        areas = np.full(self.n, np.nan)
        index = np.flatnonzero(self.alive)
        if self.dim != 2 or self.p["box"] > 0 or index.size < 2:
            return areas
        try:
            areas[index] = voronoi_domains(self.pos[index, :2], radius)
        except QhullError:  # coincident prey: no Voronoi diagram
            pass
        return areas

    # ------------------------------------------------------------------ observation
    def observe(self) -> dict[str, float]:
        """Polarisation and milling of all alive agents and of the largest group, the largest
        group's share of the alive agents, the number of groups and of alive agents."""
        pos = self.pos[self.alive, : self.dim]
        head = self.head[self.alive, : self.dim]
        largest = metrics.largest_group_order(pos, head, interaction_range(self.p),
                                              box=self.p["box"])
        return {
            "polarisation": metrics.polarisation(head),
            "milling": metrics.milling(pos, head),
            "polarisation_largest": largest.polarisation,
            "milling_largest": largest.milling,
            "largest_fraction": largest.largest_fraction,
            "groups": float(largest.n_groups),
            "alive": float(self.alive.sum()),
        }
