r"""The zonal model of animal groups on the model contract (declarations and hooks).

Rules, predators, obstacles and food are described in :mod:`flocklab.models.zonal.rules`,
:mod:`flocklab.models.zonal.predators` and :mod:`flocklab.models.zonal.motion`; the engine
(:class:`flocklab.models.zonal.engine.ZonalSimulation`) owns the arrays and the kernels. This module
declares the parameters (scalars plus the structured ``predators``, ``obstacles``,
``subgroups`` and ``food``), the observables (polarisation and milling of all alive agents
and of the largest group, its share of the agents, the survivors, the centroid, spacing,
size and elongation), the
snapshot variables on (``frame``, ``agent``), the run metrics (predation and accuracy) and a
drawing hook.

Time is continuous (``t_end`` and ``dt`` in seconds, default ``dt = 0.1`` s as in Couzin et
al. 2002); ``dt`` is checked against the repulsion radius before any job runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import (
    DerivedQuantity,
    Kinematics,
    Metric,
    Model,
    Observable,
    Preset,
    Resources,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterSpec
from flocklab.models.zonal.metrics import state_rules
from flocklab.references import COUZIN_2002, COUZIN_2005, REYNOLDS_1987

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.time import TimeGrid

_VECTOR = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3}
PREDATOR_SCHEMA = {
    "description": "list of predators: position (required), speed, stalk_speed, "
                   "detection_range, capture_radius, c1, c2, w_d, w_v, target "
                   "(nearest|optimal), max_attack_time, rest_time; target, w_d and w_v "
                   "default to the scalars predator_target, predator_w_d, predator_w_v",
    "type": "array",
    "items": {"type": "object", "required": ["position"], "additionalProperties": False,
              "properties": {"position": _VECTOR,
                             "target": {"enum": ["nearest", "optimal"]},
                             **{key: {"type": "number", "minimum": 0} for key in (
                                 "speed", "stalk_speed", "detection_range", "capture_radius",
                                 "c1", "c2", "w_d", "w_v", "max_attack_time", "rest_time")}}},
}
OBSTACLE_SCHEMA = {
    "description": "list of circles (2-D) / spheres (3-D): centre, radius, influence R > "
                   "radius (default 2 radius), k (default: the scalar obstacle_k)",
    "type": "array",
    "items": {"type": "object", "required": ["centre", "radius"], "additionalProperties": False,
              "properties": {"centre": _VECTOR, "radius": {"type": "number", "exclusiveMinimum": 0},
                             "influence": {"type": "number", "exclusiveMinimum": 0},
                             "k": {"type": "number", "minimum": 0}}},
}
SUBGROUP_SCHEMA = {
    "description": "informed subgroups: fraction in [0, 1] and preferred direction",
    "type": "array",
    "items": {"type": "object", "required": ["fraction", "direction"],
              "additionalProperties": False,
              "properties": {"fraction": {"type": "number", "minimum": 0, "maximum": 1},
                             "direction": _VECTOR}},
}
FOOD_SCHEMA = {
    "description": "food point known to the informed agents: {position: [x, y(, z)]} or null",
    "type": ["object", "null"], "required": ["position"], "additionalProperties": False,
    "properties": {"position": _VECTOR},
}
SCHEDULE_SCHEMA = {
    "description": "couzin2002 zone widths over time: entries {time, delta_o, delta_a} at "
                   "increasing times; from each time on its widths apply (the state goes on)",
    "type": "array",
    "items": {"type": "object", "required": ["time"], "additionalProperties": False,
              "properties": {"time": {"type": "number", "exclusiveMinimum": 0},
                             "delta_o": {"type": "number", "minimum": 0},
                             "delta_a": {"type": "number", "minimum": 0}}},
}
SYMBOLS = {"N": "N", "r_r": "r_r", "delta_o": r"\Delta r_o", "delta_a": r"\Delta r_a",
           "noise": r"\sigma", "turning_rate": r"\theta", "field_of_view": r"\alpha_{fov}",
           "omega": r"\omega", "informed_fraction": "p", "alpha": r"\alpha", "rho": r"\rho",
           "speed": "s", "predator_w_v": "w_v", "predator_w_d": "w_d", "obstacle_k": "k"}


def _preferred_direction(run: xr.Dataset) -> np.ndarray:
    """g, the unit vector at ``preferred_angle`` in the xy plane, in the run's dimension."""
    angle = math.radians(float(run.attrs.get("preferred_angle", 0.0)))
    return np.array([math.cos(angle), math.sin(angle), 0.0])[: int(run.attrs["dim"])]


