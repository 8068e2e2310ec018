r"""Wolff cluster updates of the lattice test models (tests/plugins: ``ising``, ``potts``)
at their exact critical temperatures: time per cluster update, mean cluster size, and the
cost of a full driver run that records |m| and e after every update.

For each model and L (default 16, 32, 64), the kernel
(:func:`flocklab_testmodels.lattice_kernels.advance`, one update per step, no records) is
equilibrated from a random lattice (updates until ``--sweeps`` N sites have flipped), then
timed over updates worth about ``--seconds`` (median of ``--rounds`` rounds). The mean
cluster size :math:`\langle|C|\rangle` is the flipped sites over the timed updates; at
:math:`T_c` it is the susceptibility :math:`N\langle m^2\rangle` (Ising; Wolff's improved
estimator) and grows as :math:`L^{\gamma/\nu}`, :math:`\gamma/\nu = 7/4` (Ising) and
26/15 (q = 3 Potts, Baxter 1982): the column :math:`\langle|C|\rangle / L^{\gamma/\nu}`
should level off. The driver columns compare :func:`flocklab.core.driver.run` (one update
and one record of |m| and e per step) with the bare kernel on the identical trajectory
(same seed, so the same initial lattice and random numbers; no records): the cost of the
records and the chunked loop.

Prints a markdown table. Usage::

    .venv/bin/python benchmarks/bench_lattice.py [--sizes 16 32 64] [--rounds 5]
                                                 [--seconds 0.5] [--sweeps 200]

References
----------
U. Wolff, Phys. Rev. Lett. 62, 361 (1989).
R. J. Baxter, *Exactly Solved Models in Statistical Mechanics*, Academic Press (1982).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "plugins"))

from flocklab_testmodels.lattice import ISING_TC, potts_critical_temperature

from flocklab.core.driver import run as run_model
from flocklab.core.registry import get_model
from flocklab.core.time import RunControl

#: (model, extra parameters, T_c, gamma / nu).
CASES = (("ising", {}, ISING_TC, 7 / 4),
         ("potts", {"q": 3}, potts_critical_temperature(3), 26 / 15))


class Lattice:
    """A lattice at ``T`` and its kernel's arguments, advanced by updates without records."""

    def __init__(self, name: str, params: dict, seed: int = 1) -> None:
        from flocklab_testmodels.lattice_kernels import advance

        self.kernel = advance
        self.model = get_model(name)
        self.params = self.model.prepare(params)
        self.state = self.model.initial_state(self.params, np.random.default_rng(seed))
        self.step = 0

    def updates(self, count: int) -> tuple[int, float]:
        """``count`` cluster updates: ``(flipped sites, wall seconds)``."""
        none = np.full(self.step + count + 1, -1, dtype=np.int64)
        series, frames = np.empty(0), np.empty((0, self.state["spins"].size), dtype=np.int8)
        s, p = self.state, self.params
        started = time.perf_counter()
        flipped = self.kernel(s["spins"], p["L"], self.model.states(p),
                              self.model.bond_probability(p), 1, self.model.ising, s["_key"],
                              self.step, count, s["_stack"], s["_members"], s["_counts"],
                              series, series, none, none, frames)
        seconds = time.perf_counter() - started
        self.step += count
        return int(flipped), seconds


def kernel_row(name: str, extra: dict, side: int, temperature: float, args: argparse.Namespace
               ) -> tuple[float, float]:
    """Median seconds per update and mean cluster size of ``name`` at ``temperature``, in
    equilibrium."""
    lattice = Lattice(name, {"L": side, "T": temperature, **extra})
    flipped, started = 0, time.perf_counter()
    while flipped < args.sweeps * side**2 and time.perf_counter() - started < 60:
        flipped += lattice.updates(200)[0]  # compile and equilibrate
    _, pilot = lattice.updates(2000)
    count = max(1000, int(args.seconds / max(pilot / 2000, 1e-9)))
    times, flipped = [], 0
    for _ in range(args.rounds):
        sites, wall = lattice.updates(count)
        times.append(wall / count)
        flipped += sites
    return statistics.median(times), flipped / (args.rounds * count)


def driver_row(name: str, extra: dict, side: int, temperature: float, steps: int
               ) -> tuple[float, float]:
    """Seconds per step of a driver run recording every step, and of the bare kernel on the
    same trajectory (best of three each)."""
    model = get_model(name)
    params = {"L": side, "T": temperature, **extra}
    driver, bare = [], []
    for _ in range(3):
        driver.append(run_model(model, params, RunControl(seed=3, steps=steps)).loop_seconds)
        lattice = Lattice(name, params, seed=3)
        bare.append(lattice.updates(steps)[1])
    return min(driver) / steps, min(bare) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5,
                        help="wall time of one timed round (s)")
    parser.add_argument("--sweeps", type=float, default=200,
                        help="equilibration: flipped sites in units of N")
    args = parser.parse_args()
    print("| model | L | T_c | µs / update | ns / flipped site | <abs(C)> | "
          "<abs(C)> / L^(γ/ν) | <abs(C)> / N | driver µs / step | bare kernel µs / step |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, extra, critical, exponent in CASES:
        label = name + "".join(f" q={value}" for value in extra.values())
        for side in args.sizes:
            per_update, size = kernel_row(name, extra, side, critical, args)
            driver, bare = driver_row(name, extra, side, critical,
                                      max(2000, int(0.2 / per_update)))
            print(f"| {label} | {side} | {critical:.6f} | {per_update * 1e6:.3f} | "
                  f"{per_update / size * 1e9:.1f} | {size:.1f} | "
                  f"{size / side ** exponent:.3f} | {size / side ** 2:.3f} | "
                  f"{driver * 1e6:.3f} | {bare * 1e6:.3f} |", flush=True)


if __name__ == "__main__":
    main()
