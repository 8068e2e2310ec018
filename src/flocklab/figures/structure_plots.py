r"""Figures of a study's spatial structure (``structure.nc``): pure functions, datasets to
figures. The study's summary is accepted for the figure kinds' common signature and not
needed.

* :func:`number_fluctuations_figure` — :math:`\Delta N` against :math:`\langle n\rangle` on
  log axes per point, the fit range, the fitted exponents and the slopes 1/2 and 0.8;
* :func:`band_profiles_figure` — density and polar order along the mean heading per point;
* :func:`velocity_correlation_figure` — :math:`C(r)/C(0)` against :math:`r` per point with
  the first zeros;
* :func:`correlation_length_figure` — :math:`r_0` against the flock size with the starling
  line :math:`r_0 = 0.35\,L` (Cavagna et al., PNAS 107, 11865, 2010) and a fitted slope.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from flocklab.figures import style

#: Slope of r_0 against the flock size L in starling flocks (Cavagna et al. 2010, 24 flocks).
STARLING_RATIO = 0.35
#: Reference exponents of Delta N ~ <n>^alpha: independent positions, giant fluctuations of
#: 2-D polar flocks (Chaté et al., Phys. Rev. E 77, 046113, 2008).
REFERENCE_SLOPES = ((0.5, "1/2 (independent positions)"), (0.8, "0.8 (Chaté et al. 2008)"))


def _point_name(label: str) -> str:
    """``"eta=0.3, noise=angular"`` of a point label."""
    return label.replace("_", ", ") if label != "single" else "the run"


def _curve(ds: xr.Dataset, i: int, grid: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Point ``i``'s curve ``name`` on its grid, the NaN padding dropped."""
    x = ds[grid].values[i]
    y = ds[name].values[i]
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def _alpha_text(ds: xr.Dataset, key: str, i: int) -> str:
    value = float(ds[key].values[i])
    if not np.isfinite(value):
        return "no fit"
    return (f"{value:.3f} [{float(ds[key + '_low'].values[i]):.3f}, "
            f"{float(ds[key + '_high'].values[i]):.3f}]")


def number_fluctuations_figure(summary: xr.Dataset | None, ds: xr.Dataset, title: str = ""
                               ) -> plt.Figure:
    """:math:`\\Delta N` against :math:`\\langle n\\rangle`, one line per point, on log axes;
    the legend gives each point's :math:`\\alpha` with its 95 % interval and that of its
    uniform control; grey lines the reference slopes through the first point's smallest box
    in the fit range."""
    fig, axes = style.new_figure(extra=(2.6, 0.0))
    ax = axes[0, 0]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, label in enumerate(ds["point"].values):
        n, dn = _curve(ds, i, "mean_count", "count_std")
        keep = n > 0
        colour = colours[i % len(colours)]
        ax.loglog(n[keep], dn[keep], "o-", ms=3, lw=1, color=colour,
                  label=f"{_point_name(str(label))}: α = "
                        f"{_alpha_text(ds, 'number_fluctuation_exponent', i)}; control "
                        f"{_alpha_text(ds, 'control_exponent', i)}")
    n0, dn0 = _curve(ds, 0, "mean_count", "count_std")
    anchor = np.flatnonzero(n0 > 10.0)
    if anchor.size:
        a = anchor[np.argmin(n0[anchor])]
        span = np.geomspace(n0[a], n0.max(), 20)
        for (slope, text), dash in zip(REFERENCE_SLOPES, ("--", ":"), strict=True):
            ax.loglog(span, dn0[a] * (span / n0[a]) ** slope, dash, color="0.4", lw=1,
                      label=f"slope {text}")
    ax.set_xlabel(r"mean box count $\langle n\rangle$")
    ax.set_ylabel(r"standard deviation $\Delta N$")
    style.legend(fig, ax)
    style.title(fig, title)
    return fig


