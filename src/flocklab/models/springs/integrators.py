r"""One registry of time integrators for :math:`M\ddot x = F(x, \dot x)` on a SpringSystem.

Every integrator advances positions ``x`` and velocities ``v`` (arrays of shape (N, D)) in place
by one step ``dt``; with :math:`a(x, v) = M^{-1} F(x, v)` (zero on fixed points, whose inverse
mass is taken as 0, so they never move):

=========================  ====================================================================
``explicit_euler``         :math:`x' = x + h v,\ v' = v + h\,a(x, v)`; order 1.
``semi_implicit_euler``    :math:`v' = v + h\,a(x, v),\ x' = x + h v'` (symplectic Euler); order 1.
``article_verlet``         the tongue article's "Verlet" as printed:
                           :math:`x' = x + h v + h^2 F/m,\ v' = (x' - x)/h`. Expanding,
                           :math:`v' = v + h a` and :math:`x' = x + h v'`: it *is*
                           ``semi_implicit_euler`` (the true Verlet has :math:`h^2 F/(2m)` and
                           a second force evaluation); order 1.
``velocity_verlet``        :math:`x' = x + h v + \tfrac{h^2}{2} a_0`,
                           :math:`v' = v + \tfrac h2 [a_0 + a(x', v + h a_0)]`; order 2.
``position_verlet``        Störmer drift–kick–drift (Lobatto IIIA–IIIB):
                           :math:`x_{1/2} = x + \tfrac h2 v`,
                           :math:`v' = v + \tfrac h2 [a(x_{1/2}, v) + a(x_{1/2}, v')]`,
                           :math:`x' = x_{1/2} + \tfrac h2 v'`; the dampers are linear in
                           :math:`v`, so the kick is one linear solve
                           :math:`(M + \tfrac h2 C)(v' - v) = hF(x_{1/2}, v)`,
                           :math:`C = -\partial F/\partial v` (conjugate gradients); order 2.
``rk4``                    classical Runge–Kutta on :math:`(x, v)`; order 4.
``implicit_euler``         :math:`v' = v + h\,a(x', v'),\ x' = x + h v'`, Newton on
                           :math:`G(v') = M(v' - v) - hF(x + h v', v') = 0` with the full sparse
                           Jacobian :math:`M - h^2 \partial F/\partial x - h\,\partial F/\partial v`
                           (``spsolve`` with minimum-degree ordering, or conjugate
                           gradients); order 1.
``implicit_euler_diagonal``the integrator article's scheme: unknown :math:`x'`, residual
                           :math:`m(x' - x)/h^2 - m v/h - F`, divided by the diagonal
                           approximation :math:`m/h^2 + \sum_s k_s (+\sum_s c_s/h + c/h)` of its
                           Jacobian, a fixed number of sweeps (default 3) from :math:`x' = x`,
                           then :math:`v' = (x' - x)/h`; a Jacobi iteration, not Newton.
``implicit_midpoint``      :math:`x' = x + \tfrac h2 (v + v')`,
                           :math:`v' = v + h\,a(\tfrac{x + x'}2, \tfrac{v + v'}2)`, Newton as
                           ``implicit_euler``; order 2, symplectic. Newton starts at
                           :math:`v' = v`; at :math:`h\omega_{max} \gtrsim 100` it can
                           converge to a distant root of the step's equations (the
                           tongue's runs at 1–8 s steps: one step multiplies the
                           disturbance energy by 1e4,
                           :mod:`~flocklab.models.springs.stability`).
``scipy_<method>``         :func:`scipy.integrate.solve_ivp` over each step with ``rtol``
                           1e-10, ``atol`` 1e-12 (``RK45``, ``RK23``, ``DOP853``, ``Radau``,
                           ``BDF``, ``LSODA``; Radau and BDF get the sparse Jacobian);
                           tight references, not production methods.
=========================  ====================================================================

Velocity-dependent forces (the dampers) are evaluated: explicit Euler, semi-implicit Euler,
article Verlet at :math:`v_n`; velocity Verlet's second force at the predicted velocity
:math:`v + h a_0` (second order with dampers; the half-step velocity would make it first);
position Verlet at the half-step velocity :math:`(v + v')/2` through the linear solve above
(second order with dampers: fitted 2.00 on the damped spring; the former kick with the dampers
at :math:`v_n` was first order, 1.04);
RK4 and ``scipy_*`` at every stage's velocity (dampers are part of the ODE); implicit Euler
and implicit midpoint implicitly, at :math:`v'` resp. :math:`(v + v')/2`, with
:math:`\partial F/\partial v` in the Newton matrix; the diagonal scheme at each sweep's
velocity :math:`(x^{(k)} - x)/h`, with the damper's diagonal :math:`(\sum c_s + c)/h` added to
the article's :math:`m/h^2 + \sum k_s` (the article's code has no damping in its implicit step).

References
----------
E. Hairer, C. Lubich, G. Wanner, *Geometric Numerical Integration*, 2nd ed., Springer 2006
(symplectic Euler, Störmer–Verlet, implicit midpoint). D. Baraff, A. Witkin, "Large steps in
cloth simulation", SIGGRAPH 1998 (implicit Euler with the sparse spring Jacobian).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.parameters import ParameterError

#: The coefficient 1 of the declared stability polynomials (exact rationals).
ONE = Fraction(1)

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

    from flocklab.models.springs.stability import LinearSystem
    from flocklab.models.springs.structure import SpringSystem


class Integrator:
    r"""Base class of a fixed-step integrator (subclass contract below).

    Parameters
    ----------
    system : SpringSystem
        The structure (masses, springs, forces); not modified.
    dt : float
        Step (s), > 0.
    **options
        Method options (see each subclass); unknown names raise ParameterError.

    Subclass contract (in the manner of :class:`scipy.integrate.OdeSolver`):

    * class attributes ``name`` (registry key), ``order`` (global order of accuracy on smooth
      problems), ``force_evaluations`` (force evaluations per step, the nominal cost unit),
      ``implicit`` (solves equations each step) and ``options`` (option name -> default);
    * ``__init__`` precomputes everything a step needs (buffers, sparsity patterns) and calls
      ``super().__init__``; ``step`` must not allocate arrays of size N in explicit methods;
    * kernels are called through ``self.k`` (:mod:`flocklab.models.springs.kernels`), so
      that the registry imports no numba;
    * ``step(x, v)`` advances ``x`` and ``v`` (shape (N, D), float64, C-contiguous) in place by
      one ``dt``; fixed points keep their positions and zero velocity (use
      :meth:`acceleration`, which is zero on them, or restrict solves to ``system.free_dofs``);
    * per-step solver information goes into ``self.stats`` (lists or counters), e.g. Newton
      iterations of each step; ``step`` never raises on non-finite values (the driver detects
      blow-up);
    * a docstring stating how velocity-dependent forces are treated;
    * its linear stability facts, in one place (:mod:`~flocklab.models.springs.stability`
      asks for them and knows no method by name): a method that applied to
      :math:`\dot y = Ly` gives :math:`y' = R(hL)\,y` declares ``stability_polynomials``
      :math:`(P, Q)`, :math:`R = P/Q` (coefficients in ascending powers, e.g. RK4's
      :math:`(1, 1, \tfrac12, \tfrac16, \tfrac1{24}), (1,)`, as :class:`~fractions.Fraction`);
      any other method overrides the
      class method :meth:`amplification`, its one-step matrix :math:`G(h)` on
      :math:`(\xi, \dot\xi)` of the linearised system
      :math:`M\ddot\xi = -K\xi - C\dot\xi`; a method whose update is algebraically another
      one's names it in ``same_update_as`` (its theory is that one's); a method without a
      fixed-step amplification matrix (an adaptive reference) sets ``linear_theory = False``.
      A conformance test checks the declared :math:`G(h)` against one step of :meth:`step`
      on every registered integrator.
    """

    name: ClassVar[str] = ""
    order: ClassVar[int] = 0
    force_evaluations: ClassVar[int] = 1
    implicit: ClassVar[bool] = False
    options: ClassVar[dict[str, Any]] = {}
    #: ``(P, Q)``: the stability function R(z) = P(z)/Q(z), coefficients in ascending powers
    #: (None: the method is not R(hL) and overrides :meth:`amplification`).
    stability_polynomials: ClassVar[tuple[tuple[Fraction, ...], tuple[Fraction, ...]] | None] \
        = None
    #: False when the method has no fixed-step amplification matrix (no linear theory).
    linear_theory: ClassVar[bool] = True
    #: Name of the integrator whose update this one is algebraically ('' if none).
    same_update_as: ClassVar[str] = ""

    @classmethod
    def stability_function(cls, z: np.ndarray) -> np.ndarray:
        r""":math:`R(z) = P(z)/Q(z)` elementwise (``z`` complex, any shape); only for methods
        declaring ``stability_polynomials``.

        References: E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, 2nd
        ed., Springer 1996, ch. IV.2.
        """
        numerator, denominator = _declared(cls)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _series(numerator, z) / _series(denominator, z)

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        r"""One-step matrix :math:`G(h)` on :math:`(\xi, \dot\xi)`, shape (2n, 2n), of the
        linear system ``lin`` (:class:`~flocklab.models.springs.stability.LinearSystem`).

        The default is :math:`Q(hL)^{-1}P(hL)` from ``stability_polynomials``, with
        :math:`L = [[0, I], [-M^{-1}K, -M^{-1}C]]`; ``options`` are the method's options
        (defaults: :attr:`options`).
        """
        numerator, denominator = _declared(cls)
        hl = h * lin.generator()
        p, q = _matrix_polynomial(numerator, hl), _matrix_polynomial(denominator, hl)
        return p if denominator == (ONE,) else np.linalg.solve(q, p)

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        if isinstance(dt, bool) or not isinstance(dt, int | float) or not dt > 0.0 \
                or not math.isfinite(dt):
            raise ParameterError("dt", f"parameter 'dt' = {dt!r} must be a number > 0 (s)")
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ParameterError(unknown[0], f"unknown option '{unknown[0]}' of integrator "
                                             f"'{self.name}'; allowed: "
                                             f"{', '.join(self.options) or 'none'}")
        from flocklab.models.springs import kernels

        #: The compiled kernels (imported with the first integrator, not with the registry).
        self.k = kernels
        self.system = system
        self.dt = float(dt)
        self.opts = {**self.options, **options}
        self.inverse_mass = system.inverse_mass[:, None]
        self.stats: dict[str, Any] = {}
        self._force = np.empty_like(system.positions)

    def acceleration(self, x: np.ndarray, v: np.ndarray, out: np.ndarray) -> np.ndarray:
        """:math:`a = F(x, v)/m` into ``out`` (zero on fixed points)."""
        s = self.system
        self.k.spring_forces(x, v, s.springs, s.rest_length, s.stiffness, s.damping, s.mass,
                             s.gravity, s.external_force, s.absolute_damping, out)
        out *= self.inverse_mass
        return out

    def step(self, x: np.ndarray, v: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


def _declared(cls: type[Integrator]) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    if cls.stability_polynomials is None:
        raise NotImplementedError(f"integrator '{cls.name}' declares no stability polynomials")
    return cls.stability_polynomials


def _series(coefficients: tuple[Fraction, ...], z: np.ndarray) -> np.ndarray:
    """:math:`\\sum_k z^k p_k/q_k` term by term in ascending powers (``1 + z + z**2/2 + ...``,
    so that a coefficient 1/6 is a division by 6, not a multiplication by its rounding)."""
    total = np.zeros_like(z, dtype=complex) if np.iscomplexobj(z) else np.zeros_like(z, float)
    for power, c in enumerate(coefficients):
        total = total + z**power * c.numerator / c.denominator
    return total


def _matrix_polynomial(coefficients: tuple[Fraction, ...], a: np.ndarray) -> np.ndarray:
    r""":math:`\sum_k c_k A^k` by Horner's rule, shape of ``a``."""
    identity = np.eye(a.shape[0])
    result = float(coefficients[-1]) * identity
    for c in reversed(coefficients[:-1]):
        result = a @ result + float(c) * identity
    return result


