"""Linear stability theory and measured stability limits (flocklab.models.springs.stability)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.analysis.verdicts import Verdict
from flocklab.models.springs.claims import (
    StabilityRow,
    agreement,
    stability_table,
    stability_verdicts,
)
from flocklab.models.springs.integrators import get_integrator
from flocklab.models.springs.kernels import disturbance_energy
from flocklab.models.springs.stability import (
    RATE_THRESHOLD,
    amplification_matrix,
    fitted_growth_rate,
    linearise,
    measured_dt_max,
    spectral_radius,
    stability_run,
    theory_dt_max,
)
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import chain, cloth

OMEGA = 10.0
SYMPLECTIC = ("semi_implicit_euler", "article_verlet", "velocity_verlet", "position_verlet")


def oscillator(damping: float = 0.0, kind: str = "spring"):
    """One free point (1 kg) on a 100 N/m spring to a fixed point, 2-D: omega = 10 rad/s."""
    return chain(n_points=2, stiffness=100.0, damping=damping, damping_kind=kind, mass=1.0,
                 rest_length=1.0, tip_force=(0.0, 0.0))


@pytest.mark.parametrize("method", SYMPLECTIC)
def test_theory_symplectic_limit_is_two_over_omega(method):
    lin = linearise(oscillator())
    assert lin.omega_max == pytest.approx(OMEGA, rel=1e-12)
    assert theory_dt_max(method, lin).dt_max * OMEGA == pytest.approx(2.0, rel=1e-6)


def test_theory_rk4_explicit_and_implicit_closed_forms():
    lin = linearise(oscillator())
    # |R(iy)|^2 = 1 - y^6/72 + y^8/576 <= 1  <=>  y <= 2 sqrt(2)
    assert theory_dt_max("rk4", lin).dt_max * OMEGA == pytest.approx(2.0 * math.sqrt(2.0),
                                                                     rel=1e-5)
    explicit = theory_dt_max("explicit_euler", lin)
    assert explicit.dt_max == 0.0   # rho = sqrt(1 + h^2 w^2) > 1 at every h
    assert spectral_radius("explicit_euler", 0.001, lin) == pytest.approx(
        math.sqrt(1 + (0.001 * OMEGA) ** 2), rel=1e-12)
    for method in ("implicit_euler", "implicit_midpoint", "implicit_euler_diagonal"):
        assert math.isinf(theory_dt_max(method, lin).dt_max), method


def test_theory_damped_closed_forms():
    """Absolute damping c = 2 (zeta = 0.1): explicit Euler h <= 2 zeta / w; symplectic Euler
    (Jury conditions on tr = 2 - bh - h^2 w^2, det = 1 - bh, b = 2 zeta w)
    h <= (-b + sqrt(b^2 + 4 w^2)) / w^2."""
    lin = linearise(oscillator(damping=2.0, kind="absolute"))
    zeta, b = 0.1, 2.0
    # the tolerance rho <= 1 + 1e-6 moves an edge where rho crosses 1 linearly by ~1e-4
    assert theory_dt_max("explicit_euler", lin).dt_max == pytest.approx(2 * zeta / OMEGA,
                                                                        rel=2e-4)
    assert theory_dt_max("semi_implicit_euler", lin).dt_max == pytest.approx(
        (-b + math.sqrt(b**2 + 4 * OMEGA**2)) / OMEGA**2, rel=1e-5)


@pytest.mark.parametrize("kind", ["spring", "absolute"])
@pytest.mark.parametrize("damping", [0.5, 2.0, 10.0, 15.0])
def test_theory_position_verlet_damped_closed_form(kind, damping):
    """Position Verlet with the dampers at the half-step velocity: for one oscillator with
    b = c/m, G = [[1 + beta - y^2/2, 1 - y^2/4], [-y^2, 1 - beta - y^2/2]] / (1 + beta) on
    (x, h v), y = h w, beta = h b / 2: det = (1 - beta)/(1 + beta), trace = (2 - y^2)/(1 + beta),
    and the Jury conditions |det| <= 1, |trace| <= 1 + det give y <= 2 for every damping.
    Semi-implicit Euler (the former position Verlet's G) stays below:
    (-b + sqrt(b^2 + 4w^2))/w^2."""
    lin = linearise(oscillator(damping=damping, kind=kind))
    b = damping
    h = 0.17
    beta, y = h * b / 2.0, h * OMEGA
    closed = np.array([[1 + beta - y * y / 2, 1 - y * y / 4], [-y * y, 1 - beta - y * y / 2]])
    scale = np.diag([1.0, h])      # (x, v) -> (x, h v)
    axial = [0, 2]                 # (x, v) along the spring; the transverse pair decouples
    g = amplification_matrix("position_verlet", h, lin)[np.ix_(axial, axial)]
    assert np.allclose(scale @ g @ np.linalg.inv(scale), closed / (1 + beta), atol=1e-12)
    # rho <= 1 + 1e-6 moves the edge, where rho grows like sqrt(h - h_c), by ~1e-12
    assert theory_dt_max("position_verlet", lin).dt_max * OMEGA == pytest.approx(2.0, rel=1e-6)
    assert theory_dt_max("semi_implicit_euler", lin).dt_max == pytest.approx(
        (-b + math.sqrt(b * b + 4 * OMEGA**2)) / OMEGA**2, rel=1e-5)


def test_explicit_euler_with_dampers_on_the_tongue():
    """Explicit Euler maps a mode mu = -zeta w +- i w sqrt(1 - zeta^2) to lambda = 1 + h mu,
    |lambda|^2 = 1 - 2 zeta w h + w^2 h^2: stable iff h <= 2 zeta / w = -2 Re mu / |mu|^2.
    Spring dampers act along the springs only, so the tensioned tongue's 5 transverse modes
    are undamped and no h is stable; its 5 longitudinal modes (C = (c/k) K there) alone would
    allow h <= c/k = 0.01 s. Absolute damping -c v damps every mode: h <= c / (m w_max^2),
    the same for every mass since w_max^2 is proportional to k/m."""
    def modes(kind: str, mass: float):
        lin = linearise(chain(damping_kind=kind, mass=mass))
        mu = np.linalg.eigvals(lin.generator())
        return lin, mu, -mu.real / np.abs(mu)

    lin, mu, zeta = modes("spring", 0.1)
    undamped = zeta < 1e-9
    assert undamped.sum() == 10            # 5 transverse modes, eigenvalues +- i w
    assert theory_dt_max("explicit_euler", lin).dt_max == 0.0
    w_top = float(np.max(np.abs(mu[undamped])))
    assert spectral_radius("explicit_euler", 1e-3, lin) == pytest.approx(
        math.sqrt(1 + (1e-3 * w_top) ** 2), rel=1e-9)
    damped = mu[~undamped]
    assert float(np.min(-2 * damped.real / np.abs(damped) ** 2)) == pytest.approx(0.5 / 50.0,
                                                                                 rel=1e-9)
    limits = []
    for mass in (0.01, 0.1, 1.0):
        lin, mu, _ = modes("absolute", mass)
        formula = float(np.min(-2 * mu.real / np.abs(mu) ** 2))
        assert formula == pytest.approx(0.5 / (mass * lin.omega_max**2), rel=1e-9)
        # rho <= 1 + 1e-6 moves the edge by 1e-6 / (d|lambda|/dh) = 1e-6 / (zeta w) = 4e-6 m/c
        assert theory_dt_max("explicit_euler", lin).dt_max == pytest.approx(formula,
                                                                            abs=1e-5 * mass)
        limits.append(formula)
    assert limits == pytest.approx([limits[0]] * 3, rel=1e-9)


@pytest.mark.parametrize("method", ["explicit_euler", "semi_implicit_euler", "article_verlet",
                                    "velocity_verlet", "position_verlet", "rk4",
                                    "implicit_euler", "implicit_euler_diagonal",
                                    "implicit_midpoint"])
def test_amplification_matrix_is_the_linearised_integrator(method):
    """One step of the nonlinear code from equilibrium + delta equals G(h) delta to O(delta^2)."""
    system = chain(damping=0.5)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    h, eps = 0.01, 1e-7
    rng = np.random.default_rng(5)
    free = system.free_dofs
    delta = rng.normal(size=2 * free.size)
    x, v = x_eq.copy(), np.zeros_like(x_eq)
    x.reshape(-1)[free] += eps * delta[:free.size]
    v.reshape(-1)[free] += eps * delta[free.size:]
    get_integrator(method, system, h).step(x, v)
    stepped = np.concatenate([(x - x_eq).reshape(-1)[free], v.reshape(-1)[free]]) / eps
    predicted = amplification_matrix(method, h, lin) @ delta
    assert np.allclose(stepped, predicted, rtol=0, atol=1e-4 * np.max(np.abs(predicted)))


def start(system, x_eq, perturbation=1e-2, seed=0):
    """The measurement's initial state: x_eq + uniform +-perturbation x mean rest length."""
    rng = np.random.default_rng(seed)
    x0 = x_eq.copy()
    scale = perturbation * float(np.mean(system.rest_length))
    x0[~system.fixed] += rng.uniform(-scale, scale, size=x0[~system.fixed].shape)
    return x0


#: Relative resolution of measured_dt_max's default search: 13 points over 4 decades (step
#: ratio 10^(1/3)), 7 bisections.
RESOLUTION = 10 ** (1 / 3 / 2**7) - 1   # 0.6 %


@pytest.mark.parametrize("method", ["semi_implicit_euler", "velocity_verlet",
                                    "position_verlet", "rk4"])
def test_measured_limit_matches_theory_on_the_tongue(method):
    """The measured edge lies between the largest stable and smallest unstable step tried, so
    within the bisection's resolution of the theory limit (these limits cross rho = 1 fast:
    the rate threshold moves them by far less)."""
    system = chain(damping=0.5)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    theory = theory_dt_max(method, lin).dt_max
    measured = measured_dt_max(system, method, x_eq, run_time=1.0, min_steps=200)
    assert measured.dt_max == pytest.approx(theory, rel=RESOLUTION), method
    assert measured.dt_unstable > theory


def test_fitted_growth_rate_and_its_bound():
    """Exact on a pure exponential; within its stated bound 1.5 a / W when ln D also
    oscillates (a = largest deviation from the fitted line, W the window in steps)."""
    steps = np.arange(201)
    for rate in (-2e-3, 0.0, 1.5e-3):
        fitted, bound = fitted_growth_rate(np.exp(2 * rate * steps))
        assert fitted == pytest.approx(rate, abs=1e-12) and bound < 1e-12
        wobbly = np.exp(2 * rate * steps) * (1.0 + 0.5 * np.sin(2.1 * steps + 0.3))
        fitted, bound = fitted_growth_rate(wobbly)
        assert abs(fitted - rate) <= bound < 1.5 * math.log(3.0) / 200


def test_disturbance_energy_is_the_energy_difference():
    """Term by term it equals E(x, v) - E(x_eq, 0) of forces.energies (to rounding)."""
    from flocklab.models.springs.forces import energies

    system = chain(gravity=9.81)
    x_eq = static_equilibrium(system)
    x = start(system, x_eq, 0.05)
    v = np.zeros_like(x)
    v[1:] = 0.01
    lengths = np.linalg.norm(x_eq[system.springs[:, 1]] - x_eq[system.springs[:, 0]], axis=1)
    value = disturbance_energy(x, v, x_eq, system.springs, system.rest_length,
                               system.stiffness, system.mass, system.gravity,
                               system.external_force, system.fixed, lengths)
    expected = energies(system, x, v)["total"] - energies(system, x_eq, 0 * v)["total"]
    assert value == pytest.approx(expected, rel=1e-9)
    assert value > 0


def test_explicit_euler_is_measured_unstable_at_every_step_with_undamped_modes():
    """Spring dampers leave the tongue's transverse modes undamped: theory limit 0,
    rho = sqrt(1 + h^2 w^2) > 1 at every h. At the sweep's low end (0.1 x 2/w_max), where
    rho - 1 = 0.0057 per step, the fitted rate is 0.0049: above the 1e-3 threshold, below
    ln rho because the slower transverse modes (rho_j - 1 = (h w_j)^2 / 2) share the energy.
    (Runs of 1 s measured it stable up to 0.0077 s with the former x100-energy rule.)"""
    system = chain(mass=0.1)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    assert theory_dt_max("explicit_euler", lin).dt_max == 0.0
    low = 0.1 * 2.0 / lin.omega_max
    limit = measured_dt_max(system, "explicit_euler", x_eq, run_time=1.0, min_steps=200,
                            points=3, refine=0, dt_range=(low, 10 * low))
    assert limit.dt_max == 0.0
    probe = limit.probe(low)
    rho = spectral_radius("explicit_euler", low, lin)
    assert rho - 1.0 == pytest.approx(0.0057, abs=1e-4)
    assert probe.reason == "growth_rate" and not probe.stable
    assert RATE_THRESHOLD < 0.8 * math.log(rho) < probe.rate <= math.log(rho)


def test_explicit_euler_damped_limit_is_measured_at_the_theory_limit():
    """Absolute damping damps every mode: theory limit h_c = c/(m w_max^2) = 0.002716 s. Just
    above it rho - 1 = (c/2m)(h - h_c) = 25 (h - h_c) per step, so the rate threshold 1e-3
    puts the measured edge at most 1e-3/25 = 4e-5 s (1.5 %) above h_c; the bisection
    (5 points over a factor 4, 6 halvings) resolves 0.54 %. Fitted rates match the linear
    ones: at 1.02 h_c 1.38e-3 against ln rho = 1.39e-3."""
    system = chain(mass=0.01, damping_kind="absolute")
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    theory = theory_dt_max("explicit_euler", lin).dt_max
    assert theory == pytest.approx(0.5 / (0.01 * lin.omega_max**2), rel=1e-4)
    limit = measured_dt_max(system, "explicit_euler", x_eq, run_time=1.0, min_steps=200,
                            points=5, refine=6, dt_range=(theory / 2, 2 * theory))
    resolution = 4 ** (1 / 4 / 2**6) - 1
    assert theory * (1 - resolution) <= limit.dt_max <= theory + RATE_THRESHOLD / 25.0
    assert limit.dt_unstable > theory
    x0 = start(system, x_eq)
    above = stability_run(system, "explicit_euler", 1.02 * theory, x0, x_eq, 200, 4000)
    rho = spectral_radius("explicit_euler", 1.02 * theory, lin)
    assert above.rate == pytest.approx(math.log(rho), rel=0.05)
    assert not above.stable


@pytest.mark.parametrize("method", ["implicit_euler", "implicit_euler_diagonal"])
@pytest.mark.parametrize("kind", ["spring", "absolute"])
def test_implicit_euler_is_measured_stable_across_the_sweep(method, kind):
    """0.1 ... 100 x 2/w_max (0.0047 ... 4.7 s at 0.1 kg): every run stable, by its rate or
    because the disturbance decayed below 1e-10 of its initial energy; Newton converged at
    every step."""
    system = chain(mass=0.1, damping_kind=kind)
    x_eq = static_equilibrium(system)
    w = linearise(system, x_eq).omega_max
    limit = measured_dt_max(system, method, x_eq, run_time=1.0, min_steps=200, points=7,
                            refine=6, dt_range=(0.2 / w, 200.0 / w))
    assert math.isinf(limit.dt_max) and len(limit.probes) == 7
    for probe in limit.probes:
        assert probe.stable and probe.reason in ("rate", "decayed")
        assert probe.newton_unconverged == 0
        assert probe.reason == "decayed" or probe.rate < -1e-4


def test_implicit_midpoint_fails_by_a_newton_jump_not_by_linear_growth():
    """Implicit midpoint is A-stable (rho = 1 on the undamped modes at every h), yet runs on the
    tongue (spring dampers, 0.1 kg) fail above 2.67 s steps. Newton converges at every step
    (at most 10 iterations), but at 2.717 s step 20 multiplies the disturbance energy by
    1.4e4: the iteration, started at v, went to a distant root of the step's equations. Started
    from the linearised step's prediction G(h) delta instead, Newton converges in 2 iterations
    to a root 0.2 m away that keeps the energy (x0.99)."""
    system = chain(mass=0.1)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    (row,) = stability_table([("tongue", system)], ["implicit_midpoint"], run_time=1.0,
                             min_steps=200, points=7, refine=6,
                             dt_range=(0.2 / lin.omega_max, 200 / lin.omega_max))
    assert math.isinf(row.dt_theory)
    assert 2.0 < row.dt_measured < row.dt_unstable < 3.0
    assert row.reason == "newton_jump" and row.newton_unconverged == 0
    assert row.rho_theory_unstable == pytest.approx(1.0, abs=1e-9)
    assert row.agreement == "nonlinear"

    h, x, v = 2.717, start(system, x_eq), np.zeros_like(x_eq)
    stepper = get_integrator("implicit_midpoint", system, h)
    lengths = np.linalg.norm(x_eq[system.springs[:, 1]] - x_eq[system.springs[:, 0]], axis=1)

    def energy(x, v):
        return disturbance_energy(x, v, x_eq, system.springs, system.rest_length,
                                  system.stiffness, system.mass, system.gravity,
                                  system.external_force, system.fixed, lengths)

    for _ in range(19):
        stepper.step(x, v)
    before = energy(x, v)
    free = system.free_dofs
    delta = np.concatenate([(x - x_eq).reshape(-1)[free], v.reshape(-1)[free]])
    guess = np.zeros_like(v)
    guess.reshape(-1)[free] = (amplification_matrix("implicit_midpoint", h, lin)
                               @ delta)[free.size:]
    x_lin, v_lin = x.copy(), v.copy()
    stepper.step(x, v)
    assert energy(x, v) / before > 1e3 and stepper.stats["unconverged_steps"] == 0
    other = get_integrator("implicit_midpoint", system, h)
    other.step_from(x_lin, v_lin, guess)
    assert other.stats["newton_iterations"] == [2]
    assert energy(x_lin, v_lin) / before == pytest.approx(1.0, abs=0.05)
    assert np.max(np.abs(x_lin - x)) > 0.1


def test_rk4_on_the_cloth_saturates_just_above_its_linear_limit():
    """10 x 10 cloth, RK4 at 0.003321 s, 1.7 % above its linear limit 0.003266 s: the top modes
    (w = 878 rad/s) have rho = 1.137, the linear theory predicts energy growth x1e111 over
    1 000 steps, but the disturbance grows about x20-50 and stops (rate ~0 over the second
    half): a nonlinear saturation at a fixed amplitude (x1e6 from a 0.01 % start), which
    agreement() reports as 'saturated'."""
    system = cloth(10, 10)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    h = 0.003321
    rho = spectral_radius("rk4", h, lin)
    assert rho == pytest.approx(1.137, abs=2e-3)
    probe = stability_run(system, "rk4", h, start(system, x_eq), x_eq, 200, 4000)
    assert probe.stable and 5.0 < probe.energy_ratio < 100.0
    assert 2 * probe.steps * math.log(rho) > math.log(1e10)
    row = StabilityRow("cloth", "rk4", 0.003266, h, 0.0, lin.omega_max, "",
                       dt_unstable=0.003381, rate_threshold=RATE_THRESHOLD,
                       rho_theory_unstable=1.30, rho_theory_stable=rho,
                       steps_stable=probe.steps, energy_ratio_stable=probe.energy_ratio)
    assert agreement(row) == "saturated"


def test_agreement_rules():
    def row(**fields):
        base = {"dt_unstable": 0.02, "rate_threshold": 1e-3, "rho_theory_unstable": 1.2,
                "rho_theory_stable": 1.0, "steps_stable": 200}
        return StabilityRow("c", "m", 0.015, 0.0149, 0.01, 100.0, "", **{**base, **fields})

    assert agreement(row()) == "agree"
    # unstable where the theory's rho is 1: nonlinear; exactly at the theory limit: linear
    assert agreement(row(rho_theory_unstable=1.0, dt_unstable=0.01)) == "nonlinear"
    assert agreement(row(rho_theory_unstable=1.0, dt_unstable=0.015)) == "agree"
    # stable where the theory grows: saturated if the run should have grown x100, else missed
    assert agreement(row(rho_theory_stable=1.05)) == "saturated"          # 1.05^400
    assert agreement(row(rho_theory_stable=1.005)) == "missed_growth"     # 1.005^400 = 7
    assert agreement(row(rho_theory_stable=1.0015)) == "agree"            # < e^(2 x 1e-3)
    assert agreement(StabilityRow("c", "scipy_RK45", math.nan, 1.0, 0.0, 1.0, "")) == ""
    assert agreement(row(dt_unstable=math.inf, rho_theory_unstable=math.nan)) == "agree"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["spring", "absolute"])
