r"""Mass–spring chains, cloth and networks with a registry of integrators.

Point masses joined by damped springs, :math:`M\ddot x = F(x, \dot x)` with spring forces
:math:`k(l - L)n`, dampers along the springs :math:`c[(v_j - v_i)\cdot n]n` or absolute
:math:`-c\,v`, gravity and a constant force on the tip (equations in
:mod:`flocklab.models.springs.structure`). Structures: ``chain`` (the tongue of the
tongue-model article: ``n_points`` points along +x, root fixed, ``tip_force`` on the last
one; the article's values are the defaults and the point mass, which it does not give,
defaults to 0.1 kg), ``cloth`` (``nx`` x ``ny`` hanging grid with structural, shear and
optional bending springs) and ``network`` (a JSON document, validated). Integrators: one
registry (:data:`flocklab.models.springs.integrators.INTEGRATORS`), chosen by
``integrator``.

The static equilibrium is computed first (Newton on the potential energy,
:mod:`flocklab.models.springs.statics`); ``tip_distance`` is the distance of the tip from it.
A blow-up (non-finite state or a spring strain beyond ``strain_bound``) raises
:class:`~flocklab.core.model.SimulationError` naming the time, or with
``on_blowup="record"`` stops the motion at the last finite state, fills the remaining
observables with NaN and records ``stable = 0`` and ``t_blowup``, so a study can record
"unstable" and go on.

References
----------
D. Baraff, A. Witkin, "Large steps in cloth simulation", SIGGRAPH 1998. E. Hairer,
C. Lubich, G. Wanner, *Geometric Numerical Integration*, Springer 2006.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import (
    BLOWUP_METRICS,
    ON_BLOWUP,
    Metric,
    Model,
    Observable,
    Preset,
    Resources,
    SimulationError,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.time import TimeGrid
from flocklab.models.springs.integrators import INTEGRATORS
from flocklab.models.springs.tasks import TASKS
from flocklab.references import BARAFF_WITKIN_1998, INTEGRATOR_ARTICLE, TONGUE_ARTICLE

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord
    from flocklab.models.springs.structure import SpringSystem

_VECTOR = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3}
NETWORK_SCHEMA = {
    "description": "a network document: points (position, mass, fixed, force) and springs "
                   "(i, j, stiffness, rest_length, damping)",
    "type": ["object", "null"],
    "properties": {
        "points": {"type": "array", "minItems": 2, "items": {
            "type": "object", "required": ["position", "mass"],
            "properties": {"position": _VECTOR, "velocity": _VECTOR, "force": _VECTOR,
                           "mass": {"type": "number"}, "fixed": {"type": "boolean"}}}},
        "springs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["i", "j", "stiffness"],
            "properties": {"i": {"type": "integer"}, "j": {"type": "integer"},
                           "stiffness": {"type": "number"}, "rest_length": {"type": "number"},
                           "damping": {"type": "number"}}}},
        "gravity": _VECTOR, "absolute_damping": {"type": "number"},
        "tip": {"type": "integer"},
    },
    "required": ["points", "springs"],
}


def _positive(name: str, default: float, text: str, unit: str) -> ParameterSpec:
    return ParameterSpec(name, "float", default, text, unit, low=0.0, low_inclusive=False)


class Springs(Model):
    """Mass–spring structures (see the module docstring)."""

    name = "springs"
    description = "mass-spring chains, cloth and networks with a registry of integrators"
    reference = f"{BARAFF_WITKIN_1998}; {INTEGRATOR_ARTICLE}; {TONGUE_ARTICLE}"
    title = "Mass–spring systems"
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.01
    observables = (
        Observable("kinetic_energy", "kinetic energy", "J", symbol="T"),
        Observable("elastic_energy", "elastic energy", "J", symbol="U_e"),
        Observable("gravitational_energy", "gravitational energy", "J", symbol="U_g"),
        Observable("total_energy", "total energy (with the external forces' potential)", "J",
                   symbol="E"),
        Observable("max_strain", "largest spring strain", "1", symbol=r"\epsilon"),
        Observable("tip_x", "tip x position", "m"),
        Observable("tip_y", "tip y position", "m"),
        Observable("tip_z", "tip z position (0 in 2-D)", "m"),
        Observable("tip_distance", "tip distance from its static equilibrium", "m",
                   symbol="d_{tip}"),
    )
    primary_observable = "tip_distance"
    entity_dim = "point"
    #: Stability table and claims, cloth cost, accuracy orders (flocklab.models.springs.tasks).
    tasks = TASKS
    drawing = "flocklab.models.springs.figures:SpringsDrawing"
    commands = "flocklab.models.springs.commands:COMMANDS"
    #: The tongue of the tongue-model article (6 points, k = 50 N/m, d = 0.5 N s/m, rest
    #: 5 cm, 1 N at the tip) with its two integrators at its dt = 0.01 s, and the default
    #: config's soft cloth.
    presets = (
        Preset("tongue, Verlet", "the article's Verlet update at dt = 0.01 s: stable",
               {"structure": "chain", "integrator": "article_verlet", "n_points": 6,
                "stiffness": 50.0, "damping": 0.5, "rest_length": 0.05, "mass": 0.1,
                "tip_force": [0.0, 1.0]}, TONGUE_ARTICLE, dt=0.01),
        Preset("tongue, explicit Euler", "explicit Euler at the article's dt = 0.01 s: the "
               "tongue blows up within seconds",
               {"structure": "chain", "integrator": "explicit_euler", "n_points": 6,
                "stiffness": 50.0, "damping": 0.5, "rest_length": 0.05, "mass": 0.1,
                "tip_force": [0.0, 1.0]}, TONGUE_ARTICLE, dt=0.01),
        Preset("cloth", "the project's 100-particle cloth of the integrator article's claims: "
               "10 x 10, 0.01 kg points, 1000 N/m springs, corners pinned, under gravity; "
               "semi-implicit Euler at dt = 0.001 s",
               {"structure": "cloth", "integrator": "semi_implicit_euler", "nx": 10, "ny": 10,
                "stiffness": 1000.0, "mass": 0.01, "damping": 0.05, "gravity": 9.80665},
               INTEGRATOR_ARTICLE, dt=0.001),
        Preset("soft cloth", "10 x 10 soft cloth (50 N/m), corners pinned, released under "
               "gravity: a visible fall; semi-implicit Euler at dt = 0.001 s",
               {"structure": "cloth", "integrator": "semi_implicit_euler", "nx": 10, "ny": 10,
                "stiffness": 50.0, "mass": 0.01, "damping": 0.05, "gravity": 9.80665},
               INTEGRATOR_ARTICLE, dt=0.001),
    )
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("point x position", "m"),
        "y": SnapshotVariable("point y position", "m"),
        "z": SnapshotVariable("point z position (0 in 2-D)", "m"),
    }
    run_metrics = (
        *BLOWUP_METRICS,
        Metric("energy_drift", "energy drift relative to the initial energy above equilibrium"),
        Metric("max_strain", "largest spring strain over the run"),
        Metric("settling_time", "time after which the tip stays within 2 % of its initial "
                                "distance from the static equilibrium (NaN: not settled)", "s"),
    )
    parameters = (
        ParameterSpec("structure", "choice", "chain", "what to build",
                      choices=("chain", "cloth", "network")),
        ParameterSpec("integrator", "choice", "rk4", "time integrator",
                      choices=tuple(INTEGRATORS)),
        ParameterSpec("n_points", "int", 6, "chain: number of points", low=2),
        ParameterSpec("nx", "int", 10, "cloth: points per row", low=2),
        ParameterSpec("ny", "int", 10, "cloth: rows", low=2),
        _positive("spacing", 0.1, "cloth: grid spacing", "m"),
        ParameterSpec("stiffness", "float", 50.0, "spring stiffness k", "N m-1", low=0.0),
        ParameterSpec("bending_stiffness", "float", 0.0,
                      "cloth: stiffness of bending springs (0: none)", "N m-1", low=0.0),
        ParameterSpec("damping", "float", 0.5, "damping coefficient d", "N s m-1", low=0.0),
        ParameterSpec("damping_kind", "choice", "spring",
                      "spring: along each spring on the relative velocity; absolute: -d v",
                      choices=("spring", "absolute")),
        _positive("rest_length", 0.05, "chain: spring rest length", "m"),
        _positive("mass", 0.1, "point mass (not given by the tongue-model article)", "kg"),
        ParameterSpec("tip_force", "json", [0.0, 1.0], "chain: force on the tip (2 or 3 "
                      "components; the dimension of the chain)", "N", schema=_VECTOR),
        ParameterSpec("gravity", "float", 0.0, "gravity along -y (2-D) or -z (3-D)", "m s-2",
                      low=0.0),
        ParameterSpec("pin", "choice", "corners", "cloth: pinned corners or top edge",
                      choices=("corners", "edge")),
        ParameterSpec("network", "json", None, "network: the structure document",
                      schema=NETWORK_SCHEMA),
        ParameterSpec("initial", "choice", "rest",
                      "rest: the built structure at rest; perturbed: static equilibrium plus a "
                      "seeded random displacement", choices=("rest", "perturbed")),
        ParameterSpec("perturbation", "float", 0.01,
                      "perturbed: displacement amplitude / mean rest length", low=0.0),
        ParameterSpec("strain_bound", "float", 2.0, "blow-up when a strain exceeds this",
                      low=0.0, low_inclusive=False),
        ON_BLOWUP,
        ParameterSpec("linear_solver", "choice", "direct", "Newton solves: spsolve or CG",
                      choices=("direct", "cg")),
        _positive("newton_tol", 1e-10, "Newton tolerance on h|dv| / mean rest length", "1"),
        ParameterSpec("max_iter", "int", 20, "Newton iteration cap per step", low=1),
        ParameterSpec("sweeps", "int", 3, "implicit_euler_diagonal: sweeps per step", low=1),
    )

    # ----------------------------------------------------------------- structure

    def build(self, params: Mapping[str, Any]) -> SpringSystem:
        """The :class:`SpringSystem` of ``params`` (raises ParameterError naming the key)."""
        from flocklab.models.springs.structure import chain, cloth, from_document

        structure = params["structure"]
        if structure == "chain":
            force = params["tip_force"]
            gravity = np.zeros(len(force))
            gravity[1 if len(force) == 2 else 2] = -params["gravity"]
            return chain(params["n_points"], params["stiffness"], params["damping"],
                         params["damping_kind"], params["rest_length"], params["mass"],
                         force, gravity)
        if structure == "cloth":
            return cloth(params["nx"], params["ny"], params["spacing"], params["mass"],
                         params["stiffness"], None, params["bending_stiffness"],
                         params["damping"], params["damping_kind"], params["pin"],
                         params["gravity"])
        if params["network"] is None:
            raise ParameterError("network", "parameter 'network' is missing: structure "
                                            "'network' needs the document")
        try:
            return from_document(params["network"])
        except ParameterError as error:
            key = f"network.{error.name}"
            raise ParameterError(key, error.message.replace(f"'{error.name}'", f"'{key}'")
                                 ) from None

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """The structure builds; a time run of a structure that would never move (a chain
        or cloth at rest with no gravity and no tip force) is refused, naming ``gravity``."""
        self.build(params)
        if grid is not None and params["initial"] == "rest" and params["gravity"] == 0 and (
                params["structure"] == "cloth" or (params["structure"] == "chain" and not any(
                    params["tip_force"]))):
            raise ParameterError("gravity", f"parameter 'gravity' = 0: a {params['structure']} "
                                 "at rest with no force never moves; give gravity > 0 (e.g. "
                                 "9.80665 m s-2), a tip force, or initial 'perturbed'")

    def entity_count(self, params: Mapping[str, Any]) -> int:
        structure = params["structure"]
        if structure == "chain":
            return int(params["n_points"])
        if structure == "cloth":
            return int(params["nx"] * params["ny"])
        return len(params["network"]["points"])

    def integrator_options(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Options of the chosen integrator taken from ``params``."""
        options = INTEGRATORS[params["integrator"]].options
        given = {"tol": params["newton_tol"], "max_iter": params["max_iter"],
                 "linear_solver": params["linear_solver"], "iterations": params["sweeps"]}
        return {name: given[name] for name in options if name in given}

    # ----------------------------------------------------------------- hooks

    def uses_seed(self, params: Mapping[str, Any]) -> bool:
        """Only a random initial perturbation (``initial = perturbed`` with
        ``perturbation > 0``) makes a run depend on its seed."""
        return params["initial"] == "perturbed" and params["perturbation"] > 0

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """``x``, ``v`` (N, D), the blow-up flag and time (-1: none), the Newton iteration
        count (sum, largest, steps: kept with the state, so a resumed run reports the whole
        run's); the equilibrium in ``_x_eq``."""
        from flocklab.models.springs.forces import potential_energy
        from flocklab.models.springs.statics import static_equilibrium

        system = self.build(params)
        x_eq = static_equilibrium(system)
        x = system.positions.copy()
        if params["initial"] == "perturbed":
            amplitude = params["perturbation"] * float(np.mean(system.rest_length))
            x = x_eq.copy()
            free = ~system.fixed
            x[free] += rng.uniform(-amplitude, amplitude, size=x[free].shape)
        return {"x": x, "v": system.velocities.copy(), "blown": np.zeros(1),
                "t_blowup": np.full(1, -1.0), "newton": np.zeros(3),
                "_system": system, "_x_eq": x_eq,
                "_e_eq": potential_energy(system, x_eq), "_stepper": None}

    def _stepper(self, state: dict, params: Mapping[str, Any], dt: float) -> Any:
        from flocklab.models.springs.integrators import get_integrator

        stepper = state["_stepper"]
        if stepper is None or stepper.dt != dt:
            stepper = get_integrator(params["integrator"], state["_system"], dt,
                                     **self.integrator_options(params))
            state["_stepper"] = stepper
            state["_previous"] = np.empty((2, *state["x"].shape))
        return stepper

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """The default loop; the step ``dt`` comes from the record's time grid."""
        state["_dt"] = record.grid.dt
        super().advance(state, params, first_step, k, record)

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        """``k`` integrator steps with a blow-up check after each; the Newton iterations of
        an implicit integrator are added to the state's counts."""
        if state["blown"][0]:
            return
        stepper = self._stepper(state, params, state.get("_dt", self.default_dt))
        keep = params["on_blowup"] == "record"
        bound = params["strain_bound"]
        iterations = stepper.stats.get("newton_iterations") if stepper.stats else None
        done = len(iterations) if iterations is not None else 0
        try:
            self._steps(state, params, stepper, first_step, k, keep, bound)
        finally:
            if iterations is not None and len(iterations) > done:
                new = iterations[done:]
                counts = state["newton"]
                counts[0] += sum(new)
                counts[1] = max(counts[1], max(new))
                counts[2] += len(new)

    def _steps(self, state: dict, params: Mapping[str, Any], stepper: Any, first_step: int,
               k: int, keep: bool, bound: float) -> None:
        from flocklab.models.springs.kernels import max_abs_strain

        x, v, system = state["x"], state["v"], state["_system"]
        previous = state["_previous"]
        dt = stepper.dt
        for n in range(k):
            if keep:
                previous[0], previous[1] = x, v
            stepper.step(x, v)
            strain = max_abs_strain(x, v, system.springs, system.rest_length)
            if strain <= bound:
                continue
            t = (first_step + n + 1) * dt
            if not keep:
                raise SimulationError(
                    f"springs run blew up at t = {t:g} s (strain {strain:.3g} > strain_bound "
                    f"= {bound:g}, or non-finite) with integrator '{params['integrator']}', "
                    f"dt = {dt:g} s")
            x[...], v[...] = previous[0], previous[1]
            state["blown"][0], state["t_blowup"][0] = 1.0, t
            return

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.springs.forces import energies, strains

        names = [o.name for o in self.observables]
        if state["blown"][0]:
            return dict.fromkeys(names, math.nan)
        system, x, v = state["_system"], state["x"], state["v"]
        e = energies(system, x, v)
        tip = np.zeros(3)
        tip[:system.dim] = x[system.tip]
        return {"kinetic_energy": e["kinetic"], "elastic_energy": e["elastic"],
                "gravitational_energy": e["gravitational"], "total_energy": e["total"],
                "max_strain": float(np.max(np.abs(strains(system, x)))),
                "tip_x": tip[0], "tip_y": tip[1], "tip_z": tip[2],
                "tip_distance": float(np.linalg.norm(x[system.tip]
                                                     - state["_x_eq"][system.tip]))}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        x = state["x"]
        z = x[:, 2] if x.shape[1] == 3 else np.zeros(x.shape[0])
        return {"x": x[:, 0].copy(), "y": x[:, 1].copy(), "z": z.copy()}

    def run_outputs(self, state: dict, params: Mapping[str, Any]
                      ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
        total, largest, steps = state["newton"]
        out = {
            "stable": ((), np.float64(1.0 - state["blown"][0]),
                       {"long_name": "1 if the run did not blow up"}),
            "t_blowup": ((), np.float64(state["t_blowup"][0] if state["blown"][0] else np.nan),
                         {"long_name": "time of blow-up", "units": "s"}),
            "equilibrium_energy": ((), np.float64(state["_e_eq"]),
                                   {"long_name": "potential energy of the static equilibrium",
                                    "units": "J"}),
            "fixed": (("point",), state["_system"].fixed.astype(np.int8),
                      {"long_name": "1 for fixed points"}),
        }
        if steps:
            out["newton_iterations_mean"] = ((), np.float64(total / steps),
                                             {"long_name": "mean Newton iterations per step"})
            out["newton_iterations_max"] = ((), np.float64(largest),
                                            {"long_name": "largest Newton iterations of a step"})
        return out

    def metrics(self, run: xr.Dataset, params: Mapping[str, Any], burn_in: float
                ) -> dict[str, float]:
        """Stability, blow-up time, energy drift, largest strain and settling time."""
        total = run["total_energy"].values
        finite = np.isfinite(total)
        last = int(np.flatnonzero(finite)[-1]) if finite.any() else 0
        scale = float(total[0] - run["equilibrium_energy"].values)
        distance = run["tip_distance"].values[:last + 1]
        times = run["time"].values[:last + 1]
        band = 0.02 * distance[0]
        outside = np.flatnonzero(distance > band)
        settled = float(times[outside[-1] + 1]) if outside.size and outside[-1] < last else \
            (0.0 if not outside.size else math.nan)
        stable = float(run["stable"].values)
        if not stable or settled > 0.9 * float(times[-1]):
            settled = math.nan
        return {"stable": stable, "t_blowup": float(run["t_blowup"].values),
                "energy_drift": float((total[last] - total[0]) / scale) if scale > 0
                else math.nan,
                "max_strain": float(np.nanmax(run["max_strain"].values)),
                "settling_time": settled}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """~40 words per point of state, buffers and sparse Jacobian (implicit: ~300),
        the series and 3 words per point and frame, twice; time from ~2 µs per point-step
        explicit and ~50 µs per point-step implicit (measured order of magnitude)."""
        n = self.entity_count(params)
        implicit = INTEGRATORS[params["integrator"]].implicit
        words = (300 if implicit else 40) * n + len(grid.record_steps) * len(self.observables) \
            + 3 * n * len(grid.frame_steps)
        per_point_step = 5e-5 if implicit else 2e-6
        return Resources(2 * 8 * words, 1e-5 * grid.steps + per_point_step * n * grid.steps)