def _linear_parts(lin: LinearSystem) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`M^{-1}K` and :math:`M^{-1}C`, shape (n, n)."""
    return lin.stiffness / lin.mass[:, None], lin.damping / lin.mass[:, None]


def _unit_states(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``X = [I 0]``, ``V = [0 I]`` (shape (n, 2n)): applying an update to them gives G."""
    return np.eye(n, 2 * n), np.eye(n, 2 * n, n)


class ExplicitEuler(Integrator):
    """Forward Euler; dampers at :math:`v_n`. :math:`R(z) = 1 + z`."""

    name, order = "explicit_euler", 1
    stability_polynomials = ((ONE, ONE), (ONE,))

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        a = self.acceleration(x, v, self._force)
        self.k.axpy(x, self.dt, v)
        self.k.axpy(v, self.dt, a)


class SemiImplicitEuler(Integrator):
    """Symplectic Euler (kick then drift); dampers at :math:`v_n`."""

    name, order = "semi_implicit_euler", 1

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        """G(h) from :math:`v' = v - h(Av + Bv)`, :math:`x' = x + hv'` (A, B: M^-1 K, C)."""
        a_mat, b_mat = _linear_parts(lin)
        x, v = _unit_states(lin.mass.size)
        v1 = v + h * (-(a_mat @ x) - (b_mat @ v))
        return np.vstack([x + h * v1, v1])

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        a = self.acceleration(x, v, self._force)
        self.k.axpy(v, self.dt, a)
        self.k.axpy(x, self.dt, v)


