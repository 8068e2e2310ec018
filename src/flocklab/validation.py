r"""Validating finite-size scaling on a model whose critical point is known.

A method is trusted once it recovers known answers on data it did not generate. For a
model with an exactly known critical value :math:`x_c` and exponents (the 2-D Ising and
Potts models, for instance), :func:`calibrate` simulates many independent copies of one
finite-size study — each copy with its own seeds — runs
:func:`flocklab.analysis.fss.finite_size_scaling` on each, and :func:`coverage` counts how
often the 68 % intervals hold the exact values. A well-calibrated interval covers in about
68 % of copies; far fewer means intervals too narrow (or a biased estimator), far more
intervals too wide.

The study's grids are the finite-size windows around the known point,

.. math:: x_j(L) = x_c\,(1 + s_j L^{-1/\nu}),

the same scaled offsets :math:`s_j` at every size, so that every size is sampled across its
own critical region (``window_grid``; the pipeline's configs write such grids as nested
sweeps, ``{L: [...], T: {each: [[...], ...]}}``).

References
----------
M. E. J. Newman and G. T. Barkema, *Monte Carlo Methods in Statistical Physics*, Oxford
University Press (1999), ch. 8.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

#: Default scaled offsets s_j of the window grids (12 points, more on the disordered side,
#: where the susceptibility maximum of a finite system lies).
SCALED_OFFSETS = tuple(np.round(np.linspace(-1.5, 3.0, 12), 6))

#: The quantities whose coverage is counted.
QUANTITIES = ("x_c", "nu", "beta_over_nu", "gamma_over_nu")


def window_grid(centre: float, sizes: Sequence[float], inverse_nu: float,
                offsets: Sequence[float] = SCALED_OFFSETS, digits: int = 6) -> list[list[float]]:
    r"""Per size, :math:`x_c(1 + s_j L^{-1/\nu})` rounded to ``digits`` decimals.

    Parameters
    ----------
    centre : float
        The critical value :math:`x_c` (units of the control).
    sizes : sequence of float
        Linear sizes L.
    inverse_nu : float
        :math:`1/\nu`: the window shrinks as :math:`L^{-1/\nu}`.
    offsets : sequence of float
        The scaled offsets :math:`s_j`.

    Returns
    -------
    list of list of float
        One grid per size, as a nested sweep takes it.
    """
    return [[round(float(centre * (1.0 + s * size ** -inverse_nu)), digits) for s in offsets]
            for size in sizes]


def study_summary(model: str, control: str, sizes: Sequence[int], grids: list[list[float]],
                  params: Mapping[str, Any], steps: int, replicates: int, seed: int
                  ) -> Any:
    """One finite-size study through :func:`flocklab.sweep`: the nested sweep
    ``{L: sizes, control: {each: grids}}``, burn-in a tenth of the run."""
    import flocklab

    return flocklab.sweep(model, [{"L": list(sizes), control: {"each": grids}}],
                          params=dict(params), steps=steps, burn_in=steps // 10,
                          replicates=replicates, seed=seed)


def one_copy(job: Mapping[str, Any]) -> dict[str, Any]:
    """Simulate and analyse one copy of the study (``job``: the arguments of
    :func:`calibrate` for one seed); the headline entries of the FSS document."""
    from flocklab.analysis.fss import finite_size_scaling

    summary = study_summary(job["model"], job["control"], job["sizes"], job["grids"],
                            job["params"], job["steps"], job["replicates"], job["seed"])
    _, document = finite_size_scaling(summary, job["control"], "L", job["settings"],
                                      seed=job["seed"])
    return {"seed": job["seed"], **{name: document[name] for name in QUANTITIES},
            "hyperscaling": document["hyperscaling"],
            "drift_without_smallest": document["drift_without_smallest"]}


def calibrate(model: str, control: str, sizes: Sequence[int], centre: float,
              inverse_nu: float, seeds: Sequence[int], *, params: Mapping[str, Any] | None = None,
              steps: int = 3000, replicates: int = 4, settings: Mapping[str, Any] | None = None,
              workers: int = 1) -> list[dict[str, Any]]:
    """Independent copies of one finite-size study and their analyses.

    Parameters
    ----------
    model, control : str
        Registered model and its critical control (swept as a nested axis against ``L``).
    sizes : sequence of int
        Lattice sizes L.
    centre, inverse_nu : float
        Where the window grids are centred and how they shrink (:func:`window_grid`): the
        known critical value and 1/nu (only the design uses them; the analysis does not).
    seeds : sequence of int
        One base seed per copy.
    params : mapping, optional
        Fixed model parameters.
    steps, replicates : int
        Run length and replicates per point.
    settings : mapping, optional
        FSS settings (:func:`flocklab.analysis.fss.finite_size_scaling`).
    workers : int
        Processes (results do not depend on it).

    Returns
    -------
    list of dict
        Per copy: ``seed`` and the entries of :data:`QUANTITIES`, ``hyperscaling`` and
        ``drift_without_smallest``.
    """
    grids = window_grid(centre, sizes, inverse_nu)
    jobs = [{"model": model, "control": control, "sizes": list(sizes), "grids": grids,
             "params": dict(params or {}), "steps": steps, "replicates": replicates,
             "seed": int(seed), "settings": dict(settings or {})} for seed in seeds]
    if workers <= 1:
        return [one_copy(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(one_copy, jobs))


def coverage(copies: Sequence[Mapping[str, Any]], exact: Mapping[str, float]
             ) -> dict[str, dict[str, float]]:
    """How often the intervals of ``copies`` hold the ``exact`` values.

    Returns
    -------
    dict
        Per quantity: ``n`` (copies with an interval), ``covered`` (fraction),
        ``standard_error`` (binomial, of that fraction), ``mean`` and ``sd`` of the
        estimates, ``bias`` (mean − exact), ``median_half_width``, and ``refused`` (copies
        without an estimate).
    """
    out = {}
    for name, truth in exact.items():
        rows = [c[name] for c in copies if c[name].get("ci")]
        values = np.array([r["value"] for r in rows], float)
        low = np.array([r["ci"][0] for r in rows], float)
        high = np.array([r["ci"][1] for r in rows], float)
        hit = (low <= truth) & (truth <= high)
        n = len(rows)
        fraction = float(hit.mean()) if n else float("nan")
        out[name] = {"n": n, "covered": fraction,
                     "standard_error": float(np.sqrt(fraction * (1 - fraction) / n)) if n
                     else float("nan"),
                     "mean": float(values.mean()) if n else float("nan"),
                     "sd": float(values.std(ddof=1)) if n > 1 else float("nan"),
                     "bias": float(values.mean() - truth) if n else float("nan"),
                     "median_half_width": float(np.median((high - low) / 2)) if n
                     else float("nan"),
                     "refused": len(copies) - n}
    return out