def _conflict_cos(params: Mapping[str, Any]) -> float:
    """cos θ, θ the angle between the informed group's direction g (``preferred_angle``) and
    the first subgroup's; NaN without a subgroup."""
    subgroups = params.get("subgroups") or []
    if not subgroups:
        return math.nan
    direction = np.asarray(subgroups[0]["direction"], dtype=float)
    angle = math.radians(float(params["preferred_angle"]))
    g = np.array([math.cos(angle), math.sin(angle), 0.0])[: direction.size]
    return float(np.clip(g @ direction / np.linalg.norm(direction), -1.0, 1.0))


def average_heading_cos(params: Mapping[str, Any]) -> float:
    """cos(θ/2) = √((1 + cos θ)/2): the accuracy toward g of a group that travels along the
    average of the two conflicting directions (Couzin et al. 2005); NaN without a subgroup."""
    return math.sqrt((1.0 + _conflict_cos(params)) / 2.0)


def fair_choice_cos(params: Mapping[str, Any]) -> float:
    """cos²(θ/2) = (1 + cos θ)/2: the mean accuracy toward g of groups that each follow one of
    the two directions, either with probability 1/2; NaN without a subgroup."""
    return (1.0 + _conflict_cos(params)) / 2.0


def _unknown_as_nan(values: np.ndarray) -> np.ndarray:
    """A copy with the engine's "unknown" marker (negative) replaced by NaN."""
    return np.where(values >= 0, values, np.nan)


def _declared_parameters() -> tuple[ParameterSpec, ...]:
    from dataclasses import replace

    from flocklab.models.zonal.params import SPECS

    scalars = tuple(replace(spec, symbol=SYMBOLS.get(spec.name, "")) for spec in SPECS
                    if spec.name != "dt")
    return (*scalars,
            ParameterSpec("predators", "json", [], "predators (list)", schema=PREDATOR_SCHEMA),
            ParameterSpec("obstacles", "json", [], "obstacles (list)", schema=OBSTACLE_SCHEMA),
            ParameterSpec("subgroups", "json", [], "informed subgroups with their own "
                          "preferred direction", schema=SUBGROUP_SCHEMA),
            ParameterSpec("food", "json", None, "food point known to informed agents",
                          schema=FOOD_SCHEMA),
            ParameterSpec("schedule", "json", [], "zone widths changed during the run "
                          "(collective memory)", schema=SCHEDULE_SCHEMA))