class ArticleVerlet(Integrator):
    """The tongue article's update as printed; algebraically :class:`SemiImplicitEuler`.

    ``newPos = x + v dt + F dt^2/m; v = (newPos - x)/dt; x = newPos`` (dampers at
    :math:`v_n`). Rounding differs from semi-implicit Euler in the last bits only.
    """

    name, order = "article_verlet", 1
    same_update_as = "semi_implicit_euler"

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        """Semi-implicit Euler's G(h) (the same update)."""
        return SemiImplicitEuler.amplification(h, lin)

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        self._new = np.empty_like(system.positions)

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        a = self.acceleration(x, v, self._force)
        new = self._new
        np.multiply(v, self.dt, out=new)
        new += x
        self.k.axpy(new, self.dt * self.dt, a)
        np.subtract(new, x, out=v)
        v /= self.dt
        x[:] = new


class VelocityVerlet(Integrator):
    """Velocity Verlet; the second force uses the predicted velocity :math:`v + h a_0`."""

    name, order, force_evaluations = "velocity_verlet", 2, 2

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        """G(h) from the update formulas applied to ``X = [I 0]``, ``V = [0 I]``."""
        a_mat, b_mat = _linear_parts(lin)
        x, v = _unit_states(lin.mass.size)
        a0 = -(a_mat @ x) - (b_mat @ v)
        x1 = x + h * v + 0.5 * h * h * a0
        v1 = v + 0.5 * h * (a0 + (-(a_mat @ x1) - (b_mat @ (v + h * a0))))
        return np.vstack([x1, v1])

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        self._a1, self._predicted = np.empty_like(system.positions), np.empty_like(system.positions)

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        h = self.dt
        a0 = self.acceleration(x, v, self._force)
        self.k.axpy(x, h, v)
        self.k.axpy(x, 0.5 * h * h, a0)
        self._predicted[:] = v
        self.k.axpy(self._predicted, h, a0)
        a1 = self.acceleration(x, self._predicted, self._a1)
        self.k.axpy(v, 0.5 * h, a0)
        self.k.axpy(v, 0.5 * h, a1)


