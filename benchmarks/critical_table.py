"""Tables of the critical fits and finite-size scaling of finished studies, for the docs.

Reads ``RESULTS/<study>/critical.json`` (and ``fss.json`` where present) of the named
studies and writes one Markdown table per study: per curve the critical value and exponent
with their calibrated 68 % intervals, the two halves of the seeds with z and agreement, the
fit's χ²/dof, the points short of independent samples, whether the numbers can be quoted
(and why not), and refusals with their reason; then the finite-size scaling's χ-peak
positions, Binder crossings, discontinuity flags and its comparison with the fits.

Usage::

    .venv/bin/python benchmarks/critical_table.py RESULTS STUDY [STUDY ...]
        [--markdown benchmarks/results/critical_default.md] [--title TEXT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _interval(entry: dict[str, Any]) -> str:
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


def critical_rows(document: dict[str, Any]) -> list[str]:
    fits = document.get("fits", [document] if "control" in document else [])
    rows = []
    for fit in fits:
        control = fit["control"]
        critical, exponent = f"{control}_c", ("beta" if fit["side"] == "below" else "delta")
        halves = fit.get("split_half", {})
        cells = [_curve(fit), _interval(fit[critical]), _interval(fit[exponent])]
        for name in (critical, exponent):
            split = halves.get(name, {})
            parts = [_half(h) for h in split.get("halves", [])]
            z = split.get("z")
            cells.append(" / ".join(parts) + (f" (z = {z:.1f})" if z is not None else ""))
        cells += [f"{fit['chi2_per_dof']:.2f}", str(len(fit.get("short_points", []))),
                  "yes" if fit.get("quotable") else
                  ", ".join(fit.get("reasons", [])).replace("halves", "halves disagree")]
        rows.append("| " + " | ".join(cells) + " |")
    for failure in document.get("failed", []):
        rows.append(f"| {_curve(failure)} | refused: {failure['error']} | | | | | | |")
    return rows


def fss_lines(document: dict[str, Any]) -> list[str]:
    control = document["control"]
    peaks = ", ".join(f"{size:g}: {_interval(entry)}" for size, entry
                      in zip(document["sizes"], document[f"{control}_c_chi"], strict=True))
    crossings = "; ".join(f"{c['sizes'][0]:g}/{c['sizes'][1]:g}: "
                          + (", ".join(f"{x:.3f}" for x in c[control]) or "none")
                          for c in document["binder_crossings"])
    collapse = document.get("collapse", {})
    text = [f"- χ peaks {control}_c(L) (L: value [68 %]): {peaks}",
            f"- Binder crossings: {crossings}",
            f"- discontinuity suspected: {document['discontinuity_suspected']}"]
    if f"{control}_c" in collapse:
        text.append(f"- collapse: {control}_c = {_interval(collapse[f'{control}_c'])}, "
                    f"quality S = {collapse['quality']:.2f}")
    if "fits_against_peaks" in document:
        comparison = document["fits_against_peaks"]
        text.append(f"- fits against χ maxima: **{comparison['verdict']}** — "
                    f"{comparison['text']}")
    return text


def study_table(results: Path, study: str) -> str:
    document = json.loads((results / study / "critical.json").read_text())
    lines = [f"**{study}**", "", "| curve | critical value | exponent | halves (critical) "
             "| halves (exponent) | χ²/dof | short points | quotable |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |", *critical_rows(document)]
    fss = results / study / "fss.json"
    if fss.exists():
        lines += ["", *fss_lines(json.loads(fss.read_text()))]
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
