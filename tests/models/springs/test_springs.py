"""Mass–spring structures, forces, Jacobians, integrators and statics (flocklab.models.springs)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr

from flocklab.core.parameters import ParameterError
from flocklab.models.springs.forces import (
    JacobianAssembler,
    energies,
    force_jacobians,
    forces,
    potential_energy,
    strains,
)
from flocklab.models.springs.integrators import INTEGRATORS, get_integrator
from flocklab.models.springs.kernels import jacobi_pcg
from flocklab.models.springs.run import energy_drift, integrate, settling_time
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import (
    chain,
    cloth,
    from_document,
    load_network,
    to_document,
)

FIXED_STEP = [name for name in INTEGRATORS if not name.startswith("scipy_")]
OMEGA, MASS, REST = 10.0, 1.0, 1.0


def oscillator(damping: float = 0.0, dim: int = 2):
    """One free point on a spring to a fixed point: omega = 10 rad/s, m = 1 kg, L = 1 m."""
    return chain(n_points=2, stiffness=OMEGA**2 * MASS, damping=damping, rest_length=REST,
                 mass=MASS, tip_force=(0.0,) * dim)


def damped_oscillator_exact(t: np.ndarray, u0: float, zeta: float) -> np.ndarray:
    """Axial displacement of m u'' = -k u - c u' from (u0, 0), underdamped."""
    omega_d = OMEGA * math.sqrt(1.0 - zeta**2)
    return u0 * np.exp(-zeta * OMEGA * t) * (np.cos(omega_d * t)
                                             + zeta * OMEGA / omega_d * np.sin(omega_d * t))


# --------------------------------------------------------------------------- structures


def test_chain_defaults_are_the_articles():
    system = chain()
    assert system.n_points == 6 and system.dim == 2
    assert np.all(system.stiffness == 50.0) and np.all(system.damping == 0.5)
    assert np.all(system.rest_length == 0.05) and system.absolute_damping == 0.0
    assert system.fixed.tolist() == [True, False, False, False, False, False]
    assert system.external_force[-1].tolist() == [0.0, 1.0] and system.tip == 5
    assert np.all(system.mass == 0.1)
    absolute = chain(damping_kind="absolute")
    assert np.all(absolute.damping == 0.0) and absolute.absolute_damping == 0.5


def test_cloth_spring_counts_and_pins():
    system = cloth(nx=10, ny=10)
    # structural 2*9*10 + shear 2*9*9
    assert system.springs.shape[0] == 180 + 162 and system.dim == 3
    assert np.flatnonzero(system.fixed).tolist() == [0, 9]
    bent = cloth(nx=4, ny=5, bending_stiffness=1.0, pin="edge")
    # structural 3*5 + 4*4, shear 2*3*4, bending 2*5 + 4*3
    assert bent.springs.shape[0] == (3 * 5 + 4 * 4) + 2 * 3 * 4 + (2 * 5 + 4 * 3)
    assert np.flatnonzero(bent.fixed).tolist() == [0, 1, 2, 3]
    assert np.allclose(energies(system, system.positions, system.velocities)["elastic"], 0.0)


@pytest.mark.parametrize(("change", "key"), [
    (lambda d: d["points"][2].update(mass=0.0), "points[2].mass"),
    (lambda d: d["points"][1].update(mass=-1.0), "points[1].mass"),
    (lambda d: d["springs"][1].update(stiffness=-5.0), "springs[1].stiffness"),
    (lambda d: d["springs"][0].update(rest_length=0.0), "springs[0].rest_length"),
    (lambda d: d["springs"][2].update(j=2), "springs[2]"),
    (lambda d: d["springs"][1].update(j=17), "springs[1].j"),
    (lambda d: d["springs"][0].update(damping=-1.0), "springs[0].damping"),
    (lambda d: [p.update(fixed=True) for p in d["points"]], "points[*].fixed"),
    (lambda d: d["points"][0].pop("position"), "points[0].position"),
])
def test_bad_network_documents_name_the_key(change, key):
    document = to_document(chain(n_points=4))
    change(document)
    with pytest.raises(ParameterError) as error:
        from_document(document)
    assert error.value.name == key and key in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"mass": 0.0}, "mass"), ({"stiffness": -1.0}, "stiffness"),
    ({"rest_length": 0.0}, "rest_length"), ({"n_points": 1}, "n_points"),
    ({"damping_kind": "viscous"}, "damping_kind"), ({"damping": -0.1}, "damping"),
    ({"tip_force": (1.0,)}, "tip_force"),
])
def test_bad_chain_parameters_name_the_key(kwargs, key):
    with pytest.raises(ParameterError) as error:
        chain(**kwargs)
    assert error.value.name == key


