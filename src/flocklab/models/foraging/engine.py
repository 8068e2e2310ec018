r"""The foraging model's engine: its arrays, one time step and the observables.

:func:`initial_state` builds the state dict the driver checkpoints (arrays not starting
with ``_``) plus the work space; :func:`advance` runs steps through the kernels of
:mod:`flocklab.models.foraging.kernels`; :func:`observables` measures a state. The partners
of every agent come from the hashed cell list
:class:`flocklab.geometry.hash_grid.NeighbourGrid` (open space, cells of side :math:`R`),
rebuilt each step: O(N) per step at a fixed density.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numba
import numpy as np

from flocklab.core.random import noise_key
from flocklab.core.threads import PARALLEL_MIN_AGENTS
from flocklab.geometry.hash_grid import NeighbourGrid
from flocklab.models.foraging import kernels as kr
from flocklab.models.foraging import setup


def parameter_vector(params: Mapping[str, Any], dt: float) -> np.ndarray:
    """The float vector ``par`` the kernels read (layout :data:`kernels.SPEED` ...)."""
    par = np.zeros(kr.N_PAR)
    names = {kr.SPEED: "speed", kr.FLEE_SPEED: "flee_speed", kr.VISUAL: "visual",
             kr.TRIES: "tries", kr.CROWDING: "crowding", kr.NOISE: "turn_noise",
             kr.SAFETY: "safety", kr.W_INTENT: "w_intent", kr.W_COHESION: "w_cohesion",
             kr.W_ALIGN: "w_align", kr.E_MAX: "E_max",
             kr.FLEE_RANGE: "flee_range", kr.LX: "Lx", kr.LY: "Ly",
             kr.K_METABOLIC: "k_metabolic", kr.B_METABOLIC: "b_metabolic",
             kr.FEEDING: "feeding_rate", kr.SOCIAL: "social", kr.DEPLETION: "depletion"}
    for index, name in names.items():
        par[index] = float(params[name])
    par[kr.DT] = dt
    return par


def initial_state(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """State at t = 0: the food field is drawn first, then the schools, then the noise key.

    Keys (checkpointed): ``pos`` (N, 3), ``head`` (N, 2), ``energy``, ``alive``,
    ``behaviour``, ``death_time`` (-1: alive), ``cause``, ``first_food`` (-1: never),
    ``eaten``, ``travelled`` (N,), ``field`` (cells,), ``ppos`` (P, 2); work space under
    ``_`` names.
    """
    edges, poly_start = setup.obstacle_arrays(params)
    field = setup.food_field(params, rng, edges, poly_start)
    pos, head = setup.agents(params, rng, edges, poly_start)
    ppos, pspeed, pcapture = setup.predators(params)
    n = params["N"]
    return {
        "pos": pos, "head": head, "energy": np.full(n, float(params["E0"])),
        "alive": np.ones(n, bool), "behaviour": np.zeros(n, np.int8),
        "death_time": np.full(n, -1.0), "cause": np.zeros(n, np.int8),
        "first_food": np.full(n, -1.0), "eaten": np.zeros(n), "travelled": np.zeros(n),
        "field": field, "ppos": ppos,
        "_field0": field.copy(), "_geo": setup.geometry(params), "_edges": edges,
        "_poly_start": poly_start, "_pspeed": pspeed, "_pcapture": pcapture,
        "_key": noise_key(rng), "_grid": NeighbourGrid(n, params["visual"], 2),
        "_new_pos": np.zeros((n, 3)), "_new_head": np.zeros((n, 2)), "_moved": np.zeros(n),
        "_demand": np.zeros(n), "_cell_demand": np.zeros_like(field),
    }


def advance(state: dict[str, Any], params: Mapping[str, Any], first_step: int, k: int
            ) -> None:
    """``k`` steps from global step ``first_step`` (time ``first_step * dt``)."""
    dt = state["_dt"]
    if "_par" not in state or state["_par"][kr.DT] != dt:
        state["_par"] = parameter_vector(params, dt)
    par = state["_par"]
    serial = numba.get_num_threads() == 1 or params["N"] < PARALLEL_MIN_AGENTS
    decide = kr.decide_and_move_serial if serial else kr.decide_and_move
    regrow = kr.regrow_serial if serial else kr.regrow
    decay = math.exp(-params["regrowth"] * dt)
    grid = state["_grid"]
    for step in range(first_step, first_step + k):
        grid.update(state["pos"], state["alive"])
        decide(state["pos"], state["head"], state["alive"], grid.start,
               grid.index, state["field"], state["_geo"], state["_edges"],
               state["_poly_start"], state["ppos"], par, state["_key"], step,
               state["_new_pos"], state["_new_head"], state["_moved"], state["behaviour"])
        state["pos"][...] = state["_new_pos"]
        state["head"][...] = state["_new_head"]
        state["travelled"] += state["_moved"]
        kr.feed(state["pos"], state["_moved"], state["energy"], state["alive"], state["field"],
                state["_geo"], par, step * dt, state["_demand"], state["_cell_demand"],
                state["eaten"], state["first_food"], state["death_time"], state["cause"])
        if params["regrowth"] > 0.0 and params["depletion"]:
            regrow(state["field"], state["_field0"], decay)
        if state["ppos"].shape[0]:
            kr.hunt(state["ppos"], state["_pspeed"], state["_pcapture"], state["pos"],
                    state["alive"], par, state["_edges"], state["_poly_start"], (step + 1) * dt,
                    state["death_time"], state["cause"])


def observables(state: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, float]:
    """Alive fraction, mean and s.d. of :math:`S = E/E_{max}` over the living, food
    remaining, share of the living on food, polarisation, groups and the largest group's
    share (groups: connected components of the partner graph within :math:`R`)."""
    alive = state["alive"]
    living = int(alive.sum())
    share = state["energy"][alive] / params["E_max"]
    field0 = state["_field0"]
    initial = float(field0.sum())
    on_food = 0.0
    groups, largest = 0, 0
    polarisation = math.nan
    if living:
        geo = state["_geo"]
        cells = _cells(state["pos"][alive], geo)
        on_food = float(np.mean(state["field"][cells] > 0.0))
        heading = state["head"][alive].sum(axis=0)
        polarisation = float(math.hypot(*heading) / living)
        grid = state["_grid"]
        grid.update(state["pos"], alive)
        groups, largest = kr.group_sizes(grid.start, grid.index, alive)
    return {
        "alive_fraction": living / alive.shape[0],
        "energy_mean": float(share.mean()) if living else math.nan,
        "energy_std": float(share.std()) if living else math.nan,
        "food_remaining": float(state["field"].sum()) / initial if initial > 0 else 0.0,
        "on_food": on_food,
        "polarisation": polarisation,
        "groups": float(groups),
        "largest_group": largest / living if living else math.nan,
    }


def _cells(pos: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """Food-cell indices of positions (N, >= 2), as :func:`kernels.cell_index`."""
    nx, ny = int(geo[kr.NX]), int(geo[kr.NY])
    ix = np.clip((pos[:, 0] * geo[kr.INV_HX]).astype(np.int64), 0, nx - 1)
    iy = np.clip((pos[:, 1] * geo[kr.INV_HY]).astype(np.int64), 0, ny - 1)
    return iy * nx + ix
