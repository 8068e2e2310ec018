r"""Figures of a finite-size scaling (``fss.nc``): pure functions, datasets to figures.

Every function reads only the FSS dataset (:mod:`flocklab.analysis.fss.dataset`), which
carries each size's curves and every estimate with its 68 % interval; the study's summary is
accepted for the figure kinds' common signature and not needed.

* :func:`fss_curves_figure` — :math:`\langle|P|\rangle`, the Binder cumulant :math:`U` and
  :math:`\chi` against the control per size, with the critical value's band, the counted
  crossings and the χ maxima;
* :func:`fss_scaling_figure` — the three power laws in :math:`L` (slope of U at
  :math:`x_c`, :math:`P(x_c, L)`, :math:`\chi_{\max}`) on log axes with their fitted lines;
* :func:`fss_critical_figure` — the pseudo-critical points (χ maxima, crossings) against
  :math:`L^{-1/\nu}` with the extrapolated critical value;
* :func:`collapse_figure` — :math:`P L^{\beta/\nu}` against :math:`t L^{1/\nu}`;
* :func:`distribution_figure` — the order parameter's histogram at each size's χ maximum.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.ticker import NullFormatter, NullLocator

from flocklab.figures import style

MARKERS = "osD^v<>ph*"


def _text(fss: xr.Dataset, name: str, digits: int = 3) -> str:
    """``"2.269 [2.265, 2.273]"`` of an estimate (``"refused"`` where NaN)."""
    value = float(fss[name]) if name in fss else np.nan
    if not np.isfinite(value):
        return "refused"
    low, high = float(fss[f"{name}_ci_low"]), float(fss[f"{name}_ci_high"])
    interval = f" [{low:.{digits}f}, {high:.{digits}f}]" if np.isfinite(low) else ""
    return f"{value:.{digits}f}{interval}"


def _symbols(fss: xr.Dataset) -> tuple[str, str, str]:
    """The control's, the size's and the observable's symbols (mathtext, no dollars)."""
    return (str(fss.attrs.get("symbol", fss.attrs.get("control", "x"))),
            str(fss.attrs.get("size", "L")), str(fss.attrs.get("observable_symbol", "P")))


