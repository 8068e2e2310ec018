"""Linear stability theory and measured stability limits (flocklab.models.springs.stability)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.analysis.sensitivity import Verdict
from flocklab.models.springs.claims import StabilityRow, stability_verdicts
from flocklab.models.springs.integrators import get_integrator
from flocklab.models.springs.stability import (
    amplification_matrix,
    linearise,
    measured_dt_max,
    spectral_radius,
    theory_dt_max,
)
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import chain

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


def test_measured_limit_matches_theory_on_the_tongue():
    system = chain(damping=0.5)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    for method in ("semi_implicit_euler", "rk4"):
        theory = theory_dt_max(method, lin).dt_max
        measured = measured_dt_max(system, method, x_eq, run_time=2.0, min_steps=500).dt_max
        # bisection resolution 2 %; the finite run may call a barely unstable step stable
        assert measured == pytest.approx(theory, rel=0.03), method


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["spring", "absolute"])
def test_measured_limits_match_theory_every_method(kind):
    system = chain(damping_kind=kind)
    x_eq = static_equilibrium(system)
    lin = linearise(system, x_eq)
    for method in ("semi_implicit_euler", "velocity_verlet", "position_verlet", "rk4",
                   "implicit_euler_diagonal"):
        theory = theory_dt_max(method, lin).dt_max
        measured = measured_dt_max(system, method, x_eq).dt_max
        if math.isinf(theory):
            assert math.isinf(measured), method
        else:
            assert measured == pytest.approx(theory, rel=0.03), method


def test_stability_verdict_rules():
    rows = [StabilityRow("tongue a", "explicit_euler", 0.0, 0.01, 0.02, 50.0, ""),
            StabilityRow("tongue a", "semi_implicit_euler", 0.04, 0.04, 0.02, 50.0, ""),
            StabilityRow("tongue a", "article_verlet", 0.04, 0.04, 0.02, 50.0, ""),
            StabilityRow("tongue a", "rk4", 0.07, 0.07, 0.02, 50.0, ""),
            StabilityRow("tongue a", "implicit_euler", math.inf, math.inf, 0.02, 50.0, ""),
            StabilityRow("tongue a", "implicit_euler_diagonal", math.inf, 2.0, 0.02, 50.0, "")]
    verdicts = {v.claim[:40]: v for v in stability_verdicts(rows)}
    assert all(isinstance(v, Verdict) for v in verdicts.values())
    by_start = {key.split(":")[1][:25]: v.verdict for key, v in verdicts.items() if ":" in key}
    assert by_start[" explicit Euler stable wh"] == "fails"        # 0.01 < 0.02
    assert by_start[" its code's update (semi-"] == "holds"        # 0.04 >= 0.02
    assert by_start[" explicit methods stable "] == "fails"        # explicit 0.01 < 0.04
    assert by_start[" implicit Euler (full New"] == "holds"
    assert by_start[" implicit Euler, diagonal"] == "fails"
    ratio = next(v for v in verdicts.values() if v.claim.startswith("semi-implicit"))
    assert ratio.verdict == "holds" and "x4" in ratio.evidence
