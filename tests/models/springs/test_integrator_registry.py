"""Conformance of the integrator registry: every integrator declares its linear stability
facts, and they are what its ``step`` does on the linearised test problem."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flocklab.models.springs.integrators import INTEGRATORS, Integrator, get_integrator
from flocklab.models.springs.stability import linearise
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import chain

#: Steps in units of 1/omega_max of the test chain: well inside, near and (for the
#: conditionally stable methods) beyond the stability limits 2 and 2 sqrt 2.
H_OMEGA = (0.05, 0.5, 1.5, 2.5)


def _declares_theory(cls: type[Integrator]) -> bool:
    return cls.stability_polynomials is not None or \
        cls.amplification.__func__ is not Integrator.amplification.__func__


@pytest.mark.parametrize("name", list(INTEGRATORS))
def test_every_integrator_declares_its_linear_theory(name):
    """Each registered class gives R = P/Q or G(h), or says it has no linear theory; a method
    sharing another's update names a registered method."""
    cls = INTEGRATORS[name]
    assert cls.linear_theory == _declares_theory(cls), name
    assert not cls.same_update_as or cls.same_update_as in INTEGRATORS


def _one_step(name: str, h: float, system, x_eq, delta: np.ndarray, eps: float) -> np.ndarray:
    """(x' - x_eq, v') / eps on the free coordinates after one step from x_eq + eps delta."""
    free = system.free_dofs
    x, v = x_eq.copy(), np.zeros_like(x_eq)
    x.reshape(-1)[free] += eps * delta[:free.size]
    v.reshape(-1)[free] += eps * delta[free.size:]
    get_integrator(name, system, h).step(x, v)
    return np.concatenate([(x - x_eq).reshape(-1)[free], v.reshape(-1)[free]]) / eps


@pytest.mark.parametrize("name", [n for n, c in INTEGRATORS.items() if c.linear_theory])
@pytest.mark.parametrize("h_omega", H_OMEGA)
def test_declared_amplification_is_the_step(name, h_omega):
    """The declared G(h) is the integrator's step linearised at the equilibrium.

    A damped three-point chain (both damping kinds) is stepped once from x* + eps delta
    (eps = 1e-7 of the rest length, so the nonlinear remainder is O(eps) relative): the
    result equals G(h) delta to 1e-4 of its size, for h omega_max from 0.05 to 2.5. The
    stability function, where declared, gives G's eigenvalues: the eigenvalues R(h mu) of
    R(hL) and those of the declared matrix agree (|R| sorted, relative 1e-8).
    """
    cls = INTEGRATORS[name]
    rng = np.random.default_rng(11)
    for kind in ("spring", "absolute"):
        system = chain(n_points=3, damping=0.5, damping_kind=kind)
        x_eq = static_equilibrium(system)
        lin = linearise(system, x_eq)
        h = h_omega / lin.omega_max
        delta = rng.normal(size=2 * system.free_dofs.size)
        stepped = _one_step(name, h, system, x_eq, delta, 1e-7)
        g = cls.amplification(h, lin)
        predicted = g @ delta
        assert np.allclose(stepped, predicted, rtol=0, atol=1e-4 * np.max(np.abs(predicted)))
        if cls.stability_polynomials is not None:
            mu = np.linalg.eigvals(lin.generator())
            declared = np.sort(np.abs(cls.stability_function(h * mu)))
            assert declared == pytest.approx(np.sort(np.abs(np.linalg.eigvals(g))), rel=1e-8)


@pytest.mark.parametrize("name", [n for n, c in INTEGRATORS.items() if c.same_update_as])
def test_same_update_has_the_same_matrix(name):
    """A method declaring another's update has that method's G(h) exactly."""
    lin = linearise(chain(n_points=3, damping=0.5))
    h = 1.0 / lin.omega_max
    twin = INTEGRATORS[INTEGRATORS[name].same_update_as]
    assert np.array_equal(INTEGRATORS[name].amplification(h, lin), twin.amplification(h, lin))


def test_scalar_test_equation_closed_forms():
    """On y' = lambda y the declared R are the textbook ones: |R(i y)| for explicit Euler is
    sqrt(1 + y^2), implicit midpoint is 1 (A-stable, symmetric), implicit Euler 1/sqrt(1+y^2),
    and RK4 crosses 1 at y = 2 sqrt 2 (Hairer and Wanner 1996, IV.2)."""
    y = np.array([0.3, 1.0, 2.0])
    z = 1j * y
    assert np.abs(INTEGRATORS["explicit_euler"].stability_function(z)) == pytest.approx(
        np.sqrt(1 + y**2), rel=1e-14)
    assert np.abs(INTEGRATORS["implicit_midpoint"].stability_function(z)) == pytest.approx(
        1.0, rel=1e-14)
    assert np.abs(INTEGRATORS["implicit_euler"].stability_function(z)) == pytest.approx(
        1 / np.sqrt(1 + y**2), rel=1e-14)
    edge = 2.0 * math.sqrt(2.0) * 1j
    assert abs(INTEGRATORS["rk4"].stability_function(edge)) == pytest.approx(1.0, rel=1e-14)