def band_profiles_figure(summary: xr.Dataset | None, ds: xr.Dataset, title: str = ""
                         ) -> plt.Figure:
    """Density over the mean density (left) and polar order (right) along the mean heading
    per point, the profiles aligned on their dominant mode; legend: band flag and amplitude."""
    fig, axes = style.new_figure(1, 2, extra=(2.4, 0.0))
    flags = {1: "band", 0: "no band", -1: "untestable"}
    for i, label in enumerate(ds["point"].values):
        s, rho = _curve(ds, i, "s_value", "density_profile")
        _, order = _curve(ds, i, "s_value", "order_profile")
        length = s.max() + s.min() if s.size else 1.0
        fraction = float(ds["band_fraction"].values[i])
        amplitude = np.nanmean(ds["band_amplitude"].values[i])
        text = (f"{_point_name(str(label))}: bands in {fraction:.0%} of runs, "
                f"amplitude {amplitude:.2f}" if np.isfinite(fraction) else
                f"{_point_name(str(label))}: {flags[-1]}")
        axes[0, 0].plot(s / length, rho, lw=1, label=text)
        if order.size == s.size:
            axes[0, 1].plot(s / length, order, lw=1)
    axes[0, 0].axhline(1.0, color="0.6", lw=0.8)
    axes[0, 0].set_ylabel(r"density / mean density $\rho(s)/\rho_0$")
    axes[0, 1].set_ylabel(r"polar order $\langle\hat v\cdot\hat V\rangle(s)$")
    for ax in axes[0]:
        ax.set_xlabel(r"position along the mean heading $s/L$")
    style.legend(fig, axes)
    style.title(fig, title)
    return fig


def velocity_correlation_figure(summary: xr.Dataset | None, ds: xr.Dataset, title: str = ""
                                ) -> plt.Figure:
    """:math:`C(r)/C(0)` against :math:`r` per point (replicate means), with each point's
    mean first zero :math:`r_0` marked."""
    fig, axes = style.new_figure(extra=(2.2, 0.0))
    ax = axes[0, 0]
    for i, label in enumerate(ds["point"].values):
        r, c = _curve(ds, i, "r_value", "velocity_correlation")
        r0 = np.nanmean(ds["correlation_length"].values[i])
        (line,) = ax.plot(r, c, lw=1, label=f"{_point_name(str(label))}: r_0 = {r0:.3g}")
        if np.isfinite(r0):
            ax.plot([r0], [0.0], "x", color=line.get_color(), ms=6)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel("distance $r$")
    ax.set_ylabel(r"connected velocity correlation $C(r)/C(0)$")
    style.legend(fig, ax)
    style.title(fig, title)
    return fig


def correlation_length_figure(summary: xr.Dataset | None, ds: xr.Dataset, title: str = ""
                              ) -> plt.Figure:
    """:math:`r_0` against the flock size :math:`L`: every run (small dots), the point means
    with their standard errors, the least-squares line through the origin with its slope
    (standard error from the point means' scatter) and the starlings' :math:`0.35\\,L`."""
    fig, axes = style.new_figure(extra=(2.2, 0.0))
    ax = axes[0, 0]
    size, r0 = ds["flock_size"].values, ds["correlation_length"].values
    ax.plot(size.ravel(), r0.ravel(), ".", color="0.6", ms=3, label="runs")
    mean_l, mean_r = np.nanmean(size, axis=1), np.nanmean(r0, axis=1)
    counts = np.sum(np.isfinite(r0), axis=1)
    sem = np.nanstd(r0, axis=1, ddof=1) / np.sqrt(np.maximum(counts, 1))
    ax.errorbar(mean_l, mean_r, yerr=sem, fmt="o", ms=4, capsize=2, label="point means ± s.e.")
    keep = np.isfinite(mean_l) & np.isfinite(mean_r)
    top = float(np.nanmax(size)) * 1.05 if keep.any() else 1.0
    line = np.array([0.0, top])
    if keep.sum() >= 2:
        slope = float(np.sum(mean_l[keep] * mean_r[keep]) / np.sum(mean_l[keep] ** 2))
        resid = mean_r[keep] - slope * mean_l[keep]
        err = float(np.sqrt(np.sum(resid**2) / (keep.sum() - 1) / np.sum(mean_l[keep] ** 2)))
        ax.plot(line, slope * line, "-", lw=1, label=f"fit r_0 = ({slope:.3f} ± {err:.3f}) L")
    ax.plot(line, STARLING_RATIO * line, "--", color="k", lw=1,
            label="starlings r_0 = 0.35 L (Cavagna et al. 2010)")
    ax.set_xlim(0.0, top)
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel("flock size $L$ (largest distance between two agents)")
    ax.set_ylabel("correlation length $r_0$ (first zero of $C$)")
    style.legend(fig, ax)
    style.title(fig, title)
    return fig
