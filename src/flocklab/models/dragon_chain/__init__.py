r"""The bench dragon as a rigid chain of handles on a path (2024 CUMCM problem A).

223 benches joined by 224 handles move along a planar path: the head front handle at constant
speed, every following handle at the bench's chord distance behind the one ahead (2.86 m for
the head bench, 1.65 m for the others). Paths: ``spiral`` — the Archimedean in-spiral of
pitch :math:`p`, :math:`r = p\theta/2\pi`, traversed clockwise inward from turn
``start_turn`` on the +x axis (question 1); ``turnaround`` — that in-spiral down to the circle
of diameter ``turn_diameter``, an S-curve of two tangent arcs with radius ratio ``ratio``, and
the centrally mirrored out-spiral (question 4; contest time 0 when the head enters the S).

The state at every time is exact (no time integration): positions from the chain solver,
speeds from rigid-bench kinematics (:mod:`flocklab.geometry.chain`). Contest time is
``t0 + t`` with ``t`` the run's time. Observables: head position and radius, the smallest
board clearance over all non-adjacent bench pairs (separating axes, negative when two boards
overlap; the primary observable) and the largest handle speed. Run-level outputs: the first
contact time in the run's window, found to 1e-6 s
(:func:`flocklab.models.dragon_chain.collision.first_contact`),
and the head radius then.

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A,
"板凳龙" 闹元宵.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import (
    Metric,
    Model,
    Observable,
    Resources,
    SimulationError,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.models.dragon_chain.geometry import (
    BenchGeometry,
    in_spiral,
    innermost_head_arc_length,
    turnaround,
)
from flocklab.models.dragon_chain.tasks import TASKS, geometry_of
from flocklab.references import CUMCM_2024_A

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.time import TimeGrid

PATH_KINDS = ("spiral", "turnaround")


def _positive(name: str, default: float, description: str, unit: str, symbol: str = ""
              ) -> ParameterSpec:
    return ParameterSpec(name, "float", default, description, unit, low=0.0,
                         low_inclusive=False, symbol=symbol)


class DragonChain(Model):
    """Bench dragon on a spiral or turnaround path (equations in the module docstring)."""

    name = "dragon_chain"
    description = "bench dragon: rigid benches whose handles follow a spiral or turnaround path"
    reference = CUMCM_2024_A
    title = "Bench dragon as a rigid chain"
    time_mode = "continuous"
    time_units = "s"
    default_dt = 1.0
    parameters = (
        _positive("pitch", 0.55, "spiral pitch (distance between turns)", "m", "p"),
        _positive("head_speed", 1.0, "speed of the head front handle", "m s-1", "v_0"),
        ParameterSpec("path", "choice", "spiral", "head path: in-spiral, or in-spiral + "
                      "S-curve + mirrored out-spiral", choices=PATH_KINDS),
        _positive("start_turn", 16.0, "spiral path: head start on this turn on the +x axis",
                  "1"),
        ParameterSpec("t0", "float", 0.0, "contest time at the run's start (turnaround: "
                      "0 = head enters the S-curve)", "s"),
        _positive("turn_diameter", 9.0, "turnaround: diameter of the turnaround circle", "m",
                  "D"),
        _positive("ratio", 2.0, "turnaround: radius of the first arc over the second", "1"),
        ParameterSpec("n_benches", "int", 223, "number of benches", "1", low=3),
        _positive("head_board", 3.41, "head bench board length", "m"),
        _positive("body_board", 2.20, "body and tail bench board length", "m"),
        _positive("board_width", 0.30, "board width", "m"),
        ParameterSpec("hole_offset", "float", 0.275, "hole centre to board end", "m", low=0.0),
    )
    observables = (
        Observable("min_clearance", "smallest board clearance over non-adjacent bench pairs",
                   "m", symbol=r"g_{\min}"),
        Observable("head_x", "head front handle x", "m", symbol="x_0"),
        Observable("head_y", "head front handle y", "m", symbol="y_0"),
        Observable("head_radius", "head front handle distance from the centre", "m",
                   symbol="r_0"),
        Observable("max_speed", "largest handle speed", "m s-1", symbol=r"v_{\max}"),
    )
    primary_observable = "min_clearance"
    entity_dim = "handle"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("handle x position", "m"),
        "y": SnapshotVariable("handle y position", "m"),
        "speed": SnapshotVariable("handle speed", "m s-1"),
    }
    run_metrics = (
        Metric("collision_time", "first contact of two boards (contest time; NaN if none)",
               "s"),
        Metric("collision_radius", "head radius at the first contact (NaN if none)", "m"),
        Metric("max_speed_ratio", "largest recorded handle speed over the head speed", "1"),
    )
    tasks = TASKS
    drawing = "flocklab.models.dragon_chain.figures:ChainDrawing"
    commands = "flocklab.models.dragon_chain.commands:COMMANDS"

    # ----------------------------------------------------------------- set-up

    def entity_count(self, params: Mapping[str, Any]) -> int:
        return int(params["n_benches"]) + 1

    def geometry(self, params: Mapping[str, Any]) -> BenchGeometry:
        """The :class:`~flocklab.models.dragon_chain.geometry.BenchGeometry` of ``params``."""
        return geometry_of(params)

    def path(self, params: Mapping[str, Any]) -> tuple[Any, float]:
        """The head path and the head's arc length at contest time 0."""
        if params["path"] == "spiral":
            return in_spiral(params["pitch"], params["start_turn"]), 0.0
        turn = turnaround(params["pitch"], params["turn_diameter"], params["ratio"],
                          self.geometry(params))
        return turn.path, turn.s_enter

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """Board and hole sizes, the turnaround's fit, the head's start turn and, with the
        run's grid, that a spiral run ends before the head reaches the centre."""
        geometry = self.geometry(params)  # board and hole sizes (errors name the key)
        if params["path"] == "turnaround":
            self.path(params)  # turn circle larger than the head bench, ratio > 0
            return
        if params["start_turn"] * params["pitch"] * 2 < geometry.spacings[0]:
            raise ParameterError("start_turn", f"parameter 'start_turn' = "
                                 f"{params['start_turn']!r}: the head starts inside the turn "
                                 f"where its bench no longer fits")
        if grid is None:
            return
        spiral, _ = self.path(params)
        s_last = params["head_speed"] * (params["t0"] + grid.t_end)
        limit = innermost_head_arc_length(spiral, geometry)
        if s_last > limit:
            raise ParameterError("t_end", f"'t_end' = {grid.t_end:g}: the head reaches the "
                                 f"spiral's centre after {limit / params['head_speed']:g} s "
                                 f"of contest time")

    # ----------------------------------------------------------------- hooks

    def uses_seed(self, params: Mapping[str, Any]) -> bool:
        """Never: the chain's motion is fixed by the head's path and the geometry."""
        return False

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Handles at contest time ``t0``; arrays ``time``, ``s``, ``xy``, ``speed``."""
        n = self.entity_count(params)
        path, s_zero = self.path(params)
        state = {"time": np.zeros(1), "s": np.empty(n), "xy": np.empty((n, 2)),
                 "speed": np.empty(n), "_path": path, "_s_zero": s_zero,
                 "_geometry": self.geometry(params)}
        self._place(state, params, 0.0)
        return state

    def _place(self, state: dict, params: Mapping[str, Any], t: float) -> None:
        from flocklab.geometry.chain import chain_state

        s_head = state["_s_zero"] + params["head_speed"] * (params["t0"] + t)
        try:
            chain = chain_state(state["_path"], np.array([s_head]),
                                state["_geometry"].spacings, params["head_speed"])
        except ValueError as error:
            raise SimulationError(f"dragon_chain at t = {t:g} s (parameters "
                                  f"{dict(params)}): {error}") from None
        state["time"][0] = t
        state["s"][:], state["xy"][:], state["speed"][:] = chain.s[0], chain.xy[0], \
            chain.speed[0]

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        """Place the chain at ``(first_step + k) dt`` (exact; no integration error)."""
        self._place(state, params, (first_step + k) * state["_dt"])

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.dragon_chain.collision import min_clearance

        head = state["xy"][0]
        return {"min_clearance": min_clearance(state["xy"], state["_geometry"]),
                "head_x": float(head[0]),
                "head_y": float(head[1]), "head_radius": float(math.hypot(*head)),
                "max_speed": float(state["speed"].max())}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"x": state["xy"][:, 0].copy(), "y": state["xy"][:, 1].copy(),
                "speed": state["speed"].copy()}

    def run_outputs(self, state: dict, params: Mapping[str, Any]
                      ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        """First contact between contest times ``t0`` and the run's end (to 1e-6 s)."""
        from flocklab.models.dragon_chain.collision import first_contact

        v, t0 = params["head_speed"], params["t0"]
        s0 = state["_s_zero"] + v * t0
        search = first_contact(state["_path"], s0, s0 + v * float(state["time"][0]),
                               state["_geometry"], step=0.1, xtol=1e-7 * v)
        if search.s_contact is None:
            time, radius = math.nan, math.nan
        else:
            time = (search.s_contact - state["_s_zero"]) / v
            radius = float(np.hypot(*state["_path"].position(search.s_contact)))
        return {
            "collision_time": ((), np.array(time), {"long_name": "first contact of two "
                               "boards, contest time (NaN: none in the run)", "units": "s"}),
            "collision_radius": ((), np.array(radius), {"long_name": "head radius at the "
                                 "first contact", "units": "m"}),
        }

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        ratio = run["max_speed"].values / float(params["head_speed"])
        return {"collision_time": float(run["collision_time"].values),
                "collision_radius": float(run["collision_radius"].values),
                "max_speed_ratio": float(np.max(ratio))}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """Frames of 3 words per handle, all-pairs clearance work space (about 12 words per
        bench pair), twice over; 5 ms per step and 2 s for the contact search."""
        n = self.entity_count(params)
        pairs = (n - 1) * (n - 2) // 2
        words = 3 * n * len(grid.frame_steps) + 6 * len(grid.record_steps) + 12 * pairs
        return Resources(2 * 8 * words, 0.005 * grid.steps + 2.0)
