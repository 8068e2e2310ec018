r"""Observables, collective states and run metrics of the force-based swarm (pure functions).

Positions ``pos`` and velocities ``vel`` have shape (N, d), d = 2 or 3, for the agents to be
measured (pass only the alive ones). With :math:`\hat v_i` the unit velocities (zero for a
standing agent), :math:`c` the centroid and :math:`\hat r_i` the unit vector from it:

* polarisation :math:`P = |\sum_i \hat v_i| / N`;
* milling (net rotation) :math:`M = |\sum_i \hat r_i \times \hat v_i| / N` and rotation
  :math:`R = \sum_i |\hat r_i \times \hat v_i| / N`: a single mill has :math:`M \approx R
  \approx 1`, a double mill (two counter-rotating populations) :math:`R \approx 1`,
  :math:`M \approx 0` (in 2-D the cross product is the scalar z component);
* radial spread :math:`\sigma_r / \bar r` of the distances to the centroid: about 0 for a
  thin ring, 0.35 for a uniform disc, 0.52 for a Gaussian clump;
* kinetic energy per agent :math:`\frac{m}{2}\langle |v|^2 \rangle`;
* the predator's surround: the share of ``SECTORS`` equal angular sectors around the first
  predator (in the xy plane) that hold a prey within the surround radius, and the distance
  to its nearest prey (the "vacuole").

States (:func:`classify_state`, our thresholds on time averages after burn-in, the states of
D'Orsogna et al. 2006): dispersed, clump, flock, ring, single mill, double mill.
"""

from __future__ import annotations

import math

import numpy as np

from flocklab.analysis.collective import (  # noqa: F401  (re-exported)
    groups,
    nearest_neighbour_distance,
    polarisation,
    radius_of_gyration,
)

#: Collective states by code (the run metric ``state``).
STATES = ("dispersed", "clump", "flock", "ring", "single mill", "double mill")
#: Thresholds of :func:`classify_state`.
STATE_THRESHOLDS = {"dispersed_below": 0.5, "flock_min_p": 0.9, "rotating_min_r": 0.6,
                    "single_min_m": 0.5, "ring_max_spread": 0.1}
#: Angular sectors of the surround coverage.
SECTORS = 12
#: Goal alignment at which the group counts as turned.
TURN_THRESHOLD = 0.9


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their length (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=float)
    norm = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norm, out=np.zeros_like(vectors), where=norm > 0)


def _cross(rel: np.ndarray, head: np.ndarray) -> np.ndarray:
    if rel.shape[1] == 2:
        return rel[:, 0] * head[:, 1] - rel[:, 1] * head[:, 0]
    return np.cross(rel, head)


def rotation_measures(pos: np.ndarray, vel: np.ndarray) -> tuple[float, float]:
    """Net milling M and rotation R (module docstring); NaN for no agent."""
    pos = np.asarray(pos, dtype=float)
    if pos.shape[0] == 0:
        return math.nan, math.nan
    cross = _cross(unit_rows(pos - pos.mean(axis=0)), unit_rows(vel))
    n = pos.shape[0]
    if cross.ndim == 1:
        return float(abs(cross.sum()) / n), float(np.abs(cross).sum() / n)
    return (float(np.linalg.norm(cross.sum(axis=0)) / n),
            float(np.linalg.norm(cross, axis=1).sum() / n))


def radial_spread(pos: np.ndarray) -> float:
    """Standard deviation over mean of the distances to the centroid (NaN below 2 agents)."""
    pos = np.asarray(pos, dtype=float)
    if pos.shape[0] < 2:
        return math.nan
    r = np.linalg.norm(pos - pos.mean(axis=0), axis=1)
    mean = r.mean()
    return float(r.std() / mean) if mean > 0 else math.nan


def kinetic_energy(vel: np.ndarray, mass: float) -> float:
    """Kinetic energy per agent, :math:`\\frac{m}{2} \\langle |v|^2 \\rangle`."""
    vel = np.asarray(vel, dtype=float)
    return float(0.5 * mass * np.mean(np.sum(vel * vel, axis=1))) if vel.size else math.nan


def goal_alignment(vel: np.ndarray, goal: np.ndarray) -> float:
    """Cosine of the angle between the mean velocity and the unit goal direction."""
    mean = np.asarray(vel, dtype=float).sum(axis=0)
    size = np.linalg.norm(mean)
    return float(mean @ goal / size) if size > 0 else math.nan


def surround(prey: np.ndarray, predator: np.ndarray, radius: float, box: float = 0.0
             ) -> tuple[float, float]:
    """(coverage, vacuole): share of the :data:`SECTORS` sectors around ``predator`` (xy
    plane) holding a prey within ``radius``, and the distance to the nearest prey."""
    rel = np.asarray(prey, dtype=float) - np.asarray(predator, dtype=float)
    if box > 0:
        rel -= box * np.rint(rel / box)
    if rel.shape[0] == 0:
        return math.nan, math.nan
    distance = np.linalg.norm(rel, axis=1)
    near = rel[distance <= radius]
    angles = np.arctan2(near[:, 1], near[:, 0])
    sectors = np.floor((angles + math.pi) / (2 * math.pi) * SECTORS).astype(int) % SECTORS
    return float(np.unique(sectors).size / SECTORS), float(distance.min())


def classify_state(p: float, m: float, r: float, spread: float, largest: float) -> int:
    """Code in :data:`STATES` of time-averaged polarisation ``p``, milling ``m``, rotation
    ``r``, radial spread and largest-group share.

    dispersed if the largest group holds less than half the agents; flock if P >= 0.9;
    rotating (R >= 0.6): a ring if the radial spread is below 0.1 (one or two senses of
    rotation), else a single mill if M >= 0.5 and a double mill below; else clump. The
    thresholds are ours (the states are the paper's).
    """
    t = STATE_THRESHOLDS
    if not all(math.isfinite(v) for v in (p, m, r, largest)):
        return -1
    if largest < t["dispersed_below"]:
        return STATES.index("dispersed")
    if p >= t["flock_min_p"]:
        return STATES.index("flock")
    if r >= t["rotating_min_r"]:
        if math.isfinite(spread) and spread < t["ring_max_spread"]:
            return STATES.index("ring")
        if m < t["single_min_m"]:
            return STATES.index("double mill")
        return STATES.index("single mill")
    return STATES.index("clump")


def turn_time(time: np.ndarray, alignment: np.ndarray, t_turn: float, t_end: float,
              threshold: float = TURN_THRESHOLD) -> tuple[float, float]:
    """Time after ``t_turn`` until the goal alignment first reaches ``threshold``, and 1 if
    it did (else the censored value ``t_end - t_turn`` and 0)."""
    after = (time >= t_turn) & (alignment >= threshold)
    if after.any():
        return float(time[np.argmax(after)] - t_turn), 1.0
    return float(t_end - t_turn), 0.0
