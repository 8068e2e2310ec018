"""The contest questions as pipeline tasks of the ``dragon_chain`` model.

Each task (a :class:`flocklab.core.tasks.Task`) takes the model's resolved parameters (pitch, head
speed, turnaround diameter and ratio, bench geometry) and a few options (declared as
parameter specs, checked before any job runs), calls the functions of
:mod:`flocklab.models.dragon_chain.questions`, writes the contest tables into the task's directory
(:func:`flocklab.models.dragon_chain.tables.write_tables`: CSV files with a byte-order mark
and an ``.xlsx`` workbook whose custom document properties give the parameters, options,
package version and git commit) and returns a JSON-ready document: ``answer`` (six
decimals), ``check`` (how it was verified) and ``files`` (the table files, relative to the
directory).

========== ===================== ====================================================
task       question              tables
========== ===================== ====================================================
positions  Q1 spiral, t0..t1     result1.xlsx, result1_positions/speeds.csv, paper1.*
collision  Q2 first contact      result2.xlsx, result2.csv, paper2.*
min_pitch  Q3 smallest pitch     none
turnaround Q4 S-curve, t0..t1    result4.xlsx, result4_positions/speeds.csv, paper4.*
max_speed  Q5 largest head speed none
========== ===================== ====================================================

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.io import json_ready
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.provenance import provenance_attrs
from flocklab.core.tasks import Task
from flocklab.models.dragon_chain.geometry import (
    BenchGeometry,
    in_spiral,
    innermost_head_arc_length,
    turnaround,
)

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model
    from flocklab.models.dragon_chain.tables import Table

#: Most table columns (times) a trajectory task writes.
MAX_TIMES = 20001


def _number(name: str, default: float, description: str, unit: str, positive: bool = False
            ) -> ParameterSpec:
    if positive:
        return ParameterSpec(name, "float", default, description, unit, low=0.0,
                             low_inclusive=False)
    return ParameterSpec(name, "float", default, description, unit)


def _window(start: float, end: float, every: float) -> tuple[ParameterSpec, ...]:
    return (_number("t_start", start, "first table time", "s"),
            _number("t_end", end, "last table time", "s"),
            _number("t_step", 1.0, "table time step", "s", positive=True),
            _number("paper_every", every, "paper tables: times that are multiples of this",
                    "s", positive=True))


def geometry_of(params: Mapping[str, Any]) -> BenchGeometry:
    """Bench geometry of the model parameters (errors name the key)."""
    return BenchGeometry(int(params["n_benches"]), params["head_board"], params["body_board"],
                         params["board_width"], params["hole_offset"])


def _check_window(params: Mapping[str, Any], options: dict[str, Any]) -> None:
    start, end, step = options["t_start"], options["t_end"], options["t_step"]
    if not end >= start:
        raise ParameterError("t_end", f"option 't_end' = {end!r} must be >= t_start = "
                             f"{start!r}")
    if (end - start) / step + 1 > MAX_TIMES:
        raise ParameterError("t_step", f"option 't_step' = {step!r}: more than {MAX_TIMES} "
                             "table times between t_start and t_end")


def _write(groups: Mapping[str, list[Table]], stems: Mapping[str, str], out_dir: Path,
           params: Mapping[str, Any], options: Mapping[str, Any]) -> list[str]:
    """Write each group of tables under its stem in ``out_dir``, the workbooks with the
    parameters, options and provenance as properties; the file names written."""
    from flocklab.models.dragon_chain.tables import write_tables

    properties = {"parameters": json.dumps(json_ready(dict(params)), sort_keys=True),
                  "options": json.dumps(json_ready(dict(options)), sort_keys=True),
                  **provenance_attrs()}
    written: list[str] = []
    for group, tables in groups.items():
        paths = write_tables(tables, Path(out_dir) / stems[group], properties=properties)
        written += [path.name for path in paths]
    return written


class Positions(Task):
    """Q1: every handle on the in-spiral, positions and speeds every ``t_step`` s."""

    name = "positions"
    description = "Q1: all handles on the in-spiral (positions and speeds every t_step s)"
    options = _window(0.0, 300.0, 60.0)

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        _check_window(params, options)
        spiral = in_spiral(params["pitch"], params["start_turn"])
        limit = innermost_head_arc_length(spiral, geometry_of(params))
        if params["head_speed"] * options["t_end"] > limit:
            raise ParameterError("t_end", f"option 't_end' = {options['t_end']!r}: the head "
                                 f"reaches the spiral's centre after "
                                 f"{limit / params['head_speed']:g} s")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return json_ready(_run_positions(params, options, out_dir, geometry_of(params)))


class Collision(Task):
    """Q2: the first contact of two boards as the head spirals in."""

    name = "collision"
    description = "Q2: first contact of two boards as the head spirals in"
    options = (_number("step", 0.1, "contact scan step of the head", "m", positive=True),)

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return json_ready(_run_collision(params, options, out_dir, geometry_of(params)))


class MinPitch(Task):
    """Q3: the smallest pitch that reaches the turnaround circle without contact."""

    name = "min_pitch"
    description = "Q3: smallest pitch reaching the turnaround circle without contact"
    options = (
        _number("r_start", 8.8, "head start radius", "m", positive=True),
        _number("p_low", 0.40, "lowest pitch of the scan", "m", positive=True),
        _number("p_high", 0.56, "highest pitch of the scan (must be free)", "m",
                positive=True),
        _number("grid_step", 0.02, "pitch scan step", "m", positive=True),
        _number("tol", 1e-8, "bisection tolerance of the pitch", "m", positive=True),
        _number("step", 0.1, "contact scan step of the head", "m", positive=True))

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        if not options["p_low"] < options["p_high"]:
            raise ParameterError("p_high", f"option 'p_high' = {options['p_high']!r} must "
                                 f"exceed p_low = {options['p_low']!r}")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return json_ready(_run_min_pitch(params, options, out_dir, geometry_of(params)))


class Turnaround(Task):
    """Q4: every handle on the turnaround path, with the S-curve's geometry and length."""

    name = "turnaround"
    description = "Q4: all handles on the turnaround path, S-curve geometry and length"
    options = _window(-100.0, 100.0, 50.0)

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        _check_window(params, options)

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return json_ready(_run_turnaround(params, options, out_dir, geometry_of(params)))