def test_measured_limits_match_theory_every_method(kind):
    """Default protocol (5 s or 1 000 steps, 0.01 ... 100 x 2/w_max, 13 points, 7 halvings):
    every measured limit matches the linear theory at the measurement's threshold,
    rho <= e^(1e-3), within the resolution (0.6 %) plus 2 %: at slow crossings (explicit
    Euler, rho - 1 = (h w)^2/2 without damping, 2.5 (h - h_c) per step with 0.1 kg absolute
    damping) the fitted rate of the mixed modes differs from ln rho by up to ~10 %, which
    moves the edge by up to 2 % (measured: +2.0 % and -1.4 %). The plain theory limit is 0
    and 0.002716 s there: below 0.00195 s (spring dampers) explicit Euler grows by less than
    1e-3 per step, which no run of 1 000 steps can tell from neutral."""
    system = chain(damping_kind=kind)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    for method in ("explicit_euler", "semi_implicit_euler", "velocity_verlet",
                   "position_verlet", "rk4", "implicit_euler", "implicit_euler_diagonal"):
        theory = theory_dt_max(method, lin, tolerance=math.expm1(RATE_THRESHOLD),
                               refine=12).dt_max
        measured = measured_dt_max(system, method, x_eq).dt_max
        if math.isinf(theory):
            assert math.isinf(measured), method
        else:
            assert measured == pytest.approx(theory, rel=RESOLUTION + 0.02), method


