r"""Noisy phase alignment (mean-field Kuramoto model of identical oscillators), stepped.

.. math:: \theta_i(t+1) = \theta_i(t) + K\,\Delta t\, r\sin(\psi - \theta_i)
          + \sigma\sqrt{\Delta t}\,\xi_i(t),

with :math:`r e^{i\psi} = \frac1N\sum_j e^{i\theta_j}` and standard normal :math:`\xi` from
counter-based uniforms (Box–Muller), so results do not depend on chunking. The order
parameter :math:`r` has a transition at :math:`K_c = \sigma^2` (for
:math:`N \to \infty`; H. Sakaguchi, Prog. Theor. Phys. 79, 39 (1988)): ordered above.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from flocklab.core.model import CriticalControl, Model, Observable, SnapshotVariable
from flocklab.core.parameters import ParameterSpec
from flocklab.figures.drawing import Drawing


class PhaseCircle(Drawing):
    """Phases as points on the unit circle."""

    def draw(self, ax: Any, run: Any, frame: int, trail: int = 0, label: str = "") -> None:
        theta = run["theta"].values[frame]
        ax.plot(np.cos(theta), np.sin(theta), ".", ms=4)
        ax.set_aspect("equal")
        ax.set_xlim(-1.1, 1.1)
        ax.set_ylim(-1.1, 1.1)
        ax.set_title(f"{label} K = {run.attrs['K']:g}, t = {run['frame'].values[frame]:g}"
                     .strip(), fontsize=9)


class NoisyPhases(Model):
    name = "noisy_phases"
    description = "noisy mean-field phase alignment (test model with noise and a transition)"
    reference = "H. Sakaguchi, Prog. Theor. Phys. 79, 39 (1988)"
    parameters = (
        ParameterSpec("N", "int", 100, "number of phases", low=2, symbol="N"),
        ParameterSpec("K", "float", 2.0, "coupling", low=0.0, symbol="K"),
        ParameterSpec("sigma", "float", 1.0, "noise strength", low=0.0, symbol=r"\sigma"),
        ParameterSpec("dt", "float", 0.05, "time step of the update", low=0.0,
                      low_inclusive=False),
    )
    observables = (Observable("coherence", "phase coherence r", "1", 0.0, 1.0, "r"),)
    primary_observable = "coherence"
    drawing = PhaseCircle
    size_parameter = "N"
    primary_is_order_parameter = True
    critical_controls = (CriticalControl("K", "K", "above", "beta", "K", needs=("K",)),)
    entity_dim = "phase"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "theta": SnapshotVariable("phase", "rad")}

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        from flocklab.core.random import noise_key  # numba: imported when a run starts

        return {"theta": rng.uniform(-np.pi, np.pi, params["N"]), "_key": noise_key(rng)}

    def step(self, state: dict, params: Mapping[str, Any], first_step: int, k: int) -> None:
        from flocklab.core.random import step_uniforms

        theta, n, dt = state["theta"], params["N"], params["dt"]
        for step in range(first_step + 1, first_step + k + 1):
            u = step_uniforms(state["_key"], step, 2 * n)
            normal = np.sqrt(-2.0 * np.log1p(-u[:n])) * np.cos(2.0 * np.pi * u[n:])
            mean = np.mean(np.exp(1j * theta))
            theta += params["K"] * dt * np.abs(mean) * np.sin(np.angle(mean) - theta) \
                + params["sigma"] * np.sqrt(dt) * normal
            np.mod(theta + np.pi, 2.0 * np.pi, out=theta)
            theta -= np.pi

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        return {"coherence": float(np.abs(np.mean(np.exp(1j * state["theta"]))))}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"theta": state["theta"].copy()}