class MaxSpeed(Task):
    """Q5: the largest head speed that keeps every handle at or below the limit."""

    name = "max_speed"
    description = "Q5: largest head speed keeping every handle at or below the limit"
    options = (
        _number("limit", 2.0, "largest allowed handle speed", "m s-1", positive=True),
        _number("t_start", -200.0, "scan start, s of 1 m/s travel from the S-curve entry",
                "s"),
        _number("step", 0.1, "scan step of the head", "m", positive=True))

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return json_ready(_run_max_speed(params, options, out_dir, geometry_of(params)))


#: The contest questions, in the contest's order.
TASKS: tuple[Task, ...] = (Positions(), Collision(), MinPitch(), Turnaround(), MaxSpeed())


# --------------------------------------------------------------------------- the answers


def _run_positions(params: Mapping[str, Any], options: Mapping[str, Any], out_dir: Path,
                   geometry: BenchGeometry) -> dict[str, Any]:
    from flocklab.models.dragon_chain import answers
    from flocklab.models.dragon_chain import questions as q

    v = params["head_speed"]
    trajectory = q.q1_spiral(params["pitch"], params["start_turn"], v, options["t_start"],
                             options["t_end"], options["t_step"], geometry)
    files = _write(answers.trajectory_tables(trajectory, options["paper_every"]),
                   {"contest": "result1", "paper": "paper1"}, out_dir, params,
                   options)
    spiral = in_spiral(params["pitch"], params["start_turn"])
    check = answers.trajectory_checks(spiral, v * trajectory.times, trajectory.state, geometry,
                                      v)
    return {"answer": {"times": len(trajectory.times), "handles": geometry.n_handles,
                       "at_t_end": answers.head_and_tail(trajectory.state)},
            "check": {**check, "method": "chord distances at every handle and time; "
                      "rigid-bench speeds against central differences of positions"},
            "files": files}


def _run_collision(params: Mapping[str, Any], options: Mapping[str, Any], out_dir: Path,
                   geometry: BenchGeometry) -> dict[str, Any]:
    from flocklab.models.dragon_chain import answers
    from flocklab.models.dragon_chain import questions as q

    v = params["head_speed"]
    result = q.q2_collision(params["pitch"], params["start_turn"], v, options["step"], geometry)
    spiral = in_spiral(params["pitch"], params["start_turn"])
    document = answers.collision_document(result, spiral, geometry, v)
    if result["time"] is None:
        return {"answer": {"time": None}, "check": {"min_separation_m":
                                                    result["min_separation"]}, "files": []}
    files = _write(answers.state_tables(result["state"]),
                   {"contest": "result2", "paper": "paper2"}, out_dir, params, options)
    check = {**document["check"], "method": "all non-adjacent bench pairs (separating axes) "
             "apart before and touching after the contact time"}
    return {"answer": {"time": document["time_six"], "head_radius": document["head_radius_six"],
                       "touching": document["touching"],
                       "at_contact": answers.head_and_tail(result["state"])},
            "check": check, "state": document["state"], "files": files}


