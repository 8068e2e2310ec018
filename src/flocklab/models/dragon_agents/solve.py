r"""Integration of the dragon ODE (and its delay version) through ``solve_ivp``.

* ODE: :func:`integrate` calls :func:`scipy.integrate.solve_ivp` once over
  :math:`[0, t_\mathrm{end}]` with the chosen method; the implicit methods get the analytic
  Jacobian (Radau, BDF: CSC sparse matrix; LSODA: LAPACK band form with ``lband/uband``).
* DDE (:math:`\tau > 0`): :func:`integrate_delayed` uses the **method of steps**: on each
  interval :math:`[k\tau, (k+1)\tau]` the delayed state :math:`y(t - \tau)` is a known
  function — the initial state for :math:`t \le \tau` (the chain at rest before the
  start), afterwards the previous interval's dense output (``OdeSolution``) — so each
  interval is an ordinary ODE solved by ``solve_ivp`` with the same method and tolerances.
  Restarting at every multiple of :math:`\tau` puts the solver's step boundaries on the
  DDE's derivative discontinuities (breakpoints), so no step straddles one.
* Blow-up: a terminal event :math:`g = c L - \max_l d_l` (``c`` = ``blowup_stretch``;
  ``g = -1`` when the state is not finite) stops the solve; a solver failure (step size
  underflow after non-finite trial states) also stops it. Both raise
  :class:`~flocklab.core.model.SimulationError` naming the parameters and the time, or,
  with ``on_blowup="record"``, end the solution at the last record before the blow-up and
  set :attr:`Solution.t_blowup` (a stability study records "unstable" and goes on).
* Statistics: ``nfev``, ``njev``, ``nlu`` from ``solve_ivp``; ``steps`` = number of
  accepted steps, counted by the event function (evaluated once per accepted step).

Reference: E. Hairer, G. Wanner, *Solving ODEs II* (Radau IIA); L. F. Shampine,
S. Thompson, "Solving DDEs in MATLAB" (method of steps, breakpoints), Appl. Numer. Math.
37, 441 (2001).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.model import SimulationError

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.models.dragon_agents.dynamics import DragonSystem

METHODS = ("RK45", "DOP853", "Radau", "BDF", "LSODA")
IMPLICIT = ("Radau", "BDF", "LSODA")
JACOBIANS = ("analytic", "sparsity", "dense_fd")


@dataclass
class Solution:
    """Recorded trajectory and solver statistics.

    Attributes
    ----------
    t : ndarray, shape (T,)
        Record times (s).
    states : ndarray, shape (T, N, 4)
        Per unit ``[x, y, vx, vy]`` at each record time; unit 0 is the head.
    stats : dict
        ``nfev``, ``njev``, ``nlu``, ``steps``, ``segments`` (1 without delay).
    t_blowup : float
        Time of the blow-up (s) when it was recorded instead of raised; NaN otherwise.
        The records then stop before it (``len(t)`` is less than requested).
    """

    t: np.ndarray
    states: np.ndarray
    stats: dict[str, int] = field(default_factory=dict)
    t_blowup: float = np.nan

    def padded(self, t_record: np.ndarray) -> np.ndarray:
        """States on all of ``t_record`` (shape (T, N, 4)), NaN after a blow-up."""
        out = np.full((len(t_record), *self.states.shape[1:]), np.nan)
        out[:len(self.t)] = self.states
        return out

    @property
    def x(self) -> np.ndarray:
        return self.states[..., 0]

    @property
    def y(self) -> np.ndarray:
        return self.states[..., 1]

    @property
    def vx(self) -> np.ndarray:
        return self.states[..., 2]

    @property
    def vy(self) -> np.ndarray:
        return self.states[..., 3]


class BlowUpWatch:
    """Terminal event: ``stretch * L - longest link`` (``-1`` if the state is not finite).

    Counts its calls (solve_ivp evaluates events once per accepted step, after the
    initial call) and remembers the last time seen.
    """

    terminal = True
    direction = 0.0

    def __init__(self, rest: float, stretch: float) -> None:
        self.rest, self.stretch = rest, stretch
        self.calls, self.last_t = 0, 0.0

    def __call__(self, t: float, y: np.ndarray) -> float:
        self.calls += 1
        self.last_t = t
        if not np.all(np.isfinite(y)):
            return -1.0
        p = y.reshape(-1, 4)[:, :2]
        links = np.sqrt(np.sum(np.diff(p, axis=0) ** 2, axis=1))
        return float(self.stretch * self.rest - links.max())


def solver_options(system: DragonSystem, method: str, jacobian: str = "analytic",
                   past: Any = None) -> dict[str, Any]:
    """``solve_ivp`` keyword arguments for the Jacobian of ``method``.

    ``past``: callable ``t -> y(t - tau)`` for the delay equation (None: no delay).
    """
    if method not in IMPLICIT or jacobian == "dense_fd":
        return {}
    if jacobian == "sparsity":
        return {} if method == "LSODA" else {"jac_sparsity": system.sparsity()}
    if method == "LSODA":
        lower, upper = system.bandwidth()
        if past is None:
            return {"jac": system.banded, "lband": lower, "uband": upper}
        return {"jac": lambda t, y: system.banded(t, y, past(t)), "lband": lower,
                "uband": upper}
    if past is None:
        return {"jac": system.jacobian}
    return {"jac": lambda t, y: system.jacobian(t, y, past(t))}


def _fail(describe: str, t: float, why: str) -> SimulationError:
    return SimulationError(f"dragon_agents blew up at t = {t:.6g} s ({why}); parameters "
                           f"{describe}")


def _solve_segment(fun: Any, span: tuple[float, float], y0: np.ndarray, t_eval: np.ndarray,
                   opts: dict[str, Any], watch: BlowUpWatch, describe: str, dense: bool,
                   on_blowup: str = "error") -> tuple[Any, float]:
    """``(solve_ivp result, blow-up time or NaN)``; raises on a blow-up unless
    ``on_blowup == "record"`` (then the result's records stop before it)."""
    from scipy.integrate import solve_ivp

    sol = solve_ivp(fun, span, y0, t_eval=t_eval, events=watch, dense_output=dense,
                    **opts)
    if sol.status == 0:
        return sol, np.nan
    if sol.status == 1:
        t_hit = float(sol.t_events[0][0]) if len(sol.t_events[0]) else watch.last_t
        why = f"a link exceeded {watch.stretch:g} L or the state became non-finite"
    else:
        t_hit, why = watch.last_t, f"solver failed: {sol.message}"
    if on_blowup != "record":
        raise _fail(describe, t_hit, why)
    finite = np.all(np.isfinite(sol.y), axis=0) & (sol.t < t_hit)
    sol.t, sol.y = sol.t[finite], sol.y[:, finite]
    return sol, t_hit


def integrate(system: DragonSystem, y0: np.ndarray, t_record: np.ndarray, *,
              method: str = "Radau", rtol: float = 1e-6, atol: float = 1e-9,
              max_step: float = np.inf, jacobian: str = "analytic",
              blowup_stretch: float = 3.0, describe: str = "",
              on_blowup: str = "error") -> Solution:
    """Solve the ODE from ``y0`` at ``t = 0`` and record at ``t_record`` (ascending, from 0).

    Parameters
    ----------
    system : DragonSystem
        Right-hand side and Jacobian.
    y0 : ndarray, shape (4N,)
        Initial state (interleaved layout).
    t_record : ndarray, shape (T,)
        Record times (s); the last one is the final time.
    method, rtol, atol, max_step : str, float, float, float
        ``solve_ivp`` method and controls.
    jacobian : {"analytic", "sparsity", "dense_fd"}
        What the implicit methods get (the last two for comparisons only).
    blowup_stretch : float
        Stop when a link is longer than this multiple of ``L``.
    describe : str
        Parameter description for error messages.
    on_blowup : {"error", "record"}
        On a blow-up raise, or stop and set :attr:`Solution.t_blowup`.

    Raises
    ------
    SimulationError
        On blow-up (unless recorded), with the time.
    """
    watch = BlowUpWatch(system.L, blowup_stretch)
    opts = {"method": method, "rtol": rtol, "atol": atol, "max_step": max_step,
            **solver_options(system, method, jacobian)}
    span = (float(t_record[0]), float(t_record[-1]))
    sol, t_blowup = _solve_segment(system.rhs, span, y0, t_record, opts, watch, describe,
                                   dense=False, on_blowup=on_blowup)
    stats = {"nfev": int(sol.nfev), "njev": int(sol.njev), "nlu": int(sol.nlu),
             "steps": watch.calls - 1, "segments": 1}
    return Solution(sol.t, sol.y.T.reshape(len(sol.t), -1, 4), stats, t_blowup)


def integrate_delayed(system: DragonSystem, y0: np.ndarray, t_record: np.ndarray, tau: float,
                      *, method: str = "Radau", rtol: float = 1e-6, atol: float = 1e-9,
                      max_step: float = np.inf, blowup_stretch: float = 3.0,
                      describe: str = "", on_blowup: str = "error") -> Solution:
    """Solve the delay equation by the method of steps (module docstring); ``tau > 0``.

    History: :math:`y(t) = y_0` for :math:`t \\le 0`. Same parameters as :func:`integrate`.
    """
    if not tau > 0:
        raise ValueError("integrate_delayed needs tau > 0; use integrate for tau = 0")
    t_end = float(t_record[-1])
    watch = BlowUpWatch(system.L, blowup_stretch)
    history = [None]  # dense output of the previous interval

    def past(t: float) -> np.ndarray:
        s = t - tau
        return y0 if s <= 0.0 or history[0] is None else history[0](s)

    def fun(t: float, y: np.ndarray) -> np.ndarray:
        return system.rhs(t, y, past(t))

    opts = {"method": method, "rtol": rtol, "atol": atol, "max_step": max_step,
            **solver_options(system, method, "analytic", past)}
    times, states, stats = [], [], {"nfev": 0, "njev": 0, "nlu": 0, "steps": 0, "segments": 0}
    t_blowup = np.nan
    start, y = 0.0, np.asarray(y0, dtype=float)
    while start < t_end:
        stop = min(start + tau, t_end)
        if t_end - stop < 1e-12 * max(1.0, t_end):
            stop = t_end
        last = stop == t_end
        pick = (t_record >= start) & ((t_record < stop) | last)
        watch.calls = 0
        sol, t_blowup = _solve_segment(fun, (start, stop), y, t_record[pick], opts, watch,
                                       describe, dense=True, on_blowup=on_blowup)
        if np.any(pick):
            times.append(sol.t)
            states.append(sol.y.T)
        for key in ("nfev", "njev", "nlu"):
            stats[key] += int(getattr(sol, key))
        stats["steps"] += watch.calls - 1
        stats["segments"] += 1
        if not np.isnan(t_blowup):
            break
        history[0] = sol.sol
        y = sol.sol(stop)
        start = stop
    t = np.concatenate(times)
    return Solution(t, np.concatenate(states).reshape(len(t), -1, 4), stats, t_blowup)
