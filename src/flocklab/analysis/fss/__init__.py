r"""Finite-size scaling (FSS) of an order–disorder transition (pure functions).

From the run moments of an order parameter :math:`P` at several sizes :math:`L` and values
of a control :math:`x`, the critical point :math:`x_c` and the exponents :math:`\nu`,
:math:`\beta/\nu`, :math:`\gamma/\nu` with 68 % bootstrap intervals, the hyperscaling
residual, the Binder crossings, the susceptibility maxima, a data collapse and the drift of
every estimate when the smallest size is dropped.

Modules of :mod:`flocklab.analysis.fss`:

* ``data`` — the summary's moments per size; curves χ, U from pooled moments;
* ``local`` — local quadratic fits: values, slopes, maxima, crossings;
* ``estimate`` — the estimators on one set of curves;
* ``collapse`` — the data collapse and its Houdayer–Hartmann quality;
* ``analysis`` — every estimator rerun on bootstrap resamples; drift;
* ``flags`` — Binder dip, bimodality, hysteresis;
* ``report`` — :func:`finite_size_scaling`: the JSON document and verdict;
* ``dataset`` — the same as a dataset (``fss.nc``);
* ``compare`` — single-size effective fits against the χ maxima.

The method is validated on models whose answers are known (the 2-D Ising and three-state
Potts models, see the documentation's critical-exponents page), not on data drawn from its
own assumptions.
"""

from flocklab.analysis.fss.report import finite_size_scaling

__all__ = ["finite_size_scaling"]
