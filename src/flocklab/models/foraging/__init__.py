r"""Foraging on an energy budget: artificial-fish-swarm behaviours on a food field.

N agents in a walled arena :math:`[0, L_x]\times[0, L_y]` with polygon obstacles they never
enter, each with a stored energy :math:`E_i` (the contest paper's normalised
:math:`S = E/E_{max}`),

.. math::

    \frac{dE_i}{dt} = -\mu_i + \gamma F(\mathbf{x}_i), \qquad \mu_i = k v_i + b,
    \qquad E_i \le E_{max},

dying when :math:`E_i \le 0`; so an agent without food at constant speed :math:`v` dies at
:math:`t^* = E_0/(k v + b)`. Food is a density :math:`F` on a grid (random disc patches,
explicit rectangles and discs, a background), eaten at the clearance rate :math:`\gamma`
and, with depletion, removed and shared among the agents of a cell; it regrows as
:math:`\dot F = r (F_0 - F)`. Agents move at :math:`v_0` (:math:`v_{max}` when fleeing) in a
direction chosen by the artificial-fish-swarm behaviours — flee, follow, swarm with the
crowding factor :math:`\delta`, forage with the try-number search, random move — combined
with cohesion, alignment and separation at the safety distance
(:mod:`flocklab.models.foraging.kernels` states the rules exactly).

This module holds the declarations and the hooks; the engine
(:mod:`flocklab.models.foraging.engine`) and its kernels are imported when a run starts.
Time is continuous (``t_end`` and ``dt`` in s, default ``dt = 0.2`` s). Lengths, food and
energies are in model units, declared as the UDUNITS dimensionless unit ``1`` (so speeds and
rates are ``s-1``).

References
----------
X. L. Li, Z. J. Shao and J. X. Qian, "An optimizing method based on autonomous animats:
fish-swarm algorithm", Systems Engineering — Theory & Practice 22(11), 32 (2002).
"动物集群运动行为模型" (animal collective-motion models): student papers of a Chinese
modelling contest.
T. J. Pitcher, A. E. Magurran and I. J. Winfield, "Fish in larger shoals find food
faster", Behav. Ecol. Sociobiol. 10, 149 (1982).
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
    Output,
    Resources,
    SnapshotVariable,
)
from flocklab.models.foraging import params as _params
from flocklab.models.foraging.tasks import TASKS
from flocklab.references import COLLECTIVE_MOTION_PAPERS, LI_SHAO_QIAN_2002

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.time import TimeGrid


class Foraging(Model):
    """Agents on an energy budget foraging on a food field (module docstring)."""

    name = "foraging"
    description = ("agents on an energy budget foraging on a food field with the artificial "
                   "fish-swarm behaviours (forage, swarm, follow, flee), obstacles, predators")
    reference = f"{LI_SHAO_QIAN_2002}; {COLLECTIVE_MOTION_PAPERS}"
    title = "foraging on an energy budget"
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.2
    parameters = _params.SPECS
    observables = (
        Observable("alive_fraction", "share of the agents alive", "1", 0.0, 1.0, "n/N"),
        Observable("energy_mean", "mean energy S = E/E_max of the living", "1", 0.0, 1.0,
                   r"\langle S\rangle"),
        Observable("energy_std", "s.d. of S over the living", "1", symbol=r"\sigma_S"),
        Observable("food_remaining", "food left over food at the start", "1", symbol="F/F_0"),
        Observable("on_food", "share of the living standing on food", "1", 0.0, 1.0,
                   r"f_{food}"),
        Observable("polarisation", "polarisation of the living", "1", 0.0, 1.0, "P"),
        Observable("groups", "groups (connected within the perception radius)", "1",
                   symbol="n_g"),
        Observable("largest_group", "share of the living in the largest group", "1", 0.0,
                   1.0, r"n_{max}/n"),
    )
    primary_observable = "alive_fraction"
    size_parameter = "N"
    entity_dim = "agent"
    #: Positions in the walled arena (open for the analysis) and unit headings.
    kinematics = Kinematics(("x", "y"), velocity=("ex", "ey"), alive="alive")
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("agent x position", "1"),
        "y": SnapshotVariable("agent y position", "1"),
        "ex": SnapshotVariable("heading x component", "1"),
        "ey": SnapshotVariable("heading y component", "1"),
        "energy": SnapshotVariable("energy S = E/E_max", "1"),
        "alive": SnapshotVariable("1 alive, 0 dead", "1", "int8"),
        "behaviour": SnapshotVariable("last behaviour: 0 random move, 1 forage, 2 swarm, "
                                      "3 follow, 4 flee", "1", "int8"),
        "food": SnapshotVariable("food density on the cells (row iy * nx + ix)",
                                 "1", "float32", entity_dim="cell",
                                 count=_params.cell_count),
        "predator_position": SnapshotVariable(
            "predator position", "1", entity_dim="predator",
            count=lambda params: len(params["predators"]), trailing=(("axis", 2),)),
    }
    run_metrics = (
        Metric("survival", "share alive at the end", "1"),
        Metric("starved", "share starved", "1"),
        Metric("captured", "share captured", "1"),
        Metric("lifetime", "mean lifetime min(death, t_end)", "s"),
        Metric("food_time", "mean time to food (never: t_end)", "s"),
        Metric("found_food", "share that stood on food", "1"),
        Metric("eaten", "energy eaten per agent", "1"),
        Metric("energy_final", "mean S of the living at the end", "1"),
    )
    derived_quantities = (
        DerivedQuantity("food_density", "nominal mean food density at the start",
                        "1", r"\bar F", _params.nominal_food_density),
        DerivedQuantity("density", "agents per area", "1", r"\rho",
                        lambda p: p["N"] / (p["Lx"] * p["Ly"])),
        DerivedQuantity("starvation_time", "E0/(k v0 + b): death without food", "s", "t^*",
                        lambda p: p["E0"] / (p["k_metabolic"] * p["speed"] + p["b_metabolic"])
                        if p["k_metabolic"] * p["speed"] + p["b_metabolic"] > 0 else math.inf),
    )
    drawing = "flocklab.models.foraging.figures:ForagingDrawing"

    tasks = TASKS

    # ----------------------------------------------------------------- parameters

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """Cross-key rules (:func:`flocklab.models.foraging.params.check`); with the run's
        grid, no body moves farther than the perception radius per step."""
        _params.check(params)
        if grid is not None:
            _params.check_step(params, grid.dt)

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """About 40 words per agent and 4 per food cell of state and work space plus 16
        neighbour entries per agent, the frames (7 words per agent, half a word per cell),
        the series; twice over for the written copy. Run time at 1.5e6 agent-steps per
        second plus 2e8 cell updates per second with regrowth."""
        n = int(params["N"])
        cells = _params.cell_count(params)
        frames = len(grid.frame_steps)
        words = 56 * n + 4 * cells + frames * (7 * n + cells // 2) + 10 * len(grid.record_steps)
        seconds = n * grid.steps / 1.5e6
        if params["regrowth"] > 0:
            seconds += cells * grid.steps / 2e8
        return Resources(2 * 8 * words, seconds)

    # ----------------------------------------------------------------- hooks

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        from flocklab.models.foraging.engine import initial_state

        return initial_state(params, rng)

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        from flocklab.models.foraging.engine import advance

        advance(state, params, first_step, k)

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.foraging.engine import observables

        return observables(state, params)

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"x": state["pos"][:, 0].copy(), "y": state["pos"][:, 1].copy(),
                "ex": state["head"][:, 0].copy(), "ey": state["head"][:, 1].copy(),
                "energy": state["energy"] / params["E_max"],
                "alive": state["alive"].astype(np.int8),
                "behaviour": state["behaviour"].copy(),
                "food": state["field"].astype(np.float32),
                "predator_position": state["ppos"].copy()}

    def run_outputs(self, state: dict, params: Mapping[str, Any]) -> dict[str, Output]:
        """Per agent: time and cause of death, first time on food, energy eaten, distance
        travelled, final energy; the obstacles' edges."""
        def time(values: np.ndarray) -> np.ndarray:
            return np.where(values >= 0.0, values, np.nan)

        agent = ("agent",)
        out: dict[str, Output] = {
            "death_time": (agent, time(state["death_time"]),
                           {"long_name": "time of death (NaN: alive at the end)", "units": "s"}),
            "cause": (agent, state["cause"].copy(),
                      {"long_name": "0 alive, 1 starved, 2 captured", "units": "1"}),
            "first_food_time": (agent, time(state["first_food"]),
                                {"long_name": "first time standing on food (NaN: never)",
                                 "units": "s"}),
            "eaten": (agent, state["eaten"].copy(),
                      {"long_name": "energy eaten", "units": "1"}),
            "travelled": (agent, state["travelled"].copy(),
                          {"long_name": "distance travelled", "units": "1"}),
            "final_energy": (agent, state["energy"] / params["E_max"],
                             {"long_name": "energy S = E/E_max at the end", "units": "1"}),
        }
        edges = state["_edges"]
        if edges.shape[0]:
            polygon = np.repeat(np.arange(len(state["_poly_start"]) - 1),
                                np.diff(state["_poly_start"]))
            out["obstacle_edges"] = (("edge", "edge_column"), edges.copy(),
                                     {"long_name": "obstacle edges x0, y0, x1, y1",
                                      "units": "1"})
            out["obstacle_polygon"] = (("edge",), polygon,
                                       {"long_name": "obstacle each edge belongs to",
                                        "units": "1"})
        return out

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """Survival, causes of death, restricted mean lifetime and time to food, food eaten
        and final energy, from a run file (a pure function of its contents)."""
        from flocklab.models.foraging.metrics import run_metrics

        return run_metrics(run)