def test_stability_verdict_rules():
    rows = [StabilityRow("tongue a", "explicit_euler", 0.0, 0.01, 0.02, 50.0, ""),
            StabilityRow("tongue a", "semi_implicit_euler", 0.04, 0.04, 0.02, 50.0, ""),
            StabilityRow("tongue a", "article_verlet", 0.04, 0.04, 0.02, 50.0, ""),
            StabilityRow("tongue a", "rk4", 0.07, 0.07, 0.02, 50.0, ""),
            StabilityRow("tongue a", "implicit_euler", math.inf, math.inf, 0.02, 50.0, ""),
            StabilityRow("tongue a", "implicit_euler_diagonal", math.inf, 2.0, 0.02, 50.0, "")]
    verdicts = stability_verdicts(rows)
    assert all(isinstance(v, Verdict) for v in verdicts)
    by_start = {v.claim.split(": ", 1)[1][:25]: v.verdict for v in verdicts}
    assert by_start["explicit Euler stable whe"] == "fails"        # 0.01 < 0.02
    assert by_start["the update its code runs "] == "holds"        # 0.04 >= 0.02
    assert by_start["explicit methods stable w"] == "fails"        # explicit 0.01 < 0.04
    assert by_start["implicit Euler (full Newt"] == "holds"
    assert by_start["implicit Euler, diagonal "] == "fails"
    ratio = next(v for v in verdicts if "semi-implicit Euler is markedly" in v.claim)
    assert ratio.verdict == "holds" and "×4" in ratio.evidence