#: Relative residual and iteration cap of position Verlet's damper solve (conjugate gradients).
KICK_RTOL, KICK_MAX_ITER = 1e-13, 100


class PositionVerlet(Integrator):
    r"""Störmer–Verlet drift–kick–drift as the partitioned Lobatto IIIA–IIIB pair.

    :math:`x_{1/2} = x + \tfrac h2 v`,
    :math:`v' = v + \tfrac h2 [a(x_{1/2}, v) + a(x_{1/2}, v')]`,
    :math:`x' = x_{1/2} + \tfrac h2 v'` (Hairer, Lubich, Wanner 2006, II.2, the Störmer–Verlet
    scheme of a general partitioned system; second order with velocity-dependent forces).
    The dampers are linear in :math:`v` at fixed :math:`x`:
    :math:`F(x, v) = F(x, 0) - C(x) v` with :math:`C = -\partial F/\partial v` (:math:`c\,nn^T`
    per spring, :math:`c_a I`), so the kick, i.e. the velocity at the half step
    :math:`(v + v')/2` in the dampers, is one linear solve and no Newton iteration:
    :math:`(M + \tfrac h2 C(x_{1/2}))(v' - v) = h F(x_{1/2}, v)`. With spring dampers the
    matrix (free coordinates, assembled sparse) is symmetric positive definite with condition
    number at most :math:`1 + \tfrac h2 \lambda_{max}(M^{-1}C)`, so Jacobi-preconditioned
    conjugate gradients (:func:`~flocklab.models.springs.kernels.jacobi_pcg`) solve it to a
    relative residual of 1e-13 in a few iterations (1 on the single spring, 5 on the tongue,
    7 on the 10 x 10 cloth near their stability limits; ``stats["linear_iterations"]``), 8 to
    14 times faster than SuperLU and equal to it within 1e-14; SuperLU takes over if CG has
    not converged in 100 iterations. With absolute damping only the solve is a division by
    :math:`m + \tfrac h2 c_a`, and without dampers the kick is the classical explicit
    :math:`v' = v + h\,a(x_{1/2})` (bit for bit the former scheme).

    The former kick :math:`v' = v + h\,a(x_{1/2}, v)`, dampers at :math:`v_n`, is first order
    with dampers: fitted order 1.04 against this scheme's 2.00 on the damped single spring
    (``accuracy`` task, :math:`\zeta = 0.1`). Linear stability: for one oscillator with any
    damping :math:`b = c/m` the amplification matrix has determinant
    :math:`(1 - hb/2)/(1 + hb/2)` and trace :math:`(2 - h^2\omega^2)/(1 + hb/2)`, so the
    limit is :math:`h\omega \le 2` whatever the damping (the former kick:
    :math:`(-b + \sqrt{b^2 + 4\omega^2})/\omega^2 < 2/\omega`, as semi-implicit Euler).
    """

    name, order = "position_verlet", 2

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        r"""G(h) with the kick :math:`(M + \tfrac h2 C)(v' - v) = hF(x_{1/2}, v)`."""
        a_mat, b_mat = _linear_parts(lin)
        n = lin.mass.size
        x, v = _unit_states(n)
        x_half = x + 0.5 * h * v
        v1 = v + np.linalg.solve(np.eye(n) + 0.5 * h * b_mat,
                                 h * (-(a_mat @ x_half) - (b_mat @ v)))
        return np.vstack([x_half + 0.5 * h * v1, v1])

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        self._spring_dampers = bool(np.any(system.damping != 0.0))
        absolute = float(system.absolute_damping)
        self._damped = self._spring_dampers or absolute != 0.0
        if self._spring_dampers:
            from flocklab.models.springs.forces import JacobianAssembler

            self.assembler = JacobianAssembler(system, free_only=True)
            self.free = self.assembler.dofs
            self._rhs, self._dv = np.empty(self.free.size), np.empty(self.free.size)
            self._cg_work = np.empty((5, self.free.size))
            self.stats = {"linear_iterations": []}
        elif self._damped:
            mass = system.mass + 0.5 * self.dt * absolute
            self._kick = np.where(system.fixed, 0.0, 1.0 / mass)[:, None]

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        h = self.dt
        self.k.axpy(x, 0.5 * h, v)
        if not self._damped:
            self.k.axpy(v, h, self.acceleration(x, v, self._force))
        else:
            s = self.system
            force = self._force
            self.k.spring_forces(x, v, s.springs, s.rest_length, s.stiffness, s.damping, s.mass,
                                 s.gravity, s.external_force, s.absolute_damping, force)
            if self._spring_dampers:
                matrix = self.assembler.assemble(x, v, 1.0, 0.0, 0.5 * h)
                np.take(force.reshape(-1), self.free, out=self._rhs)
                self._rhs *= h
                dv = self._dv
                dv[:] = 0.0
                iterations = self.k.jacobi_pcg(matrix.indptr, matrix.indices, matrix.data,
                                               self._rhs, dv, KICK_RTOL, KICK_MAX_ITER,
                                               self._cg_work)
                self.stats["linear_iterations"].append(iterations)
                if iterations > KICK_MAX_ITER:
                    import scipy.sparse.linalg as spla

                    dv = spla.spsolve(matrix.tocsc(), self._rhs, permc_spec="MMD_AT_PLUS_A")
                v.reshape(-1)[self.free] += dv
            else:
                force *= self._kick
                self.k.axpy(v, h, force)
        self.k.axpy(x, 0.5 * h, v)


