"""Stage *claims*: every claim a model's studies and tasks tested, with its verdict, in one
table per model → ``results/claims/<model>.csv``.

Claims come from two places: the ``claims`` of one-at-a-time sensitivity studies
(``results/<study>/sensitivity.json``, :func:`flocklab.analysis.sensitivity.evaluate_claims`)
and the ``verdicts`` a task returns (``results/tasks/<task>/result.json``). The table has one
row per claim: where it was tested, the claim, the verdict (holds, fails, inconclusive,
untestable), the evidence and, where the claim was tested statistically
(:mod:`flocklab.analysis.verdicts`), the test, the independent runs n, the effect with its
95 % interval and the p-value. I/O only.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from flocklab.core.io import write_text

COLUMNS = ("tested in", "claim", "verdict", "test", "n", "effect", "95 % interval", "p",
           "evidence")


def _number(value: Any) -> str:
    return "" if value is None or value != value else f"{value:.4g}"


def claim_rows(source: str, document: Mapping[str, Any]) -> list[dict[str, str]]:
    """The claims of one study's ``sensitivity.json`` (``claims``) or one task's document
    (``result.verdicts``), as table rows headed :data:`COLUMNS` (a field a claim does not
    carry is left empty)."""
    from flocklab.analysis.verdicts import format_p

    found = document.get("claims") or document.get("result", {}).get("verdicts") or []
    rows = []
    for entry in found:
        low, high, p = (entry.get(key) for key in ("low", "high", "p"))
        rows.append({
            "tested in": source, "claim": entry["claim"], "verdict": entry["verdict"],
            "test": entry.get("test", ""), "n": str(entry.get("n") or ""),
            "effect": _number(entry.get("effect")),
            "95 % interval": "" if not _number(low) else f"[{low:.4g}, {high:.4g}]",
            "p": "" if not _number(p) else format_p(p), "evidence": entry.get("evidence", "")})
    return rows


def write_claims_table(sources: Sequence[tuple[str, str | os.PathLike]],
                       out: str | os.PathLike) -> int:
    """Write the claims of ``sources`` (``(heading, JSON path)`` pairs) as one CSV table.

    Returns
    -------
    int
        The number of claims written (a table with only its header when none).
    """
    rows: list[dict[str, str]] = []
    for heading, path in sources:
        with open(path, encoding="utf-8") as stream:
            rows += claim_rows(heading, json.load(stream))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(buffer.getvalue(), out)
    return len(rows)