def test_bad_dt_and_integrator():
    system = chain()
    for dt in (0.0, -0.01, math.nan):
        with pytest.raises(ParameterError) as error:
            get_integrator("rk4", system, dt)
        assert error.value.name == "dt"
    with pytest.raises(ParameterError) as error:
        get_integrator("leapfrog", system, 0.01)
    assert error.value.name == "integrator" and "rk4" in str(error.value)
    with pytest.raises(ParameterError) as error:
        get_integrator("implicit_euler", system, 0.01, linear_solver="qr")
    assert error.value.name == "linear_solver"


def test_network_round_trip_json_and_netcdf(tmp_path):
    system = cloth(nx=3, ny=3, damping=0.2)
    path = tmp_path / "net.json"
    path.write_text(json.dumps(to_document(system)))
    again = load_network(path)
    for name in ("positions", "mass", "fixed", "springs", "rest_length", "stiffness", "damping",
                 "gravity", "external_force"):
        assert np.array_equal(getattr(again, name), getattr(system, name)), name
    ds = xr.Dataset(
        {"position": (("point", "dim"), system.positions), "mass": ("point", system.mass),
         "fixed": ("point", system.fixed.astype(np.int8)),
         "spring_i": ("spring", system.springs[:, 0]), "spring_j": ("spring", system.springs[:, 1]),
         "stiffness": ("spring", system.stiffness), "damping": ("spring", system.damping)},
        attrs={"gravity": system.gravity})
    ds.to_netcdf(tmp_path / "net.nc")
    from_nc = load_network(tmp_path / "net.nc")
    assert np.allclose(from_nc.rest_length, system.rest_length)  # default: initial distances
    assert np.array_equal(from_nc.fixed, system.fixed)
    assert np.array_equal(from_nc.gravity, system.gravity)


# --------------------------------------------------------------------------- forces


def test_spring_force_signs():
    system = oscillator(damping=0.5)
    x = np.array([[0.0, 0.0], [1.5, 0.0]])   # stretched by 0.5
    v = np.array([[0.0, 0.0], [2.0, 0.0]])   # separating at 2 m/s
    f = forces(system, x, v)
    # stretched spring pulls the free point back, the separating motion is damped
    assert f[1, 0] == pytest.approx(-100.0 * 0.5 - 0.5 * 2.0)
    assert np.allclose(f[0], -f[1])


@pytest.mark.parametrize("kind", ["spring", "absolute"])
def test_analytic_jacobians_equal_finite_differences(kind):
    rng = np.random.default_rng(3)
    for system in (chain(damping=0.7, damping_kind=kind),
                   cloth(nx=3, ny=4, damping=0.3, damping_kind=kind, bending_stiffness=20.0)):
        x = system.positions + rng.normal(0.0, 0.02, system.positions.shape)
        v = rng.normal(0.0, 1.0, x.shape)
        jx, jv = force_jacobians(system, x, v)
        h = 1e-6
        size = x.size
        fd_x, fd_v = np.zeros((size, size)), np.zeros((size, size))
        for q in range(size):
            e = np.zeros(size)
            e[q] = h
            e = e.reshape(x.shape)
            fd_x[:, q] = ((forces(system, x + e, v) - forces(system, x - e, v)) / (2 * h)).ravel()
            fd_v[:, q] = ((forces(system, x, v + e) - forces(system, x, v - e)) / (2 * h)).ravel()
        # central differences: truncation ~ h^2 |F'''|, rounding ~ eps |F| / h
        assert np.max(np.abs(jx.toarray() - fd_x)) <= 1e-6 * np.max(np.abs(fd_x))
        assert np.max(np.abs(jv.toarray() - fd_v)) <= 1e-6 * max(np.max(np.abs(fd_v)), 1.0)