class RK4(Integrator):
    """Classical fourth-order Runge–Kutta on :math:`(x, v)`; dampers at every stage."""

    name, order, force_evaluations = "rk4", 4, 4
    stability_polynomials = ((ONE, ONE, Fraction(1, 2), Fraction(1, 6), Fraction(1, 24)), (ONE,))

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        shape = system.positions.shape
        self._xs, self._vs = np.empty(shape), np.empty(shape)
        self._ka, self._kv = np.empty((4, *shape)), np.empty((4, *shape))

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        h = self.dt
        xs, vs, ka, kv = self._xs, self._vs, self._ka, self._kv
        kv[0] = v
        self.acceleration(x, v, ka[0])
        for stage, frac in ((1, 0.5), (2, 0.5), (3, 1.0)):
            np.multiply(kv[stage - 1], frac * h, out=xs)
            xs += x
            np.multiply(ka[stage - 1], frac * h, out=vs)
            vs += v
            kv[stage] = vs
            self.acceleration(xs, vs, ka[stage])
        for stage, weight in enumerate((1.0, 2.0, 2.0, 1.0)):
            self.k.axpy(x, weight * h / 6.0, kv[stage])
            self.k.axpy(v, weight * h / 6.0, ka[stage])


class NewtonIntegrator(Integrator):
    r"""Implicit one-step methods solved for the new velocity :math:`w = v'` by Newton.

    With evaluation point :math:`x_e = x + h(\alpha v + \beta w)`, :math:`v_e = \gamma v +
    \delta w`, the step solves :math:`G(w) = M(w - v) - h F(x_e, v_e) = 0` on the free
    coordinates with the matrix :math:`M - h^2\beta\,\partial F/\partial x - h\delta\,
    \partial F/\partial v` (assembled sparse at every iteration) and sets
    :math:`x' = x + h(\theta v + (1-\theta) w)`.

    Options: ``tol`` (stop when :math:`h \max|\Delta w|` <= tol x mean rest length, default
    1e-10), ``max_iter`` (cap, default 20; steps reaching it are counted in
    ``stats["unconverged_steps"]``), ``linear_solver`` (``"direct"``: SuperLU ``spsolve``
    on the exact Newton matrix, minimum-degree ordering; ``"cg"``: :func:`jacobi_pcg` on its
    symmetric positive definite approximation — without the :math:`(c/l)` velocity terms of
    :math:`\partial F/\partial x` and with the negative transverse stiffness of compressed
    springs clamped to 0 — an inexact Newton iteration that converges to the same step),
    ``cg_rtol`` (relative residual of each CG solve, default 1e-3: the Newton tolerance, not
    the linear solve, sets the accuracy) and ``cg_max_iter``
    (default 1000). ``stats["newton_iterations"]`` lists the Newton iterations of every step,
    ``stats["linear_iterations"]`` the CG iterations of every solve (CG only).
    """

    implicit = True
    options: ClassVar[dict[str, Any]] = {"tol": 1e-10, "max_iter": 20, "linear_solver": "direct",
                                         "cg_rtol": 1e-3, "cg_max_iter": 1000}
    alpha = beta = gamma = delta = theta = 0.0

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        if self.opts["linear_solver"] not in ("direct", "cg"):
            raise ParameterError("linear_solver", f"parameter 'linear_solver' = "
                                 f"{self.opts['linear_solver']!r} is not allowed: direct, cg")
        if not int(self.opts["max_iter"]) >= 1:
            raise ParameterError("max_iter", "parameter 'max_iter' must be an integer >= 1")
        if not int(self.opts["cg_max_iter"]) >= 1:
            raise ParameterError("cg_max_iter", "parameter 'cg_max_iter' must be an integer >= 1")
        if not 0.0 < float(self.opts["cg_rtol"]) < 1.0:
            raise ParameterError("cg_rtol", f"parameter 'cg_rtol' = {self.opts['cg_rtol']!r} "
                                            "must be in (0, 1)")
        from flocklab.models.springs.forces import JacobianAssembler

        self.assembler = JacobianAssembler(system, free_only=True)
        self.free = self.assembler.dofs
        self.mass_free = np.repeat(system.mass, system.dim)[self.free]
        self.tol_x = float(self.opts["tol"]) * float(np.mean(system.rest_length))
        self._w, self._xe, self._ve = (np.empty_like(system.positions) for _ in range(3))
        self.stats = {"newton_iterations": [], "unconverged_steps": 0, "linear_iterations": []}
        self._cg_work = np.empty((5, self.free.size))
        self._correction, self._rhs = np.empty(self.free.size), np.empty(self.free.size)

    def _evaluate(self, x: np.ndarray, v: np.ndarray, w: np.ndarray) -> None:
        h = self.dt
        np.multiply(v, h * self.alpha, out=self._xe)
        self._xe += x
        self._xe += (h * self.beta) * w
        np.multiply(v, self.gamma, out=self._ve)
        self._ve += self.delta * w

    def _solve(self, matrix: sp.csr_matrix, rhs: np.ndarray) -> np.ndarray:
        if self.opts["linear_solver"] == "direct":
            import scipy.sparse.linalg as spla

            return spla.spsolve(matrix.tocsc(), rhs, permc_spec="MMD_AT_PLUS_A")
        solution = self._correction
        solution[:] = 0.0
        iterations = self.k.jacobi_pcg(matrix.indptr, matrix.indices, matrix.data, rhs, solution,
                                float(self.opts["cg_rtol"]), int(self.opts["cg_max_iter"]),
                                self._cg_work)
        self.stats["linear_iterations"].append(iterations)
        return solution

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        self.step_from(x, v, v)

    def step_from(self, x: np.ndarray, v: np.ndarray, guess: np.ndarray) -> None:
        """One step with the Newton iteration started at ``guess`` for :math:`v'` (shape
        (N, D)); :meth:`step` starts at :math:`v`."""
        h, free, w = self.dt, self.free, self._w
        w[:] = guess
        w_flat = w.reshape(-1)
        cg = self.opts["linear_solver"] == "cg"
        iterations = 0
        for iterations in range(1, int(self.opts["max_iter"]) + 1):  # noqa: B007
            self._evaluate(x, v, w)
            force = self._force
            self.k.spring_forces(self._xe, self._ve, self.system.springs, self.system.rest_length,
                          self.system.stiffness, self.system.damping, self.system.mass,
                          self.system.gravity, self.system.external_force,
                          self.system.absolute_damping, force)
            rhs = self.k.newton_rhs(self.mass_free, free, w_flat, v.reshape(-1),
                                    force.reshape(-1), h, self._rhs)
            correction = self._solve(self._matrix(h, cg), rhs)
            w_flat[free] += correction
            largest = float(np.max(np.abs(correction)))
            if not math.isfinite(largest) or h * largest <= self.tol_x:
                break
        else:
            self.stats["unconverged_steps"] += 1
        self.stats["newton_iterations"].append(iterations)
        self.k.axpy(x, h * self.theta, v)
        self.k.axpy(x, h * (1.0 - self.theta), w)
        v[:] = w

    def _matrix(self, h: float, symmetric: bool) -> sp.csr_matrix:
        return self.assembler.assemble(self._xe, self._ve, 1.0, h * h * self.beta,
                                       h * self.delta, geometric_damping=not symmetric,
                                       definite=symmetric)