class Zonal(Model):
    """Couzin 2002 zones / Couzin 2005 informed individuals / boids, with predators,
    obstacles and food (see the module docstrings of :mod:`flocklab.models.zonal`)."""

    name = "zonal"
    description = ("zonal model of animal groups (Couzin 2002/2005, boids) with predators, "
                   "obstacles and informed agents")
    reference = f"{COUZIN_2002}; {COUZIN_2005}; {REYNOLDS_1987}"
    title = "Zonal model (Couzin et al.)"
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.1
    parameters = _declared_parameters()
    observables = (
        Observable("polarisation", "polarisation of the alive agents", "1", 0.0, 1.0, "P"),
        Observable("milling", "milling (normalised angular momentum) of the alive agents",
                   "1", 0.0, 1.0, "m"),
        Observable("polarisation_largest", "polarisation of the largest group", "1", 0.0, 1.0,
                   r"P_{\mathrm{lg}}"),
        Observable("milling_largest", "milling of the largest group", "1", 0.0, 1.0,
                   r"m_{\mathrm{lg}}"),
        Observable("largest_fraction", "share of the alive agents in the largest group", "1",
                   0.0, 1.0, "n_{max}/n"),
        Observable("alive_fraction", "share of the agents not captured", "1", 0.0, 1.0,
                   "n/N"),
        Observable("centroid_x", "centroid x of the alive agents", "1", symbol="X"),
        Observable("centroid_y", "centroid y of the alive agents", "1", symbol="Y"),
        Observable("centroid_z", "centroid z of the alive agents", "1", symbol="Z"),
        Observable("nearest_neighbour", "mean nearest-neighbour distance", "1",
                   symbol="d_{nn}"),
        Observable("gyration_radius", "radius of gyration", "1", symbol="R_g"),
        Observable("elongation", "extent along the mean heading over extent across", "1",
                   symbol="E"),
        Observable("groups", "number of groups (connected within the interaction range)",
                   "1", symbol="n_g"),
        Observable("orientation_width", "orientation width in force", "1",
                   symbol=r"\Delta r_o"),
        Observable("attraction_width", "attraction width in force", "1",
                   symbol=r"\Delta r_a"),
    )
    primary_observable = "polarisation"
    derived_quantities = (
        DerivedQuantity("average_heading_cos", "accuracy of travel along the average "
                        "direction", "1", r"\cos(\theta/2)", average_heading_cos),
        DerivedQuantity("fair_choice_cos", "mean accuracy of a fair choice of one direction",
                        "1", r"\cos^2(\theta/2)", fair_choice_cos),
    )
    drawing = "flocklab.models.zonal.figures:ZonalDrawing"
    #: The four states of Couzin et al. (2002) at attraction width 12 as the zone of
    #: orientation widens (the default config's zonal_states study finds each of them).
    presets = tuple(
        Preset(state, f"Couzin et al. (2002) {state}: delta_o = {width:g}, delta_a = 12 "
                      f"(3-D, N = 50, field of view 270 deg, 40 deg/s, speed 3)",
               {"rule": "couzin2002", "N": 50, "dim": 3, "r_r": 1.0, "field_of_view": 270.0,
                "turning_rate": 40.0, "speed": 3.0, "noise": 0.05, "delta_o": width,
                "delta_a": 12.0}, COUZIN_2002, dt=0.1)
        for state, width in (("swarm", 0.0), ("torus", 1.0), ("dynamic parallel", 2.5),
                             ("highly parallel", 4.0)))
    size_parameter = "N"
    #: P on [0, 1]: Couzin et al.'s parallel groups (P near 1) against the swarm and the torus.
    primary_is_order_parameter = True
    entity_dim = "agent"
    #: Positions, headings scaled by the recorded speed, the periodic box (0: open).
    kinematics = Kinematics(("x", "y", "z"), velocity=("ex", "ey", "ez"), speed="speed",
                            alive="alive", box=lambda params: params["box"],
                            dimension=lambda params: params["dim"])
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("agent x position", "1"),
        "y": SnapshotVariable("agent y position", "1"),
        "z": SnapshotVariable("agent z position (0 in 2-D)", "1"),
        "ex": SnapshotVariable("heading x component", "1"),
        "ey": SnapshotVariable("heading y component", "1"),
        "ez": SnapshotVariable("heading z component", "1"),
        "speed": SnapshotVariable("speed", "s-1"),
        "alive": SnapshotVariable("1 alive, 0 captured", "1", "int8"),
        "predator_position": SnapshotVariable(
            "predator position", "1", entity_dim="predator",
            count=lambda params: len(params["predators"]), trailing=(("axis", 3),)),
    }
    run_metrics = (
        Metric("state", "collective state of P and m of all alive agents averaged after "
                        f"burn-in: {state_rules()}"),
        Metric("captures", "prey captured during the run", "1"),
        Metric("first_capture_time", "time of the first capture (NaN: none)", "s",
               censored_at_end=True),
        Metric("hull_share", "share of captured prey on the convex hull when the attack "
                             "began", "1"),
        Metric("danger_rank", "mean rank (0 smallest, 1 largest) of the captured prey's "
                              "Voronoi domain of danger among the alive prey's when the "
                              "attack began (1/2: domains ignored; 2-D open space)", "1"),
        Metric("danger_rank_excess", "mean over captures of the captured prey's domain rank "
                                     "minus the rank a random approach side would meet "
                                     "(0: geometry alone; 2-D open space)", "1"),
        Metric("danger_share", "share of captured prey among the largest quarter of the "
                               "domains of danger when the attack began (about 1/4: ignored)",
               "1"),
        Metric("accuracy", "accuracy of the group's travel: 1 - |angle between "
                           "its displacement after burn-in and the preferred direction| / π", "1"),
        Metric("accuracy_cos", "cos of the angle between centroid displacement and g", "1"),
        Metric("travel_angle", "group heading: angle of the centroid displacement after "
                               "burn-in from the x axis, in the xy plane", "degree"),
        # 1 for the nearest of g, the first subgroup's direction and their average (NaN
        # without a subgroup); the replicate mean is the share of runs.
        Metric("toward_preferred", "travel toward the informed group's direction", "1"),
        Metric("toward_subgroup", "travel toward the subgroup's direction", "1"),
        Metric("toward_average", "travel toward the average direction", "1"),
        Metric("fragmented_share", "share of recorded times after burn-in with more than "
                                   "one group", "1"),
        Metric("memory_gap_p", "schedule: max over widths met on both branches of P "
                               "decreasing minus P increasing (second half of each stage)", "1"),
        Metric("memory_gap_m", "schedule: max of m increasing minus m decreasing", "1"),
        Metric("memory_hysteresis", "schedule: 1 if the state differs between the branches "
                                    "at some width, else 0", "1"),
    )

    # ----------------------------------------------------------------- parameters

    def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        """The structured parameters checked element by element and added in the engine's
        form (:func:`flocklab.models.zonal.params.complete`)."""
        from flocklab.models.zonal.params import complete

        return complete(params)

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """Cross-parameter rules (:func:`flocklab.models.zonal.params.check_consistency`);
        with the run's grid, no agent or predator may move more than the repulsion radius
        per step and the schedule's times must fall on steps."""
        from flocklab.models.zonal.params import (
            check_consistency,
            check_step_length,
            schedule_steps,
        )

        check_consistency(params, check_step=False)
        if grid is not None:
            check_step_length(params, grid.dt)
            schedule_steps(params["schedule"], grid.dt, grid.steps)

    # ----------------------------------------------------------------- hooks

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """The engine and views of its arrays (those not starting with ``_`` are
        checkpointed; the engine updates them in place)."""
        from flocklab.models.zonal.engine import ZonalSimulation

        sim = ZonalSimulation(params, rng)
        return {
            "pos": sim.pos, "head": sim.head, "speed": sim.speed, "alive": sim.alive,
            "capture_step": sim.capture_step, "captured_by": sim.captured_by,
            "capture_on_hull": sim.capture_on_hull, "hull_at_attack": sim.hull_at_attack,
            "capture_domain": sim.capture_domain, "capture_domain_rank": sim.capture_domain_rank,
            "domain_at_attack": sim.domain_at_attack,
            "null_rank_at_attack": sim.null_rank_at_attack,
            "capture_null_rank": sim.capture_null_rank,
            "ppos": sim.ppos, "phead": sim.phead, "pstatus": sim.pstatus,
            "pdetected": sim.pdetected, "ptarget": sim.ptarget, "ptimer": sim.ptimer,
            "attacks_started": sim.attacks_started, "fleeing": sim.fleeing,
            "pspeed": sim.pspeed, "palive": sim.palive, "pevent": sim.pevent,
            "consensus": sim.consensus,
            "_sim": sim,
        }

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        """``k`` steps from ``first_step``; with a ``schedule``, the zone widths in force for
        each step are set from the step number (so a resumed run sets them too)."""
        from flocklab.models.zonal.params import schedule_steps, zone_widths

        sim = state["_sim"]
        if sim.p["dt"] != state["_dt"]:
            sim.set_time_step(state["_dt"], check=False)  # checked when prepared
        sim.step_count = first_step  # the noise counters follow the global step
        if not params.get("schedule"):
            sim.advance(k)
            return
        changes = schedule_steps(params["schedule"], state["_dt"])
        step, end = first_step, first_step + k
        while step < end:
            sim.set_zone_widths(*zone_widths(params, changes, step))
            later = changes[changes > step]
            upto = min(end, int(later[0])) if later.size else end
            sim.advance(upto - step)
            step = upto

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.zonal import metrics

        sim = state["_sim"]
        pos = sim.pos[sim.alive, : sim.dim]
        head = sim.head[sim.alive, : sim.dim]
        order = sim.observe()
        centroid = sim.pos[sim.alive].mean(axis=0) if pos.shape[0] else np.full(3, np.nan)
        return {
            **{name: order[name] for name in ("polarisation", "milling", "polarisation_largest",
                                              "milling_largest", "largest_fraction", "groups")},
            "alive_fraction": float(sim.alive.mean()),
            "centroid_x": float(centroid[0]), "centroid_y": float(centroid[1]),
            "centroid_z": float(centroid[2]),
            "nearest_neighbour": metrics.nearest_neighbour_distance(pos, sim.p["box"]),
            "gyration_radius": metrics.radius_of_gyration(pos),
            "elongation": metrics.elongation(pos, head),
            "orientation_width": sim.p["delta_o"], "attraction_width": sim.p["delta_a"],
        }

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        sim = state["_sim"]
        return {"x": sim.pos[:, 0].copy(), "y": sim.pos[:, 1].copy(),
                "z": sim.pos[:, 2].copy(), "ex": sim.head[:, 0].copy(),
                "ey": sim.head[:, 1].copy(), "ez": sim.head[:, 2].copy(),
                "speed": sim.speed.copy(), "alive": sim.alive.astype(np.int8),
                "predator_position": sim.ppos.copy()}

    def run_outputs(self, state: dict, params: Mapping[str, Any]
                      ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        """Captures and informed labels per agent; predator tracks and obstacles if any."""
        sim = state["_sim"]
        dt = state.get("_dt", sim.p["dt"])
        capture_time = np.where(sim.capture_step >= 0, sim.capture_step * dt, np.nan)
        out = {
            "informed": (("agent",), sim.informed.copy(),
                         {"long_name": "informed group (-1 uninformed, 0 informed_fraction, "
                                       "k >= 1 subgroups[k-1])", "units": "1"}),
            "capture_time": (("agent",), capture_time,
                             {"long_name": "time of capture (NaN: not captured)", "units": "s"}),
            "captured_by": (("agent",), sim.captured_by.copy(),
                            {"long_name": "index of the captor (-1: none)", "units": "1"}),
            "capture_on_hull": (("agent",), sim.capture_on_hull.copy(),
                                {"long_name": "captured prey on the convex hull when the "
                                              "attack began (1), inside (0), n/a (-1)",
                                 "units": "1"}),
            "capture_domain": (("agent",), _unknown_as_nan(sim.capture_domain),
                               {"long_name": "captured prey's Voronoi domain of danger when "
                                             "the attack began (cell clipped to the captor's "
                                             "detection disc; NaN: n/a)", "units": "1"}),
            "capture_domain_rank": (("agent",), _unknown_as_nan(sim.capture_domain_rank),
                                    {"long_name": "rank of that domain among the alive prey's "
                                                  "(0 smallest, 1 largest; NaN: n/a)",
                                     "units": "1"}),
            "capture_null_rank": (("agent",), _unknown_as_nan(sim.capture_null_rank),
                                  {"long_name": "domain rank of the prey nearest to the "
                                                "predator approaching from a random side, "
                                                "averaged over 64 sides (NaN: n/a)",
                                   "units": "1"}),
        }
        if sim.ppos.shape[0]:
            out["attacks_started"] = (("predator",), sim.attacks_started.copy(),
                                      {"long_name": "attacks begun by each predator",
                                       "units": "1"})
        if sim.obstacles.shape[0]:
            out["obstacle_geometry"] = (("obstacle", "obstacle_column"), sim.obstacles.copy(),
                                        {"long_name": "obstacles: centre x, y, z, radius, "
                                                      "influence radius, k", "units": "1"})
        return out

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """Predation and accuracy metrics from a run file and its prepared ``params`` (pure
        function)."""
        from flocklab.models.zonal import metrics

        time = run["time"].values
        after = time >= burn_in
        captured = run["capture_time"].values
        on_hull = run["capture_on_hull"].values
        out = {
            "captures": float(np.sum(np.isfinite(captured))),
            "first_capture_time": float(np.nanmin(captured)) if np.isfinite(captured).any()
            else math.nan,
            "hull_share": metrics.hull_share(on_hull),
            "fragmented_share": float(np.mean(run["largest_fraction"].values[after] < 1.0)),
            "state": float(self._state(run, after)),
        }
        ranks = run["capture_domain_rank"].values if "capture_domain_rank" in run else []
        out["danger_rank"], out["danger_share"] = metrics.danger_metrics(np.asarray(ranks))
        null = run["capture_null_rank"].values if "capture_null_rank" in run else []
        out["danger_rank_excess"] = metrics.danger_excess(np.asarray(ranks), np.asarray(null))
        displacement = self._travel(run, after)
        out["accuracy"], out["accuracy_cos"], out["travel_angle"] = self._accuracy(
            run, displacement)
        out.update(self._choice(run, params, displacement))
        out.update(self._memory(run, params))
        return out

    @staticmethod
    def _state(run: xr.Dataset, after: np.ndarray) -> int:
        """State code (:func:`flocklab.models.zonal.metrics.state_code`) of the polarisation
        and milling of all alive agents averaged over the records after burn-in (-1 if none).

        All agents rather than the largest group: a cluster of two to four agents is nearly
        parallel by itself, so the largest group's P would call a broken-up group parallel.
        """
        from flocklab.models.zonal import metrics

        if not after.any():
            return -1
        return metrics.state_code(float(np.nanmean(run["polarisation"].values[after])),
                                  float(np.nanmean(run["milling"].values[after])))

    @staticmethod
    def _choice(run: xr.Dataset, params: Mapping[str, Any], displacement: np.ndarray | None
                ) -> dict[str, float]:
        """With an informed group and a subgroup: 1 for the direction the group took (the
        informed group's g, the first subgroup's, or their average), 0 for the others; NaN
        without a subgroup or travel."""
        from flocklab.models.zonal import metrics

        names = ("toward_preferred", "toward_subgroup", "toward_average")
        dim = int(run.attrs["dim"])
        if displacement is None or not params.get("subgroups"):
            return dict.fromkeys(names, math.nan)
        second = np.asarray(params["subgroups"][0]["direction"], dtype=float)[:dim]
        choice = metrics.heading_choice(displacement, _preferred_direction(run), second)
        return {name: float(k == choice) for k, name in enumerate(names)}

    @staticmethod
    def _memory(run: xr.Dataset, params: Mapping[str, Any]) -> dict[str, float]:
        """Hysteresis metrics of a zone-width schedule (NaN without one)."""
        from flocklab.models.zonal import metrics

        schedule = params["schedule"] or []
        names = ("memory_gap_p", "memory_gap_m", "memory_hysteresis")
        if not schedule:
            return dict.fromkeys(names, math.nan)
        starts = [0.0, *(float(entry["time"]) for entry in schedule)]
        stages = metrics.stage_averages(run["time"].values, {
            name: run[name].values for name in ("polarisation", "milling",
                                                 "orientation_width")}, starts)
        result = metrics.hysteresis([s["orientation_width"] for s in stages],
                                    [s["polarisation"] for s in stages],
                                    [s["milling"] for s in stages])
        return dict(zip(names, (result["gap_p"], result["gap_m"], result["hysteresis"]),
                        strict=True))

    @staticmethod
    def _travel(run: xr.Dataset, after: np.ndarray) -> np.ndarray | None:
        """The centroid's displacement after burn-in (None if it did not move or fewer than
        two records remain)."""
        names = ("centroid_x", "centroid_y", "centroid_z")[: int(run.attrs["dim"])]
        centroid = np.array([run[name].values[after] for name in names]).T
        if centroid.shape[0] < 2:
            return None
        displacement = centroid[-1] - centroid[0]
        if not np.all(np.isfinite(displacement)) or not np.any(displacement):
            return None
        return displacement

    @staticmethod
    def _accuracy(run: xr.Dataset, displacement: np.ndarray | None
                  ) -> tuple[float, float, float]:
        """Accuracy (both definitions) and travel angle of the centroid's displacement after
        burn-in, toward g = the ``preferred_angle`` direction whether or not any agent is
        informed (with none, the uninformed baseline: 1/2 and 0 on average for an unbiased
        group). NaN only when the centroid did not move or fewer than two records remain."""
        from flocklab.models.zonal import metrics

        if displacement is None:
            return math.nan, math.nan, math.nan
        travel = math.degrees(math.atan2(displacement[1], displacement[0]))
        return (*metrics.accuracy(displacement[None, :], _preferred_direction(run)), travel)

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """About 40 words per agent of state and work space plus an estimated 60 neighbour
        entries, 8 words per agent and frame, the series; twice over for the written copy.
        Run time at 2e6 agent-steps per second."""
        n = int(params["N"])
        words = 40 * n + 60 * n + 8 * n * len(grid.frame_steps) + 10 * len(grid.record_steps)
        return Resources(2 * 8 * words, n * grid.steps / 2.0e6)
