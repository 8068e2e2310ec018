r"""Static equilibrium by Newton's method on the potential energy.

The equilibrium minimises :math:`U(x) = \sum_s \tfrac12 k_s(l_s - L_s)^2 - \sum_p (m_p g +
f_p)\cdot x_p` over the free coordinates. Its gradient is :math:`-F(x, 0)` and its Hessian
:math:`H = -\partial F/\partial x` (the analytic sparse Jacobian). Each iteration solves
:math:`(H + \mu I)\,p = -\nabla U` (``spsolve``) with the Levenberg shift :math:`\mu \ge 0`
raised while :math:`p` is not a descent direction or the factorisation fails, and takes the
largest step :math:`t \in \{1, 1/2, \dots\}` with Armijo decrease of :math:`U` (or, once
the change of :math:`U` is below rounding, a smaller largest residual force). At a stationary
point that is not a minimum (smallest Hessian eigenvalue < 0, checked with ``eigsh``), the
state is pushed along that eigenvector and Newton continues.

Reference: J. Nocedal, S. J. Wright, *Numerical Optimization*, 2nd ed., Springer 2006,
ch. 3 and 6 (line search, Hessian modification).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from flocklab.core.model import SimulationError
from flocklab.models.springs.forces import JacobianAssembler, forces, potential_energy
from flocklab.models.springs.structure import SpringSystem


def _force_scale(system: SpringSystem) -> float:
    weight = np.linalg.norm(system.mass[:, None] * system.gravity[None, :], axis=1)
    external = np.linalg.norm(system.external_force, axis=1)
    springs = system.stiffness * system.rest_length
    return float(max(np.max(weight + external), np.max(springs), 1e-300))


def _newton_direction(hessian: sp.csr_matrix, gradient: np.ndarray, shift: float
                      ) -> tuple[np.ndarray, float]:
    """Descent direction of the shifted Newton system and the shift that produced it."""
    identity = sp.identity(gradient.size, format="csr")
    scale = max(float(np.max(np.abs(hessian.diagonal()))), 1e-300)
    for _ in range(60):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", spla.MatrixRankWarning)
                step = spla.spsolve((hessian + shift * identity).tocsc(), -gradient)
        except RuntimeError:
            step = np.full_like(gradient, np.nan)
        if np.all(np.isfinite(step)) and step @ gradient < 0.0:
            return step, shift
        shift = max(4.0 * shift, 1e-8 * scale)
    return -gradient / scale, shift


def static_equilibrium(system: SpringSystem, x0: np.ndarray | None = None, tol: float = 1e-10,
                       max_iter: int = 200) -> np.ndarray:
    """Positions of the stable static equilibrium, shape (N, D) (m).

    Parameters
    ----------
    x0 : ndarray, optional
        Starting positions (default ``system.positions``).
    tol : float
        Stop when the largest residual force on a free point is below ``tol`` times the
        force scale (largest weight plus external force, or :math:`\\max_s k_s L_s`).

    Raises
    ------
    SimulationError
        If Newton does not converge in ``max_iter`` iterations.
    """
    x = np.array(system.positions if x0 is None else x0, dtype=np.float64)
    zero_v = np.zeros_like(x)
    assembler = JacobianAssembler(system, free_only=True)
    free = assembler.dofs
    target = tol * _force_scale(system)
    energy, shift, pushed = potential_energy(system, x), 0.0, 0
    for _ in range(max_iter):
        gradient = -forces(system, x, zero_v).reshape(-1)[free]
        if np.max(np.abs(gradient)) <= target:
            direction = _unstable_direction(assembler, x, zero_v)
            if direction is None or pushed >= 5:
                return x
            pushed += 1
            x.reshape(-1)[free] += 1e-3 * float(np.mean(system.rest_length)) * direction
            energy = potential_energy(system, x)
            continue
        hessian = assembler.assemble(x, zero_v, 0.0, 1.0, 0.0)
        step, shift = _newton_direction(hessian, gradient, shift)
        t, slope = 1.0, float(step @ gradient)
        for _ in range(50):
            trial = x.copy()
            trial.reshape(-1)[free] += t * step
            trial_energy = potential_energy(system, trial)
            if trial_energy <= energy + 1e-4 * t * slope or _smaller_gradient(
                    system, trial, free, gradient, trial_energy - energy, energy):
                break
            t *= 0.5
        x, energy = trial, trial_energy
        shift *= 0.25 if t == 1.0 else 1.0
    raise SimulationError(f"static equilibrium of the {system.name} not found in {max_iter} "
                          f"Newton iterations")


def _smaller_gradient(system: SpringSystem, trial: np.ndarray, free: np.ndarray,
                      gradient: np.ndarray, change: float, energy: float) -> bool:
    """Near convergence the energy change is below rounding: accept a step that lowers the
    largest residual force instead."""
    if abs(change) > 1e-12 * max(1.0, abs(energy)):
        return False
    trial_gradient = -forces(system, trial, np.zeros_like(trial)).reshape(-1)[free]
    return float(np.max(np.abs(trial_gradient))) < float(np.max(np.abs(gradient)))


def _unstable_direction(assembler: JacobianAssembler, x: np.ndarray, v: np.ndarray
                        ) -> np.ndarray | None:
    """Unit eigenvector of the smallest Hessian eigenvalue if it is clearly negative."""
    hessian = assembler.assemble(x, v, 0.0, 1.0, 0.0)
    scale = max(float(np.max(np.abs(hessian.diagonal()))), 1e-300)
    if hessian.shape[0] <= 600:
        values, vectors = np.linalg.eigh(hessian.toarray())
        value, vector = values[0], vectors[:, 0]
    else:
        values, vectors = spla.eigsh(hessian, k=1, sigma=-scale, which="LM")
        value, vector = values[0], vectors[:, 0]
    return vector if value < -1e-8 * scale else None
