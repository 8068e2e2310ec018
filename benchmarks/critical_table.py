"""Tables of the critical fits and finite-size scaling of finished studies, for the docs.

Reads ``RESULTS/<study>/critical.json`` (and ``fss.json`` where present) of the named
studies and writes one Markdown table per study: per curve the single-size *effective*
critical value and exponent with their calibrated 68 % intervals, the two halves of the
seeds with z and agreement, the fit's χ²/dof, the points short of independent samples, what
limits the fit (the ``limits`` tags of critical.json: misfit, halves, wide, rounded, bound,
refits; "none" when nothing does), and refusals with their reason; then the finite-size
scaling: the critical value and the exponents ν, β/ν, γ/ν with their 68 % intervals (or why
they were refused), the χ maxima, the Binder crossings, the discontinuity flags, the collapse
and the comparison of the effective fits with the χ maxima.

Usage::

    .venv/bin/python benchmarks/critical_table.py RESULTS STUDY [STUDY ...]
        [--markdown benchmarks/results/critical_default.md] [--title TEXT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _interval(entry: dict[str, Any] | None) -> str:
    """``value [low, high]``; ``refused: reason`` or ``no interval`` where missing."""
    if not entry or entry.get("value") is None:
        return f"refused: {entry['refused']}" if entry and entry.get("refused") else "refused"
    if not entry.get("ci") or None in entry["ci"]:
        return f"{entry['value']:.3f} (no interval)"
    low, high = entry["ci"]
    return f"{entry['value']:.3f} [{low:.3f}, {high:.3f}]"


def _half(entry: dict[str, Any]) -> str:
    if "value" not in entry:
        return "refused"
    return f"{entry['value']:.3f} ± {entry['half_width']:.3f}"


def _curve(fit: dict[str, Any]) -> str:
    keys = [k for k in fit if k not in ("control", "coordinate", "side", "observable")
            and not isinstance(fit[k], (dict, list)) and k in ("N", "L", "update", "density")]
    return ", ".join(f"{k} = {fit[k]}" for k in keys) or "all"


def _exponent(fit: dict[str, Any], critical: str) -> str:
    """The exponent's name: the jackknife's other quantity (the model's declaration), else
    beta below and delta above."""
    names = [name for name in fit.get("jackknife", {}) if name != critical]
    return names[0] if names else ("beta" if fit["side"] == "below" else "delta")


def critical_rows(document: dict[str, Any]) -> list[str]:
    fits = document.get("fits", [document] if "control" in document else [])
    rows = []
    for fit in fits:
        control = fit["control"]
        critical = f"{control}_c"
        exponent = _exponent(fit, critical)
        halves = fit.get("split_half", {})
        cells = [_curve(fit), _interval(fit[critical]), _interval(fit[exponent])]
        for name in (critical, exponent):
            split = halves.get(name, {})
            parts = [_half(h) for h in split.get("halves", [])]
            z = split.get("z")
            cells.append(" / ".join(parts) + (f" (z = {z:.1f})" if z is not None else ""))
        cells += [f"{fit['chi2_per_dof']:.2f}", str(len(fit.get("short_points", []))),
                  ", ".join(fit.get("limits", [])).replace("halves", "halves disagree")
                  or "none"]
        rows.append("| " + " | ".join(cells) + " |")
    for failure in document.get("failed", []):
        rows.append(f"| {_curve(failure)} | refused: {failure['error']} | | | | | | |")
    return rows


HEADLINE = (("x_c", "{control}_c"), ("nu", "ν"), ("beta_over_nu", "β/ν"),
            ("gamma_over_nu", "γ/ν"), ("hyperscaling", "2β/ν + γ/ν − d"))


def fss_lines(document: dict[str, Any]) -> list[str]:
    """The finite-size scaling of fss.json as Markdown list items."""
    control = document["control"]
    if "refused" in document:
        return [f"- finite-size scaling refused: {document['refused']}"]
    size = document.get("size", "L")
    text = [f"- {symbol.format(control=control)} = {_interval(document.get(name))}"
            for name, symbol in HEADLINE if name in document]
    peaks = ", ".join(f"{peak['size']:g}: {_interval(peak['x'])}"
                      + (" (at the range's end)" if peak.get("at_edge") else "")
                      for peak in document.get("peaks", []))
    crossings = "; ".join(f"{c['sizes'][0]:g}/{c['sizes'][1]:g}: "
                          + (_interval(c["x"]) if c.get("counted") else "not counted")
                          for c in document.get("binder_crossings", []))
    flags = document.get("discontinuity", {})
    text += [f"- χ maxima {control}*({size}) ({size}: value [68 %]): {peaks or 'none'}",
             f"- Binder crossings: {crossings or 'none'}",
             f"- discontinuity suspected: {flags.get('suspected')} (Binder dip per size: "
             f"{flags.get('binder_dip')}, bimodal: {flags.get('bimodal')})"]
    collapse = document.get("collapse")
    if collapse:
        quality = collapse.get("quality", {})
        text.append(f"- collapse: {control}_c = {_interval(collapse.get('x_c'))}, quality S = "
                    + (f"{quality['value']:.2f}" if quality.get("value") is not None
                       else "refused"))
    if document.get("warnings"):
        text.append(f"- warnings: {'; '.join(document['warnings'])}")
    if "effective_fits_against_peaks" in document:
        comparison = document["effective_fits_against_peaks"]
        text.append(f"- effective fits against χ maxima: **{comparison['verdict']}** — "
                    f"{comparison['text']}")
    return text


def study_table(results: Path, study: str) -> str:
    """The study's effective fits (where it has a critical section) and its finite-size
    scaling (where it has an fss section)."""
    lines = [f"**{study}**", ""]
    critical = results / study / "critical.json"
    if critical.exists():
        lines += ["| curve | effective critical value | effective exponent "
                  "| halves (critical) | halves (exponent) | χ²/dof | short points | limits |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |",
                  *critical_rows(json.loads(critical.read_text())), ""]
    fss = results / study / "fss.json"
    if fss.exists():
        lines += fss_lines(json.loads(fss.read_text()))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("studies", nargs="+")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--title", default="", help="a line printed above the tables")
    args = parser.parse_args()
    text = "\n".join([*([args.title, ""] if args.title else []),
                      *(study_table(args.results, study) for study in args.studies)])
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
