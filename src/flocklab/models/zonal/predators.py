r"""Predators: target choice, stalking, attack/abandon thresholds and captures.

The rules of the contest paper ("optimised selfish-herd model", problem 2), for each predator:

* **Target score** over the alive prey, smallest wins:
  ``nearest`` (the selfish-herd baseline, Hamilton 1971): :math:`s_i = r_i`;
  ``optimal``: :math:`s_i = w_d\,r_i + w_v\,\mathrm{flag}\,v_i` (Eq. 2), with :math:`r_i` the
  distance to the predator, :math:`v_i` the prey's current speed (its limit speed once it
  flees) and ``flag`` = 1 once the predator has been detected, 0 before (before detection the
  prey do not run, so speed carries no information). The target is re-chosen every step.
* **Stalking** (``status`` 0): the predator creeps toward its target at ``stalk_speed``.
  It is *detected* when any prey is closer than ``detection_range``. While undetected it starts
  an attack as soon as :math:`r_{\min} < R_1 = c_1 V` (Eq. 3). At the moment of detection, if it
  has not attacked yet, it abandons when :math:`r_{\min} > R_2 = c_2 V` (Eq. 4) and attacks
  otherwise (:math:`c_2 > c_1`; ``V`` its attack speed).
* **Attacking** (``status`` 1): runs at ``speed`` toward the target; a target within
  ``capture_radius`` after the move is captured (it leaves the simulation: ``alive = False``,
  nothing is re-indexed); an attack longer than ``max_attack_time`` is abandoned.
* **Resting** (``status`` 2) after a capture or an abandonment, for ``rest_time``, without
  moving; then it stalks again, undetected.

Events of the step are reported in ``event`` (1 attack began, 2 abandoned, 3 capture) so the
caller can record, e.g., which prey were on the convex hull when an attack began.
"""

from __future__ import annotations

import math

from numba import njit

from flocklab.geometry.vectors import min_image

STALKING, ATTACKING, RESTING = 0, 1, 2
EVENT_NONE, EVENT_ATTACK, EVENT_ABANDON, EVENT_CAPTURE = 0, 1, 2, 3
#: Columns of the predator parameter array.
PREDATOR_COLUMNS = ("speed", "stalk_speed", "detection_range", "capture_radius", "c1", "c2",
                    "w_d", "w_v", "optimal", "max_attack_time", "rest_time")
TARGET_RULES = ("nearest", "optimal")


@njit(cache=True, inline="always")
def _distance(pos, i, px, py, pz, box):  # pragma: no cover
    dx = min_image(pos[i, 0] - px, box)
    dy = min_image(pos[i, 1] - py, box)
    dz = min_image(pos[i, 2] - pz, box)
    return math.sqrt(dx * dx + dy * dy + dz * dz), dx, dy, dz


@njit(cache=True)
def choose_target(pos, speed, alive, px, py, pz, detected, optimal, w_d, w_v,
                  box):  # pragma: no cover
    """Index of the prey with the smallest score, and the smallest distance (-1, inf if none)."""
    best = -1
    best_score = math.inf
    r_min = math.inf
    for i in range(pos.shape[0]):
        if not alive[i]:
            continue
        r = _distance(pos, i, px, py, pz, box)[0]
        r_min = min(r_min, r)
        score = w_d * r + w_v * detected * speed[i] if optimal else r
        if score < best_score:
            best_score = score
            best = i
    return best, r_min


@njit(cache=True)
def _decide_status(status, detected, r_min, prm):  # pragma: no cover
    """Detection and the stalk/attack/abandon decision; returns (status, detected, event)."""
    newly = detected == 0 and r_min < prm[2]
    if newly:
        detected = 1
    if status == STALKING:
        if newly:
            if r_min > prm[5] * prm[0]:
                return RESTING, detected, EVENT_ABANDON
            return ATTACKING, detected, EVENT_ATTACK
        if r_min < prm[4] * prm[0]:
            return ATTACKING, detected, EVENT_ATTACK
    return status, detected, EVENT_NONE


@njit(cache=True)
def predators_decide(ppos, phead, pspeed, status, detected, target, timer, event, params, pos,
                     speed, alive, dt, box):  # pragma: no cover
    """Update status, target, heading and speed of every predator (before it moves).

    Parameters
    ----------
    ppos, phead : ndarray (P, 3)
    pspeed : ndarray (P,)
        Output: speed of this step.
    status, detected, target, event : ndarray of int64 (P,)
    timer : ndarray (P,)
        Time spent in the current status.
    params : ndarray (P, 11)
        Columns :data:`PREDATOR_COLUMNS`.
    pos, speed, alive : prey positions (N, 3), current speeds (N,), alive mask (N,).
    """
    for p in range(ppos.shape[0]):
        prm = params[p]
        event[p] = EVENT_NONE
        pspeed[p] = 0.0
        if status[p] == RESTING:
            timer[p] += dt
            if timer[p] >= prm[10]:
                status[p] = STALKING
                detected[p] = 0
                timer[p] = 0.0
            continue
        # first pass: the nearest distance decides detection and thresholds
        _, r_min = choose_target(pos, speed, alive, ppos[p, 0], ppos[p, 1], ppos[p, 2],
                                 detected[p], False, 1.0, 0.0, box)
        if r_min == math.inf:
            continue
        new_status, detected[p], event[p] = _decide_status(status[p], detected[p], r_min, prm)
        if new_status != status[p]:
            timer[p] = 0.0
            status[p] = new_status
        if status[p] == ATTACKING:
            timer[p] += dt
            if timer[p] > prm[9]:
                status[p] = RESTING
                timer[p] = 0.0
                event[p] = EVENT_ABANDON
        if status[p] == RESTING:
            continue
        best, _ = choose_target(pos, speed, alive, ppos[p, 0], ppos[p, 1], ppos[p, 2],
                                detected[p], prm[8] > 0.5, prm[6], prm[7], box)
        target[p] = best
        r, dx, dy, dz = _distance(pos, best, ppos[p, 0], ppos[p, 1], ppos[p, 2], box)
        if r > 0.0:
            phead[p, 0] = dx / r
            phead[p, 1] = dy / r
            phead[p, 2] = dz / r
        pspeed[p] = prm[0] if status[p] == ATTACKING else prm[1]


@njit(cache=True)
def predators_capture(ppos, status, target, timer, event, params, pos, alive, step, box,
                      capture_step, captured_by):  # pragma: no cover
    """Captures after the move: an attacking predator within reach of its target takes it."""
    for p in range(ppos.shape[0]):
        if status[p] != ATTACKING:
            continue
        i = target[p]
        if i < 0 or not alive[i]:
            continue
        r = _distance(pos, i, ppos[p, 0], ppos[p, 1], ppos[p, 2], box)[0]
        if r <= params[p, 3]:
            alive[i] = False
            capture_step[i] = step
            captured_by[i] = p
            status[p] = RESTING
            timer[p] = 0.0
            event[p] = EVENT_CAPTURE
