r"""The bench dragon as agents (``dragon_agents``): a chain of units steered by local rules.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.model import (
    BLOWUP_METRICS,
    ON_BLOWUP,
    IntervalModel,
    Metric,
    Observable,
    Output,
    Resources,
)
from flocklab.core.parameters import ParameterSpec
from flocklab.models.dragon_agents import metrics as dm
from flocklab.models.dragon_agents.guidance import GUIDANCE_LAWS, PATH_KEYS, check_path_spec
from flocklab.models.dragon_agents.solve import METHODS
from flocklab.models.dragon_agents.tasks import TASKS
from flocklab.references import BENCH_DRAGON_ARTICLE, CUMCM_2024_A

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord
    from flocklab.core.time import TimeGrid

#: Cut-off of the oscillation measure (Hz): well above the path's turning frequency
#: (0.3 rad/s ~ 0.05 Hz in the article's example), below the link modes (~ several Hz).
OSCILLATION_CUTOFF = 0.5
#: Alignment neighbours: the unit ahead (the article's code) or both chain neighbours.
NEIGHBOUR_MODES = ("front", "front_back")
STARTS = ("behind", "article")
ARTICLE_PATH = {"kind": "circle", "radius": 15.0, "angular_speed": 0.3}

PATH_SCHEMA = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"enum": list(PATH_KEYS)}},
    "description": "a path: {kind: line|circle|s_curve|figure_eight|spiral|turnaround, ...}",
}


def _gain(name: str, default: float, text: str, unit: str = "s-1") -> ParameterSpec:
    return ParameterSpec(name, "float", default, text, unit, low=0.0)


PARAMETERS: tuple[ParameterSpec, ...] = (
    ParameterSpec("N", "int", 20, "number of units (head = unit 0)", "1", low=2),
    ParameterSpec("L", "float", 1.0, "link rest length", "m", low=0.0, low_inclusive=False),
    ParameterSpec("m", "float", 1.0, "unit mass", "kg", low=0.0, low_inclusive=False),
    _gain("k_a", 2.0, "alignment gain (force per velocity difference)", "kg s-1"),
    _gain("k_c", 5.0, "cohesion stiffness toward both chain neighbours", "N m-1"),
    _gain("k_p", 3.0, "head path-following gain", "kg s-1"),
    _gain("k_d", 0.5, "damping coefficient", "kg s-1"),
    _gain("k_penalty", 500.0, "penalty-constraint stiffness of a link", "N m-1"),
    ParameterSpec("neighbours", "choice", "front", "alignment neighbours (front: the "
                  "article's code)", choices=NEIGHBOUR_MODES),
    ParameterSpec("path", "json", ARTICLE_PATH, "head path", schema=PATH_SCHEMA),
    ParameterSpec("guidance", "choice", "tangent", "desired head velocity: tangent at the "
                  "head's projection (the article) or a moving reference point",
                  choices=GUIDANCE_LAWS),
    ParameterSpec("cross_track_gain", "float", 0.0, "pull of the desired velocity toward "
                  "the path (0: the article's pure tangent)", "s-1", low=0.0),
    ParameterSpec("start", "choice", "behind", "straight chain at rest: behind the path's "
                  "start along its tangent, or the article's x-axis line from the origin",
                  choices=STARTS),
    ParameterSpec("method", "choice", "Radau", "integration method (scipy.integrate.solve_ivp)",
                  choices=METHODS),
    ParameterSpec("rtol", "float", 1e-6, "relative tolerance", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("atol", "float", 1e-9, "absolute tolerance", "1", low=0.0,
                  low_inclusive=False),
    ParameterSpec("max_step", "float", 0.0, "largest solver step (0: unlimited)", "s",
                  low=0.0),
    ParameterSpec("delay", "float", 0.0, "perception delay of the control terms", "s",
                  low=0.0, symbol=r"\tau"),
    ParameterSpec("look_ahead", "float", 0.0, "look-ahead horizon of the alignment "
                  "(0: plain alignment)", "s", low=0.0),
    ParameterSpec("gain_cv", "float", 0.0, "coefficient of variation of the per-unit "
                  "gains (k_a, k_c, k_d lognormal, mean = nominal)", "1", low=0.0),
    ParameterSpec("gain_seed", "int", -1, "seed of the gain draws (-1: the run seed)", "1",
                  low=-1),
    ParameterSpec("blowup_stretch", "float", 3.0, "stop when a link exceeds this "
                  "multiple of L", "1", low=1.0, low_inclusive=False),
    ON_BLOWUP,
)




class DragonAgents(IntervalModel):
    """Bench dragon of N agents with penalty links (module docstring)."""

    name = "dragon_agents"
    description = ("bench dragon: N units with alignment, cohesion, penalty links, damping "
                   "and a path-following head (stiff ODE / DDE)")
    reference = f"{BENCH_DRAGON_ARTICLE}; path of {CUMCM_2024_A}"
    title = "Bench dragon as agents"
    parameters = PARAMETERS
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.01
    entity_dim = "unit"
    observables = (
        Observable("alignment", "mean cosine of unit headings to the mean heading", "1",
                   -1.0, 1.0, r"\phi"),
        Observable("link_error_max", "largest link-length error", "m",
                   symbol=r"\max|d-L|"),
        Observable("link_error_mean", "mean link-length error", "m",
                   symbol=r"\langle|d-L|\rangle"),
        Observable("head_error", "head distance to the path", "m", symbol="e_1"),
        Observable("tail_error", "tail distance to the path", "m", symbol="e_N"),
        Observable("control_power", "sum of squared control forces", "N2",
                   symbol=r"\sum|F^c|^2"),
    )
    primary_observable = "alignment"
    #: The integrator comparison as k_penalty grows (flocklab.models.dragon_agents.tasks).
    tasks = TASKS
    drawing = "flocklab.models.dragon_agents.figures:DragonAgentsDrawing"
    run_metrics = (
        Metric("link_error_max", "largest link-length error after burn-in", "m",
               symbol=r"\max|d-L|"),
        Metric("link_error_mean", "mean link-length error after burn-in", "m",
               symbol=r"\langle|d-L|\rangle"),
        Metric("whip", "largest distance of the tail from where a rigid chain on the same "
                       "path would be, after burn-in", "m"),
        Metric("tail_error_max", "largest tail distance to the path after burn-in", "m"),
        Metric("control_effort", "control effort after burn-in (time integral of the squared "
                                 "control forces)", "N2 s"),
        Metric("oscillation_power", f"link-error power above {OSCILLATION_CUTOFF} Hz "
                                    f"after burn-in", "m2"),
        Metric("turn_time", "when the head meets its path's largest curvature step (0 for "
                            "a straight chain starting on a curve)", "s"),
        Metric("settling_time", "time after the turn until the tail's path distance stays "
                                "within 5 % (or 0.05 L) of its final value (NaN: blew up)",
               "s"),
        Metric("solver_steps", "accepted solver steps over the whole run", "1"),
        Metric("solver_nfev", "right-hand-side evaluations over the whole run", "1"),
        *BLOWUP_METRICS,
    )

    def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        """The path specification checked, with its defaults (its canonical form: recorded)."""
        return {**params, "path": check_path_spec(params["path"])}

    def uses_seed(self, params: Mapping[str, Any]) -> bool:
        """Only heterogeneous gains drawn from the run's seed (``gain_cv > 0`` and
        ``gain_seed = -1``) make a run depend on it."""
        return params["gain_cv"] > 0 and params["gain_seed"] < 0

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Straight chain at rest; the gain seed is drawn from the run's generator."""
        from flocklab.models.dragon_agents.engine import initial_state

        seed = int(rng.integers(0, 2**63 - 1))
        return {"y": initial_state(params), "_gain_seed": seed}

    def solve(self, state: dict, params: Mapping[str, Any], record: RunRecord
              ) -> dict[str, Output]:
        """The whole solve at once: observables from the recorded trajectory (records after
        a recorded blow-up stay NaN), the trajectory, gains and solver statistics."""
        from flocklab.models.dragon_agents.engine import build_system, solve

        grid = record.grid
        system = build_system(params, state["_gain_seed"])
        t = grid.times(grid.record_steps)
        sol = solve(params, system, state["y"], t)
        state["y"] = sol.states[-1].ravel().copy()
        done = len(sol.t)
        for name, values in observable_series(sol.t, sol.states, system, params).items():
            record.series[name][:done] = values
        states = sol.padded(t)
        out: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = {}
        for index, (name, long_name, units) in enumerate((
                ("x", "unit x position", "m"), ("y", "unit y position", "m"),
                ("vx", "unit x velocity", "m s-1"), ("vy", "unit y velocity", "m s-1"))):
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

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """Run metrics from the run file and its prepared ``params`` (pure function); after
        a recorded blow-up they cover the records before it."""
        from flocklab.models.dragon_agents.engine import build_system

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