def test_jacobian_pattern_is_sparse_and_reused():
    system = cloth(nx=20, ny=20)
    assembler = JacobianAssembler(system, free_only=True)
    dofs = 3 * (400 - 2)
    matrix = assembler.assemble(system.positions, system.velocities, 1.0, 1e-4, 1e-2)
    # at most 3x3 blocks: diagonal + 2 off-diagonal per spring
    assert matrix.shape == (dofs, dofs)
    assert matrix.nnz <= 9 * (400 + 2 * system.springs.shape[0])
    again = assembler.assemble(system.positions, system.velocities, 1.0, 1e-4, 1e-2)
    assert again is matrix


def sagging_cloth(n: int):
    """An n x n cloth after 5 implicit steps of 1/60 s (sagging, some springs compressed)."""
    system = cloth(nx=n, ny=n)
    stepper = get_integrator("implicit_euler", system, 1.0 / 60.0)
    x, v = system.positions.copy(), system.velocities.copy()
    for _ in range(5):
        stepper.step(x, v)
    return system, x, v


def test_cg_matrix_is_definite_and_cg_solves_it():
    """The CG matrix (symmetric part, compressed springs' transverse stiffness clamped to 0)
    has eigenvalues >= the point mass, while the exact Newton matrix is indefinite there;
    jacobi_pcg solves it like a direct solver, with an iteration count within the
    sqrt(condition number) bound of preconditioned CG."""
    system = cloth(nx=8, ny=8)
    x = system.positions * np.array([0.9, 1.0, 1.0])   # every horizontal spring 10 % short
    v = np.random.default_rng(2).standard_normal(x.shape)
    h = 1.0 / 60.0
    assert np.min(strains(system, x)) < -0.09
    assembler = JacobianAssembler(system, free_only=True)
    exact = assembler.assemble(x, v, 1.0, h * h, h, geometric_damping=False).toarray()
    assert np.min(np.linalg.eigvalsh(exact)) < 0.0
    matrix = assembler.assemble(x, v, 1.0, h * h, h, geometric_damping=False, definite=True)
    dense = matrix.toarray()
    assert np.allclose(dense, dense.T)
    values = np.linalg.eigvalsh(dense)
    assert values[0] >= 0.01 * (1.0 - 1e-12)          # the point mass, 0.01 kg
    rhs = np.random.default_rng(3).standard_normal(dense.shape[0])
    solution, work = np.zeros_like(rhs), np.empty((5, rhs.size))
    iterations = jacobi_pcg(matrix.indptr, matrix.indices, matrix.data, rhs, solution, 1e-10,
                            10_000, work)
    assert np.linalg.norm(dense @ solution - rhs) <= 1e-10 * np.linalg.norm(rhs)
    assert np.allclose(solution, np.linalg.solve(dense, rhs), rtol=0, atol=1e-8)
    bound = 0.5 * math.sqrt(values[-1] / values[0]) * math.log(2.0 / 1e-10) + 1
    assert 1 <= iterations <= bound


def test_cg_newton_iterations_do_not_grow_with_the_cloth():
    """Implicit Euler with CG gives the direct solver's step, and its CG iterations per solve
    stay bounded (the condition number does not grow with N): 8 x 8 vs 24 x 24."""
    counts = {}
    for n in (8, 24):
        system, x, v = sagging_cloth(n)
        results = {}
        for solver in ("direct", "cg"):
            stepper = get_integrator("implicit_euler", system, 1.0 / 60.0, linear_solver=solver)
            xs, vs = x.copy(), v.copy()
            stepper.step(xs, vs)
            results[solver] = xs
            assert stepper.stats["unconverged_steps"] == 0
        assert np.allclose(results["cg"], results["direct"], rtol=0, atol=1e-9)
        counts[n] = np.mean(stepper.stats["linear_iterations"])
    assert counts[24] <= 2.0 * counts[8]


# --------------------------------------------------------------------------- statics


def test_statics_hanging_chain_closed_form():
    g, n, k, m, rest = 9.81, 6, 50.0, 0.1, 0.05
    system = chain(n_points=n, stiffness=k, mass=m, rest_length=rest, damping=0.0,
                   tip_force=(0.0, 0.0), gravity=(0.0, -g))
    x = static_equilibrium(system)
    # spring s (from the root) carries the weight of the n - 1 - s points below it
    tension = (n - 1 - np.arange(n - 1)) * m * g
    assert np.allclose(-np.diff(x[:, 1]), rest + tension / k, rtol=1e-10)
    assert np.allclose(x[:, 0], 0.0, atol=1e-12)