class ImplicitEuler(NewtonIntegrator):
    """Backward Euler, Newton on the full sparse Jacobian; dampers implicit at :math:`v'`."""

    name, order = "implicit_euler", 1
    stability_polynomials = ((ONE,), (ONE, -ONE))
    alpha, beta, gamma, delta, theta = 0.0, 1.0, 0.0, 1.0, 0.0


class ImplicitMidpoint(NewtonIntegrator):
    """Implicit midpoint rule, Newton as implicit Euler; dampers at :math:`(v + v')/2`."""

    name, order = "implicit_midpoint", 2
    stability_polynomials = ((ONE, Fraction(1, 2)), (ONE, -Fraction(1, 2)))
    alpha, beta, gamma, delta, theta = 0.25, 0.25, 0.5, 0.5, 0.5


class ImplicitEulerDiagonal(Integrator):
    r"""The integrator article's implicit Euler: fixed number of diagonal-Jacobian (Jacobi) sweeps.

    Unknown :math:`y \approx x'`, start :math:`y^{(0)} = x`; each sweep evaluates the forces at
    :math:`(y, (y - x)/h)` (dampers implicit in the sweep's velocity), the residual
    :math:`r = m(y - x)/h^2 - m v/h - F` and sets :math:`y \leftarrow y - r / D` with the
    per-point scalar :math:`D = m/h^2 + \sum_{s \ni p} k_s + (\sum_{s \ni p} c_s + c)/h`;
    after ``iterations`` sweeps (option, default 3, no early exit) :math:`x' = y`,
    :math:`v' = (y - x)/h`. The article's :math:`D` has no damping part because its implicit
    code has no dampers.
    """

    name, order, implicit = "implicit_euler_diagonal", 1, True
    options: ClassVar[dict[str, Any]] = {"iterations": 3}

    @classmethod
    def amplification(cls, h: float, lin: LinearSystem, **options: Any) -> np.ndarray:
        r"""G(h) of ``iterations`` sweeps with the diagonal :math:`m/h^2 + \sum k_s +
        (\sum c_s + c)/h` (``lin.spring_sum``, ``lin.damping_sum``)."""
        iterations = int({**cls.options, **options}["iterations"])
        x, v = _unit_states(lin.mass.size)
        m = lin.mass[:, None]
        diagonal = (lin.mass / h**2 + lin.spring_sum + lin.damping_sum / h)[:, None]
        y = x.copy()
        for _ in range(iterations):
            vy = (y - x) / h
            residual = m * (vy - v) / h + lin.stiffness @ y + lin.damping @ vy
            y = y - residual / diagonal
        return np.vstack([y, (y - x) / h])

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        iterations = self.opts["iterations"]
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ParameterError("iterations", f"parameter 'iterations' = {iterations!r} must "
                                               "be an integer >= 1")
        self.force_evaluations = iterations
        h = self.dt
        per_point = np.zeros(system.n_points)
        spring_sum = system.stiffness + system.damping / h
        np.add.at(per_point, system.springs[:, 0], spring_sum)
        np.add.at(per_point, system.springs[:, 1], spring_sum)
        diagonal = system.mass / h**2 + per_point + system.absolute_damping / h
        self.step_factor = np.where(system.fixed, 0.0, 1.0 / diagonal)[:, None]
        self._mass = system.mass[:, None]
        self._y, self._vy, self._r = (np.empty_like(system.positions) for _ in range(3))

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        h, s = self.dt, self.system
        y, vy, r = self._y, self._vy, self._r
        y[:] = x
        for _ in range(self.opts["iterations"]):
            np.subtract(y, x, out=vy)
            vy /= h
            self.k.spring_forces(y, vy, s.springs, s.rest_length, s.stiffness, s.damping, s.mass,
                          s.gravity, s.external_force, s.absolute_damping, self._force)
            np.subtract(vy, v, out=r)
            r *= self._mass / h
            r -= self._force
            r *= self.step_factor
            y -= r
        np.subtract(y, x, out=v)
        v /= h
        x[:] = y


