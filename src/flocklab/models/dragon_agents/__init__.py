r"""The bench dragon as agents (``dragon_agents``): the seed article's dynamic model.

N units (a bearer and a bench) of mass m in the plane, unit 0 the head, joined by links of
rest length L: alignment with the chain neighbours, cohesion springs, penalty-constraint
springs, damping, and a path-following force on the head (equations in
:mod:`flocklab.models.dragon_agents.dynamics`). One ``solve_ivp`` call over :math:`[0, t_end]`
with the configured method (implicit methods get the analytic banded Jacobian); a
perception delay makes it a delay equation solved by the method of steps
(:mod:`flocklab.models.dragon_agents.solve`).

Run file: the observables below on ``time``; the trajectory ``x, y, vx, vy`` on
(``time``, ``unit``) at the record cadence; per-unit gains ``k_a_unit, k_c_unit,
k_d_unit`` on ``unit``; solver statistics ``solver_nfev, solver_njev, solver_nlu,
solver_steps`` (scalars). Frames are drawn from the trajectory at the record nearest to
each frame time (no separate snapshot arrays).

Reference: the bench-dragon article (seed 000); 2024 CUMCM problem A (the path).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import BLOWUP_METRICS, Metric, Model, Observable, Resources
from flocklab.core.time import TimeGrid
from flocklab.models.dragon_agents import metrics as dm
from flocklab.models.dragon_agents.engine import (
    PARAMETERS,
    build_system,
    check,
    initial_state,
    solve,
)
from flocklab.models.dragon_agents.guidance import make_guide
from flocklab.models.dragon_agents.tasks import TASK_FIGURES, TASKS

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord

#: Cut-off of the oscillation measure (Hz): well above the path's turning frequency
#: (0.3 rad/s ~ 0.05 Hz in the article's example), below the link modes (~ several Hz).
OSCILLATION_CUTOFF = 0.5


class DragonAgents(Model):
    """Bench dragon of N agents with penalty links (module docstring)."""

    name = "dragon_agents"
    description = ("bench dragon: N units with alignment, cohesion, penalty links, damping "
                   "and a path-following head (stiff ODE / DDE)")
    reference = "bench-dragon article (seed 000); CUMCM 2024 problem A"
    title = "Bench dragon agent simulation"
    parameters = PARAMETERS
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.01
    entity_dim = "unit"
    supports_checkpoint = False
    observables = (
        Observable("alignment", "mean cosine of unit headings to the mean heading", "1",
                   -1.0, 1.0, r"\phi"),
        Observable("link_error_max", "largest link-length error max |d - L|", "m",
                   symbol=r"\max|d-L|"),
        Observable("link_error_mean", "mean link-length error mean |d - L|", "m",
                   symbol=r"\langle|d-L|\rangle"),
        Observable("head_error", "head distance to the path", "m", symbol="e_1"),
        Observable("tail_error", "tail distance to the path", "m", symbol="e_N"),
        Observable("control_power", "sum of squared control forces", "N^2",
                   symbol=r"\sum|F^c|^2"),
    )
    primary_observable = "alignment"
    #: The integrator comparison as k_penalty grows (flocklab.models.dragon_agents.tasks).
    tasks: ClassVar[dict[str, str]] = TASKS
    task_figures: ClassVar[dict[str, str]] = TASK_FIGURES
    run_metrics = (
        Metric("link_error_max", "largest |d - L| after burn-in", "m"),
        Metric("link_error_mean", "mean |d - L| after burn-in", "m"),
        Metric("whip", "largest distance of the tail from where a rigid chain on the same "
                       "path would be, after burn-in", "m"),
        Metric("tail_error_max", "largest tail distance to the path after burn-in", "m"),
        Metric("control_effort", "integral of sum |F_control|^2 dt after burn-in", "N^2 s"),
        Metric("oscillation_power", f"link-error power above {OSCILLATION_CUTOFF} Hz "
                                    f"after burn-in", "m^2"),
        Metric("turn_time", "when the head meets its path's largest curvature step (0 for "
                            "a straight chain starting on a curve)", "s"),
        Metric("settling_time", "time after the turn until the tail's path distance stays "
                                "within 5 % (or 0.05 L) of its final value (NaN: blew up)",
               "s"),
        Metric("solver_steps", "accepted solve_ivp steps over the whole run", "1"),
        Metric("solver_nfev", "right-hand-side evaluations over the whole run", "1"),
        *BLOWUP_METRICS,
    )

    def check(self, params: dict[str, Any]) -> None:
        check(params)

    def check_task(self, task: str, params: Mapping[str, Any],
                   options: Mapping[str, Any]) -> None:
        """Options of the tasks (:data:`flocklab.models.dragon_agents.tasks.OPTIONS`)."""
        from flocklab.models.dragon_agents.tasks import check_options

        check_options(task, options)

    def run_task(self, task: str, params: Mapping[str, Any], options: Mapping[str, Any],
                 out_dir: str) -> dict[str, Any]:
        """The integrator comparison (:func:`flocklab.models.dragon_agents.tasks.run_solvers`)."""
        from pathlib import Path

        from flocklab.models.dragon_agents.tasks import run_solvers

        return run_solvers(params, options, Path(out_dir))

    def draw_task(self, fig: Any, document: Mapping[str, Any],
                  options: Mapping[str, Any]) -> None:
        """CPU time, work and error against k_penalty per method."""
        from flocklab.models.dragon_agents.tasks import draw_solvers

        draw_solvers(fig, document)

    def chunk_steps(self, params: Mapping[str, Any], grid: TimeGrid) -> int:
        return grid.steps

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Straight chain at rest; the gain seed is drawn from the run's generator."""
        seed = int(rng.integers(0, 2**63 - 1))
        return {"y": initial_state(params), "_gain_seed": seed}

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """The whole solve at once; observables filled from the recorded trajectory."""
        grid = record.grid
        system = build_system(params, state["_gain_seed"])
        t = grid.times(grid.record_steps)
        sol = solve(params, system, state["y"], t)
        state["y"] = sol.states[-1].ravel().copy()
        state["_solution"], state["_system"], state["_record_times"] = sol, system, t
        done = len(sol.t)
        for name, values in observable_series(sol.t, sol.states, system, params).items():
            record.series[name][:done] = values  # later records stay NaN (after a blow-up)

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        """Observables of a single state (used for the initial record)."""
        system = build_system(params, state["_gain_seed"])
        series = observable_series(np.zeros(1), state["y"].reshape(1, -1, 4), system, params)
        return {name: float(values[0]) for name, values in series.items()}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {}

    def extra_outputs(self, state: dict, params: Mapping[str, Any]
                      ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        sol, system = state["_solution"], state["_system"]
        states = sol.padded(state["_record_times"])
        out: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = {}
        for index, (name, long_name, units) in enumerate((
                ("x", "unit x position", "m"), ("y", "unit y position", "m"),
                ("vx", "unit x velocity", "m/s"), ("vy", "unit y velocity", "m/s"))):
            out[name] = (("time", "unit"), states[..., index],
                         {"long_name": long_name, "units": units})
        for name in ("k_a", "k_c", "k_d"):
            out[f"{name}_unit"] = (("unit",), getattr(system, name),
                                   {"long_name": f"per-unit gain {name}", "units": "1"})
        for name, value in sol.stats.items():
            out[f"solver_{name}"] = ((), np.int64(value),
                                     {"long_name": f"solve_ivp statistic {name}",
                                      "units": "1"})
        out["t_blowup"] = ((), np.float64(sol.t_blowup),
                           {"long_name": "time of blow-up (NaN if stable)", "units": "s"})
        return out

    def extra_metrics(self, run: xr.Dataset, burn_in: float) -> dict[str, float]:
        """Run metrics from the run file (pure function of its contents); after a recorded
        blow-up they cover the records before it."""
        params = json.loads(run.attrs["parameters"])
        t_blowup = float(run["t_blowup"])
        states = np.stack([run[n].values for n in ("x", "y", "vx", "vy")], axis=-1)
        done = np.all(np.isfinite(states), axis=(1, 2))
        t, states = run["time"].values[done], states[done]
        system = build_system(params, 0)
        for name in ("k_a", "k_c", "k_d"):
            setattr(system, name, run[f"{name}_unit"].values)
        solver = {"solver_steps": float(run["solver_steps"]),
                  "solver_nfev": float(run["solver_nfev"]),
                  "stable": float(np.isnan(t_blowup)), "t_blowup": t_blowup}
        keep = t >= burn_in
        if not keep.any():
            return {**dict.fromkeys((m.name for m in self.run_metrics), np.nan), **solver}
        metrics = _trajectory_metrics(t, states, keep, system, params)
        if not solver["stable"]:
            metrics["settling_time"] = np.nan
        return {**metrics, **solver}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """Trajectory (4 N words per record) twice over, a banded Jacobian and its LU
        (~60 N words), and ~6e-4 s of solver time per unit and second of motion (measured:
        Radau, article's gains, N = 223, 300 s in 38.7 s)."""
        n, records = params["N"], len(grid.record_steps)
        memory = 8 * (2 * 4 * n * records + 60 * 4 * n + 10 * records)
        return Resources(memory, 6e-4 * n * grid.t_end + 1.0)

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0,
             label: str = "") -> None:
        """The chain (head marked), the head's trace so far and the desired path."""
        params = json.loads(run.attrs["parameters"])
        when = float(run["frame"].values[frame])
        k = int(np.argmin(np.abs(run["time"].values - when)))
        x, y = run["x"].values, run["y"].values
        path = make_guide(params["path"]).path
        extent = max(np.abs(x).max(), np.abs(y).max(), 1.0)
        s = np.linspace(0.0, min(path.length, 40 * extent), 2000)
        curve = path.position(s)
        ax.plot(curve[:, 0], curve[:, 1], "--", color="0.6", lw=0.8, label="desired path")
        ax.plot(x[:k + 1, 0], y[:k + 1, 0], "-", color="tab:red", lw=0.8, alpha=0.6,
                label="head trace")
        ax.plot(x[k], y[k], "o-", color="tab:blue", ms=2.5, lw=1.0, label="chain")
        ax.plot(x[k, 0], y[k, 0], "o", color="tab:red", ms=5)
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_title(f"{label} t = {run['time'].values[k]:g} s".strip(), fontsize=9)