def test_statics_tongue_aligns_with_the_tip_force():
    system = chain()  # starts along +x, the force pulls along +y
    x = static_equilibrium(system)
    assert np.allclose(x[:, 1], np.arange(6) * (0.05 + 1.0 / 50.0), atol=1e-10)
    assert np.allclose(x[:, 0], 0.0, atol=1e-10)
    assert np.max(np.abs(forces(system, x, np.zeros_like(x))[1:])) < 1e-9


def test_statics_single_spring_3d_under_gravity_and_cloth_minimum():
    system = chain(n_points=2, stiffness=20.0, mass=0.5, rest_length=0.3, damping=0.0,
                   tip_force=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, -9.81))
    x = static_equilibrium(system, x0=system.positions + np.array([[0, 0, 0], [0, 0.1, -0.1]]))
    assert np.allclose(x[1], [0.0, 0.0, -(0.3 + 0.5 * 9.81 / 20.0)], atol=1e-10)
    sheet = cloth(nx=5, ny=5)
    x = static_equilibrium(sheet)
    hessian = -force_jacobians(sheet, x, np.zeros_like(x))[0].toarray()
    free = sheet.free_dofs
    assert np.linalg.eigvalsh(hessian[np.ix_(free, free)])[0] > -1e-8 * np.max(hessian)
    rng = np.random.default_rng(1)
    for _ in range(5):   # a local minimum: random nearby states have higher energy
        nudged = x.copy()
        nudged[~sheet.fixed] += rng.normal(0.0, 1e-4, nudged[~sheet.fixed].shape)
        assert potential_energy(sheet, nudged) > potential_energy(sheet, x)


# --------------------------------------------------------------------------- integrators


def _axial_error(name: str, dt: float, zeta: float, t_end: float = 1.0) -> float:
    system = oscillator(damping=2.0 * zeta * OMEGA * MASS)
    u0 = 0.1
    x0 = system.positions.copy()
    x0[1, 0] += u0
    result = integrate(system, name, dt, t_end, record_every=t_end, x0=x0)
    exact = damped_oscillator_exact(np.array([result.time[-1]]), u0, zeta)[0]
    assert abs(result.x[1, 1]) < 1e-12  # stays on the axis
    return abs(result.x[1, 0] - REST - exact)


def test_single_spring_matches_the_analytic_damped_oscillator():
    for zeta in (0.0, 0.1):
        assert _axial_error("scipy_DOP853", 0.05, zeta, 3.0) < 1e-8
        # rk4: global error ~ (h omega)^4 u0 omega t: 1e-4 * 0.1 * 30 ~ 3e-4 at h = 0.01
        assert _axial_error("rk4", 0.001, zeta, 3.0) < 1e-7
        assert _axial_error("implicit_midpoint", 0.001, zeta, 3.0) < 1e-4


ORDERS = {"explicit_euler": 1, "semi_implicit_euler": 1, "article_verlet": 1,
          "velocity_verlet": 2, "position_verlet": 2, "rk4": 4, "implicit_euler": 1,
          "implicit_euler_diagonal": 1, "implicit_midpoint": 2}


@pytest.mark.parametrize("name", list(ORDERS))
@pytest.mark.parametrize("zeta", [0.0, 0.1])
def test_observed_order_of_convergence(name, zeta):
    expected = ORDERS[name]
    steps = np.array([0.01, 0.005, 0.0025, 0.00125])
    errors = np.array([_axial_error(name, dt, zeta) for dt in steps])
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert slope == pytest.approx(expected, abs=0.25), (name, errors)


@pytest.mark.parametrize("zeta", [0.1, 0.5])
def test_position_verlet_is_second_order_with_dampers(zeta):
    """The kick's dampers at the half-step velocity (v + v')/2 (Lobatto IIIA-IIIB): fitted order
    2.003 at zeta = 0.1 and 1.998 at zeta = 0.5 on the accuracy task's spring (the former kick,
    dampers at v_n, gave 1.04); within 0.1 of 2, and the error at dt = 0.00125 s is below
    velocity Verlet's (1.0e-6 against 2.2e-6 m at zeta = 0.1)."""
    from flocklab.models.springs.accuracy import convergence_study

    study = convergence_study(["position_verlet", "velocity_verlet"], zeta=zeta)
    assert study["position_verlet"]["order"] == pytest.approx(2.0, abs=0.1)
    assert study["position_verlet"]["error"][-1] < study["velocity_verlet"]["error"][-1]


