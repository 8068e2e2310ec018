r"""The five answers as JSON-ready documents with their checks and contest tables.

One place for what the command line (``flocklab dragon``,
:mod:`flocklab.models.dragon_chain.commands`) and the pipeline tasks
(:mod:`flocklab.models.dragon_chain.tasks`) report about each question:

* :func:`trajectory_checks` — chord constraint :math:`\max_i ||P_i - P_{i+1}| - d_i|` and the
  rigid-bench speeds against central differences of the positions,
  :math:`|P_i(s + h) - P_i(s - h)| / (2h/v_0)`;
* :func:`collision_document` — Q2 time (to 1e-6 s), touching benches, state, and the
  bracket check: every non-adjacent pair apart 1e-6 s before, some pair touching 1e-6 s after;
* :func:`s_curve_document` — Q4 S-curve geometry and its length for several radius ratios
  (all tangencies kept; the length does not depend on the ratio);
* :func:`trajectory_tables` / :func:`state_tables` — result1/result4 and result2 layouts and the
  paper tables (:mod:`flocklab.models.dragon_chain.tables`).

Answers are rounded to the contest's six decimals (:data:`DECIMALS`), kept as floats.

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flocklab.geometry.chain import ChainState, chain_state
from flocklab.geometry.paths import Path
from flocklab.models.dragon_chain.collision import all_pairs_separation
from flocklab.models.dragon_chain.geometry import BenchGeometry
from flocklab.models.dragon_chain.questions import Trajectory, s_curve_length_vs_ratio
from flocklab.models.dragon_chain.tables import (
    DECIMALS,
    Table,
    contest_tables,
    paper_state_table,
    paper_tables,
    state_table,
)

#: Radius ratios of the S-curve length check (Q4).
LENGTH_CHECK_RATIOS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
#: Time offset of the Q2 bracket check and of the central differences (s).
CHECK_DT = 1e-6


def six(value: float) -> float:
    """``value`` rounded to the contest's six decimals (a float; ``-0.0`` becomes ``0.0``)."""
    return round(float(value), DECIMALS) + 0.0


def state_json(state: ChainState, index: int = 0) -> dict[str, list[float]]:
    """Handle positions and speeds at instant ``index`` of ``state`` as lists (m, m/s)."""
    return {"x": state.xy[index, :, 0].tolist(), "y": state.xy[index, :, 1].tolist(),
            "speed": state.speed[index].tolist()}


def chord_residual(xy: np.ndarray, spacings: np.ndarray) -> float:
    r"""Largest :math:`||P_i - P_{i+1}| - d_i|` over handles and times; ``xy`` (..., H, 2) (m)."""
    chord = np.linalg.norm(np.diff(xy, axis=-2), axis=-1)
    return float(np.max(np.abs(chord - spacings)))


def trajectory_checks(path: Path, s_head: np.ndarray, state: ChainState,
                      geometry: BenchGeometry, head_speed: float, h: float = 1e-4
                      ) -> dict[str, float]:
    """Chord residual (m) and the largest deviation of the rigid-bench speeds from central
    differences of the positions with head steps of ``h`` m (m/s; error O(h²))."""
    ahead = chain_state(path, s_head + h, geometry.spacings).xy
    behind = chain_state(path, s_head - h, geometry.spacings).xy
    numeric = np.linalg.norm(ahead - behind, axis=-1) * head_speed / (2 * h)
    return {"chord_residual_max_m": chord_residual(state.xy, geometry.spacings),
            "speed_vs_central_difference_max_m_per_s": float(np.max(np.abs(
                numeric - state.speed)))}


def trajectory_tables(trajectory: Trajectory, paper_every: float) -> dict[str, list[Table]]:
    """``{"contest": [positions, speeds], "paper": [...]}`` for a Q1 or Q4 trajectory."""
    times, state = trajectory.times, trajectory.state
    return {"contest": contest_tables(times, state.xy, state.speed),
            "paper": paper_tables(times, state.xy, state.speed, paper_every)}


def state_tables(state: ChainState, index: int = 0) -> dict[str, list[Table]]:
    """``{"contest": [result2], "paper": [result2 at the paper's handles]}``."""
    return {"contest": [state_table(state.xy[index], state.speed[index])],
            "paper": [paper_state_table(state.xy[index], state.speed[index])]}


def head_and_tail(state: ChainState, index: int = -1) -> dict[str, Any]:
    """Head front and tail rear position and speed at instant ``index`` (six decimals)."""
    xy, speed = state.xy[index], state.speed[index]
    return {name: {"x": six(xy[h, 0]), "y": six(xy[h, 1]), "speed": six(speed[h])}
            for name, h in (("head", 0), ("tail_rear", -1))}


def collision_document(result: dict, path: Path, geometry: BenchGeometry,
                       head_speed: float) -> dict[str, Any]:
    """Q2 answer from :func:`~flocklab.models.dragon_chain.questions.q2_collision` (state as lists).

    The check evaluates the smallest separation of all non-adjacent bench pairs
    :data:`CHECK_DT` seconds before and after the contact time.
    """
    document = {key: value for key, value in result.items() if key != "state"}
    if result.get("time") is None:
        return document
    s_contact = result["head_arc_length"]
    step = CHECK_DT * head_speed
    before = all_pairs_separation(path, s_contact - step, geometry)
    after = all_pairs_separation(path, s_contact + step, geometry)
    document.update(
        time_six=six(result["time"]), head_radius_six=six(result["head_radius"]),
        state=state_json(result["state"]),
        check={"separation_before_m": before, "separation_after_m": after,
               "bracketed": bool(before > 0.0 >= after), "offset_s": CHECK_DT})
    return document


def s_curve_document(trajectory: Trajectory, pitch: float, turn_diameter: float
                     ) -> dict[str, Any]:
    """Q4 S-curve geometry plus its length for each ratio of :data:`LENGTH_CHECK_RATIOS`."""
    geometry = dict(trajectory.info["s_curve"])
    lengths = s_curve_length_vs_ratio(pitch, turn_diameter, LENGTH_CHECK_RATIOS)
    geometry["length_vs_ratio"] = {f"{k:g}": float(v) for k, v in
                                   zip(LENGTH_CHECK_RATIOS, lengths, strict=True)}
    geometry["length_spread_m"] = float(np.ptp(lengths))
    return geometry