def _run_min_pitch(params: Mapping[str, Any], options: Mapping[str, Any], out_dir: Path,
                   geometry: BenchGeometry) -> dict[str, Any]:
    from flocklab.models.dragon_chain import answers
    from flocklab.models.dragon_chain import questions as q

    result = q.q3_min_pitch(params["turn_diameter"], options["r_start"], options["p_low"],
                            options["p_high"], options["grid_step"], options["tol"],
                            options["step"], geometry)
    check = {"bracket_m": list(result["bracket"]),
             "grid": result["grid"], "grid_free": result["grid_free"],
             "neighbourhood": result["neighbourhood"],
             "neighbourhood_free": result["neighbourhood_free"],
             "all_free_above": bool(np.all(result["neighbourhood_free"])),
             "contact_radius_below_m": result["contact_radius_below"],
             "method": "every head position from r_start to the circle checked for contact "
                       "(all pairs); pitch grid, bisection, fine re-check above the answer"}
    return {"answer": {"min_pitch": answers.six(result["min_pitch"])}, "check": check,
            "files": []}


def _run_turnaround(params: Mapping[str, Any], options: Mapping[str, Any], out_dir: Path,
                    geometry: BenchGeometry) -> dict[str, Any]:
    from flocklab.models.dragon_chain import answers
    from flocklab.models.dragon_chain import questions as q

    v, pitch, diameter = params["head_speed"], params["pitch"], params["turn_diameter"]
    trajectory = q.q4_turnaround(pitch, diameter, params["ratio"], v, options["t_start"],
                                 options["t_end"], options["t_step"], geometry)
    files = _write(answers.trajectory_tables(trajectory, options["paper_every"]),
                   {"contest": "result4", "paper": "paper4"}, out_dir, params,
                   options)
    path = turnaround(pitch, diameter, params["ratio"], geometry)
    s_head = path.s_enter + v * trajectory.times
    s_curve = answers.s_curve_document(trajectory, pitch, diameter)
    check = {**answers.trajectory_checks(path.path, s_head, trajectory.state, geometry, v),
             "s_curve_length_spread_over_ratios_m": s_curve["length_spread_m"],
             "method": "chord distances and central differences as Q1; S-curve length for "
                       "ratios 0.25..10 with all tangencies kept"}
    return {"answer": {"s_curve_length": answers.six(s_curve["s_curve_length"]),
                       "shorter_by_changing_ratio": bool(s_curve["length_spread_m"] > 1e-6),
                       "radii": [answers.six(r) for r in s_curve["radii"]],
                       "at_t_end": answers.head_and_tail(trajectory.state)},
            "s_curve": s_curve, "check": check, "files": files}


def _run_max_speed(params: Mapping[str, Any], options: Mapping[str, Any], out_dir: Path,
                   geometry: BenchGeometry) -> dict[str, Any]:
    from flocklab.models.dragon_chain import answers
    from flocklab.models.dragon_chain import questions as q

    pitch, diameter, ratio = params["pitch"], params["turn_diameter"], params["ratio"]
    result = q.q5_max_speed(pitch, diameter, ratio, options["limit"], options["t_start"],
                            step=options["step"], geometry=geometry)
    path = turnaround(pitch, diameter, ratio, geometry)
    v = result["max_head_speed"]
    from flocklab.geometry.chain import chain_state

    state = chain_state(path.path, np.array([path.s_enter + result["time"]]),
                          geometry.spacings, v)
    peak = float(state.speed.max())
    check = {"peak_handle_speed_at_answer_m_per_s": peak,
             "limit_reached": bool(math.isclose(peak, options["limit"], rel_tol=1e-9)),
             "grid_max_ratio": result["grid_max_ratio"], "refined_max_ratio":
             result["max_ratio"], "scan": result["scan"],
             "method": "speeds scale with the head speed: v_max = limit / max over head "
                       "positions and handles of v_i/v_0; grid scan then local refinement"}
    return {"answer": {"max_head_speed": answers.six(v),
                       "max_ratio": answers.six(result["max_ratio"]),
                       "time": answers.six(result["time"]),
                       "binding_handles": result["binding_handles"],
                       "binding_segments": result["binding_segments"]},
            "check": check, "files": []}