def _trajectory_metrics(t: np.ndarray, states: np.ndarray, keep: np.ndarray, system: Any,
                        params: Mapping[str, Any]) -> dict[str, float]:
    """Link, whip, path, effort, oscillation and settling metrics of a finite trajectory
    ``states`` (shape (T, N, 4)) on ``t`` (s); ``keep`` marks the records after burn-in."""
    x, y = states[..., 0], states[..., 1]
    deviation = dm.link_deviation(x, y, params["L"])[keep]
    guide = system.guide
    tail = guide.distance(np.stack([x[:, -1], y[:, -1]], axis=-1))
    turn = dm.turn_onset(t, x[:, 0], y[:, 0], guide.path)
    return {
        "link_error_max": float(deviation.max()),
        "link_error_mean": float(deviation.mean()),
        "whip": float(dm.rigid_chain_deviation(x[keep], y[keep], guide,
                                               params["L"])[:, -1].max()),
        "tail_error_max": float(tail[keep].max()),
        "control_effort": dm.control_effort(t[keep], states[keep], system, params["delay"]),
        "oscillation_power": dm.oscillation_power(t[keep], deviation, OSCILLATION_CUTOFF),
        "turn_time": turn,
        "settling_time": dm.settling_time(t, tail, turn, band=0.05 * params["L"]),
    }


def observable_series(t: np.ndarray, states: np.ndarray, system: Any,
                      params: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Every observable on the record times, shape (T,) each (control power undelayed:
    with a delay the neighbours' past state is interpolated between records)."""
    x, y, vx, vy = (states[..., i] for i in range(4))
    deviation = dm.link_deviation(x, y, params["L"])
    guide = system.guide
    power = dm.control_power(t, states, system, params["delay"])
    return {
        "alignment": dm.velocity_alignment(vx, vy),
        "link_error_max": deviation.max(axis=1),
        "link_error_mean": deviation.mean(axis=1),
        "head_error": guide.distance(np.stack([x[:, 0], y[:, 0]], axis=-1)),
        "tail_error": guide.distance(np.stack([x[:, -1], y[:, -1]], axis=-1)),
        "control_power": power,
    }
