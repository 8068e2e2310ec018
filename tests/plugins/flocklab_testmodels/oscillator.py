r"""Damped harmonic oscillators with an exact solution, integrated by two methods.

N independent oscillators :math:`\ddot x + 2\zeta\omega\dot x + \omega^2 x = 0` start at
:math:`x = \cos\varphi_i`, :math:`v = -\omega\sin\varphi_i` with phases drawn from the run's
generator. For :math:`\zeta < 1`, with :math:`\omega_d = \omega\sqrt{1 - \zeta^2}`,

.. math:: x(t) = e^{-\zeta\omega t}\left[x_0\cos\omega_d t
          + \frac{v_0 + \zeta\omega x_0}{\omega_d}\sin\omega_d t\right].

Methods: ``rk4`` (classical Runge–Kutta, global error O(dt^4)) and ``semi_implicit_euler``
(symplectic Euler, O(dt)). Observables: ``energy`` (mean energy over the initial mean
energy, the primary one) and ``x0`` (position of oscillator 0). Run metric ``decay_rate``:
slope of ln E against t (exact: :math:`2\zeta\omega`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from flocklab.core.model import Metric, Model, Observable, SnapshotVariable
from flocklab.core.parameters import ParameterSpec
from flocklab.figures.drawing import Drawing


def exact_solution(x0: np.ndarray, v0: np.ndarray, omega: float, zeta: float,
                   t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``(x, v)`` at times ``t`` (shape (T,)) for initial ``x0``, ``v0`` (shape (N,))."""
    wd = omega * np.sqrt(1.0 - zeta**2)
    t = np.asarray(t)[:, None]
    decay = np.exp(-zeta * omega * t)
    b = (v0 + zeta * omega * x0) / wd
    x = decay * (x0 * np.cos(wd * t) + b * np.sin(wd * t))
    v = decay * ((-zeta * omega) * (x0 * np.cos(wd * t) + b * np.sin(wd * t))
                 + wd * (-x0 * np.sin(wd * t) + b * np.cos(wd * t)))
    return x, v



class PhasePortrait(Drawing):
    """Phase portrait: each oscillator at (x, v / omega) on the circle of its energy."""

    def draw(self, ax: Any, run: Any, frame: int, trail: int = 0, label: str = "") -> None:
        omega = run.attrs["omega"]
        ax.plot(run["x"].values[frame], run["v"].values[frame] / omega, "o", ms=4)
        ax.set_aspect("equal")
        ax.set_xlim(-1.1, 1.1)
        ax.set_ylim(-1.1, 1.1)
        ax.set_xlabel("$x$ [m]")
        ax.set_ylabel(r"$v / \omega$ [m]")
        ax.set_title(f"{label} t = {run['frame'].values[frame]:g} s".strip(), fontsize=9)


class Oscillator(Model):
    name = "oscillator"
    description = "independent damped harmonic oscillators (test model with an exact solution)"
    reference = "any mechanics text; e.g. L. D. Landau, E. M. Lifshitz, Mechanics, §25"
    time_mode = "continuous"
    time_units = "s"
    default_dt = 0.01
    parameters = (
        ParameterSpec("N", "int", 4, "number of oscillators", low=1, symbol="N"),
        ParameterSpec("omega", "float", 2.0, "angular frequency", "rad s-1", low=0.0,
                      low_inclusive=False, symbol=r"\omega"),
        ParameterSpec("zeta", "float", 0.05, "damping ratio (under-damped)", low=0.0, high=1.0,
                      high_inclusive=False, symbol=r"\zeta"),
        ParameterSpec("method", "choice", "rk4", "integrator",
                      choices=("rk4", "semi_implicit_euler")),
    )
    observables = (Observable("energy", "mean energy over its initial value", "1",
                              symbol="E/E_0"),
                   Observable("x0", "position of oscillator 0", "m", symbol="x_0"))
    primary_observable = "energy"
    drawing = PhasePortrait
    entity_dim = "oscillator"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("position", "m"), "v": SnapshotVariable("velocity", "m s-1")}
    run_metrics = (Metric("decay_rate", "slope of -ln E against t after burn-in", "s-1"),)

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        phase = rng.uniform(0.0, 2.0 * np.pi, params["N"])
        x, v = np.cos(phase), -params["omega"] * np.sin(phase)
        return {"x": x, "v": v, "_energy0": self._energy(x, v, params)}

    @staticmethod
    def _energy(x: np.ndarray, v: np.ndarray, params: Mapping[str, Any]) -> float:
        return float(np.mean(0.5 * v**2 + 0.5 * params["omega"] ** 2 * x**2))

    def _acceleration(self, x: np.ndarray, v: np.ndarray, p: Mapping[str, Any]) -> np.ndarray:
        return -2.0 * p["zeta"] * p["omega"] * v - p["omega"] ** 2 * x

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        dt = state["_dt"]
        x, v = state["x"], state["v"]
        for _ in range(k):
            if params["method"] == "semi_implicit_euler":
                v += dt * self._acceleration(x, v, params)
                x += dt * v
                continue
            k1x, k1v = v, self._acceleration(x, v, params)
            k2x, k2v = v + 0.5 * dt * k1v, self._acceleration(x + 0.5 * dt * k1x,
                                                             v + 0.5 * dt * k1v, params)
            k3x, k3v = v + 0.5 * dt * k2v, self._acceleration(x + 0.5 * dt * k2x,
                                                             v + 0.5 * dt * k2v, params)
            k4x, k4v = v + dt * k3v, self._acceleration(x + dt * k3x, v + dt * k3v, params)
            x += dt / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += dt / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        return {"energy": self._energy(state["x"], state["v"], params) / state["_energy0"],
                "x0": float(state["x"][0])}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"x": state["x"].copy(), "v": state["v"].copy()}

    def metrics(self, run: Any, params: Any, burn_in: float) -> dict[str, float]:
        t = run["time"].values
        keep = t > burn_in
        slope = np.polyfit(t[keep], np.log(run["energy"].values[keep]), 1)[0]
        return {"decay_rate": float(-slope)}