def test_position_verlet_kick_solves_the_damper_system():
    """With spring dampers the kick solves (M + h/2 C(x_1/2))(v' - v) = h F(x_1/2, v): the
    conjugate-gradient solution equals SuperLU's to 1e-12 (relative) in a few iterations
    (5 on the 0.01 kg tongue at its stability limit)."""
    import scipy.sparse.linalg as spla

    system = chain(mass=0.01)
    h = 0.0147
    x = static_equilibrium(system)
    x[1:, 1] += 0.002 * np.arange(1, 6)
    v = np.zeros_like(x)
    v[1:, 0] = 0.01
    stepper = get_integrator("position_verlet", system, h)
    x1, v1 = x.copy(), v.copy()
    stepper.step(x1, v1)
    assert 1 <= stepper.stats["linear_iterations"][0] <= 10
    half = x + 0.5 * h * v
    free = system.free_dofs
    matrix = JacobianAssembler(system).assemble(half, v, 1.0, 0.0, 0.5 * h)
    kick = spla.spsolve(matrix.tocsc(), h * forces(system, half, v).reshape(-1)[free])
    expected = v.copy()
    expected.reshape(-1)[free] += kick
    assert np.allclose(v1, expected, rtol=0, atol=1e-12 * np.max(np.abs(expected)))
    assert np.allclose(x1, half + 0.5 * h * expected, rtol=0, atol=1e-15)


def test_position_verlet_without_dampers_is_the_classical_kick():
    """No dampers: the kick is v' = v + h a(x_1/2), the same floating-point operations as the
    classical drift-kick-drift scheme (the undamped energy study is unchanged)."""
    system = chain(damping=0.0)
    x, v = system.positions.copy(), np.zeros_like(system.positions)
    x[1:, 1] += 0.003
    stepper = get_integrator("position_verlet", system, 0.01)
    xr, vr = x.copy(), v.copy()
    force = np.empty_like(x)
    for _ in range(50):
        stepper.step(x, v)
        xr += 0.005 * vr
        vr += 0.01 * (forces(system, xr, vr, force) * system.inverse_mass[:, None])
        xr += 0.005 * vr
    assert np.array_equal(x, xr) and np.array_equal(v, vr)


