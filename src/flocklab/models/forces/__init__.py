r"""Second-order swarms driven by forces, on the model contract (declarations and hooks).

.. math::

    \dot x_i = v_i, \qquad
    m \dot v_i = (\alpha - \beta |v_i|^2) v_i - \nabla_i \sum_{j \ne i} U(|x_i - x_j|)
    + m\,[w_o(\bar v_i - v_i) + w_t(v^{goal}_i - v_i) + w_f(v^{esc}_i - v_i)] + m\sigma\xi_i

with the Morse potential of D'Orsogna, Chuang, Bertozzi and Chayes (2006) or the generic
attraction/repulsion potential of Gazi and Passino (2003), cut at ``r_cut`` and summed over a
hashed cell list (cost per agent-step independent of N at fixed density), or summed over all
pairs with ``r_cut: 0`` (no cut-off; open space); 2-D and 3-D, open
space or a periodic box. The contest papers' five influences — repulsion, attraction,
alignment, temptation (toward the goal) and fear (of predators) — are weighted terms, each
switched off by a zero weight, in the inertial form above (accelerations) and in the
non-inertial form (velocity = cruise speed times the unit of the weighted sum of unit
directions). Leaders know a goal that may turn during the run (the cosine weighting of the
leaders' against the followers' mean velocity is ``leader_rule: cosine``; ``leaders: 0`` is a
free-rein group), sub-leaders steer to their leader's predicted position, predators pursue
the densest neighbourhood, the nearest or a chosen prey and capture, and prey flee plainly
or along the escape velocity that optimises the papers' objective.

Units: the model is non-dimensional, as in D'Orsogna et al. (2006): lengths, times, masses
and energies are in model units, declared as the UDUNITS dimensionless unit ``1`` (angles in
degrees).

The engine is :class:`flocklab.models.forces.engine.ForcesSimulation` (integrator in its
docstring), kernels in :mod:`~flocklab.models.forces.kernels`, observables and states in
:mod:`~flocklab.models.forces.metrics`, tasks in :mod:`~flocklab.models.forces.tasks`.
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
    Resources,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterSpec
from flocklab.models.forces.params import PREDATOR_SCHEMA, SPECS
from flocklab.models.forces.tasks import TASKS
from flocklab.references import COLLECTIVE_MOTION_PAPERS, DORSOGNA_2006, GAZI_PASSINO_2003

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.time import TimeGrid

SYMBOLS = {"N": "N", "alpha": r"\alpha", "beta": r"\beta", "C_r": "C_r", "l_r": "l_r",
           "C_a": "C_a", "l_a": "l_a", "mass": "m", "r_cut": "r_c", "r_link": "r_l",
           "noise": r"\sigma",
           "leaders": "Q", "subleaders": "S", "prediction_step": r"\tau",
           "escape_mix": r"\mu", "escape_beta": r"\beta_e", "w_alignment": "w_o",
           "w_temptation": "w_t", "w_fear": "w_f", "predator_speed": "V_p",
           "predator_turn_rate": r"\omega_p"}


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom > 0 else math.nan


def _declared() -> tuple[ParameterSpec, ...]:
    from dataclasses import replace

    return (*(replace(spec, symbol=SYMBOLS.get(spec.name, "")) for spec in SPECS),
            ParameterSpec("predators", "json", [], "predators (list)", schema=PREDATOR_SCHEMA))


class Forces(Model):
    """Force-based swarm (D'Orsogna et al. 2006; the contest papers' five influences,
    leaders, sub-leaders, predators and escape); see the module docstring."""

    name = "forces"
    description = ("second-order swarm: self-propulsion, Morse or generic pair potential, "
                   "five weighted influences, leaders and sub-leaders, predators and escape")
    reference = f"{DORSOGNA_2006}; {GAZI_PASSINO_2003}; {COLLECTIVE_MOTION_PAPERS}"
    title = "force-based swarm simulation"
    time_mode = "continuous"
    time_units = "1"
    default_dt = 0.05
    parameters = _declared()
    observables = (
        Observable("polarisation", "polarisation", "1", 0.0, 1.0, "P"),
        Observable("milling", "net milling |<r x v>|", "1", 0.0, 1.0, "M"),
        Observable("rotation", "rotation <|r x v|>", "1", 0.0, 1.0, "R"),
        Observable("radial_spread", "radial spread sd(r)/mean(r) about the centroid", "1",
                   symbol=r"\sigma_r/\bar r"),
        Observable("speed_mean", "mean speed", "1", symbol=r"\bar s"),
        Observable("speed_sd", "standard deviation of the speeds", "1",
                   symbol=r"\sigma_s"),
        Observable("kinetic_energy", "kinetic energy per agent", "1",
                   symbol="K/N"),
        Observable("potential_energy", "pair potential energy per agent",
                   "1", symbol="U/N"),
        Observable("momentum", "momentum per agent |sum m v|/N", "1",
                   symbol="|p|/N"),
        Observable("gyration_radius", "radius of gyration", "1", symbol="R_g"),
        Observable("nearest_neighbour", "mean nearest-neighbour distance", "1",
                   symbol="d_{nn}"),
        Observable("groups", "number of groups (agents linked within r_link)", "1",
                   symbol="n_g"),
        Observable("largest_fraction", "share of the alive agents in the largest group", "1",
                   0.0, 1.0, "n_{max}/n"),
        Observable("alive_fraction", "share of the agents not captured", "1", 0.0, 1.0,
                   "n/N"),
        Observable("goal_alignment", "cos(mean velocity, current goal direction)", "1",
                   -1.0, 1.0, r"\cos\theta_g"),
        Observable("surround", "share of sectors around the first predator holding prey",
                   "1", 0.0, 1.0, "c_s"),
        Observable("vacuole", "distance from the first predator to the nearest prey",
                   "1", symbol="d_v"),
        Observable("centroid_x", "centroid x", "1", symbol="X"),
        Observable("centroid_y", "centroid y", "1", symbol="Y"),
    )
    primary_observable = "polarisation"
    size_parameter = "N"
    #: P on [0, 1]: the translating flock (P near 1) against the mill and the swarm (P near
    #: the finite-N floor), D'Orsogna et al.'s phases.
    primary_is_order_parameter = True
    entity_dim = "agent"
    drawing = "flocklab.models.forces.figures:ForcesDrawing"
    #: Positions and velocities, the periodic box (0: open).
    kinematics = Kinematics(("x", "y", "z"), velocity=("vx", "vy", "vz"), alive="alive",
                            box=lambda params: params["box"],
                            dimension=lambda params: params["dim"])
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("agent x position", "1"),
        "y": SnapshotVariable("agent y position", "1"),
        "z": SnapshotVariable("agent z position (0 in 2-D)", "1"),
        "vx": SnapshotVariable("velocity x", "1"),
        "vy": SnapshotVariable("velocity y", "1"),
        "vz": SnapshotVariable("velocity z", "1"),
        "alive": SnapshotVariable("1 alive, 0 captured", "1", "int8"),
        "predator_position": SnapshotVariable(
            "predator position", "1", entity_dim="predator",
            count=lambda params: len(params["predators"]), trailing=(("axis", 3),)),
    }
    run_metrics = (
        Metric("state", "collective state after burn-in: 0 dispersed, 1 clump, 2 flock, "
                        "3 ring, 4 single mill, 5 double mill (-1 unknown)"),
        Metric("turn_time", "time to turn to the new goal (mean velocity within 26° of it, "
                            "cos ≥ 0.9; censored at the run's end)", "1", event="turned"),
        Metric("turned", "1 if the group turned to the new goal within the run", "1"),
        Metric("captures", "prey captured during the run", "1"),
        Metric("first_capture_time", "time of the first capture (NaN: none)", "1",
               censored_at_end=True),
    )
    derived_quantities = (
        DerivedQuantity("C", "Morse strength ratio C_r/C_a", "1", "C",
                        lambda p: _ratio(p["C_r"], p["C_a"])),
        DerivedQuantity("l", "Morse length ratio l_r/l_a", "1", "l",
                        lambda p: _ratio(p["l_r"], p["l_a"])),
        DerivedQuantity("H", "C l^d (H-stable above 1)", "1", "C l^d",
                        lambda p: _ratio(p["C_r"], p["C_a"]) * _ratio(p["l_r"], p["l_a"])
                        ** p["dim"]),
    )
    tasks = TASKS

    # ----------------------------------------------------------------- parameters

    def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        """Completed predators and the derived lengths and speed
        (:func:`flocklab.models.forces.params.complete`)."""
        from flocklab.models.forces.params import complete

        return complete(params)

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """Cross-parameter rules (:func:`flocklab.models.forces.params.check_consistency`)."""
        from flocklab.models.forces.params import check_consistency

        check_consistency(params)

    # ----------------------------------------------------------------- hooks

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """The engine and its state arrays (updated in place; those not starting with ``_``
        are checkpointed). The time step is set at the first step (``state["_dt"]``)."""
        from flocklab.models.forces.engine import ForcesSimulation

        sim = ForcesSimulation(params, rng, self.default_dt)
        return {"pos": sim.pos, "vel": sim.vel, "alive": sim.alive,
                "capture_step": sim.capture_step, "captured_by": sim.captured_by,
                "ppos": sim.ppos, "phead": sim.phead, "prest": sim.prest,
                "pcaptures": sim.pcaptures, "_sim": sim}

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        sim = state["_sim"]
        sim.dt = state["_dt"]
        sim.step_count = first_step
        sim.advance(k)

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.forces import metrics
        from flocklab.models.forces.engine import goal_direction

        sim = state["_sim"]
        p, dim = sim.p, sim.dim
        alive = sim.alive
        pos, vel = sim.pos[alive, :dim], sim.vel[alive, :dim]
        count = max(1, int(alive.sum()))
        n_groups, labels = metrics.groups(pos, p["link"], p["box"])
        speeds = np.linalg.norm(vel, axis=1)
        milling, rotation = metrics.rotation_measures(pos, vel)
        coverage, vacuole = (metrics.surround(pos, sim.ppos[0, :dim], p["surround_radius"],
                                              p["box"]) if sim.ppos.shape[0]
                             else (math.nan, math.nan))
        centroid = pos.mean(axis=0) if pos.shape[0] else np.full(dim, np.nan)
        t = sim.step_count * state.get("_dt", sim.dt)
        return {
            "polarisation": metrics.polarisation(metrics.unit_rows(vel)),
            "milling": milling, "rotation": rotation,
            "radial_spread": metrics.radial_spread(pos),
            "speed_mean": float(speeds.mean()) if speeds.size else math.nan,
            "speed_sd": float(speeds.std()) if speeds.size else math.nan,
            "kinetic_energy": metrics.kinetic_energy(vel, p["mass"]),
            "potential_energy": sim.potential_energy() / count,
            "momentum": float(np.linalg.norm(vel.sum(axis=0)) * p["mass"] / count),
            "gyration_radius": metrics.radius_of_gyration(pos),
            "nearest_neighbour": metrics.nearest_neighbour_distance(pos, p["box"]),
            "groups": float(n_groups),
            "largest_fraction": float(np.bincount(labels).max() / labels.size)
            if labels.size else math.nan,
            "alive_fraction": float(alive.mean()),
            "goal_alignment": metrics.goal_alignment(vel, goal_direction(p, t)[:dim]),
            "surround": coverage, "vacuole": vacuole,
            "centroid_x": float(centroid[0]), "centroid_y": float(centroid[1]),
        }

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        sim = state["_sim"]
        return {"x": sim.pos[:, 0].copy(), "y": sim.pos[:, 1].copy(),
                "z": sim.pos[:, 2].copy(), "vx": sim.vel[:, 0].copy(),
                "vy": sim.vel[:, 1].copy(), "vz": sim.vel[:, 2].copy(),
                "alive": sim.alive.astype(np.int8), "predator_position": sim.ppos.copy()}

    def run_outputs(self, state: dict, params: Mapping[str, Any]
                    ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        """Roles and captures per agent; captures per predator."""
        sim = state["_sim"]
        dt = state.get("_dt", sim.dt)
        out = {
            "role": (("agent",), sim.role.copy(),
                     {"long_name": "0 follower, 1 leader, 2 sub-leader", "units": "1"}),
            "leader_of": (("agent",), sim.leader_of.copy(),
                          {"long_name": "the leader a sub-leader follows (-1: none)",
                           "units": "1"}),
            "capture_time": (("agent",), np.where(sim.capture_step >= 0,
                                                  sim.capture_step * dt, np.nan),
                             {"long_name": "time of capture (NaN: not captured)",
                              "units": "1"}),
            "captured_by": (("agent",), sim.captured_by.copy(),
                            {"long_name": "index of the captor (-1: none)", "units": "1"}),
        }
        if sim.ppos.shape[0]:
            out["predator_captures"] = (("predator",), sim.pcaptures.copy(),
                                        {"long_name": "captures of each predator",
                                         "units": "1"})
        return out

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """State, turning and capture metrics from a run file (pure function)."""
        from flocklab.models.forces import metrics

        time = run["time"].values
        after = time >= burn_in
        means = {name: float(np.nanmean(run[name].values[after])) if after.any()
                 else math.nan
                 for name in ("polarisation", "milling", "rotation", "radial_spread",
                              "largest_fraction")}
        state = metrics.classify_state(means["polarisation"], means["milling"],
                                       means["rotation"], means["radial_spread"],
                                       means["largest_fraction"])
        if params["turn_angle"] and time.size:
            turn, turned = metrics.turn_time(time, run["goal_alignment"].values,
                                             float(params["turn_time"]),
                                             float(time[-1]))
        else:
            turn, turned = math.nan, math.nan
        captured = run["capture_time"].values
        caught = np.isfinite(captured)
        return {"state": float(state), "turn_time": turn, "turned": turned,
                "captures": float(caught.sum()),
                "first_capture_time": float(captured[caught].min()) if caught.any()
                else math.nan}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """About 60 words per agent of state and work space plus 40 neighbour entries, 8 words
        per agent and frame, the series; twice over for the written copy. Run time at about
        2e5 agent-steps per second times the neighbours within the search radius (all of
        them in a small group, or without a cut-off)."""
        n = int(params["N"])
        words = 100 * n + 8 * n * len(grid.frame_steps) + 20 * len(grid.record_steps)
        neighbours = n if params.get("r_cut", 5.0) == 0 else min(n, 60)  # 0: all pairs
        return Resources(2 * 8 * words, n * grid.steps * (1 + neighbours / 10) / 1.0e6)
