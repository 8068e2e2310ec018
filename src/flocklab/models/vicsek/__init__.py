r"""The Vicsek model of self-propelled particles.

N point particles move at constant speed :math:`v_0` in an :math:`L \times L`
periodic box and, every unit time step, take the mean heading of all particles
within distance :math:`r` (minimum image, the particle itself included), up to
noise. With :math:`S_i = \sum_{|r_j - r_i| \le r} e^{i\theta_j(t)}` and
:math:`n_i` the number of terms:

* ``noise="angular"`` (Vicsek et al. 1995):
  :math:`\theta_i(t+1) = \arg S_i + \Delta\theta_i`, :math:`\Delta\theta_i \sim U[-\eta/2, \eta/2]`,
  :math:`\eta \in [0, 2\pi]`;
* ``noise="vectorial"`` (Grégoire & Chaté 2004):
  :math:`\theta_i(t+1) = \arg[S_i + \eta\, n_i\, e^{i\xi_i}]`, :math:`\xi_i \sim U[-\pi, \pi]`,
  :math:`\eta \in [0, 1]`.

Positions: ``update="forward"`` :math:`x_i(t+1) = x_i(t) + v_0 e(\theta_i(t+1))` (the new
heading, as Grégoire & Chaté 2004); ``update="backward"`` uses :math:`e(\theta_i(t))`, the old
heading, as Vicsek et al. (1995) print eq. (1).

Neighbour rules (``neighbours``): ``metric`` (the sum above, all within :math:`r`);
``knn``, the particle itself and its :math:`k` nearest others by minimum-image distance,
ties to the smaller identity (Ballerini et al. 2008 measured :math:`k \approx 7` in
starling flocks), so :math:`n_i = k + 1`; ``voronoi``, the particle itself and the particles
whose Voronoi cells share an edge with its own in the periodic box, its Delaunay
neighbours (Ginelli & Chaté 2010). The topological rules ignore :math:`r`; they are
invariant under :math:`(L, v_0) \to (\lambda L, \lambda v_0)` at fixed :math:`N`
(:mod:`flocklab.geometry.topological` for the searches and their certificates).

The order parameter is :math:`v_a(t) = |\sum_i e(\theta_i(t))| / N`.

The kernel stores headings as unit vectors and applies the angular noise as a
rotation of the normalised neighbour sum, so a step costs one sin/cos pair per
particle and no atan2. The state is kept sorted by cell (counting sort every
step), so memory access stays local, and the pair loop over the 3 × 3 stencil is
branch-free. Initial positions and headings come from the run's NumPy
``Generator``; the noise of particle ``i`` at step ``t`` is a counter-based
random number of (key, t, i) (:mod:`flocklab.core.random`), and each neighbour sum
runs in a fixed cell order, so results do not depend on the number of threads,
on chunking, or on checkpoints. Where :math:`S_i = 0` exactly (measure zero) the
particle keeps its heading before noise.

References
----------
T. Vicsek, A. Czirók, E. Ben-Jacob, I. Cohen, O. Shochet, "Novel type of phase
transition in a system of self-driven particles", Phys. Rev. Lett. 75, 1226 (1995).
G. Grégoire, H. Chaté, "Onset of collective and cohesive motion",
Phys. Rev. Lett. 92, 025702 (2004).
M. Ballerini et al., "Interaction ruling animal collective behavior depends on topological
rather than metric distance: evidence from a field study", PNAS 105, 1232 (2008).
F. Ginelli, H. Chaté, "Relevance of metric-free interactions in flocking phenomena",
Phys. Rev. Lett. 105, 168103 (2010).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import (
    CriticalControl,
    DerivedFactor,
    DerivedQuantity,
    Kinematics,
    Model,
    Observable,
    Preset,
    Resources,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.references import VICSEK_1995, VICSEK_TEACHING_TOOL

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.record import RunRecord
    from flocklab.core.time import TimeGrid

TWO_PI = 2.0 * math.pi
NOISE_KINDS = ("angular", "vectorial")
UPDATE_RULES = ("forward", "backward")
INITIAL_CONDITIONS = ("random", "aligned")
NEIGHBOUR_RULES = ("metric", "knn", "voronoi")
#: Estimated seconds per particle and step of each neighbour rule on one thread, three to
#: six times the times measured by benchmarks/bench_vicsek_neighbours.py at density 2
#: (metric 0.11-0.18 us, knn 1.2-1.5 us, voronoi 13-18 us, the latter two in ordered flocks).
SECONDS_PER_UPDATE = {"metric": 1.0e-6, "knn": 5.0e-6, "voronoi": 6.0e-5}
#: Words per particle of the Voronoi rule's triangulation (points and images, Qhull's
#: facets, the neighbour lists): about twice the 110 measured as peak resident memory of one
#: triangulation of 2·10^5 uniform points.
VORONOI_WORDS = 200


# --------------------------------------------------------------------------- model


def _random_order(n: int) -> float:
    """Mean polar order of ``n`` independent uniform headings (exact; see
    :func:`flocklab.analysis.order.random_heading_order`)."""
    from flocklab.analysis.order import random_heading_order

    return random_heading_order(n)[0]


class Vicsek(Model):
    """Vicsek model (see module docstring for the equations; kernels in
    :mod:`flocklab.models.vicsek.kernels`, imported on first use)."""

    name = "vicsek"
    description = "Vicsek model of self-propelled particles with local alignment and noise"
    reference = VICSEK_1995
    title = "Vicsek model"
    observables = (Observable("order_parameter", "polar order parameter", "1", 0.0, 1.0, "v_a"),)
    primary_observable = "order_parameter"
    size_parameter = "N"
    #: v_a on [0, 1], the order parameter of the flocking transition.
    primary_is_order_parameter = True
    critical_controls = (
        CriticalControl("eta", "eta", "below", "beta", r"\eta", needs=("eta",)),
        CriticalControl("rho", "density", "above", "delta", r"\rho", needs=("N", "L")),
    )
    entity_dim = "particle"
    #: Positions x, y in the periodic L x L box; velocity v0 (cos theta, sin theta).
    kinematics = Kinematics(("x", "y"), heading_angle="theta", speed="v0",
                            box=lambda params: params["L"])
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "x": SnapshotVariable("particle x position", "1"),
        "y": SnapshotVariable("particle y position", "1"),
        "theta": SnapshotVariable("heading angle", "rad"),
    }
    parameters = (
        ParameterSpec("N", "int", 300, "number of particles", "1", low=1, symbol="N"),
        ParameterSpec("L", "float", 7.0, "side of the periodic square box", "1",
                      low=0.0, low_inclusive=False, symbol="L"),
        ParameterSpec("v0", "float", 0.03, "speed (distance moved per time step)",
                      "1", low=0.0, symbol="v_0"),
        ParameterSpec("r", "float", 1.0,
                      "interaction radius of the metric rule (unused by knn and voronoi)", "1",
                      low=0.0, low_inclusive=False, symbol="r"),
        ParameterSpec("eta", "float", 2.0,
                      "noise amplitude: angular in [0, 2pi] (rad), vectorial in [0, 1]",
                      "rad", low=0.0, high=TWO_PI, symbol="\\eta"),
        ParameterSpec("noise", "choice", "angular", "noise kind", choices=NOISE_KINDS),
        ParameterSpec("update", "choice", "forward",
                      "position update with the new heading (forward: Gregoire & Chate 2004) "
                      "or the old one (backward: Vicsek et al. 1995, eq. 1)",
                      choices=UPDATE_RULES),
        ParameterSpec("init", "choice", "random",
                      "initial headings: uniform in [-pi, pi) or all along +x",
                      choices=INITIAL_CONDITIONS),
        ParameterSpec("neighbours", "choice", "metric",
                      "who a particle aligns with: all within r (metric), itself and its k "
                      "nearest others (knn: Ballerini et al. 2008), or itself and its Voronoi "
                      "neighbours (voronoi: Ginelli & Chate 2010)", choices=NEIGHBOUR_RULES),
        ParameterSpec("k", "int", 7, "number of nearest others of the knn rule", "1", low=1,
                      symbol="k"),
    )

    derived_quantities = (
        DerivedQuantity("density", "particle density", "1", r"\rho",
                        lambda params: params["N"] / params["L"] ** 2),
        # the finite-N floor: the order of N independent headings (no alignment at all)
        DerivedQuantity("random_order", "order parameter of N independent headings", "1",
                        r"v_a^{\mathrm{ind}}", lambda params: _random_order(params["N"])),
    )
    #: A sensitivity study varies the density through N = round(density L^2) at fixed L.
    derived_factors = (DerivedFactor(
        "density", "N", lambda params, value: max(1, round(value * params["L"] ** 2))),)
    drawing = "flocklab.models.vicsek.figures:VicsekDrawing"
    #: The teaching tool's default run and the edges of its parameter table (radius
    #: 0.8-1.5, noise 0.05-0.2, density 0.5-2), and the three regimes of Fig. 1 of the paper.
    presets = (
        Preset("classroom", "teaching tool default: N = 100, L = 10 (density 1), r = 1, "
               "eta = 0.1; the dots agree on a direction within a few hundred steps",
               {"N": 100, "L": 10.0, "v0": 0.03, "r": 1.0, "eta": 0.1}, VICSEK_TEACHING_TOOL),
        Preset("short sight", "radius r = 0.5, below the table's range: few neighbours, "
               "ordering is slow and local",
               {"N": 100, "L": 10.0, "v0": 0.03, "r": 0.5, "eta": 0.1}, VICSEK_TEACHING_TOOL),
        Preset("sparse", "density 0.5 (N = 50, L = 10): neighbours meet rarely",
               {"N": 50, "L": 10.0, "v0": 0.03, "r": 1.0, "eta": 0.1}, VICSEK_TEACHING_TOOL),
        Preset("crowded", "density 2 (N = 200, L = 10): quick agreement",
               {"N": 200, "L": 10.0, "v0": 0.03, "r": 1.0, "eta": 0.1}, VICSEK_TEACHING_TOOL),
        Preset("Fig. 1b groups", "small density and noise (N = 300, L = 25, eta = 0.1): "
               "groups moving in random directions",
               {"N": 300, "L": 25.0, "eta": 0.1, "update": "backward"}, VICSEK_1995),
        Preset("Fig. 1c disorder", "high density and noise (N = 300, L = 7, eta = 2): "
               "correlated random motion",
               {"N": 300, "L": 7.0, "eta": 2.0, "update": "backward"}, VICSEK_1995),
        Preset("Fig. 1d order", "high density, small noise (N = 300, L = 5, eta = 0.1): "
               "ordered motion",
               {"N": 300, "L": 5.0, "eta": 0.1, "update": "backward"}, VICSEK_1995),
        Preset("transition", "N = 1000, L = 15.8 (density 4): drag eta across 3-4 to cross "
               "the transition", {"N": 1000, "L": 15.8, "eta": 2.5}, VICSEK_1995),
    )

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        if params["noise"] == "vectorial":
            self.spec("eta").check_range(params["eta"], 0.0, 1.0, " for noise 'vectorial'")
        if params["neighbours"] == "knn" and params["k"] > params["N"] - 1:
            raise ParameterError("k", f"parameter 'k' = {params['k']!r} is out of range: "
                                      f"allowed is an integer >= 1 and <= N - 1 = "
                                      f"{params['N'] - 1!r} with neighbours 'knn'")
        if not params["v0"] < params["L"]:
            raise ParameterError("v0", f"parameter 'v0' = {params['v0']!r} is out of range: "
                                       f"allowed is a number >= 0 and < L = {params['L']!r}")

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Uniform positions, random or aligned headings, the noise key and work space.

        State arrays: ``state`` (4, N) rows x, y, e_x, e_y in cell order and ``ident``
        (N,) the particle in each slot; ``_work_*`` arrays are scratch space.
        """
        x, y, theta = self.initial_positions(params, rng)
        n = params["N"]
        from flocklab.core.random import noise_key
        from flocklab.models.vicsek.kernels import cells_for, work_space

        m = cells_for(params["neighbours"], n, params["L"], params["r"], params["k"])
        return {
            "state": np.array([x, y, np.cos(theta), np.sin(theta)]),
            "ident": np.arange(n, dtype=np.int64),
            "_key": noise_key(rng),
            "_cells": m,
            **work_space(n, m),
        }

    def initial_positions(self, params: Mapping[str, Any], rng: np.random.Generator
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Uniform positions and (random or aligned) headings: ``(x, y, theta)``, shape (N,)."""
        n, box = params["N"], params["L"]
        x = rng.random(n) * box
        y = rng.random(n) * box
        if params["init"] == "random":
            theta = rng.uniform(-math.pi, math.pi, n)
        else:
            theta = np.zeros(n)
        return x, y, theta

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """``k`` steps of the compiled kernel, recording v_a and frames inside it."""
        from flocklab.models.vicsek.kernels import advance_state

        advance_state(state, params, first_step, k, record)

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab.models.vicsek.kernels import _order_parameter

        return {"order_parameter": _order_parameter(state["state"][2], state["state"][3])}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        from flocklab.models.vicsek.kernels import _record

        n = params["N"]
        out = [np.empty((1, n)) for _ in range(3)]
        s = state["state"]
        _record(0, s[0], s[1], s[2], s[3], state["ident"], *out)
        return {"x": out[0][0], "y": out[1][0], "theta": out[2][0]}

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """13 words per particle of state and work space, the v_a series and 3 words per
        particle and frame, twice over for the copy made when the file is written, plus
        :data:`VORONOI_WORDS` per particle for a triangulation; time from
        :data:`SECONDS_PER_UPDATE`."""
        n = params["N"]
        rule = params["neighbours"]
        words = 13 * n + len(grid.record_steps) + 3 * n * len(grid.frame_steps)
        extra = VORONOI_WORDS * n if rule == "voronoi" else 0
        return Resources(2 * 8 * words + 8 * extra, n * grid.steps * SECONDS_PER_UPDATE[rule])
