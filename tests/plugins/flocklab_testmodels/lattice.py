r"""Exactly solved reference models for the finite-size-scaling analysis: the 2-D Ising and
q-state Potts models on an :math:`L \times L` periodic square lattice, updated by Wolff
single-cluster updates.

.. math::

    H_{\mathrm{Ising}} = -J \sum_{\langle ij\rangle} \sigma_i \sigma_j,\ \sigma = \pm 1,
    \qquad
    H_{\mathrm{Potts}} = -J \sum_{\langle ij\rangle} \delta(s_i, s_j),\
    s \in \{0, \dots, q-1\},

J = 1, :math:`k_B = 1`, the sum over the 2N nearest-neighbour bonds of the N = L² sites.
Temperatures are in units of :math:`J/k_B`; energies per spin in units of J. One time step
is ``clusters`` Wolff updates (a fixed number, never a number of flipped spins, which
would bias the sampled states) followed by one record:

* ``magnetization`` :math:`|m|` (primary), Ising :math:`m = \frac1N\sum_i\sigma_i`, Potts
  :math:`m = \frac1N\sum_j e^{2\pi i s_j/q}`;
* ``energy`` per spin :math:`e = H/(NJ)`.

Critical points and exponents (the FSS analysis should find them): Ising
:math:`T_c = 2/\ln(1+\sqrt2) \approx 2.269185` (Onsager 1944), :math:`\nu = 1`,
:math:`\beta/\nu = 1/8`, :math:`\gamma/\nu = 7/4`; Potts
:math:`T_c = 1/\ln(1+\sqrt q)` (continuous for q ≤ 4), for q = 3 :math:`\nu = 5/6`,
:math:`\beta/\nu = 2/15`, :math:`\gamma/\nu = 26/15` (Baxter 1982). The mean Wolff cluster
at :math:`T_c` is the susceptibility, :math:`\propto L^{\gamma/\nu}` (Ising
:math:`L^{7/4}`).

The kernels (shared by both models) are in :mod:`flocklab_testmodels.lattice_kernels`,
imported when a run starts.

References
----------
U. Wolff, "Collective Monte Carlo updating for spin systems", Phys. Rev. Lett. 62, 361
(1989).
L. Onsager, "Crystal statistics. I. A two-dimensional model with an order-disorder
transition", Phys. Rev. 65, 117 (1944).
R. J. Baxter, *Exactly Solved Models in Statistical Mechanics*, Academic Press (1982).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from flocklab.core.model import (
    CriticalControl,
    DerivedQuantity,
    Model,
    Observable,
    Preset,
    Resources,
    SnapshotVariable,
)
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.figures.drawing import Drawing, Glyph, time_text

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.record import RunRecord
    from flocklab.core.time import TimeGrid

WOLFF_1989 = ("U. Wolff, Collective Monte Carlo updating for spin systems, "
              "Phys. Rev. Lett. 62, 361 (1989)")
ONSAGER_1944 = ("L. Onsager, Crystal statistics. I. A two-dimensional model with an "
                "order-disorder transition, Phys. Rev. 65, 117 (1944)")
BAXTER_1982 = ("R. J. Baxter, Exactly Solved Models in Statistical Mechanics, "
               "Academic Press (1982)")
#: Exact critical temperature of the square-lattice Ising model, 2 / ln(1 + sqrt 2).
ISING_TC = 2.0 / math.log(1.0 + math.sqrt(2.0))
#: Random draws of one step must fit the low 32 bits of the counter.
DRAWS_PER_STEP = 1 << 32


def potts_critical_temperature(q: int) -> float:
    r"""Exact :math:`T_c = 1/\ln(1+\sqrt q)` of the square-lattice q-state Potts model
    (J = 1; Baxter 1982). q = 2 gives half the Ising value (K = J, not 2J)."""
    return 1.0 / math.log(1.0 + math.sqrt(q))


class LatticeDrawing(Drawing):
    """The lattice as an image: Ising spins black (−1) and white (+1), Potts states on
    the viridis colormap (0 to q − 1)."""

    @staticmethod
    def _image(run: xr.Dataset, frame: int) -> tuple[np.ndarray, float, str]:
        side = int(run.attrs["L"])
        spins = run["spin"].values[frame].astype(float).reshape(side, side)
        if run.attrs["model"] == "ising":
            return (spins + 1.0) / 2.0, 1.0, "gray"
        return spins, float(max(1, int(run.attrs["q"]) - 1)), "viridis"

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        field, high, cmap = self._image(run, frame)
        side = field.shape[0]
        ax.imshow(field, cmap=cmap, vmin=0.0, vmax=high, origin="lower",
                  interpolation="nearest", extent=(0, side, 0, side))
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{label} T = {float(run.attrs['T']):g}, {time_text(run, frame)}"
                     .strip(), fontsize=9)

    def limits(self, run: xr.Dataset) -> tuple[float, float, float, float]:
        """The whole lattice, ``(0, L, 0, L)``."""
        side = float(run.attrs["L"])
        return 0.0, side, 0.0, side

    def glyphs(self, run: xr.Dataset, frame: int, trail: int = 0) -> list[Glyph]:
        """The lattice as one image glyph."""
        field, high, cmap = self._image(run, frame)
        side = float(field.shape[0])
        return [Glyph("image", "spin", np.array([0.0, side]), np.array([0.0, side]),
                      colour=cmap, field=field, high=high)]


class LatticeModel(Model):
    """Shared declarations and hooks of :class:`Ising` and :class:`Potts` (a q-state
    Potts lattice; the subclasses set the coupling K of the bond probability and the
    energy convention)."""

    #: K in the bond probability p = 1 - exp(-K/T).
    coupling: ClassVar[float] = 1.0
    #: Ising conventions (±1 spins, e = -(1/N) sum s_i s_j) instead of Potts ones.
    ising: ClassVar[bool] = False

    time_mode = "steps"
    observables = (
        Observable("magnetization", "magnetization per spin", "1", 0.0, 1.0, "|m|"),
        Observable("energy", "energy per spin (units of J)", "1", symbol="e"),
    )
    primary_observable = "magnetization"
    size_parameter = "N"
    primary_is_order_parameter = True
    derived_quantities = (DerivedQuantity("N", "number of spins", "1", "N",
                                          lambda params: params["L"] ** 2),)
    critical_controls = (CriticalControl("T", "T", "below", "beta", "T", needs=("T",)),)
    entity_dim = "site"
    snapshot_variables: ClassVar[dict[str, SnapshotVariable]] = {
        "spin": SnapshotVariable("spin (Ising: -1 or +1; Potts: state 0..q-1), site "
                                 "i = y L + x", "1", "int8")}
    drawing = LatticeDrawing

    def states(self, params: Mapping[str, Any]) -> int:
        """Number of states q of the lattice (2 for Ising)."""
        return 2

    def bond_probability(self, params: Mapping[str, Any]) -> float:
        r"""Wolff bond probability :math:`p = 1 - e^{-K/T}`."""
        return float(-math.expm1(-self.coupling / params["T"]))

    def entity_count(self, params: Mapping[str, Any]) -> int:
        """N = L² sites."""
        return int(params["L"]) ** 2

    def check(self, params: dict[str, Any], grid: TimeGrid | None = None) -> None:
        """The random draws of a step, at most ``clusters (4N + 2)``, must fit in 32 bits."""
        draws = params["clusters"] * (4 * self.entity_count(params) + 2)
        if draws >= DRAWS_PER_STEP:
            raise ParameterError("clusters", f"'clusters' = {params['clusters']} on an "
                                             f"L = {params['L']} lattice may draw {draws} "
                                             f"random numbers in a step; at most 2**32 - 1")

    def resources(self, params: Mapping[str, Any], grid: TimeGrid) -> Resources:
        """33 bytes per site (state, stack, members), the frames (1 byte per site), the two
        series, twice over for the copy made when the file is written; run time at
        3·10⁷ flipped sites per second with every update flipping the whole lattice (an
        upper bound, approached well below :math:`T_c`)."""
        n = self.entity_count(params)
        memory = 2 * (33 * n + n * len(grid.frame_steps) + 16 * len(grid.record_steps))
        return Resources(memory, params["clusters"] * n * grid.steps / 3.0e7)

    def initial_state(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict:
        """Random (uniform states) or ordered (all state 0: Ising +1) lattice, the noise key
        and work space. State array: ``spins`` (N,) int8 Potts states."""
        from flocklab.core.random import noise_key

        n, q = self.entity_count(params), self.states(params)
        if params["init"] == "random":
            spins = rng.integers(0, q, n).astype(np.int8)
        else:
            spins = np.zeros(n, dtype=np.int8)
        return {"spins": spins, "_key": noise_key(rng),
                "_stack": np.empty((2, n), dtype=np.int64),
                "_members": np.empty((2, n), dtype=np.int64),
                "_counts": np.zeros(q, dtype=np.int64)}

    def advance(self, state: dict, params: Mapping[str, Any], first_step: int, k: int,
                record: RunRecord) -> None:
        """``k`` steps of the compiled kernel, recording |m|, e and frames inside it."""
        from flocklab_testmodels.lattice_kernels import advance

        advance(state["spins"], int(params["L"]), self.states(params),
                self.bond_probability(params), int(params["clusters"]), self.ising,
                state["_key"], first_step, k, state["_stack"], state["_members"],
                state["_counts"], record.series["magnetization"], record.series["energy"],
                record.record_of_step, record.frame_of_step, record.frames["spin"])

    def observe(self, state: dict, params: Mapping[str, Any]) -> dict[str, float]:
        from flocklab_testmodels.lattice_kernels import observables

        m, e = observables(state["spins"], int(params["L"]), self.states(params), self.ising,
                           state["_counts"])
        return {"magnetization": float(m), "energy": float(e)}

    def snapshot(self, state: dict, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
        from flocklab_testmodels.lattice_kernels import write_spins

        out = np.empty(state["spins"].shape[0], dtype=np.int8)
        write_spins(state["spins"], self.ising, out)
        return {"spin": out}


def _common_parameters(temperature: float) -> tuple[ParameterSpec, ...]:
    return (
        ParameterSpec("L", "int", 32, "lattice side (N = L^2 spins, periodic)", low=2,
                      symbol="L"),
        ParameterSpec("T", "float", temperature, "temperature (units of J/k_B)", low=0.0,
                      low_inclusive=False, symbol="T"),
        ParameterSpec("clusters", "int", 1, "Wolff cluster updates per time step", low=1),
        ParameterSpec("init", "choice", "random",
                      "initial lattice: uniform random states, or all in state 0 (Ising +1)",
                      choices=("random", "ordered")),
    )


class Ising(LatticeModel):
    r"""2-D Ising model, :math:`H = -J\sum_{\langle ij\rangle}\sigma_i\sigma_j`, Wolff
    updates with :math:`p = 1 - e^{-2J/T}` (see the module docstring)."""

    name = "ising"
    description = "2-D Ising model with Wolff cluster updates (exactly solved test model)"
    reference = f"{ONSAGER_1944}; {WOLFF_1989}"
    title = "2-D Ising model (Wolff cluster updates)"
    coupling = 2.0
    ising = True
    parameters = _common_parameters(round(ISING_TC, 4))
    presets = (
        Preset("critical", "T = T_c (Onsager): clusters of every size",
               {"L": 64, "T": round(ISING_TC, 6)}, ONSAGER_1944),
        Preset("ordered", "T = 1.5: one spin direction dominates", {"L": 64, "T": 1.5}),
        Preset("disordered", "T = 3.5: small domains", {"L": 64, "T": 3.5}),
    )


class Potts(LatticeModel):
    r"""2-D q-state Potts model, :math:`H = -J\sum_{\langle ij\rangle}\delta(s_i, s_j)`,
    Wolff updates with :math:`p = 1 - e^{-J/T}` (see the module docstring)."""

    name = "potts"
    description = ("2-D q-state Potts model with Wolff cluster updates (exactly solved test "
                   "model)")
    reference = f"{BAXTER_1982}; {WOLFF_1989}"
    title = "2-D Potts model (Wolff cluster updates)"
    coupling = 1.0
    parameters = (*_common_parameters(1.0),
                  ParameterSpec("q", "int", 3, "number of states", low=2, high=8, symbol="q"))
    presets = (
        Preset("critical q = 3", "T = T_c = 1/ln(1 + sqrt 3)",
               {"L": 64, "q": 3, "T": round(potts_critical_temperature(3), 6)}, BAXTER_1982),
        Preset("q = 8 near T_c", "first-order transition: T = 0.75, T_c = 0.745",
               {"L": 64, "q": 8, "T": 0.75}, BAXTER_1982),
    )

    def states(self, params: Mapping[str, Any]) -> int:
        """Parameter q."""
        return int(params["q"])