def _refused(fss: xr.Dataset, title: str) -> plt.Figure | None:
    """A one-panel figure stating why the analysis was refused (None when it was not)."""
    if "refused" not in fss.attrs:
        return None
    fig, axes = style.new_figure()
    ax = axes[0, 0]
    ax.text(0.5, 0.5, style.wrap(f"finite-size scaling refused: {fss.attrs['refused']}", 40),
            ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    style.title(fig, title)
    return fig


def _critical_band(ax: Any, fss: xr.Dataset) -> None:
    """The critical value's 68 % interval as a grey band (nothing where refused)."""
    if np.isfinite(float(fss["x_c"])) and np.isfinite(float(fss["x_c_ci_low"])):
        ax.axvspan(float(fss["x_c_ci_low"]), float(fss["x_c_ci_high"]), color="0.85", zorder=0)


def fss_curves_figure(summary: xr.Dataset | None, fss: xr.Dataset, title: str = ""
                      ) -> plt.Figure:
    """Order parameter, Binder cumulant and susceptibility per size (three panels), with the
    analysis's verdict (the estimates, their intervals and what limits them) beneath."""
    refused = _refused(fss, title)
    if refused is not None:
        return refused
    symbol, size, p_symbol = _symbols(fss)
    verdict = str(fss.attrs.get("verdict", ""))
    fig, axes = style.new_figure(1, 3, extra=(1.4, 0.0), notes=[verdict] if verdict else ())
    names = (("order", rf"${p_symbol}$"), ("binder", "Binder cumulant $U$"),
             ("chi", r"susceptibility $\chi$"))
    for ax, (name, label) in zip(axes[0], names, strict=True):
        _critical_band(ax, fss)
        for s, value in enumerate(fss["size"].values):
            x = fss["control"].values[s]
            keep = np.isfinite(x)
            ax.errorbar(x[keep], fss[name].values[s][keep], yerr=fss[f"{name}_err"].values[s][
                keep], marker=MARKERS[s % len(MARKERS)], markersize=3, linewidth=0.8,
                capsize=1.5, color=f"C{s % 10}", label=f"${size}$ = {value:g}")
        ax.set_xlabel(rf"${symbol}$")
        ax.set_ylabel(label)
    crossing = fss["crossing"].values
    axes[0, 1].plot(crossing, fss["crossing_binder"].values, "k+", markersize=8,
                    label="counted crossings")
    axes[0, 2].set_yscale("log")
    peaks = fss["peak_location"].values
    axes[0, 2].plot(peaks, fss["peak_height"].values, "kx", markersize=6, label=r"$\chi$ maxima")
    located = np.isfinite(float(fss["x_c"]))
    style.panel_title(axes[0, 0], rf"${symbol}_c$ = {_text(fss, 'x_c')} (band)" if located
                      else rf"${symbol}_c$: no Binder crossing counts")
    style.legend(fig, axes)
    style.title(fig, title)
    return fig


def _power_panel(ax: Any, lengths: np.ndarray, values: np.ndarray, low: np.ndarray,
                 high: np.ndarray, exponent: float, label: str) -> None:
    """Points with their intervals on log axes and the line of slope ``exponent`` through
    their geometric mean."""
    keep = np.isfinite(values) & (values > 0)
    if not keep.any():
        ax.text(0.5, 0.5, style.wrap(f"{label}: nothing to draw", 30), ha="center",
                va="center", transform=ax.transAxes)
        return
    yerr = np.clip(np.nan_to_num(np.array([values - low, high - values])), 0, None)
    ax.errorbar(lengths[keep], values[keep], yerr=yerr[:, keep], fmt="o", capsize=2)
    if keep.sum() >= 2 and np.isfinite(exponent):
        grid = np.geomspace(lengths[keep].min() * 0.9, lengths[keep].max() * 1.1, 20)
        centre = np.exp(np.mean(np.log(values[keep]) - exponent * np.log(lengths[keep])))
        ax.plot(grid, centre * grid**exponent, "-", color="C1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    # the sizes as the ticks: minor log labels of a range under a decade overlap
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(lengths[keep], [f"{length:.3g}" for length in lengths[keep]])
    style.panel_title(ax, label)


def fss_scaling_figure(summary: xr.Dataset | None, fss: xr.Dataset, title: str = ""
                       ) -> plt.Figure:
    r"""The power laws in L behind :math:`1/\nu`, :math:`\beta/\nu` and :math:`\gamma/\nu`."""
    refused = _refused(fss, title)
    if refused is not None:
        return refused
    symbol, size, p_symbol = _symbols(fss)
    lengths = fss["length"].values
    fig, axes = style.new_figure(1, 3)
    panels = (("binder_slope", "inverse_nu", 1.0, rf"$|\partial U/\partial {symbol}|$ at "
               rf"${symbol}_c$", r"$1/\nu$"),
              ("order_at_critical", "beta_over_nu", -1.0, rf"${p_symbol}$ at ${symbol}_c$",
               r"$\beta/\nu$"),
              ("peak_height", "gamma_over_nu", 1.0, r"$\chi_{\max}$", r"$\gamma/\nu$"))
    for ax, (name, exponent, sign, ylabel, symbol_text) in zip(axes[0], panels, strict=True):
        _power_panel(ax, lengths, fss[name].values, fss[f"{name}_ci_low"].values,
                     fss[f"{name}_ci_high"].values, sign * float(fss[exponent]),
                     f"{symbol_text} = {_text(fss, exponent)}")
        ax.set_xlabel(f"linear size ${size}$")
        ax.set_ylabel(ylabel)
    style.title(fig, title)
    return fig


def fss_critical_figure(summary: xr.Dataset | None, fss: xr.Dataset, title: str = ""
                        ) -> plt.Figure:
    r"""χ maxima :math:`x^*(L)` and Binder crossings against :math:`L^{-1/\nu}` with the
    critical value's band and the peak-shift fit."""
    refused = _refused(fss, title)
    if refused is not None:
        return refused
    symbol, size, _ = _symbols(fss)
    inverse_nu, source = float(fss["inverse_nu"]), ""
    if not np.isfinite(inverse_nu):
        shift = float(fss["peak_shift_inverse_nu"])
        inverse_nu, source = ((shift, ", from the peak shift") if np.isfinite(shift)
                              else (1.0, ": not measured, 1 assumed"))
    lengths = fss["length"].values
    fig, axes = style.new_figure(extra=(1.9, 0.0))
    ax = axes[0, 0]
    peaks = fss["peak_location"].values
    yerr = np.clip(np.nan_to_num(np.array([peaks - fss["peak_location_ci_low"].values,
                                           fss["peak_location_ci_high"].values - peaks])), 0,
                   None)
    ax.errorbar(lengths ** -inverse_nu, peaks, yerr=yerr, fmt="o", capsize=2,
                label=r"$\chi$ maxima (68 %)")
    if np.isfinite(fss["crossing"].values).any():
        ax.plot(fss["pair_length"].values ** -inverse_nu, fss["crossing"].values, "s",
                mfc="none", label=rf"Binder crossings, at $\sqrt{{{size}_s {size}_t}}$")
    if "effective_x_c" in fss:
        ax.plot(lengths ** -inverse_nu, fss["effective_x_c"].values, "D", mfc="none",
                label="single-size effective fits")
    if np.isfinite(float(fss["x_c"])):
        ax.errorbar([0.0], [float(fss["x_c"])], yerr=[[float(fss["x_c"] - fss["x_c_ci_low"])],
                    [float(fss["x_c_ci_high"] - fss["x_c"])]], fmt="*", markersize=9,
                    color="k", capsize=2, label=rf"${symbol}_c$ = {_text(fss, 'x_c')}")
    ax.set_xlim(left=-0.04 * float(np.nanmax(lengths ** -inverse_nu)))
    ax.set_xlabel(rf"${size}^{{-1/\nu}}$ ($1/\nu$ = {inverse_nu:.2f}{source})" if not source
                  .startswith(":") else rf"${size}^{{-1/\nu}}$ ($1/\nu${source})")
    ax.set_ylabel(rf"pseudo-critical ${symbol}$")
    style.legend(fig, ax)
    style.title(fig, title)
    return fig


def collapse_figure(summary: xr.Dataset | None, fss: xr.Dataset, title: str = ""
                    ) -> plt.Figure:
    r""":math:`P L^{\beta/\nu}` against :math:`t L^{1/\nu}` at the collapse's optimum."""
    refused = _refused(fss, title)
    if refused is not None:
        return refused
    symbol, size, p_symbol = _symbols(fss)
    fig, axes = style.new_figure(extra=(1.1, 0.0))
    ax = axes[0, 0]
    if "collapse_x_c" not in fss or not np.isfinite(float(fss["collapse_x_c"])):
        ax.text(0.5, 0.5, "no collapse (see fss.json)", ha="center", transform=ax.transAxes)
        style.title(fig, title)
        return fig
    critical = float(fss["collapse_x_c"])
    beta_over_nu, inverse_nu = (float(fss["collapse_beta_over_nu"]),
                                float(fss["collapse_inverse_nu"]))
    for s, length in enumerate(fss["length"].values):
        x = fss["control"].values[s]
        scale = length**beta_over_nu
        ax.errorbar((x - critical) / abs(critical) * length**inverse_nu,
                    fss["order"].values[s] * scale, yerr=fss["order_err"].values[s] * scale,
                    marker=MARKERS[s % len(MARKERS)], markersize=3, linewidth=0.8,
                    capsize=1.5, label=f"${size}$ = {fss['size'].values[s]:g}")
    ax.set_xlabel(rf"$({symbol} - {symbol}_c)/{symbol}_c\;{size}^{{1/\nu}}$")
    ax.set_ylabel(rf"${p_symbol}\,{size}^{{\beta/\nu}}$")
    style.panel_title(ax, rf"$S$ = {float(fss['collapse_quality']):.2f}; "
                          rf"${symbol}_c$ = {critical:.4f}, $\beta/\nu$ = {beta_over_nu:.3f}, "
                          rf"$1/\nu$ = {inverse_nu:.3f}")
    style.legend(fig, ax)
    style.title(fig, title)
    return fig


def distribution_figure(summary: xr.Dataset | None, fss: xr.Dataset, title: str = ""
                        ) -> plt.Figure:
    """Histograms of P at each size's largest χ; a bimodal one is marked in the legend."""
    refused = _refused(fss, title)
    if refused is not None:
        return refused
    symbol, size, p_symbol = _symbols(fss)
    fig, axes = style.new_figure(extra=(2.0, 0.0))
    ax = axes[0, 0]
    if "histogram_at_peak" not in fss:
        ax.text(0.5, 0.5, "no histograms in the summary", ha="center", transform=ax.transAxes)
        style.title(fig, title)
        return fig
    centres = fss["bin"].values
    width = centres[1] - centres[0] if centres.size > 1 else 1.0
    for s, value in enumerate(fss["size"].values):
        mark = ", bimodal" if "bimodal" in fss and fss["bimodal"].values[s] else ""
        ax.step(centres, fss["histogram_at_peak"].values[s] / width, where="mid",
                label=f"${size}$ = {value:g}, ${symbol}$ = "
                      f"{float(fss['histogram_control'].values[s]):.3g}{mark}")
    ax.set_xlabel(rf"${p_symbol}$")
    ax.set_ylabel("probability density")
    style.legend(fig, ax, title=r"at the largest $\chi$")
    style.title(fig, title)
    return fig