SCIPY_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


class ScipyReference(Integrator):
    """:func:`scipy.integrate.solve_ivp` over each step (``rtol``, ``atol`` options).

    The first-order system is :math:`(\\dot x, \\dot v) = (v, a(x, v))` on the free
    coordinates; dampers are part of it. ``Radau`` and ``BDF`` get the sparse Jacobian
    ``[[0, I], [M^{-1} dF/dx, M^{-1} dF/dv]]``. ``stats["rhs_evaluations"]`` counts calls.
    """

    name, order = "scipy", 0
    linear_theory = False
    options: ClassVar[dict[str, Any]] = {"rtol": 1e-10, "atol": 1e-12}
    method = "RK45"

    def __init__(self, system: SpringSystem, dt: float, **options: Any) -> None:
        super().__init__(system, dt, **options)
        from flocklab.models.springs.forces import JacobianAssembler

        self.assembler = JacobianAssembler(system, free_only=True)
        self.free = self.assembler.dofs
        self.inv_mass_free = 1.0 / np.repeat(system.mass, system.dim)[self.free]
        self._x, self._v = np.empty_like(system.positions), np.empty_like(system.positions)
        self.stats = {"rhs_evaluations": 0}

    def _unpack(self, y: np.ndarray) -> None:
        n = self.free.size
        self._x.reshape(-1)[self.free] = y[:n]
        self._v.reshape(-1)[self.free] = y[n:]

    def _rhs(self, _t: float, y: np.ndarray) -> np.ndarray:
        self.stats["rhs_evaluations"] += 1
        self._unpack(y)
        force = self.acceleration(self._x, self._v, self._force)
        return np.concatenate([y[self.free.size:], force.reshape(-1)[self.free]])

    def _jacobian(self, _t: float, y: np.ndarray) -> sp.csr_matrix:
        import scipy.sparse as sp

        self._unpack(y)
        n = self.free.size
        scale = sp.diags(self.inv_mass_free)
        jx = -scale @ self.assembler.assemble(self._x, self._v, 0.0, 1.0, 0.0)
        jv = -scale @ self.assembler.assemble(self._x, self._v, 0.0, 0.0, 1.0)
        return sp.bmat([[None, sp.identity(n)], [jx, jv]], format="csr")

    def step(self, x: np.ndarray, v: np.ndarray) -> None:
        from scipy.integrate import solve_ivp

        self._x[:], self._v[:] = x, v
        y0 = np.concatenate([x.reshape(-1)[self.free], v.reshape(-1)[self.free]])
        extra = {"jac": self._jacobian} if self.method in ("Radau", "BDF") else {}
        solution = solve_ivp(self._rhs, (0.0, self.dt), y0, method=self.method,
                             rtol=self.opts["rtol"], atol=self.opts["atol"], **extra)
        y = solution.y[:, -1] if solution.success else np.full_like(y0, np.nan)
        n = self.free.size
        x.reshape(-1)[self.free] = y[:n]
        v.reshape(-1)[self.free] = y[n:]