def test_rk4_amplification_matrix_is_its_stability_polynomial():
    """RK4's one-step matrix on M x'' = -K x is R(hL), R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24,
    L with eigenvalues +-i omega: its eigenvalues are R(+-i h omega), besides the eigenvalue 1
    of the pinned end's frozen coordinates. Checked at h omega = 2.5, where every term of R
    matters (|z^4/24| = 1.6)."""
    lin = linearise(oscillator())
    h = 2.5 / OMEGA
    z = 1j * h * OMEGA
    polynomial = 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24
    eigenvalues = np.linalg.eigvals(amplification_matrix("rk4", h, lin))
    moving = eigenvalues[~np.isclose(eigenvalues, 1.0, rtol=0.0, atol=1e-12)]
    assert moving.size == 2
    np.testing.assert_allclose(np.abs(moving), abs(polynomial), rtol=1e-10)
    # past RK4's limit h omega = 2 sqrt(2) the moving pair dominates the spectral radius
    z = 2.9j
    beyond = abs(1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24)
    assert beyond > 1.0
    assert spectral_radius("rk4", 2.9 / OMEGA, lin) == pytest.approx(beyond, rel=1e-10)


def test_theory_on_one_blas_thread_agrees_with_the_threads_given():
    """The theory limits computed on one BLAS thread (as the stability table does) are those
    on the threads given, to rounding (relative 1e-8), on a 5 x 5 cloth whose G(h) is large
    enough (132 x 132) for OpenBLAS to thread; the thread count is restored afterwards."""
    from flocklab.core.threads import _numpy_openblas, blas_threads

    lin = linearise(cloth(5, 5))
    found = _numpy_openblas()
    before = found[0]() if found else None
    given = [theory_dt_max(m, lin).dt_max for m in ("semi_implicit_euler", "position_verlet")]
    with blas_threads(1) as previous:
        assert previous == before
        if found:
            assert found[0]() == 1
        single = [theory_dt_max(m, lin).dt_max
                  for m in ("semi_implicit_euler", "position_verlet")]
    assert found is None or found[0]() == before
    assert single == pytest.approx(given, rel=1e-8)
    assert all(0.0 < dt < math.inf for dt in single)