def test_article_verlet_is_semi_implicit_euler():
    system = chain()
    a = integrate(system, "article_verlet", 0.01, 2.0)
    b = integrate(system, "semi_implicit_euler", 0.01, 2.0)
    assert np.allclose(a.x, b.x, rtol=0, atol=1e-12)
    assert np.allclose(a.v, b.v, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", [*FIXED_STEP, "scipy_RK45"])
def test_fixed_points_stay_fixed(name):
    system = cloth(nx=4, ny=4, pin="edge")
    result = integrate(system, name, 0.002, 0.02)
    assert result.stable
    assert np.array_equal(result.x[system.fixed], system.positions[system.fixed])
    assert np.all(result.v[system.fixed] == 0.0)


def test_energy_behaviour_on_the_undamped_chain():
    """Symplectic methods: bounded energy error, O(h^2) for Verlet and O(h) for semi-implicit
    Euler, no drift; explicit Euler's energy grows, implicit Euler's decays."""
    system = chain(damping=0.0)
    x_eq = static_equilibrium(system)
    x0 = x_eq.copy()
    x0[1:, 0] += 0.01 * np.sin(np.arange(1, 6))
    disturbance = potential_energy(system, x0) - potential_energy(system, x_eq)
    omega_max = 2.0 * math.sqrt(50.0 / 0.1)   # bound on the chain's highest frequency
    for name, order in (("velocity_verlet", 2), ("position_verlet", 2),
                        ("semi_implicit_euler", 1)):
        excursions = []
        for dt in (0.005, 0.0025):
            result = integrate(system, name, dt, 20.0, record_every=0.05, x0=x0)
            total = result.observables["total"]
            excursions.append(np.max(np.abs(total - total[0])) / disturbance)
            assert excursions[-1] < (dt * omega_max) ** order / (4 if order == 2 else 2)
            quarter = total.size // 4
            assert abs(total[-quarter:].mean() - total[:quarter].mean()) < 0.2 * np.ptp(total)
        assert excursions[0] / excursions[1] == pytest.approx(2**order, rel=0.25)
    growing = integrate(system, "explicit_euler", 0.005, 20.0, record_every=0.05, x0=x0)
    decaying = integrate(system, "implicit_euler", 0.005, 20.0, record_every=0.05, x0=x0)
    e_eq = potential_energy(system, x_eq)
    assert energy_drift(growing, e_eq) > 10.0 and energy_drift(decaying, e_eq) < -0.9


def test_implicit_euler_stable_at_large_steps_and_settles():
    system = chain()
    x_eq = static_equilibrium(system)
    for dt in (0.1, 0.5, 2.0):
        result = integrate(system, "implicit_euler", dt, 200.0)
        assert result.stable
        assert np.allclose(result.x, x_eq, atol=1e-6)
        assert result.stats["unconverged_steps"] == 0
        assert max(result.stats["newton_iterations"]) <= 20
    cg = integrate(system, "implicit_euler", 0.05, 5.0, linear_solver="cg")
    direct = integrate(system, "implicit_euler", 0.05, 5.0)
    assert np.allclose(cg.x, direct.x, atol=1e-8)


def test_blow_up_is_recorded_not_raised():
    system = chain(mass=0.01)
    result = integrate(system, "explicit_euler", 0.05, 10.0)
    assert not result.stable and 0.0 < result.t_blowup < 10.0
    assert result.reason
    assert np.all(np.isfinite(result.observables["total"]))


def test_settling_time_and_tip():
    """Absolute damping settles the tongue; spring damping leaves its rigid swing undamped."""
    for kind in ("absolute", "spring"):
        system = chain(damping_kind=kind)
        x_eq = static_equilibrium(system)
        result = integrate(system, "rk4", 0.005, 30.0, record_every=0.01)
        t_settle = settling_time(result, x_eq[system.tip])
        distance = np.linalg.norm(result.tip - x_eq[system.tip], axis=1)
        if kind == "spring":
            assert math.isnan(t_settle)
            assert np.max(distance[-300:]) > 0.02 * distance[0]
            continue
        assert 0.0 < t_settle < 27.0
        after = result.time >= t_settle
        assert np.all(distance[after] <= 0.02 * distance[0])
        assert distance[np.flatnonzero(after)[0] - 1] > 0.02 * distance[0]


def test_accuracy_helpers():
    from flocklab.models.springs.accuracy import convergence_study, energy_traces

    study = convergence_study(["rk4", "velocity_verlet"])
    assert study["rk4"]["order"] == pytest.approx(4.0, abs=0.2)
    assert study["velocity_verlet"]["order"] == pytest.approx(2.0, abs=0.2)
    traces = energy_traces(["explicit_euler", "implicit_midpoint"], dt=0.01, t_end=5.0)
    time, energy = traces["explicit_euler"]
    assert time[-1] < 5.0 and energy[-1] > 100 * energy[0]      # blew up
    time, energy = traces["implicit_midpoint"]
    assert time[-1] == pytest.approx(5.0) and np.ptp(energy) < 1e-3 * energy[0]


def test_blow_up_is_a_strain_above_two():
    """The documented default bound: a run blows up when a spring exceeds three times its rest
    length (|l/L - 1| > 2). A free point leaving a force-free spring (k = 0, L = 1 m) at 1 m/s,
    steps of 1/64 s: the length is 1 + n/64 m exactly (dyadic), so the strain is exactly 2 at
    step 128 (not above: still stable) and 2 + 1/64 at step 129, the blow-up."""
    system = chain(n_points=2, stiffness=0.0, damping=0.0, rest_length=1.0, mass=1.0,
                   tip_force=(0.0, 0.0))
    v0 = np.array([[0.0, 0.0], [1.0, 0.0]])
    result = integrate(system, "semi_implicit_euler", dt=1 / 64, t_end=3.0, v0=v0)
    assert not result.stable and result.t_blowup == 129 / 64
    assert result.observables["max_strain"][-1] == 2.0
    # a bound given explicitly is used instead
    looser = integrate(system, "semi_implicit_euler", dt=1 / 64, t_end=3.0, v0=v0,
                       strain_bound=2.5)
    assert looser.t_blowup == 161 / 64