def _scipy_class(method: str) -> type[Integrator]:
    return type(f"Scipy{method}", (ScipyReference,), {"name": f"scipy_{method}",
                                                      "method": method})


#: The integrator registry: name -> class.
INTEGRATORS: dict[str, type[Integrator]] = {
    cls.name: cls for cls in (ExplicitEuler, SemiImplicitEuler, VelocityVerlet, PositionVerlet,
                              ArticleVerlet, RK4, ImplicitEuler, ImplicitEulerDiagonal,
                              ImplicitMidpoint, *(_scipy_class(m) for m in SCIPY_METHODS))
}


def get_integrator(name: str, system: SpringSystem, dt: float, **options: Any) -> Integrator:
    """Instance of integrator ``name`` for ``system`` at step ``dt``.

    Raises
    ------
    ParameterError
        Naming ``integrator`` for an unknown name, ``dt`` for dt <= 0, or an option.
    """
    if name not in INTEGRATORS:
        raise ParameterError("integrator", f"parameter 'integrator' = {name!r} is not allowed: "
                                           f"one of {', '.join(INTEGRATORS)}")
    return INTEGRATORS[name](system, dt, **options)


#: The nine fixed-step methods the studies and the stability and accuracy tasks compare.
STUDY_METHODS = ("explicit_euler", "semi_implicit_euler", "article_verlet", "velocity_verlet",
                 "position_verlet", "rk4", "implicit_euler", "implicit_euler_diagonal",
                 "implicit_midpoint")


#: Words of integrator names spelled for the eye.
METHOD_WORDS = {"euler": "Euler", "verlet": "Verlet", "rk4": "RK4", "scipy": "SciPy"}


def method_label(name: str) -> str:
    """An integrator's name for the eye: ``semi_implicit_euler`` → ``semi-implicit Euler``,
    ``scipy_Radau`` → ``Radau (SciPy)``."""
    if name.startswith("scipy_"):
        return f"{name.removeprefix('scipy_')} (SciPy)"
    words = [METHOD_WORDS.get(word, word) for word in name.split("_")]
    text = " ".join(words).replace("semi implicit", "semi-implicit")
    return text.replace("Euler diagonal", "Euler, diagonal")
