r"""Group-level metrics of the zonal model (pure functions on arrays). The observables every
agent model shares — polarisation, milling, nearest-neighbour distance, radius of gyration,
groups — are :mod:`flocklab.analysis.collective`'s, imported here.

Positions ``pos`` have shape (N, d) and unit headings ``head`` shape (N, d), d = 2 or 3, for the
agents to be measured (pass only the alive ones).

* polarisation :math:`P = |\sum_i \mathbf{e}_i| / N` (Couzin et al. 2002, :math:`p_{group}`);
* milling (normalised angular momentum) :math:`m = |\sum_i \hat{\mathbf{r}}_{ic} \times
  \mathbf{e}_i| / N`, :math:`\mathbf{r}_{ic} = \mathbf{x}_i - \bar{\mathbf{x}}` (Couzin 2002,
  :math:`m_{group}`; in 2-D the cross product is the scalar ``z`` component);
* mean nearest-neighbour distance, radius of gyration
  :math:`R_g = \sqrt{\langle |\mathbf{x}_i - \bar{\mathbf{x}}|^2 \rangle}`;
* groups: connected components of the graph "distance <= radius" (cKDTree sparse distance
  matrix + :func:`scipy.sparse.csgraph.connected_components`), largest-cluster fraction, and
  :math:`P`, :math:`m` on the largest group with a fragmentation flag;
* elongation: extent along the mean heading / extent across it (Couzin 2005);
* accuracy toward the preferred direction ``g`` from centroid displacements:
  both :math:`1 - \langle|\delta|\rangle/\pi` and :math:`\langle\cos\delta\rangle`;
* predation: captures over time, time to first capture, share of captured prey that were on
  the convex hull when the attack began;
* Voronoi "domain of danger" (Hamilton 1971) of each individual, clipped to a disc
  (:mod:`flocklab.models.zonal.danger`), and the captured prey's rank among the domains when the
  attack began (:func:`domain_ranks`, :func:`danger_metrics`);
* collective memory of a zone-width schedule: stage averages and the gap between the
  increasing and the decreasing branch (:func:`hysteresis`).

References
----------
W. D. Hamilton, "Geometry for the selfish herd", J. Theor. Biol. 31, 295-311 (1971).
I. D. Couzin et al., J. Theor. Biol. 218, 1-11 (2002); Nature 433, 513-516 (2005).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

# the shared collective observables, used here and by the model's callers as metrics.<name>
from flocklab.analysis.collective import (  # noqa: F401
    LargestGroup,
    groups,
    largest_group_order,
    milling,
    nearest_neighbour_distance,
    polarisation,
    radius_of_gyration,
)


def elongation(pos: np.ndarray, head: np.ndarray) -> float:
    """Extent along the mean heading divided by the largest extent across it.

    The across-extent is measured along the principal axis of the positions projected on the
    plane perpendicular to the mean heading (in 2-D, the one perpendicular direction).
    """
    pos = np.asarray(pos, dtype=float)
    mean = np.asarray(head, dtype=float).sum(axis=0)
    if pos.shape[0] < 2 or not np.any(mean):
        return math.nan
    u = mean / np.linalg.norm(mean)
    rel = pos - pos.mean(axis=0)
    along = rel @ u
    perp = rel - np.outer(along, u)
    _, _, vt = np.linalg.svd(perp, full_matrices=False)
    across = perp @ vt[0]
    width = np.ptp(across)
    return float(np.ptp(along) / width) if width > 0 else math.inf


def accuracy(displacements: np.ndarray, g: np.ndarray) -> tuple[float, float]:
    """Accuracy of group travel toward ``g``: ``(1 - <|delta|>/pi, <cos delta>)``.

    Parameters
    ----------
    displacements : ndarray (R, d)
        Centroid displacement of each run (or time window).
    g : ndarray (d,)
        Preferred direction.
    """
    d = np.atleast_2d(np.asarray(displacements, dtype=float))
    g = np.asarray(g, dtype=float) / np.linalg.norm(g)
    cos = np.clip(d @ g / np.linalg.norm(d, axis=1), -1.0, 1.0)
    return float(1.0 - np.mean(np.arccos(cos)) / math.pi), float(np.mean(cos))


def heading_choice(travel: np.ndarray, first: np.ndarray, second: np.ndarray) -> int:
    """Which of two conflicting directions a group took: 0 the ``first``, 1 the ``second``,
    2 their average (the bisector), whichever is nearest in angle to ``travel``.

    Couzin et al. (2005) find that a group led by two informed subgroups whose preferred
    directions differ by a small angle θ travels along the average (accuracy toward either
    target ≈ cos(θ/2)), and beyond a critical θ picks one of the two. Where the directions are
    opposite the bisector is undefined and only 0 or 1 can be returned.

    Parameters
    ----------
    travel, first, second : ndarray (d,)
        The group's displacement and the two preferred directions (any lengths > 0).

    Returns
    -------
    int
        0, 1 or 2 (ties go to the average, then to ``first``).
    """
    unit = [np.asarray(v, dtype=float) / np.linalg.norm(v) for v in (first, second)]
    bisector = unit[0] + unit[1]
    candidates = {2: bisector} if np.linalg.norm(bisector) > 1e-9 else {}
    candidates.update({0: unit[0], 1: unit[1]})
    travel = np.asarray(travel, dtype=float) / np.linalg.norm(travel)
    cosines = {k: float(travel @ v / np.linalg.norm(v)) for k, v in candidates.items()}
    return max(cosines, key=lambda k: cosines[k] + 1e-12 * (k == 2))


def captures_over_time(capture_step: np.ndarray, steps: int) -> np.ndarray:
    """Cumulative number of captures after each step 0..steps, shape (steps + 1,)."""
    captured = np.asarray(capture_step)
    captured = captured[captured >= 0]
    return np.cumsum(np.bincount(captured, minlength=steps + 1)[: steps + 1])


def time_to_first_capture(capture_step: np.ndarray, dt: float) -> float:
    """Time of the first capture (NaN if none)."""
    captured = np.asarray(capture_step)
    captured = captured[captured >= 0]
    return float(captured.min() * dt) if captured.size else math.nan


def hull_share(capture_on_hull: np.ndarray) -> float:
    """Share of captured prey that were on the convex hull when the attack began (NaN: none)."""
    flags = np.asarray(capture_on_hull)
    known = flags[flags >= 0]
    return float(known.mean()) if known.size else math.nan


def domain_ranks(areas: np.ndarray) -> np.ndarray:
    """Mid-rank of each finite entry among the others: (number smaller + half the number
    equal) / (n - 1), in [0, 1] (0 the smallest domain, 1 the largest); NaN where ``areas``
    is NaN or fewer than two entries are finite. Under a choice blind to the areas the
    expected rank is exactly 1/2."""
    values = np.asarray(areas, dtype=float)
    ranks = np.full(values.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(values))
    if finite.size < 2:
        return ranks
    known = np.sort(values[finite])
    smaller = np.searchsorted(known, values[finite], side="left")
    equal = np.searchsorted(known, values[finite], side="right") - smaller - 1
    ranks[finite] = (smaller + 0.5 * equal) / (finite.size - 1)
    return ranks


def danger_metrics(capture_domain_rank: np.ndarray, top: float = 0.75) -> tuple[float, float]:
    """Selfish-herd test on the captured prey's domain ranks (:func:`domain_ranks` at the
    start of the attack; NaN entries: not captured or unknown).

    Returns
    -------
    danger_rank : float
        Mean rank of the captured prey (1/2 if the predator ignores the domains; above 1/2
        when captures favour large domains, as Hamilton 1971 predicts).
    danger_share : float
        Share of the captured prey whose rank was >= ``top`` (the largest quarter of the
        domains for 0.75; about 1/4 for a choice blind to the domains). Both NaN with no
        ranked capture.
    """
    ranks = np.asarray(capture_domain_rank, dtype=float)
    ranks = ranks[np.isfinite(ranks)]
    if not ranks.size:
        return math.nan, math.nan
    return float(ranks.mean()), float(np.mean(ranks >= top))


def danger_excess(capture_domain_rank: np.ndarray, capture_null_rank: np.ndarray) -> float:
    """Mean over captures of the captured prey's domain rank minus the rank a predator
    approaching from a random side would have met (the engine's ``approach_null_rank``):
    above 0 when captures favour large domains beyond what attacking the group's edge gives
    by itself. NaN with no capture ranked both ways."""
    ranks, null = (np.asarray(a, dtype=float) for a in (capture_domain_rank, capture_null_rank))
    both = np.isfinite(ranks) & np.isfinite(null)
    return float(np.mean(ranks[both] - null[both])) if both.any() else math.nan


#: Thresholds of the collective-state labels (time-averaged P and m; the only place they are
#: set: the classifier, the per-run ``state`` metric and the memory metrics all read them).
STATE_THRESHOLDS = {"swarm_max": 0.35, "torus_min_m": 0.5, "parallel_min_p": 0.65,
                    "highly_parallel_min_p": 0.95}

#: Names of the integer state codes (index = code) of :func:`state_code`; -1 is
#: ``transitional`` (between the thresholds) or unknown (NaN averages).
STATES = ("swarm", "torus", "dynamic parallel", "highly parallel")


def classify_state(p: float, m: float) -> str:
    r"""Collective state of Couzin et al. (2002) from time-averaged polarisation and milling.

    With the thresholds of :data:`STATE_THRESHOLDS` (:func:`state_rules` states them):

    * ``highly parallel`` if :math:`P \ge 0.95`;
    * ``dynamic parallel`` if :math:`0.65 \le P < 0.95`;
    * ``torus`` if :math:`m \ge 0.5` (and :math:`P < 0.65`);
    * ``swarm`` if :math:`P < 0.35` and :math:`m < 0.35`;
    * ``transitional`` otherwise (between the thresholds), and for NaN input.

    Parameters
    ----------
    p, m : float
        Time averages of the polarisation :math:`P = |\sum_i e_i|/N` and the milling
        :math:`m = |\sum_i \hat r_{ic} \times e_i|/N`, both dimensionless in [0, 1].

    Returns
    -------
    str
        The state's name (one of :data:`STATES` or ``transitional``).

    Notes
    -----
    The states are those of I. D. Couzin, J. Krause, R. James, G. D. Ruxton and N. R. Franks,
    "Collective memory and spatial sorting in animal groups", J. Theor. Biol. 218, 1-11
    (2002); the thresholds are ours (the paper shows the states but gives none).
    """
    t = STATE_THRESHOLDS
    if p >= t["highly_parallel_min_p"]:
        return "highly parallel"
    if p >= t["parallel_min_p"]:
        return "dynamic parallel"
    if m >= t["torus_min_m"]:
        return "torus"
    if p < t["swarm_max"] and m < t["swarm_max"]:
        return "swarm"
    return "transitional"


def state_code(p: float, m: float) -> int:
    """Integer code of :func:`classify_state`: the index in :data:`STATES` (0 swarm, 1 torus,
    2 dynamic parallel, 3 highly parallel), -1 for ``transitional`` or NaN input.

    Parameters
    ----------
    p, m : float
        Time-averaged polarisation and milling (dimensionless, in [0, 1]).

    Returns
    -------
    int
        The state code (Couzin et al., J. Theor. Biol. 218, 1-11, 2002, for the states).
    """
    state = classify_state(p, m)
    return STATES.index(state) if state in STATES else -1


def state_rules() -> str:
    """The state labels and their thresholds in words, from :data:`STATE_THRESHOLDS`
    (for metric descriptions and captions)."""
    t = STATE_THRESHOLDS
    return (f"0 swarm (P < {t['swarm_max']:g} and m < {t['swarm_max']:g}), 1 torus "
            f"(m >= {t['torus_min_m']:g}, P < {t['parallel_min_p']:g}), 2 dynamic parallel "
            f"({t['parallel_min_p']:g} <= P < {t['highly_parallel_min_p']:g}), 3 highly "
            f"parallel (P >= {t['highly_parallel_min_p']:g}), -1 between the thresholds")


def stage_averages(time: np.ndarray, series: Mapping[str, np.ndarray],
                   stage_starts: Sequence[float]) -> list[dict[str, float]]:
    """Means of ``series`` over the second half of each stage of a zone-width schedule.

    Parameters
    ----------
    time : ndarray (T,)
        Record times; the record at ``t`` is the state after the step ending at ``t``.
    series : mapping of name -> ndarray (T,)
        Recorded observables.
    stage_starts : sequence of float
        Start times of the stages (the first is 0); the last stage ends at ``time[-1]``.

    Returns
    -------
    list of dict
        Per stage, the mean of each series over the records with
        ``t_k + (t_{k+1} - t_k)/2 < t <= t_{k+1}``.
    """
    edges = [*stage_starts, float(time[-1])]
    out = []
    for start, end in itertools.pairwise(edges):
        keep = (time > 0.5 * (start + end)) & (time <= end)
        out.append({name: float(np.mean(values[keep])) if keep.any() else math.nan
                    for name, values in series.items()})
    return out


def _coarse_state(p: float, m: float) -> str:
    return classify_state(p, m).replace("highly ", "").replace("dynamic ", "")


def hysteresis(widths: Sequence[float], p: Sequence[float], m: Sequence[float]
               ) -> dict[str, float]:
    r"""Collective memory of a zone-width schedule (Couzin et al. 2002).

    A stage is on the increasing branch if its width exceeds the previous one, on the
    decreasing branch if it is smaller, on the previous stage's branch if equal (the first
    stage: increasing). For every width met on both branches (the last stage of each at it):

    * ``gap_p`` = max over those widths of :math:`P_\downarrow - P_\uparrow`,
    * ``gap_m`` = max of :math:`m_\uparrow - m_\downarrow`,
    * ``hysteresis`` = 1 if at one of them the state (swarm, torus, parallel — highly and
      dynamic parallel merged — or transitional, :func:`classify_state`) differs, else 0.

    All NaN when no width is met on both branches.
    """
    up: dict[float, tuple[float, float]] = {}
    down: dict[float, tuple[float, float]] = {}
    rising, previous = True, None
    for width, pk, mk in zip(widths, p, m, strict=True):
        if previous is not None and width != previous:
            rising = width > previous
        (up if rising else down)[round(float(width), 9)] = (pk, mk)
        previous = width
    shared = sorted(set(up) & set(down))
    if not shared:
        return {"gap_p": math.nan, "gap_m": math.nan, "hysteresis": math.nan}
    return {"gap_p": max(down[w][0] - up[w][0] for w in shared),
            "gap_m": max(up[w][1] - down[w][1] for w in shared),
            "hysteresis": float(any(_coarse_state(*up[w]) != _coarse_state(*down[w])
                                    for w in shared))}
