r"""The polar order of independent headings: the finite-N floor of an order parameter.

For :math:`n` independent headings uniform on the circle, the polar order parameter
:math:`P = |\sum_i \mathbf e_i| / n` (Vicsek's :math:`v_a`, Couzin's group polarisation)
does not vanish: it is the length of an :math:`n`-step planar random walk of unit steps
divided by :math:`n`. Its mean follows from the radial characteristic function
:math:`J_0(t)^n` of the walk (Kluyver 1906):

.. math::

    E\,|S_n| = \int_0^\infty \frac{1 - J_0(t)^n}{t^2}\,dt, \qquad
    E\,|S_n|^2 = n,

so :math:`E\,P = E|S_n|/n` exactly and :math:`\mathrm{sd}\,P = \sqrt{n - (E|S_n|)^2}/n`.
For large :math:`n` the sum is Gaussian and :math:`|S_n|` Rayleigh-distributed:
:math:`E\,P \to \sqrt{\pi/(4n)}`, :math:`\mathrm{sd}\,P \to \sqrt{(1 - \pi/4)/n}`.
A measured order parameter at this level says "no more order than chance", not "ordered".

References
----------
J. C. Kluyver, "A local probability problem", Proc. Royal Acad. Amsterdam 8, 341-350
(1906). K. Pearson, "The problem of the random walk", Nature 72, 294 (1905).
Lord Rayleigh, "On the problem of random vibrations, and of random flights in one, two,
or three dimensions", Phil. Mag. 37, 321-347 (1919).
"""

from __future__ import annotations

import math

__all__ = ["random_heading_order", "random_heading_order_large_n"]


def random_heading_order_large_n(n: int) -> tuple[float, float]:
    r"""Large-``n`` mean and standard deviation of :math:`P` for ``n`` uniform 2-D headings.

    :math:`\sum_i \mathbf e_i` has independent Gaussian components of variance :math:`n/2`,
    so :math:`|\sum_i \mathbf e_i|` is Rayleigh: :math:`E\,P = \sqrt{\pi/(4n)}`,
    :math:`\mathrm{Var}\,P = (1 - \pi/4)/n` (relative error :math:`O(1/n)`).

    Examples
    --------
    >>> mean, sd = random_heading_order_large_n(100)
    >>> round(mean, 4), round(sd, 4)
    (0.0886, 0.0463)
    """
    _check_count(n)
    return math.sqrt(math.pi / (4 * n)), math.sqrt((1 - math.pi / 4) / n)


def random_heading_order(n: int) -> tuple[float, float]:
    r"""Exact mean and standard deviation of the polar order :math:`P` of ``n`` independent
    headings uniform on the circle (module docstring: Kluyver's integral).

    Parameters
    ----------
    n : int
        Number of headings, >= 1.

    Returns
    -------
    (float, float)
        :math:`E\,P` and :math:`\mathrm{sd}\,P` (dimensionless).

    Examples
    --------
    One heading is always ordered; two give :math:`E|\cos(\phi/2)| = 2/\pi`:

    >>> random_heading_order(1)[0]
    1.0
    >>> round(random_heading_order(2)[0] * math.pi / 2, 8)
    1.0
    >>> round(random_heading_order(5)[0], 4)
    0.4016
    """
    _check_count(n)
    if n == 1:
        return 1.0, 0.0
    mean_length = _kluyver_mean_length(n)
    spread = math.sqrt(max(n - mean_length * mean_length, 0.0))
    return mean_length / n, spread / n


def _kluyver_mean_length(n: int) -> float:
    r""":math:`E|S_n| = \int_0^\infty (1 - J_0(t)^n)\,t^{-2}\,dt`, integrated to a cut
    :math:`T` where :math:`|J_0(t)|^n` is negligible or by its asymptotic tail: beyond
    :math:`T`, :math:`\int_T^\infty t^{-2}\,dt = 1/T` and the oscillating
    :math:`J_0(t)^n t^{-2}` part is bounded by :math:`(2/\pi T)^{n/2} / T`."""
    from scipy import integrate, special

    def integrand(t: float) -> float:
        if t < 1e-4:  # 1 - J0(t)^n = n t^2/4 + O(n^2 t^4): the limit at 0 is n/4
            return n / 4.0
        return (1.0 - special.j0(t) ** n) / (t * t)

    cut = 200.0
    zeros = special.jn_zeros(0, 64)
    breaks = zeros[zeros < cut]
    value, _ = integrate.quad(integrand, 0.0, cut, points=breaks, limit=400,
                              epsabs=1e-12, epsrel=1e-11)
    return value + 1.0 / cut - _tail_correction(n, cut)


def _tail_correction(n: int, cut: float) -> float:
    r""":math:`\int_T^\infty J_0(t)^n t^{-2}\,dt` for :math:`n \ge 2`, by quadrature of the
    asymptotic :math:`J_0(t)^n` over :math:`[T, 50T]` (beyond, below :math:`10^{-10}`)."""
    from scipy import integrate, special

    value, _ = integrate.quad(lambda t: special.j0(t) ** n / (t * t), cut, 50.0 * cut,
                              limit=2000, epsabs=1e-13)
    return value


def _check_count(n: int) -> None:
    if int(n) != n or n < 1:
        raise ValueError(f"the number of headings must be an integer >= 1, got {n!r}")
